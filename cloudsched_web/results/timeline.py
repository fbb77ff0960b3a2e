"""Time-windowed chart data for the result page: Gantt bars, series overlays, DVFS frequency, diffs.

Every function takes a :class:`~cloudsched_web.results.queries.ParsedResult` (cached per
run) and a window ``[t0, t1)``; per-run numpy indexes are memoised on it, so panning a
200,000-segment schedule costs array masks, not a parse. The whole-run indexes (resource axis,
lane counts, events, colour modes, segments by row) are read from the files the worker wrote
when it stored the result (``results.indexes``), and built here, as before, for results without them. Payloads are columnar and
bounded without dropping anything: a Gantt pages through all its resources and turns
into per-pixel occupancy when a window holds more than ``MAX_BARS`` bars; series come
as ``POINTS`` samples per line.
"""

import heapq
import itertools

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import indexes, store
from cloudsched_web.results.queries import QueryError, _bounded_int
from schedulers.core.series import energy_j, envelope

MAX_BARS = 2500
ROWS = 40
MAX_ROWS = 200
PIXELS = 1000
MAX_PIXELS = 4000
POINTS = 600
EXTRA_KEYS = ("freq_ghz", "tier", "cloud", "host", "vm_type", "pm_type", "ended")


GROUP_KEYS = ("host", "cloud", "pm_type")  # a resource's group on the axis, first one the family records


def _layout(parsed, index):
    """The resource axis of run ``index``: every resource, grouped, and the groups (read once).

    Resources are grouped by the first of :data:`GROUP_KEYS` the segments carry (dvfs_bot's
    VMs by host, federated servers by cloud, vm_reservations' PMs by PM type); groups come in
    natural order and resources in natural order inside each. A resource's group is the
    value its earliest segment records. Without such a column there is one unnamed group.
    """

    def build():
        stored_rows = _stored_rows(parsed, index)
        if stored_rows:  # built by the worker when it stored the result (results.indexes)
            names, group_of, key, _, _ = stored_rows
            return {"names": names, "groups": _groups(names, group_of) if key else [], "group_by": key}
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        if schema is None:
            return {"names": [], "groups": [], "group_by": None}
        key = next((k for k in GROUP_KEYS if k in schema.names), None)
        labels = None if key else (pq.read_schema(stored._source("segments")).metadata or {}).get(store.STRETCH)
        if labels is not None:  # a file of stretches names every resource it holds, once (results.store)
            order = sorted(orjson.loads(labels), key=lambda n: (natural_key(""), natural_key(n)))
            return {"names": order, "groups": [], "group_by": None}
        table = stored.table("segments", ["resource"] + ([key] if key else []))
        names = [v for v in pc.unique(pc.cast(table["resource"], pa.string())).to_pylist() if v is not None]
        group_of = dict.fromkeys(names, "")
        if key:
            pairs = table.group_by(["resource", key], use_threads=False).aggregate([])
            for r, g in zip(pc.cast(pairs["resource"], pa.string()).to_pylist(), pairs[key].to_pylist(), strict=True):
                if r is not None and g is not None and not group_of.get(r):
                    group_of[r] = str(g)
        order = sorted(names, key=lambda n: (natural_key(group_of[n]), natural_key(n)))
        return {"names": order, "groups": _groups(order, [group_of[n] for n in order]) if key else [], "group_by": key}

    return parsed.memo(("layout", index), build)


def _stored_rows(parsed, index):
    """The worker's rows file of run ``index`` (``indexes.read_rows``), read once for the axis and the
    lanes; None for a result stored without indexes."""

    def build():
        name = indexes.files_of(parsed, index).get("rows")
        return indexes.read_rows(name) if name else None

    return parsed.memo(("stored_rows", index), build)


def _groups(names, group_of):
    """The runs of equal groups along the axis (``group_of``: each resource's group, in axis order)."""
    groups = []
    for i, g in enumerate(group_of):
        if not groups or groups[-1]["name"] != g:
            groups.append({"name": g, "row0": i, "rows": 0})
        groups[-1]["rows"] += 1
    return groups


def _codes(column, names):
    """Each segment's resource as an index into ``names`` (−1: not among them)."""
    value_set = pa.array(names, pa.string())
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if chunks and all(pa.types.is_dictionary(c.type) and not c.null_count for c in chunks):  # the stored encoding
        parts = []
        for c in chunks:  # look each dictionary up once, then index by the codes
            lookup = pc.fill_null(pc.index_in(pc.cast(c.dictionary, pa.string()), value_set=value_set), -1)
            parts.append(np.asarray(lookup.to_numpy(zero_copy_only=False), np.int64)[c.indices.to_numpy()])
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return np.asarray(
        pc.fill_null(pc.index_in(pc.cast(column, pa.string()), value_set=value_set), -1).to_numpy(zero_copy_only=False),
        dtype=np.int64,
    )


def _floats(table, name):
    return table[name].to_numpy() if table.num_rows else np.zeros(0)


def natural_key(name):
    digits = "".join(ch for ch in str(name) if ch.isdigit())
    return (str(name).rstrip("0123456789"), int(digits) if digits else -1, str(name))


def window(value_t0, value_t1, span):
    """Parse the ``t0``/``t1`` query values into a finite window inside nothing (None = the span)."""
    try:
        lo = span[0] if value_t0 in (None, "") else float(value_t0)
        hi = span[1] if value_t1 in (None, "") else float(value_t1)
    except (TypeError, ValueError):
        raise QueryError("t0", "window bounds must be numbers", "finite numbers t0 ≤ t1") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise QueryError("t1", f"window [{lo}, {hi}) is empty or not finite", "finite numbers t0 ≤ t1")
    return lo, hi


def span_of(parsed, index):
    return parsed.span(index)


def gantt(parsed, index, t0=None, t1=None, row0=0, rows=ROWS, pixels=PIXELS, max_bars=MAX_BARS):
    """Run ``index``'s Gantt (see :func:`_gantt`); the whole-run view, asked by every page load, is memoised.

    Afterwards the Arrow memory pool hands what it cached of the request's reads back to the system
    (under 1 ms; 16–40 MB less resident after the 200,000-job bench's requests)."""
    try:
        if t0 in (None, "") and t1 in (None, ""):
            key = ("gantt_whole", index, str(row0), str(rows), str(pixels), max_bars)
            return parsed.memo(key, lambda: _gantt(parsed, index, None, None, row0, rows, pixels, max_bars))
        return _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars)
    finally:
        pa.default_memory_pool().release_unused()


def _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars):
    """Run ``index``'s Gantt for the window: one page of resource rows, as bars or as occupancy.

    Every resource of the run has a row; ``row0``/``rows`` page through them in axis order
    (grouped by host, cloud or PM type where the family records one: ``groups``). When the
    page's window holds at most ``max_bars`` segments they come as bars, every one, each
    with its lane inside its row (:func:`_lanes`) and its value in every colour mode
    (``colour``); past that, as **occupancy**: for each row and each of ``pixels`` columns
    of the window, the fraction of the row's capacity in use there (share × time /
    capacity × column width), with the dominant category (or busy-weighted mean value) of
    each colour mode, so every resource and every moment stays visible at any zoom and
    nothing is dropped. Zooming in brings the bars back (``zoom_shows_bars`` says whether
    it can). Events (migrations, kills, preemptions, rejections) come as ``events``.
    """
    run = parsed.run(index)
    span = span_of(parsed, index)
    lo, hi = window(t0, t1, span)
    layout = _layout(parsed, index)
    names = layout["names"]
    row0 = _bounded(row0, "row0", 0, max(len(names) - 1, 0))
    rows = _bounded(rows, "rows", 1, MAX_ROWS)
    pixels = _bounded(pixels, "pixels", 2, MAX_PIXELS)
    page = names[row0 : row0 + rows]
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    present = set(schema.names) if schema is not None else set()
    base = [c for c in ("start", "end", "resource", "job", "task", "share", "kind") if c in present]
    extra_keys = [k for k in EXTRA_KEYS if k in present]
    modes = colour_modes(parsed)
    mode_cols = sorted({c for m in modes for c in m["columns"] if c in present})
    table = shown = None
    capacities = (run.get("extra") or {}).get("capacities") or {}
    by_row = indexes.files_of(parsed, index).get("byrow")
    if by_row and not _by_row_is_cheaper(parsed, index, by_row, lo, hi, row0, len(page)):
        by_row = None  # a narrow window: the time-sorted segments file reads fewer rows
    if schema is not None and page:
        if by_row:  # the page's rows alone, from the worker's index sorted by row (results.indexes)
            groups = _by_row_groups(parsed, index, by_row, row0, len(page))
            rows_of_page = _by_row_rows(by_row, groups, lo, hi, row0, len(page), modes, "share" in present)
            shown = _occupancy_and_zoom(rows_of_page, page, capacities, lo, hi, pixels, modes, max_bars)
            count = shown["count"]
        else:
            wanted = stored.window(lo, hi, ["start", "end", "resource"] + (["share"] if "share" in present else []))
            on_page = pc.is_in(pc.cast(wanted["resource"], pa.string()), value_set=pa.array(page, pa.string()))
            count = int(pc.sum(on_page).as_py() or 0)
        if count <= max_bars:
            table = stored.window(lo, hi, base + sorted((set(extra_keys) | set(mode_cols)) - set(base)))
            table = table.filter(
                pc.is_in(pc.cast(table["resource"], pa.string()), value_set=pa.array(page, pa.string()))
            )
            mode = "bars"
        elif shown is not None:
            mode = "occupancy"
        else:
            table = stored.window(
                lo, hi, ["start", "end", "resource", *(["share"] if "share" in present else []), *mode_cols]
            )
            arrays = _segment_arrays(table.filter(on_page), page, modes)
            shown = _occupancy_and_zoom(_page_rows(arrays), page, capacities, lo, hi, pixels, modes, max_bars)
            mode = "occupancy"
    else:
        count, mode = 0, "bars"
    lanes = _lanes(parsed, index)
    out = {
        "index": index,
        "algorithm": run.get("algorithm", ""),
        "repetition": run.get("repetition", 0),
        "window": [lo, hi],
        "span": span,
        "resources": page,
        "row0": row0,
        "rows": rows,
        "total_resources": len(names),
        "groups": layout["groups"],
        "group_by": layout["group_by"],
        "lanes": [lanes["count"].get(n, 1) for n in page],
        "total_segments": parsed.info(index).get("segments", 0),
        "window_segments": count,
        "max_bars": max_bars,
        "mode": mode,
        "zoom_shows_bars": False,
        "recording_cut": recording_cut(run),
        "schedule_cut": _cut_for_chart(run, parsed.info(index).get("segments", 0), span),
        "colour": {"modes": modes},
        "events": events(parsed, index, lo, hi, row0, len(page)),
        "bars": {
            "r": [],
            "s": [],
            "e": [],
            "job": [],
            "task": [],
            "share": [],
            "kind": [],
            "lane": [],
            "extra": {},
            "c": {},
        },
    }
    if mode == "occupancy":
        out["occupancy"], out["zoom_shows_bars"] = shown["occupancy"], shown["zoom_shows_bars"]
        return out
    if table is None or not table.num_rows:
        return out
    row_of = {n: i for i, n in enumerate(page)}

    def col(name, default):
        if name not in table.column_names:
            return [default] * table.num_rows
        return table[name].to_pylist()

    extras = {}
    for key in extra_keys:
        values = col(key, None)
        if any(v is not None for v in values):
            extras[key] = values
    out["bars"] = {
        "r": [row_of[str(r)] for r in col("resource", "")],
        "s": [round(x, 3) for x in col("start", 0.0)],
        "e": [round(x, 3) for x in col("end", 0.0)],
        "job": [str(x if x is not None else "") for x in col("job", "")],
        "task": [str(x if x is not None else "") for x in col("task", "")],
        "share": [_num(x) for x in col("share", None)],
        "kind": [x if x is not None else "" for x in col("kind", "")],
        "lane": _window_lanes(parsed, index, lanes, table, lo, hi, page),
        "extra": extras,
        "c": {m["key"]: _bar_values(table, m) for m in modes},
    }
    out["lanes"] = [lanes["count"].get(n, 1) for n in page]  # after the page's lanes were assigned
    return out


# -- colour modes -------------------------------------------------------------------------------

# What a segment's ``kind`` (and ``ended``) mean, in the legend's words.
KIND_LABELS = {"fg": "foreground tier", "bg": "background tier", "ar": "AR lease", "be": "BE lease",
               "vm": "VM", "task": "task"}  # fmt: skip
ENDED_LABELS = {"preempted": "preempted", "killed": "killed", "migrated": "migrated away"}
MAX_CATEGORIES = 24  # more than this and a legend cannot tell the colours apart
SCALE_LEVELS = 64  # occupancy blocks carry a scale value as one of this many levels of its range


def _state(kind, ended):
    """A segment's state: its kind in words, plus how it ended when that was not a plain finish."""
    label = KIND_LABELS.get(kind, kind) if kind else "segment"
    return f"{label}, {ENDED_LABELS[ended]}" if ended in ENDED_LABELS else label


# key, label, columns it reads, type
MODE_SPECS = (
    ("state", "state (tier, lease, how it ended)", ("kind", "ended"), "category"),
    ("freq", "DVFS core frequency", ("freq_ghz",), "scale"),
    ("cloud", "cloud", ("cloud",), "category"),
    ("host", "host", ("host",), "category"),
    ("vm_type", "VM type", ("vm_type",), "category"),
)
SCALE_UNITS = {"freq": "GHz"}


def _segment_values(table, spec):
    """Each segment's value in colour mode ``spec`` (a state label, a category, a number)."""
    key, _, columns, _ = spec
    n = table.num_rows
    if key == "state":
        kinds = table["kind"].to_pylist() if "kind" in table.column_names else [None] * n
        ended = table["ended"].to_pylist() if "ended" in table.column_names else [None] * n
        return [_state(k, e) for k, e in zip(kinds, ended, strict=True)]
    if columns[0] not in table.column_names:
        return [None] * n
    values = table[columns[0]].to_pylist()
    return values if spec[3] == "scale" else [None if v is None else str(v) for v in values]


def colour_modes(parsed):
    """The colour modes this result supports, with their categories (or range) over every run.

    Colouring by job is always offered (hashed colours, the same job alike on every chart).
    A category mode is offered when some run has 2..``MAX_CATEGORIES`` values of it, a scale
    when some run has a numeric column. Categories and ranges span the whole result, so a
    colour means the same on every Gantt of the page and at every zoom.

    The mode columns are read as stored: a file of stretches (``results.store``) holds each stretch's
    values once, the same for all of its segments, so its distinct values and range are the segments'.
    """

    def build():
        stored_modes = indexes.colour_modes(parsed)
        if stored_modes is not None:  # built by the worker (results.indexes)
            return stored_modes
        found = {}
        for i in range(len(parsed.doc.get("runs", []))):
            stored = parsed.stored(i)
            schema = stored.schema("segments")
            if schema is None:
                continue
            for spec in MODE_SPECS:
                cols = [c for c in spec[2] if c in schema.names]
                if not cols:
                    continue
                table = pq.read_table(stored._source("segments"), columns=cols)  # as stored (see above)
                if spec[3] == "scale":
                    v = table[cols[0]]
                    lo, hi = pc.min(v).as_py(), pc.max(v).as_py()
                    if lo is not None:
                        rng = found.setdefault(spec[0], [lo, hi])
                        rng[:] = [min(rng[0], lo), max(rng[1], hi)]
                else:
                    values = set(_segment_values(table.group_by(cols, use_threads=False).aggregate([]), spec))
                    found.setdefault(spec[0], set()).update(v for v in values if v is not None)
        modes = [{"key": "job", "label": "job", "type": "job", "columns": []}]
        for key, label, columns, typ in MODE_SPECS:
            if key not in found:
                continue
            if typ == "scale":
                modes.append({"key": key, "label": label, "type": typ, "columns": list(columns),
                              "range": found[key], "unit": SCALE_UNITS.get(key, "")})  # fmt: skip
            elif 2 <= len(found[key]) <= MAX_CATEGORIES:
                cats = sorted(found[key], key=natural_key)
                modes.append({"key": key, "label": label, "type": typ, "columns": list(columns), "categories": cats})
        return modes

    return parsed.memo(("colour_modes",), build)


def _mode_array(table, mode):
    """Per segment of ``table``: its category's index in ``mode["categories"]`` (−1: none) or its value (NaN: none)."""
    spec = next(s for s in MODE_SPECS if s[0] == mode["key"])
    n = table.num_rows
    if mode["type"] == "scale":
        if spec[2][0] not in table.column_names:
            return np.full(n, np.nan)
        return np.asarray(pc.fill_null(pc.cast(table[spec[2][0]], pa.float64()), np.nan).to_numpy(zero_copy_only=False))
    if mode["key"] == "state":  # a label per distinct (kind, ended) pair, then an array lookup
        parts = [
            pc.fill_null(pc.cast(table[c], pa.string()), "") if c in table.column_names else pa.array([""] * n)
            for c in ("kind", "ended")
        ]
        key = pc.binary_join_element_wise(parts[0], parts[1], "\x1f")
        uniq = pc.unique(key)
        code = {c: i for i, c in enumerate(mode["categories"])}
        lookup = np.array([code.get(_state(*u.split("\x1f")), -1) for u in uniq.to_pylist()] + [-1], np.int64)
        where = pc.fill_null(pc.index_in(key, value_set=uniq), len(uniq))
        return lookup[np.asarray(where.to_numpy(zero_copy_only=False), np.int64)]
    if spec[2][0] not in table.column_names:
        return np.full(n, -1, np.int64)
    cats = pa.array(mode["categories"], pa.string())
    where = pc.fill_null(pc.index_in(pc.cast(table[spec[2][0]], pa.string()), value_set=cats), -1)
    return np.asarray(where.to_numpy(zero_copy_only=False), np.int64)


def _bar_values(table, mode):
    """Per bar: its category's index (into ``mode["categories"]``, −1 none) or its value (scales, null none)."""
    if mode["type"] == "job":
        return None
    values = _mode_array(table, mode)
    if mode["type"] == "scale":
        return [None if np.isnan(v) else _num(float(v)) for v in values.tolist()]
    return values.tolist()


# -- lanes --------------------------------------------------------------------------------------


def _lanes(parsed, index):
    """Lanes inside each row: segments of one resource overlapping in time never share a lane.

    ``count[name]`` is the most segments running at one time on the resource, the lanes its
    row needs (a sweep over the sorted starts and ends of all rows at once: each row's +1/−1
    steps sum to 0, so one running sum serves every row). Lanes themselves are assigned per
    row when a page first draws the row's bars (:func:`_row_lanes`); rows with one lane
    (most) never are, and only the count per row stays in memory.
    """

    def build():
        stored_rows = _stored_rows(parsed, index)
        if stored_rows:  # built by the worker (results.indexes)
            names, _, _, counts, _ = stored_rows
            return {"count": dict(zip(names, counts, strict=True))}
        table = parsed.stored(index).table("segments", ["start", "end", "resource"])
        names = _layout(parsed, index)["names"]
        if table is None or not table.num_rows:
            return {"count": {}}
        starts, ends = _floats(table, "start"), _floats(table, "end")
        codes = _codes(table["resource"], names)
        step, rows = _events_by_row(starts, ends, codes, len(names))
        running = np.cumsum(step, dtype=np.int64)
        first = np.searchsorted(rows, np.arange(len(names)))
        most = np.maximum.reduceat(running, first)
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


def _greedy_lanes(starts, ends, running=None):
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
    """:func:`_greedy_lanes` of a row where at most one earlier segment runs at any segment's start (no
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
    """:func:`_greedy_lanes` one segment at a time (heaps of free lanes and of running segments' ends)."""
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
    by_row = indexes.files_of(parsed, index).get("byrow") if missing else None
    if by_row:  # each row's segments in start order, from the worker's index (results.indexes), a row at a time
        axis = {n: i for i, n in enumerate(_layout(parsed, index)["names"])}
        wanted = {axis[n]: n for n in missing}
        first, last = min(wanted), max(wanted)
        by_rows = _group_stats(parsed, index, by_row)[1]
        groups = [g for g, (_, a, b) in enumerate(by_rows.tolist()) if any(a <= c <= b for c in wanted)]
        for code, table in indexes.iter_by_row(by_row, groups, first, last - first + 1, ["start", "end"]):
            if code in wanted:  # the row's own arrays (not views keeping the whole batch read alive)
                starts, ends = _owned(_floats(table, "start")), _owned(_floats(table, "end"))
                rows[wanted[code]] = (starts, ends, _small_lanes(_greedy_lanes(starts, ends)))
    elif missing:
        table = parsed.stored(index).table("segments", ["start", "end", "resource"])
        codes = np.asarray(
            pc.fill_null(
                pc.index_in(pc.cast(table["resource"], pa.string()), value_set=pa.array(missing, pa.string())), -1
            ).to_numpy(zero_copy_only=False)
        )
        order = np.argsort(codes, kind="stable")  # by row, file order inside each
        bounds = np.searchsorted(codes[order], np.arange(-1, len(missing) + 1))
        all_starts, all_ends = _floats(table, "start"), _floats(table, "end")
        for k, n in enumerate(missing):
            idx = order[bounds[k + 1] : bounds[k + 2]]
            starts, ends = all_starts[idx], all_ends[idx]
            rows[n] = (starts, ends, _small_lanes(_greedy_lanes(starts, ends)))
    return {n: rows[n] for n in names}


def _owned(values):
    """``values`` in memory of their own (a view of an Arrow buffer would keep all of it)."""
    return values if values.base is None else values.copy()


def _small_lanes(lane):
    """Lane numbers in the smallest integers that hold them (kept per row for the whole run)."""
    return lane.astype(np.int8) if lane.size and lane.max() < 127 else lane


def _window_lanes(parsed, index, lanes, table, lo, hi, page):
    """The lanes of the window's bars (``table``: the window's segments on ``page``, in file order)."""
    out = np.zeros(table.num_rows, np.int32)
    overlapped = [n for n in page if lanes["count"].get(n, 1) > 1]
    if not overlapped or not table.num_rows:
        return out.tolist()
    res = np.asarray(pc.cast(table["resource"], pa.string()).to_numpy(zero_copy_only=False))
    starts = _floats(table, "start")
    stored_rows = _stored_rows(parsed, index)
    by_row = indexes.files_of(parsed, index).get("byrow")
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
    rows_of, times = _group_stats(parsed, index, by_row)[1], _by_row_times(parsed, index, by_row)
    lo_t, hi_t = times[:, 1], times[:, 2]
    when = (lo_t < hi) & (hi_t > lo) if hi > lo else (lo_t <= lo) & (hi_t >= lo)
    wanted = np.asarray(sorted(codes))
    first = np.searchsorted(wanted, rows_of[:, 1], side="left")  # the first wanted row at or after the group's
    holds = (first < wanted.size) & (wanted[np.minimum(first, wanted.size - 1)] <= rows_of[:, 2])
    groups = np.flatnonzero(when & holds).tolist()
    if not groups:
        return {}
    parts = []  # a row group at a time: only what it holds of the window is kept
    for batch in pq.ParquetFile(indexes._source(by_row), pre_buffer=False).iter_batches(
        batch_size=indexes.ROW_GROUP, row_groups=groups, columns=["row", "start", "end", "lane"], use_threads=False
    ):
        row, s, e = (batch.column(k).to_numpy() for k in range(3))
        keep = np.flatnonzero(((s < hi) & (e > lo) if hi > lo else (s <= lo) & (e >= lo)) & np.isin(row, wanted))
        parts.append((row[keep], s[keep], batch.column(3).to_numpy()[keep]))
    row, s, lane = (np.concatenate([p[k] for p in parts]) for k in range(3))
    bounds = np.searchsorted(row, np.append(wanted, wanted[-1] + 1).astype(row.dtype))  # sorted by row
    return {int(c): (s[a:b], lane[a:b]) for c, a, b in zip(wanted.tolist(), bounds[:-1], bounds[1:], strict=True)}


def _by_row_times(parsed, index, by_row):
    """Per row group of the by-row index ``(segments, min start, max end)`` (footer; read once per run)."""
    return parsed.memo(("byrow_times", index), lambda: _stats(indexes._source(by_row), ("start", "end")))


def _zoom_shows_bars(starts, ends, lo, hi, pixels, max_bars):
    """Whether some narrower window holds at most ``max_bars`` segments on these rows.

    Zooming can end in one pixel column of today's window at the narrowest (and no
    narrower than the zoom limit): if even the emptiest column is overlapped by more
    than ``max_bars`` segments, zooming in shows occupancy again, so the chart must not
    promise bars.
    """
    if hi - lo <= 2 * MIN_ZOOM:
        return False
    edges = np.linspace(lo, hi, pixels + 1)
    starts, ends = np.sort(starts, kind="stable"), np.sort(ends, kind="stable")  # runs sorted per row: merged
    overlapping = np.searchsorted(starts, edges[1:], side="left") - np.searchsorted(ends, edges[:-1], side="right")
    return bool(overlapping.min() <= max_bars)


MIN_ZOOM = 1e-3  # the chart's narrowest window (charts-common.js linkedTime minRange)


def _bounded(value, field, lo, hi):
    """A query-string integer in ``lo..hi`` (``queries._bounded_int`` after parsing the text)."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise QueryError(field, f"{value!r} is not an integer", f"integer {lo}..{hi}") from None
    return _bounded_int(value, field, lo, hi)


def _segment_arrays(table, page, modes):
    """The page's segments of a window (``table``) as the arrays :func:`_occupancy` reads: ``start``,
    ``end``, ``share`` (1 where none), ``row`` (index into ``page``) and per colour mode its values."""
    share = (
        np.nan_to_num(np.asarray(table["share"].to_numpy(zero_copy_only=False), dtype=float), nan=1.0)
        if "share" in table.column_names
        else np.ones(table.num_rows)
    )
    return {"start": _floats(table, "start"), "end": _floats(table, "end"), "share": share,
            "row": _codes(table["resource"], page),
            "values": {m["key"]: _mode_array(table, m) for m in modes if m["type"] != "job"}}  # fmt: skip


def _group_stats(parsed, index, by_row):
    """Per row group of the segments file ``(rows, min start, max end)`` and of the by-row index
    ``(rows, first row, last row)``, from the files' footers (read once per run)."""

    def build():
        segments = parsed.stored(index)._source("segments")
        return _stats(segments, ("start", "end")), _stats(indexes._source(by_row), ("row", "row"))

    return parsed.memo(("group_stats", index), build)


def _stats(source, names):
    """Per row group ``(segments, min of names[0], max of names[1])``. In a file of stretches
    (results.store) a row holds many segments: they are counted by the resource lists' elements."""
    meta = pq.ParquetFile(source).metadata
    columns = [meta.schema.to_arrow_schema().names.index(n) for n in names]
    paths = [meta.schema.column(c).path for c in range(meta.num_columns)]
    listed = paths.index("resource.list.element") if "resource.list.element" in paths else None
    out = np.zeros((meta.num_row_groups, 3))
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        lo, hi = (group.column(c).statistics for c in columns)
        rows = group.column(listed).num_values if listed is not None else group.num_rows
        out[g] = [rows, lo.min if lo is not None and lo.has_min_max else -np.inf,
                  hi.max if hi is not None and hi.has_min_max else np.inf]  # fmt: skip
    return out


def _by_row_is_cheaper(parsed, index, by_row, lo, hi, row0, rows):
    """Whether the page's rows in the by-row index are fewer rows to read than the window's row groups of
    the time-sorted segments file (both give the same segments)."""
    by_time, by_rows = _group_stats(parsed, index, by_row)
    hit = (by_time[:, 1] < hi) & (by_time[:, 2] > lo) if hi > lo else (by_time[:, 1] <= lo) & (by_time[:, 2] >= lo)
    page = (by_rows[:, 1] < row0 + rows) & (by_rows[:, 2] >= row0)
    return by_rows[page, 0].sum() <= by_time[hit, 0].sum()


def _by_row_groups(parsed, index, by_row, row0, rows):
    """The by-row index's row groups holding rows ``row0 .. row0 + rows − 1`` (footer statistics)."""
    by_rows = _group_stats(parsed, index, by_row)[1]
    return np.flatnonzero((by_rows[:, 1] < row0 + rows) & (by_rows[:, 2] >= row0)).tolist()


def _by_row_rows(name, groups, lo, hi, row0, rows, modes, has_share):
    """The page's rows' segments in the window from the run's by-row index (``results.indexes``), one row
    at a time: ``(row on the page, arrays)`` as :func:`_page_rows` gives them from :func:`_segment_arrays`
    (the same segments, each row's in the same (start) order; ``share`` None where the index left it
    out: every share 1). Only the page's row groups (``groups``, from the footer) are read, a batch at a
    time (:func:`indexes.iter_by_row`), so no column of the whole page is ever held."""
    keys = [m for m in modes if m["type"] != "job"]
    columns = ["start", "end", *(["share"] if has_share else []), *(f"c_{m['key']}" for m in keys)]
    for row, table in indexes.iter_by_row(name, groups, row0, rows, columns):
        starts, ends = _floats(table, "start"), _floats(table, "end")
        keep = (starts < hi) & (ends > lo) if hi > lo else (starts <= lo) & (ends >= lo)  # as StoredRun.window
        if keep.all():  # the whole run: no copies
            keep = slice(None)

        def column(name, keep=keep, table=table):
            return table[name].to_numpy(zero_copy_only=False)[keep]

        share = np.nan_to_num(np.asarray(column("share"), float), nan=1.0) if "share" in table.column_names else None
        values = {m["key"]: column(f"c_{m['key']}") for m in keys}
        yield row - row0, {"start": starts[keep], "end": ends[keep], "share": share, "values": values}


def _occupancy(arrays, page, capacities, lo, hi, pixels, modes=()):
    """Per row, the busy fraction of each of ``pixels`` equal columns of ``[lo, hi)`` (``arrays``:
    the page's segments in the window, :func:`_segment_arrays`).

    With F(x) = Σ share·|[start, end) ∩ [lo, x)|, a column's busy time is F(right) − F(left);
    F is a sum of ramps, evaluated at every column edge from cumulative sums over the
    segments sorted by start and by end (O(n log n) per row, no per-segment loop).

    Per colour mode, each block (row × column) also gets, as one character per column
    (``.`` where idle): for a category mode the **dominant** category, the one with the most
    busy time (share × time) in the block, as ``chr(48 + index)``; for a scale the
    **busy-weighted mean** Σ share·time·value / Σ share·time, as ``chr(48 + level)`` with
    level = round((mean − min)/(max − min) · 63) over the mode's range.
    """
    return _occupancy_and_zoom(_page_rows(arrays), page, capacities, lo, hi, pixels, modes, 0)["occupancy"]


def _page_rows(arrays):
    """``(row on the page, its arrays)`` of every row with segments in ``arrays`` (:func:`_segment_arrays`)."""
    codes = arrays["row"]
    if not codes.size:
        return
    in_order = bool(np.all(codes[1:] >= codes[:-1]))
    order = None if in_order else np.argsort(codes, kind="stable")  # each row's segments in their given order
    sorted_codes = codes if in_order else codes[order]
    heads = np.flatnonzero(np.concatenate([[True], sorted_codes[1:] != sorted_codes[:-1]]))
    share = arrays["share"]
    for r, a, b in zip(sorted_codes[heads].tolist(), heads.tolist(), [*heads[1:].tolist(), codes.size], strict=True):
        m = slice(a, b) if in_order else order[a:b]
        yield r, {"start": arrays["start"][m], "end": arrays["end"][m], "share": None if share is None else share[m],
                  "values": {k: v[m] for k, v in arrays["values"].items()}}  # fmt: skip


def _occupancy_and_zoom(rows, page, capacities, lo, hi, pixels, modes, max_bars):
    """``{"occupancy", "zoom_shows_bars", "count"}`` of the page's rows (``rows``: ``(row on the page,
    arrays)`` of each row with segments in the window, as :func:`_page_rows` gives them): the
    :func:`_occupancy`, :func:`_zoom_shows_bars` and the number of segments.

    Zoom's overlap counts are summed over the rows' own sorted times, the same integers as over all
    the segments at once, except where the columns are too narrow for the times' floating point
    (then the segments are kept and counted as :func:`_zoom_shows_bars` does)."""
    edges = np.linspace(lo, hi, pixels + 1)
    width = (hi - lo) / pixels
    grid = np.zeros((len(page), pixels))
    eps = EPS * width
    keys = [m["key"] for m in modes if m["type"] != "job"]
    strings = {}
    # Clipped to the window, a start is before a right edge (> lo) and an end at or before a left edge
    # (< hi) exactly when it was unclipped: per-row counts of the clipped times sum to the global ones.
    counted = edges[1] > lo and edges[-2] < hi
    starts_before = np.zeros(pixels, np.int64)
    ends_by = np.zeros(pixels, np.int64)
    kept, count = [], 0
    for r, row in rows:
        s_m, e_m, sh, values = row["start"], row["end"], row["share"], row["values"]
        count += s_m.size
        if not counted:
            kept.append((s_m, e_m))
        ramps = _RowRamps(edges, np.maximum(s_m, lo), np.minimum(e_m, hi))
        if counted:
            starts_before += np.searchsorted(ramps.s, edges[1:], side="left")
            ends_by += ramps.ke[:-1]
        cap = float(capacities.get(page[r], 1.0) or 1.0)
        if width > 0:
            grid[r] = np.clip(ramps.busy(sh) / (width * cap), 0.0, 1.0)
        else:  # an instant: the shares of what runs at it (busy time / zero width would be 0 / 0)
            at = (s_m <= lo) & ((e_m > lo) | (s_m == e_m))
            grid[r] = min(float(sh[at].sum() if sh is not None else np.count_nonzero(at)) / cap, 1.0)
        for mode in modes:
            key = mode["key"]
            if key not in values:
                continue
            strings.setdefault(key, {})
            vr = values[key]
            if mode["type"] == "scale":
                vr = np.asarray(vr, float)
                ok = ~np.isnan(vr)
                w = np.where(ok, 1.0 if sh is None else sh, 0.0)
                total = ramps.busy(w)
                mean = np.divide(ramps.busy(w * np.nan_to_num(vr)), total, out=np.zeros(pixels), where=total > eps)
                a, b = mode["range"]
                level = np.rint((mean - a) / (b - a) * (SCALE_LEVELS - 1)) if b > a else np.zeros(pixels)
                chars = np.where(total > eps, 48 + np.clip(level, 0, SCALE_LEVELS - 1), 46)
            else:
                cats, per = ramps.busy_by_category(vr, sh)
                chars = np.full(pixels, 46)
                if per is not None:
                    best = np.argmax(per, axis=0)
                    chars = np.where(per.max(axis=0) > eps, 48 + cats[best], 46)
            strings[key][r] = bytes(chars.astype(np.uint8).tolist()).decode("ascii")
    idle = "." * pixels
    c = {key: [strings.get(key, {}).get(r, idle) for r in range(len(page))] for key in keys}
    occupancy = {"columns": pixels, "t": [lo, hi], "rows": np.round(grid, 3).tolist(), "c": c}
    if hi - lo <= 2 * MIN_ZOOM:
        zoom = False
    elif counted:
        zoom = bool((starts_before - ends_by).min() <= max_bars)
    else:
        zoom = _zoom_shows_bars(*(np.concatenate([k[i] for k in kept] or [np.zeros(0)]) for i in (0, 1)),
                                lo, hi, pixels, max_bars)  # fmt: skip
    return {"occupancy": occupancy, "zoom_shows_bars": zoom, "count": count}


# Busy time below this fraction of a column is rounding noise of the cumulative sums, not work.
EPS = 1e-6


class _RowRamps:
    """One row's busy time per column for any weights: :func:`_ramp_sum` of its starts minus that of
    its ends, with the sorts and edge searches done once for every weight (the same arithmetic).

    Times already in order (a row of the by-row index is in start order, and a row whose segments
    never overlap in end order too) are not permuted: a stable sort of sorted times is the identity.
    Weights None are all 1: Σ 1 is the count (exact in floating point) and 1·p is p."""

    def __init__(self, edges, starts, ends):
        self.edges = edges
        self.s_order, self.e_order = _stable_order(starts), _stable_order(ends)
        self.s = starts if self.s_order is None else starts[self.s_order]
        self.e = ends if self.e_order is None else ends[self.e_order]
        self.ks, self.ke = np.searchsorted(self.s, edges, side="right"), np.searchsorted(self.e, edges, side="right")

    def _ramp(self, p, k, w):
        cwp = _prefix(p if w is None else w * p)
        cw_k = k.astype(float) if w is None else _prefix(w)[k]  # every weight 1: Σ is the count
        return self.edges * cw_k - cwp[k]

    @staticmethod
    def _take(values, order):
        return values if values is None or order is None else values[order]

    def busy(self, weights):
        ramp_s = self._ramp(self.s, self.ks, self._take(weights, self.s_order))
        return np.diff(ramp_s - self._ramp(self.e, self.ke, self._take(weights, self.e_order)))

    def busy_by_category(self, codes, weights):
        """``(categories, busy)``: the categories (codes ≥ 0) present in ascending order and, stacked,
        each one's :meth:`busy` of the weights masked to its segments (None: none present).

        Each category's ramps run over its own segments alone, in the same sorted order: the masked
        cumulative sums add only exact zeros between them (x + 0 = x), so every value is the same as
        the masked ones' (up to the sign of a zero, which no comparison and no sum can tell)."""
        valid = codes[codes >= 0]
        cats = np.flatnonzero(np.bincount(valid)) if valid.size else np.zeros(0, np.int64)
        if not cats.size:
            return cats, None
        per = np.empty((cats.size, self.edges.size - 1))
        sides = [(p, self._take(codes, order), self._take(weights, order))
                 for p, order in ((self.s, self.s_order), (self.e, self.e_order))]  # fmt: skip
        for j, cat in enumerate(cats.tolist()):
            ramps = []
            for p, c, w in sides:
                at = np.flatnonzero(c == cat)  # the category's segments, in the sorted order
                pc_ = p[at]
                ramps.append(self._ramp(pc_, np.searchsorted(pc_, self.edges, side="right"), self._take(w, at)))
            per[j] = np.diff(ramps[0] - ramps[1])
        return cats, per


def _prefix(values):
    """``[0, v0, v0 + v1, …]``: the running sums (``np.cumsum``, in order) after a leading 0."""
    out = np.empty(values.size + 1)
    out[0] = 0.0
    np.cumsum(values, out=out[1:])
    return out


def _stable_order(values):
    """``np.argsort(values, kind="stable")``, or None when that is the identity (already in order)."""
    if values.size < 2 or bool(np.all(values[1:] >= values[:-1])):
        return None
    return np.argsort(values, kind="stable")


def _ramp_sum(x, points, weights):
    """Σ_i weights_i · max(0, x − points_i) at every x (points need not be sorted)."""
    order = np.argsort(points, kind="stable")
    p, w = points[order], weights[order]
    cw, cwp = np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(w * p)])
    k = np.searchsorted(p, x, side="right")
    return x * cw[k] - cwp[k]


def schedule_cut(run):
    """How a segment limit stopped the family's recording: ``{"limit", "recorded", "cut_at_s"}``, or None.

    ``extra.schedule_cut`` (schedulers.core.columns.schedule_cut) says it all. Results stored
    before it existed flagged a cut with ``extra.schedule_truncated`` (backfill) or the metric
    ``schedule_truncated`` (federated): the cut is known, its figures are not (None).
    """
    extra = run.get("extra") or {}
    cut = extra.get("schedule_cut")
    if isinstance(cut, dict):
        return {"limit": cut.get("limit"), "recorded": cut.get("recorded"), "cut_at_s": cut.get("cut_at_s")}
    legacy = any("truncat" in k and v for k, v in extra.items())
    if legacy or (run.get("metrics") or {}).get("schedule_truncated"):
        return {"limit": None, "recorded": None, "cut_at_s": None}
    return None


def recording_cut(run):
    """Whether a limit stopped the family's schedule recording (see :func:`schedule_cut`)."""
    return schedule_cut(run) is not None


def _cut_for_chart(run, recorded, span):
    """:func:`schedule_cut` with what a result from before ``extra.schedule_cut`` can still tell:
    the segments recorded and the last recorded end."""
    cut = schedule_cut(run)
    if cut is None:
        return None
    if cut["recorded"] is None:
        cut["recorded"] = recorded
    if cut["limit"] is None and cut["cut_at_s"] is None and recorded:
        cut["cut_at_s"] = span[1]
    return cut


def schedule_cuts(doc):
    """Every algorithm × repetition run whose schedule a limit cut, for the result page's notice."""
    out = []
    for run in doc.get("runs", []):
        cut = schedule_cut(run)
        if cut is not None:
            out.append({"algorithm": run.get("algorithm", ""), "repetition": run.get("repetition", 0), **cut})
    return out


# -- events -------------------------------------------------------------------------------------

EVENT_KINDS = {
    "migrated": "migration (a segment ends because its VM or job moved to another resource)",
    "killed": "kill (the work done is lost; the job restarts later)",
    "preempted": "preemption (the lease is stopped for another)",
    "rejected": "rejection (the job never ran)",
    "deadline missed": "deadline missed (the job finished after its deadline)",
}
MAX_EVENTS = 2000


def _event_table(parsed, index):
    """Every event of run ``index`` in time order: ``t``, ``kind``, ``row``, ``job``, ``task`` columns (read once).

    ``kind`` is an index into ``kinds``; ``row`` is the event's resource's row on the axis (:func:`_layout`), −1 for an event
    without resource, −2 for a resource not on the axis (never shown).

    From the schedule: a segment whose ``ended`` is ``migrated``, ``killed`` or ``preempted``
    is an event at its end on its resource. From the job records: ``rejected`` (federated) or
    ``accepted == False`` (dvfs_bot) at the job's arrival, and ``violated`` deadlines at its
    finish; those have no resource (drawn on the chart's "jobs" line).
    """

    def build():
        name = indexes.files_of(parsed, index).get("events")
        if name:  # built by the worker when it stored the result (results.indexes)
            return indexes.read_events(name)
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        seg_t, seg_kind, seg_row = np.zeros(0), pa.array([], pa.string()), np.zeros(0, np.int32)
        seg_job = seg_task = pa.array([], pa.string())
        if schema is not None and "ended" in schema.names:  # whole columns, no Python loop over the events
            cols = [c for c in ("end", "resource", "job", "task", "ended") if c in schema.names]
            ends = [("ended", "in", ["migrated", "killed", "preempted"])]  # read only those rows' job and task
            seg = stored.table("segments", cols, filters=ends)
            seg = {c: seg[c].combine_chunks() for c in cols}  # one array per column
            seg_t = np.asarray(seg["end"].to_numpy(zero_copy_only=False), dtype=float)
            seg_kind = pc.cast(seg["ended"], pa.string())
            res = pc.fill_null(pc.cast(seg["resource"], pa.string()), "None")  # str(None), as a name
            at = pc.index_in(res, value_set=pa.array(_layout(parsed, index)["names"], pa.string()))
            seg_row = np.asarray(pc.fill_null(at, -2).to_numpy(zero_copy_only=False), np.int32)  # −2: off the axis
            blank = pa.array([""] * len(seg["end"]), pa.string())
            seg_job, seg_task = (pc.fill_null(pc.cast(seg[c], pa.string()), "None") if c in cols else blank
                                 for c in ("job", "task"))  # fmt: skip
        t, kind, job = [], [], []  # the job records' events (few)
        jobs = parsed.jobs_table(index)
        if jobs is not None and jobs.num_rows:
            names = jobs.column_names
            arrival = next((c for c in ("arrival", "submit_s", "submit") if c in names), None)
            ids = [str(j) for j in jobs["job"].to_pylist()] if "job" in names else [""] * jobs.num_rows
            picks = []
            if "rejected" in names and arrival:
                picks.append(("rejected", pc.fill_null(pc.equal(jobs["rejected"], True), False), arrival))
            elif "accepted" in names and arrival:
                picks.append(("rejected", pc.fill_null(pc.equal(jobs["accepted"], False), False), arrival))
            finish = next((c for c in ("finish_s", "finish", "end_s") if c in names), None)
            if "violated" in names and finish:
                picks.append(("deadline missed", pc.fill_null(pc.equal(jobs["violated"], True), False), finish))
            for name, mask, when in picks:
                rows = np.nonzero(np.asarray(mask))[0]
                times = jobs[when].to_pylist()
                for i in rows.tolist():
                    if times[i] is not None:
                        t.append(times[i])
                        kind.append(name)
                        job.append(ids[i])
        times = np.concatenate([seg_t, np.asarray(t, dtype=float)])
        order = np.argsort(times, kind="stable")
        kinds = sorted(set(pc.unique(seg_kind).to_pylist()) | set(kind))
        codes = np.concatenate([np.asarray(pc.index_in(seg_kind, value_set=pa.array(kinds, pa.string())).to_numpy(
            zero_copy_only=False), np.int64), np.asarray([kinds.index(k) for k in kind], np.int64)])  # fmt: skip
        take = pa.array(order)
        jobs_ = pa.concat_arrays([seg_job, pa.array(job, pa.string())]).take(take)
        tasks = pa.concat_arrays([seg_task, pa.array([""] * len(job), pa.string())]).take(take)
        return {
            "t": times[order],
            "kind": codes.astype(np.int8)[order],
            "kinds": kinds,
            "row": np.concatenate([seg_row, np.full(len(t), -1, np.int32)])[order],
            "job": jobs_,
            "task": tasks,
            "labels": lambda at: (jobs_.take(pa.array(at)).to_pylist(), tasks.take(pa.array(at)).to_pylist()),
        }

    return parsed.memo(("events", index), build)


def events(parsed, index, lo, hi, row0, rows):
    """The events inside ``[lo, hi]`` on the page's rows ``row0 .. row0 + rows − 1`` (row −1: a job's
    event, no resource); ``r`` counts from the page's first row.

    At most ``MAX_EVENTS`` (the earliest) are sent; ``total`` counts them all, so the chart
    can say when zooming in shows the rest. ``kinds`` lists every kind the run has (legend).
    """
    ev = _event_table(parsed, index)
    a, b = np.searchsorted(ev["t"], lo, side="left"), np.searchsorted(ev["t"], hi, side="right")  # t is sorted
    row = ev["row"][a:b]
    picked = a + np.nonzero((row == -1) | ((row >= row0) & (row < row0 + rows)))[0]
    shown = picked[:MAX_EVENTS]
    r = ev["row"][shown]
    labels = ev["labels"](shown)
    return {
        "kinds": [k for k in EVENT_KINDS if k in ev["kinds"]],
        "labels": EVENT_KINDS,
        "total": int(picked.size),
        "t": [round(x, 3) for x in ev["t"][shown].tolist()],
        "kind": [ev["kinds"][k] for k in ev["kind"][shown].tolist()],
        "r": np.where(r == -1, -1, r - row0).tolist(),
        "job": labels[0],
        "task": labels[1],
    }


def _num(value):
    return round(value, 4) if isinstance(value, float) else value


def _series_arrays(parsed, index):
    def build():
        data = parsed.series_arrays(index)
        t = np.asarray(data["t"] if data.get("t") is not None else [], dtype=float)
        out = {k: np.asarray(v, dtype=float) for k, v in data.items() if k != "t" and len(v) == t.size}
        if t.size and "power_w" in out and "energy_j" not in out:
            out["energy_j"] = energy_j(t, out["power_w"])  # cumulative energy from the power curve
        return t, out

    return parsed.memo(("series", index), build)


def _cut(t, v, lo, hi, points):
    """The step function inside ``[lo, hi]`` for display: bucket means (area kept) with a min/max band."""
    env = envelope(t, v, points, lo, hi)
    out = {"t": [round(x, 3) for x in env["t"]], "v": [_num(float(x)) for x in env["v"]]}
    if not env["exact"]:
        out["min"] = [_num(float(x)) for x in env["min"]]
        out["max"] = [_num(float(x)) for x in env["max"]]
    return out


def series(parsed, repetition, t0=None, t1=None, points=POINTS):
    """Every series of every algorithm of one repetition, windowed: ``{name: {algorithm: {t, v}}}``."""
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
            out.setdefault(name, {})[r.get("algorithm", str(i))] = _cut(t, v, lo, hi, points)
    strips = [f for f in (frequency(parsed, i, lo, hi, points) for i, _ in runs) if f]
    scale = next((m["range"] for m in colour_modes(parsed) if m["key"] == "freq"), None)
    freq = {"runs": strips, "range": scale or _joint_range(strips)} if strips else None
    return {"repetition": repetition, "window": [lo, hi], "span": full, "series": out, "frequency": freq}


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
        arr = np.column_stack([_floats(table, "start"), _floats(table, "end"), _floats(table, "freq_ghz")])
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
        b = np.diff(_ramp_sum(edges, s, on) - _ramp_sum(edges, e, on))
        w = np.diff(_ramp_sum(edges, s, f) - _ramp_sum(edges, e, f))
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


def _job_table(parsed, index):
    """Run ``index``'s jobs sorted by id, with their first start, last end and resource set (``results.jobindex``:
    the set's size ``nres`` and fingerprint ``fp``), read once: from the file the worker wrote, else
    built here from the segments file (results stored without it) by the same code."""
    from cloudsched_web.results import jobindex

    def build():
        name = indexes.files_of(parsed, index).get("jobs")
        table = jobindex.read(name) if name else jobindex.table_of(parsed.stored(index))
        out = {c: table[c].to_numpy() for c in ("first", "last", "nres", "fp")}
        return {"job": table["job"].combine_chunks(), **out}

    return parsed.memo(("job_table", index), build)


def _status(delta_start, moved):
    """What happened to each job in B: waiting first (it is what users feel), then moving."""
    later, earlier = delta_start > 1e-9, delta_start < -1e-9
    return np.where(later, "later", np.where(earlier, "earlier", np.where(moved, "moved", "same"))).tolist()


def cut_at(parsed, index):
    """Where the family stopped recording run ``index``'s segments, on its time axis; None if it recorded all.

    ``extra.schedule_cut = {"limit", "recorded", "cut_at_s"}`` says it; an older result that only
    flags ``schedule_truncated`` (in its extras or metrics) is taken as cut at the end of what it
    recorded (the latest segment end), the earliest time from which nothing is known to be recorded.
    """
    cut = schedule_cut(parsed.run(index))  # the one reading of a cut (and of the older flags)
    if cut is None:
        return None
    at = cut["cut_at_s"]
    return float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else parsed.span(index)[1]


def _missing(jobs, absent, cut):
    """Of one side's jobs absent from the other (positions ``absent`` in its job table), which count as cut.

    A job counts as cut when the other run's recording stopped at ``cut`` and the job's first
    start on this side is at or after it: its segments would lie where the other run recorded none.
    """
    if cut is None:
        return np.zeros(absent.size, dtype=bool)
    return jobs["first"][absent] >= cut - 1e-9


def _join(ja, jb):
    """The jobs of both sides by id: positions in ``ja`` and in ``jb`` of the jobs in both (in ``ja``'s
    order), of the jobs only in ``ja`` and of those only in ``jb`` (each in its side's order)."""
    if ja.equals(jb):  # the same workload run in full on both sides: the same ids in the same order
        both = np.arange(len(ja))
        return both, both, both[:0], both[:0]
    at = pc.fill_null(pc.index_in(ja, value_set=jb), -1).to_numpy()
    in_b = at >= 0
    in_a = np.asarray(pc.is_in(jb, value_set=ja), dtype=bool)
    return np.flatnonzero(in_b), at[in_b], np.flatnonzero(~in_b), np.flatnonzero(~in_a)


STATUS_MAX = 5000  # jobs of each kind (changed, absent from B, absent from A) the chart colours


def diff(parsed, a, b, limit=100, other=None):
    """What changed between run ``a`` and run ``b`` of the same workload: moved and delayed jobs.

    ``b`` indexes ``other`` (another stored run with the same workload digest) when given, else
    ``parsed``. Jobs on one side only are counted apart from jobs the other side's schedule
    limit cut (:func:`cut_at`, :func:`_missing`). A job *moved* when its set of resources differs
    (compared by ``results.jobindex``'s size and 64-bit fingerprint of the set). Changed jobs come by
    −|Δend| − |Δstart|, ties in job id order; the jobs absent from a side in job id order.
    Vectorised over the two runs' job tables (:func:`_job_table`), whichever way each was stored.
    """
    other = parsed if other is None else other
    ja, jb = _job_table(parsed, a), _job_table(other, b)
    ia, ib, only_a, only_b = _join(ja["job"], jb["job"])
    sa, sb, ea, eb = ja["first"][ia], jb["first"][ib], ja["last"][ia], jb["last"][ib]
    dstart, dend = sb - sa, eb - ea
    moved = (ja["fp"][ia] != jb["fp"][ib]) | (ja["nres"][ia] != jb["nres"][ib])
    changed = np.flatnonzero(moved | (np.abs(dstart) > 1e-9) | (np.abs(dend) > 1e-9))
    order = changed[np.argsort(-np.abs(dend[changed]) - np.abs(dstart[changed]), kind="stable")]
    top = order[:limit]
    names = ja["job"].take(pa.array(ia[top])).to_pylist()
    columns = (sa[top].tolist(), sb[top].tolist(), ea[top].tolist(), eb[top].tolist(), dstart[top].tolist(),
               dend[top].tolist(), moved[top].tolist())  # fmt: skip
    rows = [{"job": job, "start_a": s_a, "start_b": s_b, "end_a": e_a, "end_b": e_b, "delta_start": ds,
             "delta_end": de, "moved": mv} for job, s_a, s_b, e_a, e_b, ds, de, mv in zip(names, *columns, strict=True)]  # fmt: skip
    cut_a, cut_b = cut_at(parsed, a), cut_at(other, b)
    cut_in_b, cut_in_a = _missing(ja, only_a, cut_b), _missing(jb, only_b, cut_a)
    shown = order[:STATUS_MAX]
    status = dict(itertools.chain(
        zip(ja["job"].take(pa.array(ia[shown])).to_pylist(), _status(dstart[shown], moved[shown]), strict=True),
        zip(ja["job"].take(pa.array(only_a[:STATUS_MAX])).to_pylist(),
            np.where(cut_in_b[:STATUS_MAX], "cut_in_b", "not_in_b").tolist(), strict=True),
        zip(jb["job"].take(pa.array(only_b[:STATUS_MAX])).to_pylist(),
            np.where(cut_in_a[:STATUS_MAX], "cut_in_a", "not_in_a").tolist(), strict=True),
    ))  # fmt: skip
    return {
        "a": {"index": a, "algorithm": parsed.run(a).get("algorithm", ""), "cut_at": cut_a},
        "b": {"index": b, "algorithm": other.run(b).get("algorithm", ""), "cut_at": cut_b},
        "jobs": int(ia.size),
        "only_a": int(only_a.size - cut_in_b.sum()),
        "only_b": int(only_b.size - cut_in_a.sum()),
        "cut_in_a": int(cut_in_a.sum()),
        "cut_in_b": int(cut_in_b.sum()),
        "changed": int(changed.size),
        "moved": int(moved.sum()),
        "later": int((dstart > 1e-9).sum()),
        "earlier": int((dstart < -1e-9).sum()),
        "rows": rows,
        "status": status,
    }
