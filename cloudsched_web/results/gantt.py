"""The Gantt chart of a run: one page of resource rows over a time window, as bars or as occupancy.

Every function takes a :class:`~cloudsched_web.results.queries.ParsedResult` (cached per run) and
a window ``[t0, t1)``; per-run numpy indexes are memoised on it, so panning a 200,000-segment
schedule costs array masks, not a parse. The whole-run indexes (resource axis, lane counts, events,
colour modes, segments by row) are read from the files the worker wrote when it stored the result
(``results.indexes``), and built on the fly for results without them. Payloads are columnar and
bounded without dropping anything: a Gantt pages through all its resources and turns into per-pixel
occupancy (``results.occupancy``) when a window holds more than ``MAX_BARS`` bars.
"""

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results import indexfiles, jobdiff
from cloudsched_web.results.axis import resource_axis
from cloudsched_web.results.bars import bar_columns, empty_bars, tier_lanes
from cloudsched_web.results.byrow import by_row_columns, by_row_groups, by_row_is_cheaper, by_row_rows
from cloudsched_web.results.colours import colour_modes, tier_of
from cloudsched_web.results.cuts import cut_for_chart, recording_cut
from cloudsched_web.results.events import events
from cloudsched_web.results.lanes import lane_counts, window_lanes
from cloudsched_web.results.occupancy import occupancy_and_zoom, page_rows, segment_arrays
from cloudsched_web.results.queries import QueryError, bounded, window

__all__ = ["MAX_BARS", "MAX_EXACT", "MAX_PIXELS", "MAX_ROWS", "PIXELS", "ROWS", "exact_bars", "gantt"]

MAX_BARS = 100_000  # bars drawn one by one (a canvas fast path); past it, per-pixel occupancy
ROWS = 40
MAX_ROWS = 200
PIXELS = 1000
MAX_PIXELS = 4000
MAX_EXACT = 50  # segments of one job on one resource in a bar's window (a tooltip wants one)
EXTRA_KEYS = ("freq_ghz", "tier", "cloud", "host", "vm_type", "pm_type", "ended")


def gantt(parsed, index, t0=None, t1=None, row0=0, rows=ROWS, pixels=PIXELS, max_bars=None, status=None):
    """Run ``index``'s Gantt (see :func:`_gantt`); the whole-run view, asked by every page load, is memoised.

    Afterwards the Arrow memory pool hands what it cached of the request's reads back to the system
    (under 1 ms; 16–40 MB less resident after the 200,000-job bench's requests).

    ``status`` (the diff page: ``jobdiff.status_of``) adds each bar's job's status; such a view is not memoised.
    ``max_bars`` None: :data:`MAX_BARS`, read at the call."""
    max_bars = MAX_BARS if max_bars is None else max_bars
    try:
        if status is not None:
            return _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars, status)
        if t0 in (None, "") and t1 in (None, ""):
            key = ("gantt_whole", index, str(row0), str(rows), str(pixels), max_bars)
            raw = parsed.memo(
                key, lambda: orjson.dumps(_gantt(parsed, index, None, None, row0, rows, pixels, max_bars))
            )
            return orjson.loads(raw)  # kept as JSON: a tenth of the memory of the lists (1.2 vs 10 MB at 200k jobs)
        return _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars)
    finally:
        pa.default_memory_pool().release_unused()


def _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars, status=None):
    """Run ``index``'s Gantt for the window: one page of resource rows, as bars or as occupancy.

    Every resource of the run has a row; ``row0``/``rows`` page through them in axis order
    (grouped by host, cloud or PM type where the family records one: ``groups``). When the
    page's window holds at most ``max_bars`` segments they come as bars, every one, each
    with its lane inside its row (:func:`lane_counts`) and its value in every colour mode
    (``colour``); past that, as **occupancy**: for each row and each of ``pixels`` columns
    of the window, the fraction of the row's capacity in use there (share × time /
    capacity × column width), with the dominant category (or busy-weighted mean value) of
    each colour mode, so every resource and every moment stays visible at any zoom and
    nothing is dropped. Zooming in brings the bars back (``zoom_shows_bars`` says whether
    it can). Events (migrations, kills, preemptions, rejections) come as ``events``, every one of the
    window (as counts per pixel column where too many). Bars are compact columns (``results.bars``).
    Where the result has two tiers (backfill's foreground and background), a row's lanes are its tiers,
    in bars and in occupancy (``occupancy.tiers``).
    """
    run = parsed.run(index)
    span = parsed.span(index)
    lo, hi = window(t0, t1, span)
    layout = resource_axis(parsed, index)
    names = layout["names"]
    row0 = bounded(row0, "row0", 0, max(len(names) - 1, 0))
    rows = bounded(rows, "rows", 1, MAX_ROWS)
    pixels = bounded(pixels, "pixels", 2, MAX_PIXELS)
    page = names[row0 : row0 + rows]
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    present = set(schema.names) if schema is not None else set()
    base = [c for c in ("start", "end", "resource", "job", "task", "share", "kind") if c in present]
    extra_keys = [k for k in EXTRA_KEYS if k in present]
    modes = colour_modes(parsed)
    tiers = tier_of(modes)
    mode_cols = sorted({c for m in modes for c in m["columns"] if c in present})
    table = shown = None
    capacities = (run.get("extra") or {}).get("capacities") or {}
    by_row = indexfiles.files_of(parsed, index).get("byrow")
    if by_row and not by_row_is_cheaper(parsed, index, by_row, lo, hi, row0, len(page)):
        by_row = None  # a narrow window: the time-sorted segments file reads fewer rows
    if by_row and status is not None and "job" not in by_row_columns(parsed, index, by_row):
        by_row = None  # an index written before its ``job`` column: the diff's colours from the segments
    if schema is not None and page:
        if by_row:  # the page's rows alone, from the worker's index sorted by row (results.indexes)
            groups = by_row_groups(parsed, index, by_row, row0, len(page), lo, hi)
            lines = None if status is None else jobdiff.status_lines(parsed, index, status)
            rows_of_page = by_row_rows(by_row, groups, lo, hi, row0, len(page), modes, "share" in present, lines)
            shown = occupancy_and_zoom(rows_of_page, page, capacities, lo, hi, pixels, modes, max_bars, tiers)
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
            diffed = status is not None and "job" in present
            table = stored.window(lo, hi, ["start", "end", "resource", *(["share"] if "share" in present else []),
                                           *(["job"] if diffed else []), *mode_cols])  # fmt: skip
            arrays = segment_arrays(table.filter(on_page), page, modes, status if diffed else None)
            shown = occupancy_and_zoom(page_rows(arrays), page, capacities, lo, hi, pixels, modes, max_bars, tiers)
            mode = "occupancy"
    else:
        count, mode = 0, "bars"
    lanes = lane_counts(parsed, index)
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
        "schedule_cut": cut_for_chart(run, parsed.info(index).get("segments", 0), span),
        "colour": {"modes": modes},
        "events": events(parsed, index, lo, hi, row0, len(page), pixels),
        "bars": empty_bars(),
    }
    if tiers is not None:
        out["lanes"] = [2] * len(page)  # foreground and background, each in its lane
    if mode == "occupancy":
        out["occupancy"], out["zoom_shows_bars"] = shown["occupancy"], shown["zoom_shows_bars"]
        return out
    if table is None or not table.num_rows:
        return out
    lane = tier_lanes(table, modes) if tiers is not None else window_lanes(parsed, index, lanes, table, lo, hi, page)
    out["bars"] = bar_columns(table, page, lo, hi, modes, lane, extra_keys, status)
    if tiers is None:
        out["lanes"] = [lanes["count"].get(n, 1) for n in page]  # after the page's lanes were assigned
    return out


def exact_bars(parsed, index, resource, job, t0, t1):
    """The stored segments of job ``job`` on ``resource`` in run ``index`` overlapping ``[t0, t1]``, with their exact
    times (``start``, ``end``, ``task``), in start order: what a Gantt tooltip shows for the bar under the pointer.

    A Gantt's bars carry their times in ticks of the window (``results.bars``: a whole-run window of a
    long schedule places them to 10 s); their exact times would more than double a payload of 100,000
    bars, so the tooltip asks for the one bar it shows, with the window its ticks bound. At most
    :data:`MAX_EXACT` segments (``truncated`` says more overlap)."""
    parsed.run(index)
    lo, hi = window(t0, t1, parsed.span(index))
    if not resource:
        raise QueryError("resource", "no resource named", "a resource of the run, as the Gantt's rows name it")
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    present = set(schema.names) if schema is not None else set()
    segments = []
    if {"start", "end", "resource"} <= present:
        table = stored.window(lo, hi, [c for c in ("start", "end", "resource", "job", "task") if c in present])
        keep = pc.equal(pc.cast(table["resource"], pa.string()), pa.scalar(str(resource)))
        if "job" in present:
            keep = pc.and_(keep, pc.equal(pc.cast(table["job"], pa.string()), pa.scalar(str(job or ""))))
        table = table.filter(keep)
        segments = [{"start": r["start"], "end": r["end"], "task": None if r.get("task") is None else str(r["task"])}
                    for r in table.slice(0, MAX_EXACT).to_pylist()]  # fmt: skip
        total = table.num_rows
    else:
        total = 0
    return {"index": index, "resource": str(resource), "job": str(job or ""), "window": [lo, hi],
            "segments": segments, "truncated": total > len(segments)}  # fmt: skip
