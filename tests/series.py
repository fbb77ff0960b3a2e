"""Checks of a family's stored time series: change points only, integrated as step functions.

A stored series is piecewise constant: ``v[k]`` holds on ``[t[k], t[k+1])`` (docs/results.md).
"""

from __future__ import annotations

import numpy as np

CUMULATIVE = frozenset({"t", "energy_j"})  # not step functions: the time axis and ∫ power


def step_integral(t, v, seconds_per_unit: float = 1.0) -> float:
    """∫ of the step function ``v`` over the stored change points (``t`` times ``seconds_per_unit`` in s)."""
    t = np.asarray(t, dtype=float) * seconds_per_unit
    return float(np.sum(np.asarray(v, dtype=float)[:-1] * np.diff(t)))


def assert_change_points(series: dict) -> None:
    """Every stored point is a change: one point per instant, none repeating all levels of the one before.

    The last point may repeat (it marks where the series ends).
    """
    t = np.asarray(series["t"], dtype=float)
    assert np.all(np.diff(t) > 0), "one point per instant (the last state of each)"
    steps = [np.asarray(v, dtype=float) for k, v in series.items() if k not in CUMULATIVE]
    if t.size > 2 and steps:
        repeats = np.logical_and.reduce([v[1:-1] == v[:-2] for v in steps])
        assert not repeats.any(), f"{int(repeats.sum())} points repeat the levels before them"
