"""The series chart: every series of every algorithm of a repetition, windowed, and the DVFS frequency strips.

Series are stored exact (change points). A window comes exact at its edges (each line starts at the
window's start and ends at its end with the value holding there) and, between them, as every change
point or, where there are more than the chart has pixels, as buckets: the time-weighted mean with the
min and max of the levels held in each (``core.series.envelope``). ``energy_j`` is cumulative and
interpolated, never held.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results.arrays import float_column, natural_key, rounded
from cloudsched_web.results.colours import colour_modes
from cloudsched_web.results.occupancy import EPS, ramp_sum
from cloudsched_web.results.queries import QueryError, bounded, window
from schedulers.core.series import energy_j, envelope

__all__ = ["CUMULATIVE", "MAX_POINTS", "POINTS", "frequency", "series"]

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
        return {"t": [round(float(x), 3) for x in tt], "v": [float(x) for x in vv]}  # the stored levels, unrounded
    edges = np.linspace(lo, hi, points + 1)
    out = {"t": [round(float(x), 3) for x in edges], "bucket": (hi - lo) / points, "changes": b - a}
    if cumulative:
        out["v"] = [rounded(float(x)) for x in np.interp(edges, t, v)]
        return out
    env = envelope(t, v, points, lo, hi)
    end = rounded(float(_level(t, v, hi)))  # the closing point: the level holding at the window's end
    out.update({k: [rounded(float(x)) for x in env[k]] + [end] for k in ("v", "min", "max")})
    return out


def series(parsed, repetition, t0=None, t1=None, points=POINTS):
    """Every series of every algorithm of one repetition, windowed: ``{name: {algorithm: {t, v}}}``.

    ``points`` (the chart's width in pixels, at most ``MAX_POINTS``) bounds the points of a line
    (:func:`_cut`) and the columns of a frequency strip. ``coincide`` names, per series, the groups
    of algorithms whose lines are identical in the window (one would hide the other).
    """
    points = bounded(points, "points", 2, MAX_POINTS)
    runs = [(i, r) for i, r in enumerate(parsed.doc.get("runs", [])) if r.get("repetition", 0) == repetition]
    if not runs:
        raise QueryError("repetition", f"no repetition {repetition}", "one of the run's repetitions")
    spans = [_series_arrays(parsed, i)[0] for i, _ in runs]
    full = [
        min((float(t[0]) for t in spans if t.size), default=0.0),
        max((float(t[-1]) for t in spans if t.size), default=0.0),
    ]
    lo, hi = window(t0, t1, full)
    out = {}
    for i, r in runs:
        t, arrays = _series_arrays(parsed, i)
        for name, v in arrays.items():
            out.setdefault(name, {})[r.get("algorithm", str(i))] = _cut(t, v, lo, hi, points, name in CUMULATIVE)
    strips = [f for f in (frequency(parsed, i, lo, hi, points) for i, _ in runs) if f]
    scale = next((m["range"] for m in colour_modes(parsed) if m["key"] == "freq"), None)
    freq = {"runs": strips, "range": scale or _joint_range(strips)} if strips else None
    return {"repetition": repetition, "window": [lo, hi], "span": full, "series": out, "frequency": freq,
            "cumulative": [n for n in out if n in CUMULATIVE], "coincide": _coinciding(out)}  # fmt: skip


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


def _joint_range(strips):
    """One frequency scale for every strip of the page (the colour bar)."""
    return [min(f["range"][0] for f in strips), max(f["range"][1] for f in strips)]


def frequency(parsed, index, lo, hi, points=POINTS):
    """DVFS: a heat strip per host of run ``index``, when its segments carry ``freq_ghz``.

    A host's level at time t is the highest frequency among its cores running then (0 when
    idle). The window is cut into ``points`` columns; per host and column, ``busy`` is the
    fraction of the column where the host runs anything and ``ghz`` the time-weighted mean
    level over that busy part (null where idle), so an idle stretch never reads as a low
    frequency. Every host has a strip (natural order).
    """

    def build():
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        if schema is None or "freq_ghz" not in schema.names:
            return None
        host = "host" if "host" in schema.names else "resource"
        table = stored.table("segments", ["start", "end", "freq_ghz", host]).filter(pc.is_valid(pc.field("freq_ghz")))
        if not table.num_rows:
            return None
        hosts = pc.cast(table[host], pa.string()).to_numpy(zero_copy_only=False)
        arr = np.column_stack([float_column(table, "start"), float_column(table, "end"), float_column(table, "freq_ghz")])
        return {h: _max_level(arr[hosts == h]) for h in sorted(np.unique(hosts).tolist(), key=natural_key)}

    levels = parsed.memo(("freq", index), build)
    if not levels:
        return None
    edges = np.linspace(lo, hi, points + 1)
    width = (hi - lo) / points if hi > lo else 1.0
    eps = EPS * width
    busy, ghz = [], []
    for t, level in levels.values():
        s, e, f = t[:-1], t[1:], level[:-1]
        on = (f > 0).astype(float)
        s, e = np.clip(s, lo, hi), np.clip(e, lo, hi)
        b = np.diff(ramp_sum(edges, s, on) - ramp_sum(edges, e, on))
        w = np.diff(ramp_sum(edges, s, f) - ramp_sum(edges, e, f))
        busy.append(np.round(np.clip(np.where(b > eps, b, 0.0) / width, 0.0, 1.0), 3).tolist())
        ghz.append([round(float(x / y), 3) if y > eps else None for x, y in zip(w, b, strict=True)])
    all_f = np.concatenate([lv for _, lv in levels.values()])
    running = all_f[all_f > 0]
    return {
        "algorithm": parsed.run(index).get("algorithm", ""),
        "index": index,
        "hosts": list(levels),
        "t": [lo, hi],
        "columns": points,
        "busy": busy,
        "ghz": ghz,
        "range": [float(running.min()), float(running.max())] if running.size else [0.0, 0.0],
    }


def _max_level(rows):
    """Step function of the maximum value among the intervals running at each time."""
    arr = np.asarray(rows, dtype=float)
    t = np.unique(arr[:, :2])
    level = np.zeros(t.size)
    for b, e, f in arr[np.argsort(arr[:, 2])]:  # ascending, so higher levels overwrite
        level[np.searchsorted(t, b) : np.searchsorted(t, e)] = f
    return t, level
