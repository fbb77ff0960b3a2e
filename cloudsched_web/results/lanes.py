"""Lanes inside a Gantt row: segments of one resource overlapping in time never share a lane.

The lanes each row needs come from the worker's rows file, the lanes of each segment from its by-row
index (``results.indexes``); for results stored without them both are computed here, the same way.
"""

import heapq

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import indexfiles, store
from cloudsched_web.results.arrays import float_column, resource_codes
from cloudsched_web.results.axis import resource_axis, rows_file
from cloudsched_web.results.byrow import by_row_times, group_stats, overlapping
from cloudsched_web.results.queries import QueryError

__all__ = ["greedy_lanes", "lane_counts", "window_lanes"]


def lane_counts(parsed, index):
    """Lanes inside each row: segments of one resource overlapping in time never share a lane.

    ``count[name]`` is the most segments running at one time on the resource, the lanes its
    row needs (a sweep over the sorted starts and ends of all rows at once: each row's +1/−1
    steps sum to 0, so one running sum serves every row). Lanes themselves are assigned per
    row when a page first draws the row's bars (:func:`_row_lanes`); rows with one lane
    (most) never are, and only the count per row stays in memory.
    """

    def build():
        stored_rows = rows_file(parsed, index)
        if stored_rows:  # built by the worker (results.indexes)
            names, _, _, counts, _ = stored_rows
            return {"count": dict(zip(names, counts, strict=True))}
        table = parsed.stored(index).table("segments", ["start", "end", "resource"])
        names = resource_axis(parsed, index)["names"]
        if table is None or not table.num_rows:
            return {"count": {}}
        starts, ends = float_column(table, "start"), float_column(table, "end")
        codes = resource_codes(table["resource"], names)
        step, rows = _events_by_row(starts, ends, codes, len(names))
        running = np.cumsum(step, dtype=np.int64)
        first = np.searchsorted(rows, np.arange(len(names)))
        busy = np.searchsorted(rows, np.arange(len(names)), side="right") > first  # idle rows have no steps
        most = np.zeros(len(names), np.int64)
        if busy.any():
            most[busy] = np.maximum.reduceat(running, first[busy])
        return {"count": {n: max(1, int(m)) for n, m in zip(names, most.tolist(), strict=True)}}

    return parsed.memo(("lanes", index), build)


def _events_by_row(starts, ends, codes, n_rows):
    """The +1 (start) / −1 (end) steps of every segment, per row in time order, an end before a start
    at one instant; returns ``(steps, rows)``. The stored segments come in start order, so the
    starts and the sorted ends are merged by ``searchsorted`` and the events then sorted stably by
    row (a radix sort when the row index fits 16 bits) — one pass instead of a 3-key sort."""
    if starts.size > 1 and np.any(starts[1:] < starts[:-1]):  # not in start order: sort them
        o = np.argsort(starts, kind="stable")
        starts, ends, codes = starts[o], ends[o], codes[o]
    e_order = np.argsort(ends, kind="stable")
    e_sorted = ends[e_order]
    n = starts.size
    at_start = np.arange(n) + np.searchsorted(e_sorted, starts, side="right")  # ends at ≤ s come first
    at_end = np.arange(n) + np.searchsorted(starts, e_sorted, side="left")  # before starts at the same t
    step = np.empty(2 * n, np.int8)
    rows = np.empty(2 * n, np.int16 if n_rows < 32768 else np.int64)
    step[at_start], step[at_end] = 1, -1
    rows[at_start], rows[at_end] = codes, codes[e_order]
    order = np.argsort(rows, kind="stable")
    return step[order], rows[order]


def greedy_lanes(starts, ends, running=None):
    """Greedy colouring of an interval graph in the given (start) order: the lowest lane free at each start.

    Uses exactly as many lanes as the most intervals running at once (optimal for interval
    graphs) and is deterministic. In start order the row falls apart into clusters — a segment
    that starts when every earlier one has ended opens one — and greedy starts afresh in each (every
    lane free: the same lowest lanes are taken), so a lone segment gets lane 0 and a pair lanes 0, 1
    without the loop (:func:`_greedy_loop`, which the larger clusters go through). ``running``: at
    each start, how many earlier segments have not ended (:func:`_two_lanes`), when the caller has it.
    """
    n = starts.size
    if n < 2 or np.any(starts[1:] < starts[:-1]):
        return _greedy_loop(starts, ends)
    reach = np.maximum.accumulate(ends)
    opens = np.concatenate([[True], starts[1:] >= reach[:-1]])  # nothing runs at its start
    if np.all(ends > starts):
        two = _two_lanes(starts, ends, reach, opens, running)
        if two is not None:
            return two
    heads = np.flatnonzero(opens)
    cluster = np.cumsum(opens) - 1
    size = np.diff(np.append(heads, n))
    lane = np.minimum(np.arange(n) - heads[cluster], 1).astype(np.int32)  # 0 for the first, 1 for the second
    for a, k in zip(heads[size > 2].tolist(), size[size > 2].tolist(), strict=True):
        lane[a : a + k] = _greedy_loop(starts[a : a + k], ends[a : a + k])
    return lane


def _two_lanes(starts, ends, reach, opens, running=None):
    """:func:`greedy_lanes` of a row where at most one earlier segment runs at any segment's start (no
    zero-length ones), or None. Then the one running is the earlier segment with the latest end, and the
    greedy takes the other of lanes 0 and 1: a segment's lane is the parity of its chain of such
    predecessors back to its cluster's first segment (pointer doubling, no loop over segments)."""
    n = starts.size
    idx = np.arange(n)
    if running is None:  # earlier ones not ended (ends > starts)
        running = idx - np.searchsorted(np.sort(ends), starts, side="right")
    if running.max() > 1:
        return None
    holder = np.maximum.accumulate(np.where(ends == reach, idx, -1))  # the latest end so far: whose
    parent = np.where(opens, idx, np.concatenate([[0], holder[:-1]]))
    depth = (~opens).astype(np.int64)
    while np.any(parent[parent] != parent):
        depth, parent = depth + depth[parent], parent[parent]
    return (depth % 2).astype(np.int32)


def _greedy_loop(starts, ends):
    """:func:`greedy_lanes` one segment at a time (heaps of free lanes and of running segments' ends)."""
    lane = np.zeros(starts.size, np.int32)
    free, busy, top = [], [], 0  # heaps: free lanes; (end, lane) of running segments
    for i, (s, e) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        while busy and busy[0][0] <= s:
            heapq.heappush(free, heapq.heappop(busy)[1])
        k = heapq.heappop(free) if free else top
        top = max(top, k + 1)
        lane[i] = k
        heapq.heappush(busy, (e, k))
    return lane


def _row_lanes(parsed, index, names):
    """``{name: (starts, ends, lanes)}`` of the rows ``names``, each over the whole run in file order.

    Each row is assigned once per run (kept in a per-run dict; two requests racing on a row
    compute the same lanes); the rows a page needs are read together.
    """
    rows = parsed.memo(("lane_rows", index), dict)
    missing = [n for n in names if n not in rows]
    by_row = indexfiles.files_of(parsed, index).get("byrow") if missing else None
    if by_row:  # each row's segments in start order, from the worker's index (results.indexes), a row at a time
        axis = {n: i for i, n in enumerate(resource_axis(parsed, index)["names"])}
        wanted = {axis[n]: n for n in missing}
        first, last = min(wanted), max(wanted)
        by_rows = group_stats(parsed, index, by_row)[1]
        groups = [g for g, (_, a, b) in enumerate(by_rows.tolist()) if any(a <= c <= b for c in wanted)]
        for code, table in indexfiles.iter_by_row(by_row, groups, first, last - first + 1, ["start", "end"]):
            if code in wanted:  # the row's own arrays (not views keeping the whole batch read alive)
                starts, ends = _owned(float_column(table, "start")), _owned(float_column(table, "end"))
                rows[wanted[code]] = (starts, ends, _small_lanes(greedy_lanes(starts, ends)))
    elif missing:
        table = parsed.stored(index).table("segments", ["start", "end", "resource"])
        codes = np.asarray(
            pc.fill_null(
                pc.index_in(pc.cast(table["resource"], pa.string()), value_set=pa.array(missing, pa.string())), -1
            ).to_numpy(zero_copy_only=False)
        )
        order = np.argsort(codes, kind="stable")  # by row, file order inside each
        bounds = np.searchsorted(codes[order], np.arange(-1, len(missing) + 1))
        all_starts, all_ends = float_column(table, "start"), float_column(table, "end")
        for k, n in enumerate(missing):
            idx = order[bounds[k + 1] : bounds[k + 2]]
            starts, ends = all_starts[idx], all_ends[idx]
            rows[n] = (starts, ends, _small_lanes(greedy_lanes(starts, ends)))
    return {n: rows[n] for n in names}


def _owned(values):
    """``values`` in memory of their own (a view of an Arrow buffer would keep all of it)."""
    return values if values.base is None else values.copy()


def _small_lanes(lane):
    """Lane numbers in the smallest integers that hold them (kept per row for the whole run)."""
    return lane.astype(np.int8) if lane.size and lane.max() < 127 else lane


def window_lanes(parsed, index, lanes, table, lo, hi, page):
    """The lanes of the window's bars (``table``: the window's segments on ``page``, in file order)."""
    out = np.zeros(table.num_rows, np.int32)
    overlapped = [n for n in page if lanes["count"].get(n, 1) > 1]
    if not overlapped or not table.num_rows:
        return out.tolist()
    res = np.asarray(pc.cast(table["resource"], pa.string()).to_numpy(zero_copy_only=False))
    starts = float_column(table, "start")
    stored_rows = rows_file(parsed, index)
    by_row = indexfiles.files_of(parsed, index).get("byrow")
    if by_row and stored_rows and stored_rows[4] is not None:  # the worker stored each segment's lane
        axis = {n: i for i, n in enumerate(stored_rows[0])}
        drawn = stored_rows[4]
        found = _index_lanes(parsed, index, by_row, [axis[n] for n in overlapped], lo, hi)
        for name in overlapped:
            s, lane = found.get(axis[name], (np.zeros(0), np.zeros(0, np.int32)))
            at = np.nonzero(res == name)[0]
            if at.size != s.size or not np.array_equal(starts[at], s):
                raise QueryError("run", "the schedule changed while it was read", "reload the page")
            out[at] = lane
            lanes["count"][name] = max(lanes["count"][name], drawn[axis[name]])
        return out.tolist()
    for name, (s, e, lane) in _row_lanes(parsed, index, overlapped).items():
        hit = (s < hi) & (e > lo) if hi > lo else (s <= lo) & (e >= lo)
        at = np.nonzero(res == name)[0]
        if at.size != int(hit.sum()) or not np.array_equal(starts[at], s[hit]):
            raise QueryError("run", "the schedule changed while it was read", "reload the page")
        out[at] = lane[hit]
        lanes["count"][name] = max(lanes["count"][name], int(lane.max()) + 1)  # a zero-length segment inside another
    return out.tolist()


def _index_lanes(parsed, index, by_row, codes, lo, hi):
    """``{row: (starts, lanes)}`` of the rows ``codes``' segments in the window, from the lanes the worker
    stored in the by-row index (``results.indexes``; each row's in start order, as :func:`_row_lanes` gives
    them). Only the row groups of those rows whose times overlap the window are read (footer statistics);
    nothing is kept."""
    rows_of = group_stats(parsed, index, by_row)[1]
    when = overlapping(by_row_times(parsed, index, by_row), lo, hi)
    wanted = np.asarray(sorted(codes))
    first = np.searchsorted(wanted, rows_of[:, 1], side="left")  # the first wanted row at or after the group's
    holds = (first < wanted.size) & (wanted[np.minimum(first, wanted.size - 1)] <= rows_of[:, 2])
    groups = np.flatnonzero(when & holds).tolist()
    if not groups:
        return {}
    parts = []  # a row group at a time: only what it holds of the window is kept
    for batch in pq.ParquetFile(store.source(by_row), pre_buffer=False).iter_batches(
        batch_size=indexfiles.ROW_GROUP, row_groups=groups, columns=["row", "start", "end", "lane"], use_threads=False
    ):
        row, s, e = (batch.column(k).to_numpy() for k in range(3))
        keep = np.flatnonzero(((s < hi) & (e > lo) if hi > lo else (s <= lo) & (e >= lo)) & np.isin(row, wanted))
        parts.append((row[keep], s[keep], batch.column(3).to_numpy()[keep]))
    row, s, lane = (np.concatenate([p[k] for p in parts]) for k in range(3))
    bounds = np.searchsorted(row, np.append(wanted, wanted[-1] + 1).astype(row.dtype))  # sorted by row
    return {int(c): (s[a:b], lane[a:b]) for c, a, b in zip(wanted.tolist(), bounds[:-1], bounds[1:], strict=True)}
