"""The series chart: every series of every algorithm of a repetition, windowed (the DVFS frequency strips
drawn beside it: ``results.strips``).

Series are stored exact (change points). A window comes exact at its edges (each line starts at the
window's start and ends at its end with the value holding there) and, between them, as every change
point or, where there are more than the chart has pixels, as buckets: the time-weighted mean with the
min and max of the levels held in each (``core.series.envelope``). ``energy_j`` is cumulative and
interpolated, never held.
"""

import numpy as np

from cloudsched_web.results.arrays import rounded, rounded_list
from cloudsched_web.results.queries import QueryError, bounded, window
from schedulers.core.series import energy_j, envelope

__all__ = ["CUMULATIVE", "MAX_POINTS", "POINTS", "series", "series_span"]

POINTS = 600
MAX_POINTS = 2000  # a line or strip never has more points than a wide screen has pixels


def _series_arrays(parsed, index):
    def build():
        data = parsed.series_arrays(index)
        t = np.asarray(data["t"] if data.get("t") is not None else [], dtype=float)
        out = {k: np.asarray(v, dtype=float) for k, v in data.items() if k != "t" and len(v) == t.size}
        if t.size and "power_w" in out and "energy_j" not in out:
            out["energy_j"] = energy_j(t, out["power_w"])  # cumulative energy from the power curve
        return t, out

    return parsed.memo(("series", index), build)


CUMULATIVE = ("energy_j",)  # piecewise linear between stored points (∫ power so far): interpolated, never held


def _level(t, v, x):
    """The level a step series holds at ``x`` (``v[k]`` on ``[t[k], t[k+1])``; the last from ``t[-1]`` on)."""
    return v[max(0, int(np.searchsorted(t, x, side="right")) - 1)]


def _cut(t, v, lo, hi, points, cumulative=False):
    """One line inside ``[lo, hi]`` for display, exact at both edges.

    A point at the window's start and one at its end carry the value holding there (a step series'
    held level; a cumulative one's interpolated value), so a line crosses the whole window even when
    its nearest change points lie outside it. Between them: every change point when there are at most
    ``points``; else ``points`` equal buckets (``bucket`` wide), each the time-weighted mean with the
    min and max of the levels held in it (a cumulative series: its values at the bucket edges, linear
    between). Before a series' first point and after its last nothing is drawn.
    """
    if not t.size:
        return {"t": [], "v": []}
    lo, hi = max(lo, float(t[0])), min(hi, float(t[-1]))
    if hi < lo:
        return {"t": [], "v": []}
    a, b = int(np.searchsorted(t, lo, side="right")), int(np.searchsorted(t, hi, side="left"))
    if b - a <= points or hi == lo:
        tt = np.concatenate([[lo], t[a:b], [hi]]) if hi > lo else np.array([lo])
        if cumulative:
            vv = np.interp(tt, t, v)
        else:
            vv = np.concatenate([[_level(t, v, lo)], v[a:b], [_level(t, v, hi)]])[: tt.size]
        return {"t": rounded_list(tt, 3), "v": np.asarray(vv, dtype=float).tolist()}  # the stored levels, unrounded
    edges = np.linspace(lo, hi, points + 1)
    out = {"t": rounded_list(edges, 3), "bucket": (hi - lo) / points, "changes": b - a}
    if cumulative:
        out["v"] = rounded_list(np.interp(edges, t, v))
        return out
    env = envelope(t, v, points, lo, hi)
    end = rounded(float(_level(t, v, hi)))  # the closing point: the level holding at the window's end
    out.update({k: [*rounded_list(env[k]), end] for k in ("v", "min", "max")})
    return out


def series(parsed, repetition, t0=None, t1=None, points=POINTS):
    """Every series of every algorithm of one repetition, windowed: ``{name: {algorithm: {t, v}}}``.

    ``points`` (the chart's width in pixels, at most ``MAX_POINTS``) bounds the points of a line
    (:func:`_cut`). ``coincide`` names, per series, the groups of algorithms whose lines are identical
    in the window (one would hide the other).
    """
    points = bounded(points, "points", 2, MAX_POINTS)
    runs = [(i, r) for i, r in enumerate(parsed.doc.get("runs", [])) if r.get("repetition", 0) == repetition]
    if not runs:
        raise QueryError("repetition", f"no repetition {repetition}", "one of the run's repetitions")
    full = series_span(parsed, [i for i, _ in runs])
    lo, hi = window(t0, t1, full)
    out = {}
    for i, r in runs:
        t, arrays = _series_arrays(parsed, i)
        for name, v in arrays.items():
            out.setdefault(name, {})[r.get("algorithm", str(i))] = _cut(t, v, lo, hi, points, name in CUMULATIVE)
    return {"repetition": repetition, "window": [lo, hi], "span": full, "series": out,
            "cumulative": [n for n in out if n in CUMULATIVE], "coincide": _coinciding(out)}  # fmt: skip


def series_span(parsed, indexes):
    """``[first, last]`` time of the series of runs ``indexes`` (``[0, 0]`` without any): the whole-run window
    of the series chart and of the strips beside it."""
    spans = [_series_arrays(parsed, i)[0] for i in indexes]
    return [
        min((float(t[0]) for t in spans if t.size), default=0.0),
        max((float(t[-1]) for t in spans if t.size), default=0.0),
    ]


def _coinciding(out):
    """``{series: [[algorithm, …], …]}``: the algorithms whose drawn lines are the same, per series."""
    found = {}
    for name, lines in out.items():
        groups = {}
        for alg, line in lines.items():
            if line["t"]:
                groups.setdefault(repr((line["t"], line["v"], line.get("min"), line.get("max"))), []).append(alg)
        same = [algs for algs in groups.values() if len(algs) > 1]
        if same:
            found[name] = same
    return found
