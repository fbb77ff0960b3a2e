"""Time series from schedule segments: step functions, energy integrals, downsampling."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np

__all__ = ["downsample", "energy_j", "envelope", "power_from_segments", "step_series", "usage_by_resource"]


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
    dt = np.diff(t)
    cum = np.concatenate([[0.0], np.cumsum(v[:-1] * dt)])  # ∫ from t[0] to t[k]

    def integral(x):
        i = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 1)
        inside = x >= t[0]
        return np.where(inside, cum[i] + v[i] * np.minimum(x - t[i], np.where(i < t.size - 1, np.inf, 0.0)), 0.0)

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
