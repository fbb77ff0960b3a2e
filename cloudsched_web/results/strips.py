"""The DVFS frequency strips drawn beside the Gantt: per host of each run, the highest frequency among its
running cores over time (0 when idle), for every run of a repetition whose segments carry ``freq_ghz``.

A window comes, per host, **exact** where the host's level changes at most ``points`` times in it: the
level holding at the window's start and every change up to its end (``t``: the window's start, each
change, the window's end; ``f``: the level of each stretch, an index into ``levels``). The page draws
its pixel columns from these itself, at any zoom inside the window, so zooming within an exact window
needs no new request. Where a host changes more often than that, its strip comes as ``points`` equal
**columns** over the window — ``busy``, the fraction of the column where the host runs anything, and
``ghz``, the time-weighted mean level over that busy part (null where idle), so an idle stretch never
reads as a low frequency — with runs of equal columns sent once (``n``: how many columns each value
covers). The page asks again only for a window it has not got, or one whose columns are coarser than
its pixels (``static/js/charts/strips.js``).
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results.arrays import float_column, natural_key
from cloudsched_web.results.colours import colour_modes
from cloudsched_web.results.occupancy import EPS, ramp_sum
from cloudsched_web.results.queries import QueryError, bounded, window
from cloudsched_web.results.series import MAX_POINTS, POINTS, series_span

__all__ = ["columns", "host_levels", "strips"]


def strips(parsed, repetition, t0=None, t1=None, points=POINTS):
    """The frequency strips of every run of one repetition in ``[t0, t1]`` (default: the series' whole span,
    the window the series chart shows), None-free: ``runs`` is empty for runs without DVFS.

    ``points`` (the chart's width in pixels, at most ``MAX_POINTS``) is the most changes a host's strip
    sends exact, and the column count where it changes more. ``exact`` says every strip came exact (a
    zoom inside the window needs nothing more); ``range`` is the one frequency scale of the page.
    """
    points = bounded(points, "points", 2, MAX_POINTS)
    runs = [i for i, r in enumerate(parsed.doc.get("runs", [])) if r.get("repetition", 0) == repetition]
    if not runs:
        raise QueryError("repetition", f"no repetition {repetition}", "one of the run's repetitions")
    full = series_span(parsed, runs)
    lo, hi = window(t0, t1, full)
    out = [s for s in (_run_strips(parsed, i, lo, hi, points) for i in runs) if s]
    scale = next((m["range"] for m in colour_modes(parsed) if m["key"] == "freq"), None)
    found = [s["range"] for s in out if s["range"][1] > 0]
    joint = [min(r[0] for r in found), max(r[1] for r in found)] if found else [0.0, 0.0]
    return {"repetition": repetition, "window": [lo, hi], "span": full, "columns": points,
            "exact": all(h.get("n") is None for s in out for h in s["strips"]),
            "range": scale or joint, "runs": out}  # fmt: skip


def host_levels(parsed, index):
    """``{host: (t, level)}`` of run ``index`` (hosts in natural order): each host's highest running core
    frequency as a step function, ``level[k]`` on ``[t[k], t[k+1])`` (0: nothing runs), equal neighbours
    merged; None when the run's segments carry no frequency. Built once per run."""

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
        arr = np.column_stack(
            [float_column(table, "start"), float_column(table, "end"), float_column(table, "freq_ghz")]
        )
        return {h: _max_level(arr[hosts == h]) for h in sorted(np.unique(hosts).tolist(), key=natural_key)}

    return parsed.memo(("freq", index), build)


def _run_strips(parsed, index, lo, hi, points):
    levels = host_levels(parsed, index)
    if not levels:
        return None
    all_f = np.concatenate([lv for _, lv in levels.values()])
    codes = np.unique(np.concatenate([[0.0], all_f]))  # the run's levels, 0 (idle) first
    out = []
    for t, level in levels.values():
        a, b = int(np.searchsorted(t, lo, side="right")), int(np.searchsorted(t, hi, side="left"))
        if b - a <= points:  # every change in the window: exact
            at_lo = level[a - 1] if a > 0 else 0.0
            tt = [lo, *t[a:b].tolist(), hi]
            ff = [at_lo, *level[a:b].tolist()]
            out.append({"t": tt, "f": np.searchsorted(codes, ff).tolist()})
        else:
            busy, ghz = columns(t, level, lo, hi, points)
            out.append(_runs(busy, ghz))
    running = all_f[all_f > 0]
    return {
        "algorithm": parsed.run(index).get("algorithm", ""),
        "index": index,
        "hosts": list(levels),
        "levels": codes.tolist(),
        "strips": out,
        "range": [float(running.min()), float(running.max())] if running.size else [0.0, 0.0],
    }


def columns(t, level, lo, hi, points):
    """One host's ``points`` columns over ``[lo, hi]``: ``(busy, ghz)`` — the busy fraction of each column
    (3 decimals) and the time-weighted mean level over its busy part (None where idle; 3 decimals)."""
    edges = np.linspace(lo, hi, points + 1)
    width = (hi - lo) / points if hi > lo else 1.0
    eps = EPS * width
    s, e, f = np.clip(t[:-1], lo, hi), np.clip(t[1:], lo, hi), level[:-1]
    on = (f > 0).astype(float)
    b = np.diff(ramp_sum(edges, s, on) - ramp_sum(edges, e, on))
    w = np.diff(ramp_sum(edges, s, f) - ramp_sum(edges, e, f))
    busy = np.round(np.clip(np.where(b > eps, b, 0.0) / width, 0.0, 1.0), 3).tolist()
    ghz = [round(float(x / y), 3) if y > eps else None for x, y in zip(w, b, strict=True)]
    return busy, ghz


def _runs(busy, ghz):
    """Columns as runs of equal ones: ``n`` columns of each ``busy``/``ghz`` value (idle stretches are one)."""
    n, b_out, g_out = [], [], []
    for b, g in zip(busy, ghz, strict=True):
        if n and b == b_out[-1] and g == g_out[-1]:
            n[-1] += 1
        else:
            n.append(1)
            b_out.append(b)
            g_out.append(g)
    return {"n": n, "busy": b_out, "ghz": g_out}


def _max_level(rows):
    """Step function of the maximum value among the intervals running at each time (equal neighbours
    merged; the last level, after every interval has ended, is 0). One sweep per distinct value, lowest
    first, so higher levels overwrite (DVFS has a few levels)."""
    arr = np.asarray(rows, dtype=float)
    t = np.unique(arr[:, :2])
    level = np.zeros(t.size)
    first, last = np.searchsorted(t, arr[:, 0]), np.searchsorted(t, arr[:, 1])
    for f in np.unique(arr[:, 2]):
        at = arr[:, 2] == f
        step = np.zeros(t.size + 1, np.int64)
        np.add.at(step, first[at], 1)
        np.add.at(step, last[at], -1)
        level[np.cumsum(step[:-1]) > 0] = f  # [t[k], t[k+1]) is covered by an interval of this value
    keep = np.concatenate([[True], level[1:] != level[:-1]])
    keep[-1] = True  # the end of the last stretch
    return t[keep], level[keep]
