"""A Gantt page's bars as compact columns: row, lane, times in ticks of the window, codes into small dictionaries.

Up to ``gantt.MAX_BARS`` (100,000) bars travel in one payload, so nothing is one object per bar and
every column is built with numpy/Arrow over the whole window (no Python loop over bars):

- bars come sorted by row, then lane, then start: inside one (row, lane) bars never overlap, so the
  page finds the bar under the pointer by a binary search;
- ``s`` and ``d`` are the start and the length in ticks of ``q`` from ``t0``: ``q`` the power of ten at or above
  window / 2²⁰ (a bar drawn at 4,000 pixels is placed to 1/25 of a pixel or better) and ``t0`` the window's
  start rounded down to a multiple of it, so times that are multiples of ``q`` (whole seconds at the whole-run
  zoom of a day-long schedule) come back exact. A bar that reaches past the window is clipped to one window
  either side for drawing, and its exact times are in ``edge`` (``k``, ``s``, ``e``);
- ``job`` are codes into ``jobs`` (the window's distinct job ids); ``task`` the ``k`` of a task named
  ``<job>.<k>`` (every family's convention), else codes into ``tasks``;
- ``share``, ``kind`` and every extra key are ``{"values", "codes"}``: the distinct values and, when more
  than one, each bar's code; ``c[mode]`` the bar's category index (−1 none) or, for a scale, a coded value;
- ``status`` (the diff page): each bar's job's status code in ``jobdiff.STATUSES``.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results.arrays import float_column, resource_codes
from cloudsched_web.results.colours import mode_array, tier_of

__all__ = ["TICKS", "bar_columns", "empty_bars", "plain_bars", "tier_lanes"]

TICKS = 1 << 20


def empty_bars():
    return {"n": 0, "t0": 0.0, "q": 1.0, "r": [], "lane": [], "s": [], "d": [], "job": [], "jobs": [], "task": [],
            "share": {"values": [], "codes": None}, "kind": {"values": [], "codes": None}, "extra": {}, "c": {},
            "edge": {"k": [], "s": [], "e": []}}  # fmt: skip


def _coded(values):
    """``{"values", "codes"}`` of a column: its distinct values (nulls as None) and each row's code (None when
    there is a single value)."""
    encoded = pc.dictionary_encode(values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values)
    codes = np.asarray(pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False), np.int64)
    distinct = encoded.dictionary.to_pylist()
    if pc.any(pc.is_null(encoded.indices)).as_py():
        distinct.append(None)
        codes = np.where(codes < 0, len(distinct) - 1, codes)
    return distinct, codes


def _column(table, name, order):
    if name not in table.column_names:
        return None
    distinct, codes = _coded(table[name])
    floats = [round(v, 6) if isinstance(v, float) else v for v in distinct]
    return {"values": floats, "codes": codes[order].tolist() if len(distinct) > 1 else None}


def _tasks(table, order):
    """``(task, tasks)``: each bar's ``k`` where every task is ``<job>.<k>``, else codes into the distinct names."""
    if "task" not in table.column_names:
        return [0] * len(order), None
    task = pc.cast(table["task"], pa.string()).combine_chunks()
    job = pc.cast(table["job"], pa.string()).combine_chunks() if "job" in table.column_names else None
    if job is not None and not task.null_count:
        parts = pc.split_pattern(task, ".", max_splits=1, reverse=True)
        if pc.all(pc.equal(pc.list_value_length(parts), 2)).as_py():
            prefix, k = pc.list_element(parts, 0), pc.list_element(parts, 1)
            if pc.all(pc.and_(pc.equal(prefix, job), pc.utf8_is_digit(k))).as_py():
                return np.asarray(pc.cast(k, pa.int64()).to_numpy(zero_copy_only=False))[order].tolist(), None
    distinct, codes = _coded(task)
    return codes[order].tolist(), distinct


def bar_columns(table, page, lo, hi, modes, lane, extra_keys, status=None):
    """The compact bars of ``table`` (the window's segments on ``page``; ``lane``: each one's lane) as above.

    ``status``: a function from the window's distinct job ids (an Arrow array) to their status codes."""
    n = table.num_rows
    if not n:
        return empty_bars()
    row = resource_codes(table["resource"], page)
    starts, ends = float_column(table, "start"), float_column(table, "end")
    lane = np.asarray(lane, np.int64)
    order = np.lexsort((starts, lane, row))
    width = hi - lo if hi > lo else 1e-3
    q = float(10.0 ** np.ceil(np.log10(width / TICKS)))
    t0 = float(np.floor(lo / q) * q)
    s_clip, e_clip = np.clip(starts, lo - width, hi + width), np.clip(ends, lo - width, hi + width)
    s_tick = np.rint((s_clip - t0) / q).astype(np.int64)
    d_tick = np.rint((e_clip - t0) / q).astype(np.int64) - s_tick
    edge = np.flatnonzero((starts[order] < lo) | (ends[order] > hi))
    job = table["job"] if "job" in table.column_names else pa.array([""] * n, pa.string())
    jobs, job_codes = _coded(pc.cast(job, pa.string()))
    jobs = ["" if j is None else j for j in jobs]
    task, tasks = _tasks(table, order)
    out = {
        "n": n, "t0": t0, "q": q,
        "r": row[order].tolist(), "lane": lane[order].tolist(),
        "s": s_tick[order].tolist(), "d": d_tick[order].tolist(),
        "job": job_codes[order].tolist(), "jobs": jobs, "task": task,
        "share": _column(table, "share", order) or {"values": [1.0], "codes": None},
        "kind": _column(table, "kind", order) or {"values": [""], "codes": None},
        "extra": {k: c for k in extra_keys if (c := _column(table, k, order)) is not None and c["values"] != [None]},
        "c": {},
        "edge": {"k": edge.tolist(), "s": starts[order][edge].tolist(), "e": ends[order][edge].tolist()},
    }  # fmt: skip
    if tasks is not None:
        out["tasks"] = tasks
    for m in modes:
        if m["type"] == "category":
            out["c"][m["key"]] = mode_array(table, m)[order].tolist()
        elif m["type"] == "scale":
            v = mode_array(table, m)[order]
            out["c"][m["key"]] = [None if x != x else round(x, 6) for x in v.tolist()]
    if status is not None:
        out["status"] = np.asarray(status(pa.array(jobs, pa.string())), np.int64)[job_codes[order]].tolist()
    return out


def tier_lanes(table, modes):
    """Each bar's tier (0 foreground, 1 background) where the result's segments have tiers, else None."""
    lookup = tier_of(modes)
    if lookup is None:
        return None
    state = next(m for m in modes if m["key"] == "state")
    codes = mode_array(table, state)
    return np.where(codes >= 0, lookup[np.maximum(codes, 0)], 0)


def plain_bars(bars):
    """The compact bars back as plain columns (``r``, ``s``, ``e``, ``lane``, ``job``, ``task``, ``c``, ``status``):
    times to ``q``'s decimals (the exact ones where a bar reaches past the window), names, values. For tests
    and scripts; the page decodes the same way (static/js/charts/gantt/bars.js)."""
    n, q = bars["n"], bars["q"]
    digits = max(0, round(-float(np.log10(q))))
    s = np.asarray(bars["s"], float)
    starts = np.round(bars["t0"] + s * q, digits)
    ends = np.round(bars["t0"] + (s + np.asarray(bars["d"], float)) * q, digits)
    for k, a, b in zip(bars["edge"]["k"], bars["edge"]["s"], bars["edge"]["e"], strict=True):
        starts[k], ends[k] = a, b
    jobs = [bars["jobs"][j] for j in bars["job"]]
    tasks = (
        [bars["tasks"][t] for t in bars["task"]]
        if "tasks" in bars
        else [f"{j}.{k}" for j, k in zip(jobs, bars["task"], strict=True)]
    )
    out = {"r": list(bars["r"]), "s": starts.tolist(), "e": ends.tolist(), "lane": list(bars["lane"]), "job": jobs,
           "task": tasks, "c": dict(bars["c"])}  # fmt: skip
    for key in ("share", "kind"):
        col = bars[key]
        out[key] = [col["values"][c] for c in col["codes"]] if col["codes"] is not None else col["values"] * n
    if "status" in bars:
        out["status"] = [bars["statuses"][c] if "statuses" in bars else c for c in bars["status"]]
    return out
