"""Time series from schedule segments: step functions, energy integrals, downsampling."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = [
    "change_points",
    "downsample",
    "energy_j",
    "envelope",
    "exact_series",
    "power_from_segments",
    "step_series",
    "usage_by_resource",
]


def step_series(starts, ends, values) -> tuple[np.ndarray, np.ndarray]:
    """Sum of rectangles ``values[i]`` on ``[starts[i], ends[i])`` as a step function.

    Returns ``(t, level)``: ``level[k]`` holds on ``[t[k], t[k+1])`` and the last
    level is 0. O(n log n) in the number of segments.
    """
    starts = np.asarray(starts, dtype=float)
    ends = np.asarray(ends, dtype=float)
    values = np.broadcast_to(np.asarray(values, dtype=float), starts.shape)
    if starts.size == 0:
        return np.zeros(1), np.zeros(1)
    times = np.concatenate([starts, ends])
    deltas = np.concatenate([values, -values])
    t, inverse = np.unique(times, return_inverse=True)
    level = np.cumsum(np.bincount(inverse, weights=deltas, minlength=t.size))
    level[np.abs(level) < 1e-9] = 0.0
    return t, level


def energy_j(t: np.ndarray, power_w: np.ndarray) -> np.ndarray:
    """Cumulative energy of a step power function (``power_w[k]`` on ``[t[k], t[k+1])``)."""
    t = np.asarray(t, dtype=float)
    p = np.asarray(power_w, dtype=float)
    e = np.zeros_like(t)
    if t.size > 1:
        e[1:] = np.cumsum(p[:-1] * np.diff(t))
    return e


def change_points(t, columns: Mapping[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Piecewise-constant series sharing the time axis ``t``, reduced to their change points.

    ``columns[name][k]`` holds on ``[t[k], t[k+1])`` (``t`` non-decreasing). Of several
    records at one instant the last is kept (events of one instant are recorded one after
    another, and only the state after all of them lasts); a point where no column changes
    is dropped. The first and last points always stay (the last marks where the series
    ends). Nothing else is dropped, so every column's step integral
    ``Σ v[k]·(t[k+1] − t[k])`` is unchanged.
    """
    t = np.asarray(t, dtype=float)
    cols = {name: np.asarray(v, dtype=float) for name, v in columns.items()}
    if t.size < 2:
        return t, cols
    keep = np.append(t[1:] != t[:-1], True)  # the last record of each instant
    t = t[keep]
    cols = {name: v[keep] for name, v in cols.items()}
    if t.size > 2:
        same = np.ones(t.size - 1, dtype=bool)  # point k + 1 holds the level of point k in every column
        for v in cols.values():
            same &= v[1:] == v[:-1]
        keep = np.concatenate([[True], ~same[:-1], [True]])
        t = t[keep]
        cols = {name: v[keep] for name, v in cols.items()}
    return t, cols


def exact_series(
    t,
    columns: Mapping[str, Any],
    *,
    power: str | None = None,
    seconds_per_unit: float = 1.0,
    points: int | None = None,
) -> dict[str, list[float]]:
    """A run's stored series: every change point of the step functions ``columns`` (:func:`change_points`).

    With ``power`` (the name of a power column in W), ``energy_j`` is added: its cumulative
    step integral (:func:`energy_j`, ``t`` times ``seconds_per_unit`` in s), so the stored
    ``∫ power dt`` is the stored ``energy_j[-1]``. ``points`` is a family's stated cap
    (``params.series_points``): when set, each series keeps only :func:`downsample`'s bucket
    maxima and no longer integrates to the energy. Plain lists (results are JSON).
    """
    t, cols = change_points(t, columns)
    if power is not None:
        cols["energy_j"] = energy_j(t * seconds_per_unit, cols[power])
    if points is None:
        return {"t": t.tolist(), **{name: v.tolist() for name, v in cols.items()}}
    out: dict[str, list[float]] = {"t": []}
    for name, v in cols.items():
        out["t"], out[name] = downsample(t, v, points)
    return out


def usage_by_resource(segments: Iterable[Mapping]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-resource step functions of the held ``share``."""
    grouped: dict[str, list[tuple[float, float, float]]] = {}
    for seg in segments:
        grouped.setdefault(seg["resource"], []).append((seg["start"], seg["end"], seg.get("share", 1.0)))
    out = {}
    for res, rows in grouped.items():
        arr = np.asarray(rows, dtype=float)
        out[res] = step_series(arr[:, 0], arr[:, 1], arr[:, 2])
    return out


def power_from_segments(
    segments: Iterable[Mapping],
    capacity: Mapping[str, float],
    power_of: Callable[[str, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Total power over time: each resource's utilisation (share/capacity) through its model.

    A resource draws power only while it holds work (idle hosts are off), which is
    the convention of papers 002 and 003; families that keep idle hosts on add
    their idle power separately.
    """
    per_res = usage_by_resource(segments)
    if not per_res:
        return np.zeros(1), np.zeros(1)
    grid = np.unique(np.concatenate([t for t, _ in per_res.values()]))
    total = np.zeros(grid.size)
    for res, (t, level) in per_res.items():
        idx = np.searchsorted(t, grid, side="right") - 1
        lv = np.where(idx >= 0, level[np.clip(idx, 0, None)], 0.0)
        on = lv > 0
        util = np.clip(lv / capacity[res], 0.0, 1.0)
        total += np.where(on, power_of(res, util), 0.0)
    return grid, total


def downsample(t, values, points: int) -> tuple[list[float], list[float]]:
    """At most ``points`` samples of a step function, keeping each bucket's maximum.

    Peaks survive (a chart of power must not hide a spike); returns plain lists.
    """
    t = np.asarray(t, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.size <= points or points < 2:
        return t.tolist(), v.tolist()
    edges = np.linspace(t[0], t[-1], points + 1)
    bucket = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, points - 1)
    out = np.full(points, -np.inf)
    np.maximum.at(out, bucket, v)
    keep = np.isfinite(out)
    return edges[:-1][keep].tolist(), out[keep].tolist()


def envelope(t, values, points: int, lo: float | None = None, hi: float | None = None) -> dict[str, list[float]]:
    """A step function over ``[lo, hi]`` in at most ``points`` equal buckets, for display.

    Per bucket: the time-weighted **mean** (so the area, e.g. energy under power, is kept
    exactly: Σ mean × width = ∫ over the window) and the **min** and **max** of the levels
    held in it (so no spike or dip disappears). ``values[k]`` holds on ``[t[k], t[k+1])``;
    the last level holds at ``t[-1]`` only. A series with no more change points than
    ``points`` in the window comes back as it is (``min`` = ``max`` = ``v``).
    """
    t = np.asarray(t, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.size == 0:
        return {"t": [], "v": [], "min": [], "max": [], "exact": True}
    # Only where the series has values: a run that ended earlier is not drawn as zero afterwards.
    lo = float(t[0]) if lo is None else max(float(lo), float(t[0]))
    hi = float(t[-1]) if hi is None else min(float(hi), float(t[-1]))
    a = max(0, int(np.searchsorted(t, lo, side="right")) - 1)
    b = int(np.searchsorted(t, hi, side="right"))
    if b - a <= points or hi <= lo or points < 1:
        tt, vv = t[a:b], v[a:b]
        return {"t": tt.tolist(), "v": vv.tolist(), "min": vv.tolist(), "max": vv.tolist(), "exact": True}
    edges = np.linspace(lo, hi, points + 1)
    # Only the levels holding inside the window (t[a] ≤ lo, t[b-1] the last change point ≤ hi), not the
    # whole series: a narrow window of a long series costs its own length. hi ≤ t[-1], so no level is
    # integrated past the series' end.
    t, v = t[a:b], v[a:b]
    cum = np.concatenate([[0.0], np.cumsum(v[:-1] * np.diff(t))])  # ∫ from t[0] (the window's first level) to t[k]

    def integral(x):
        i = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 1)
        return cum[i] + v[i] * (x - t[i])

    width = (hi - lo) / points
    mean = np.diff(integral(edges)) / width
    first = np.clip(np.searchsorted(t, edges[:-1], side="right") - 1, 0, t.size - 1)  # level at a bucket's start
    last = np.clip(np.searchsorted(t, edges[1:], side="left") - 1, first, t.size - 1)  # last level started inside
    idx = np.empty(2 * points, dtype=np.int64)
    idx[0::2], idx[1::2] = first, np.minimum(last + 1, t.size - 1)
    lows = np.minimum.reduceat(v, idx)[0::2]
    highs = np.maximum.reduceat(v, idx)[0::2]
    tail = last + 1 == t.size  # reduceat stops one short when a bucket runs to the last level
    lows = np.where(tail, np.minimum(lows, v[-1]), lows)
    highs = np.where(tail, np.maximum(highs, v[-1]), highs)
    return {"t": edges[:-1].tolist(), "v": mean.tolist(), "min": lows.tolist(), "max": highs.tolist(), "exact": False}
