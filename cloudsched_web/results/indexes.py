"""Whole-run indexes of a stored result, built once by the worker beside its Parquet files.

The result page's charts need, per algorithm × repetition run, indexes over every segment: the
resource axis and its groups, the lanes each row needs, the events, the result-wide colour
categories, and — for a Gantt page of resource rows over a wide window — the page's segments
without reading the whole schedule. They are properties of the stored result, so
:func:`build` computes them when the worker stores it (``Run.store_result``) with the very
builders the web process would run (``results.axis``, ``colours``, ``events``, ``lanes``), and writes them as small files in
the result's directory:

- ``r{i}-rows.parquet``: one line per resource in axis order: ``name``, ``group``,
  ``lanes`` (the most segments running at once on it) and ``drawn`` (the lanes its bars take:
  one more where a zero-length segment lies inside another); the grouping column in the metadata;
- ``r{i}-events.parquet``: every event in time order: ``t``, ``kind``, ``row`` (the resource's
  row on the axis; −1 a job event without resource, −2 a resource off the axis), ``job``, ``task``;
- ``r{i}-byrow.parquet``: every segment on the axis sorted by row (stably: start order inside
  a row): ``row``, ``start``, ``end``, ``share``, per colour mode its value (``c_<mode>``:
  the category's index, −1 none, or the scale's value, NaN none) and its ``lane`` inside the row
  (0 in rows of one lane) and ``job``, its job's line in the run's job index (``jobindex.positions``: the diff
  colours occupancy blocks by their jobs' statuses), in small row groups whose statistics let a page of rows read only its
  own segments (and a window of them only the groups its times overlap).

Each run's segments file is read once for all of them, as stored (stretches are not expanded: a
stretch's values are its segments'). Index files written before ``drawn`` and ``lane`` serve as
before (the web process colours a row's lanes when a page first draws it).

The manifest (``Run.result_files``, in the database) only gains the file names per run
(``index``), the colour modes (a few categories) and the sizes the result page prints beside its download
links (``exports.sizes_of``: estimating them reads a row group of every file, 0.6 s at 200,000 jobs); results stored before this have neither,
and the web process computes the same indexes on the fly (the same modules). Both paths give
the same payloads (``tests/web/test_indexes.py``). See docs/results.md, "Serving at full scale".
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import exports, jobindex, store, stretches
from cloudsched_web.results.arrays import float_column, resource_codes
from cloudsched_web.results.axis import resource_axis
from cloudsched_web.results.colours import colour_modes, mode_array
from cloudsched_web.results.events import event_table
from cloudsched_web.results.indexfiles import GROUP_BY, KINDS, ROW_GROUP, VERSION
from cloudsched_web.results.lanes import greedy_lanes
from cloudsched_web.results.queries import ParsedResult

__all__ = ["build"]


def _write(name: str, table: pa.Table, row_group: int = ROW_GROUP) -> str:
    floats = [f.name for f in table.schema if pa.types.is_floating(f.type)]  # times: split bytes, no dictionary
    # (nor the by-row index's ``job``: a line per job, as many distinct values as jobs)
    return store.save_parquet(name, table, row_group_size=row_group,
                              use_dictionary=[n for n in table.column_names if n not in floats and n != "job"] + ["share"],
                              use_byte_stream_split=[n for n in floats if n != "share"])  # fmt: skip


def build(header: dict, manifest: dict) -> dict:
    """``manifest`` with the indexes of every run of the stored result (files written beside its own).

    A result without runs or files is returned as it is.
    """
    if not manifest or not manifest.get("runs"):
        return manifest
    base = manifest.get("base", "results")
    parsed = ParsedResult(header, manifest)
    modes = colour_modes(parsed)
    layout = resource_axis(parsed)  # the result's one axis: every run's rows files hold it
    runs = []
    for i, info in enumerate(manifest["runs"]):
        files = {}
        parsed.memo(("layout",), lambda: layout)
        names = layout["names"]
        byrow = _by_row(parsed, i, names, modes)  # every segment read once: the by-row file and the lanes
        counts = drawn = [1] * len(names)
        if byrow is not None:
            counts, lane, drawn = _lanes(byrow, len(names))
            byrow = byrow.append_column("lane", pa.array(lane))
        group_of = {n: g["name"] for g in layout["groups"] for n in names[g["row0"] : g["row0"] + g["rows"]]}
        rows = pa.table({"name": pa.array(names, pa.string()),
                         "group": pa.array([group_of.get(n, "") for n in names], pa.string()),
                         "lanes": pa.array(counts, pa.int32()), "drawn": pa.array(drawn, pa.int32())})  # fmt: skip
        rows = rows.replace_schema_metadata({GROUP_BY: (layout["group_by"] or "").encode()})
        files["rows"] = _write(f"{base}/r{i}-rows.parquet", rows)
        ev = event_table(parsed, i)
        events = pa.table({"t": ev["t"], "kind": ev["kind"], "row": ev["row"], "job": ev["job"], "task": ev["task"]})
        events = events.replace_schema_metadata({KINDS: json.dumps(ev["kinds"]).encode()})
        files["events"] = _write(f"{base}/r{i}-events.parquet", events, 65_536)
        if byrow is not None:
            files["byrow"] = _write(f"{base}/r{i}-byrow.parquet", byrow)
        files.update(jobindex.files(parsed, i, base))  # the diff's per-job index (results.jobindex)
        runs.append({**info, "index": files})
        parsed.clear_memo()  # one run's indexes at a time in the worker's memory
    sizes = exports.sizes_of(ParsedResult(header, {**manifest, "runs": runs}))  # the download links' sizes
    return {**manifest, "runs": runs, "index": {"version": VERSION, "colour_modes": modes, "download_sizes": sizes}}


def _by_row(parsed, index, names, modes) -> pa.Table | None:
    """The run's segments on the axis sorted by row (stable), with their colour values.

    The segments file is read once, as stored: in a file of stretches (``results.store``) every column but
    ``resource`` is one value per stretch, so the colour values are found per stretch and each
    segment takes its stretch's (the very values the expanded segments give, without expanding them)."""
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    if schema is None or not names:
        return None
    present = set(schema.names)
    mode_cols = sorted({c for m in modes for c in m["columns"] if c in present})
    source = stored.source("segments")
    labels = (pq.read_schema(source).metadata or {}).get(stretches.STRETCH)
    table = pq.read_table(source, columns=["start", "end", "resource", *(["share"] if "share" in present else []),
                                           *(["job"] if "job" in present else []), *mode_cols])  # fmt: skip
    if labels is not None:  # one row per stretch: its segments' resources as a list (stretches._expand)
        lists = table["resource"].combine_chunks() if table["resource"].num_chunks != 1 else table["resource"].chunk(0)
        lengths = np.diff(lists.offsets.to_numpy())
        lookup = resource_codes(pa.array(json.loads(labels), pa.string()), names)
        flat = pc.fill_null(lists.flatten(), -1).to_numpy(zero_copy_only=False)
        narrow = np.int16 if len(names) < 32768 else np.int64
        codes = np.append(lookup, -1).astype(narrow)[flat]  # a missing resource (−1) is on no row
    else:
        lengths = None
        codes = resource_codes(table["resource"], names)
    keep = codes >= 0
    everyone = bool(keep.all())  # (the usual case: every segment has its row; no copies to leave some out)
    small = (codes if everyone else codes[keep]).astype(np.int16 if len(names) < 32768 else np.int64)  # radix sort
    by_row = np.argsort(small, kind="stable")
    order = by_row if everyone else np.nonzero(keep)[0][by_row]
    if lengths is not None:  # each segment's stretch, in row order
        order = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)[order]
    rows = np.repeat(np.arange(len(names), dtype=np.int32), np.bincount(small, minlength=len(names)))  # in order
    cols = {"row": pa.array(rows),
            "start": pa.array(float_column(table, "start")[order]),
            "end": pa.array(float_column(table, "end")[order])}  # fmt: skip
    if "share" in present and not pc.all(pc.fill_null(pc.equal(table["share"], 1.0), True)).as_py():
        cols["share"] = table["share"].take(pa.array(order))  # left out when every share is 1 (or none: 1)
    if "job" in present:
        cols["job"] = pa.array(jobindex.positions(table["job"])[order])
    for m in modes:
        if m["type"] == "job":
            continue
        values = mode_array(table, m)[order]
        cols[f"c_{m['key']}"] = pa.array(values if m["type"] == "scale" else _small_int(values))
    return pa.table(cols)


def _lanes(byrow: pa.Table, rows: int) -> tuple[list[int], np.ndarray, list[int]]:
    """``(counts, lane, drawn)``: per row of the axis the most of its segments running at once (at least 1),
    each segment's lane inside its row, and per row the lanes it takes once drawn.

    A count is found in the by-row order: at its k-th start in time order (counting from 1) a row runs
    k segments minus those that ended at or before it (an end before a start at the same instant, as
    ``lanes._events_by_row`` orders them), and the most is reached at a start. A lane is what
    ``lanes._row_lanes`` assigns when a page first draws the row's bars: greedy colouring
    (``lanes.greedy_lanes``, given those running counts) of the row's whole run in start order, in
    the rows needing more than one lane (0 in the others, which are never drawn in lanes). A drawn row
    takes at least its count of lanes, one more where a zero-length segment lies inside another (the
    sweep ends it before it starts)."""
    row = byrow["row"].to_numpy()
    starts, ends = byrow["start"].to_numpy(), byrow["end"].to_numpy()
    bounds = np.searchsorted(row, np.arange(rows + 1, dtype=row.dtype)).tolist()
    counts, drawn = [], []
    lane = np.zeros(row.size, np.int32)
    for a, b in itertools.pairwise(bounds):
        s, e = starts[a:b], np.sort(ends[a:b])
        in_order = not (s.size > 1 and np.any(s[1:] < s[:-1]))
        running = np.arange(1, s.size + 1) - np.searchsorted(e, s if in_order else np.sort(s), side="right")
        counts.append(max(1, int(running.max())) if s.size else 1)
        drawn.append(counts[-1])
        if counts[-1] > 1:
            lane[a:b] = greedy_lanes(s, ends[a:b], running - 1 if in_order else None)
            drawn[-1] = max(counts[-1], int(lane[a:b].max()) + 1)
    return counts, _small_int(lane), drawn


def _small_int(values: np.ndarray) -> np.ndarray:
    return values.astype(np.int8) if values.size == 0 or values.max() < 127 else values.astype(np.int32)
