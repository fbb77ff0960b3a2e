"""Columnar result store: a run's schedule, job records and series as Parquet files.

A result document (DESIGN.md "Result") is split when the worker stores it:

- the **header** — family, digest, seed, scenario, summary, and per algorithm × repetition
  the metrics, extras and wall time — stays a small zlib-compressed JSON blob in the
  database (``Run.result_blob``);
- the heavy parts of every run ``i`` become typed columns in Parquet files kept through
  Django's storage API (``MEDIA_ROOT`` by default; any django-storages backend when
  workers run on other machines): ``r{i}-segments.parquet`` (sorted by start, in row
  groups whose min/max statistics let a time window skip the rest of the file; one row per
  segment, or per *stretch* of segments alike but for their resource, expanded on reading),
  ``r{i}-jobs.parquet`` and ``r{i}-series.parquet`` (the series' shared time axis ``t``
  and one column per series).

``Run.result_files`` keeps the manifest: where the files are and, per run, the counts,
the series names and the schedule's time span, so lists and headers never open a file.
Files are written under the attempt's id, so an attempt that was given up on never
overwrites the files of the one that finished. See ``docs/results.md``.
"""

from __future__ import annotations

import io
import posixpath
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from django.core.files import File
from django.core.files.storage import default_storage

from schedulers.core.columns import Coded, Columns, TaskOf

__all__ = ["HEAVY", "MIN_GAIN", "ROW_GROUP", "STRETCH", "STRETCH_GROUP", "StoredRun", "delete", "full_document",
           "save", "save_parquet", "segments_table", "source", "stored_segments", "stream_json", "to_records"]

HEAVY = ("schedule", "jobs", "series")
KINDS = {"schedule": "segments", "jobs": "jobs", "series": "series"}
VERSION = 2  # the manifest's format: 2 = a segments file may hold stretches (docs/results.md); 1 is read as ever
ROW_GROUP = 65_536  # rows of a row group (segments, jobs, series files)
STRETCH_GROUP = 8_192  # stretches of a row group in a file of stretches (a few hundred thousand segments)
MIN_GAIN = 2.0  # segments are stored as stretches when that cuts the rows at least this much
# Schedule columns every family writes, typed; any other key becomes a column of its inferred type.
SEGMENT_TYPES = {"start": pa.float64(), "end": pa.float64(), "resource": pa.string(), "job": pa.string(),
                 "task": pa.string(), "share": pa.float64(), "kind": pa.string()}  # fmt: skip


def _column(values: list, typ: pa.DataType | None = None) -> pa.Array:
    """One typed column from a list of Python values; a column of mixed types is kept as text."""
    try:
        return pa.array(values, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def records_table(records: list[dict], types: dict[str, pa.DataType] | None = None) -> pa.Table:
    """A table with one column per key found in any record (missing values are nulls).

    Fast path: Arrow converts the dicts itself against a schema taken from the keys of all
    records and the type of each key's first value; a column whose values do not fit that
    type falls back to column-by-column conversion (mixed types kept as text).
    """
    names: dict[str, None] = {}
    for rec in records:
        if rec.keys() - names.keys():
            names.update(dict.fromkeys(rec))
    # Sparse: some record lacks a key (family extras). Read back, its nulls are then dropped;
    # in a dense table a null is a value the record had (None).
    sparse = any(len(rec) != len(names) for rec in records)
    table = _records_table(records, names, types or {})
    return table.replace_schema_metadata({SPARSE: b"1" if sparse else b"0"})


SPARSE = b"cloudsched.sparse"


def _records_table(records, names, types) -> pa.Table:
    fields = []
    for name in names:
        typ = types.get(name)
        if typ is None:
            first = next((rec[name] for rec in records if rec.get(name) is not None), None)
            typ = pa.scalar(first).type if first is not None else pa.null()
        fields.append(pa.field(name, typ))
    try:
        return pa.Table.from_pylist(records, schema=pa.schema(fields))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    columns = {}
    for name in names:
        values = [rec.get(name) for rec in records]
        typ = types.get(name)
        if typ == pa.string():
            values = [None if v is None else str(v) for v in values]
        columns[name] = _column(values, typ)
    return pa.table(columns) if columns else pa.table({})


def columns_table(cols: Columns, types: dict[str, pa.DataType] | None = None, dictionary=()) -> pa.Table:
    """The fast path of :func:`records_table`: a table straight from a family's arrays (no dicts).

    Same schema as the list path gives the same rows: text as strings (``dictionary`` names
    dictionary-encoded, in order of first appearance), a ``<job>.<k>`` task as ``task_k``,
    declared ``types`` cast, the sparse flag kept.
    """
    table = cols.to_arrow(task_k=True, dictionary=dictionary)
    for name, typ in (types or {}).items():
        if name in table.column_names and name not in dictionary and table[name].type != typ:
            i = table.column_names.index(name)
            table = table.set_column(i, name, pc.cast(table[name], typ))
    return table.replace_schema_metadata({SPARSE: b"1" if cols.sparse else b"0"})


def segments_table(schedule: list[dict] | Columns) -> pa.Table:
    """Segments sorted by start, resources dictionary-encoded.

    A task named ``<job>.<k>`` with an integer ``k`` (every family's convention) is
    stored as ``k`` alone in ``task_k``: the names were a third of the file.
    :func:`_restore` rebuilds them when the table is read. Columns from the library take
    the fast path (sorted and encoded as arrays); a list of dicts (migrated or legacy
    results, third-party documents) is converted record by record.
    """
    if isinstance(schedule, Columns):
        if not len(schedule):
            return records_table([], SEGMENT_TYPES)
        table = columns_table(_start_order(schedule), SEGMENT_TYPES, dictionary=("resource",))
    else:
        table = records_table(schedule, SEGMENT_TYPES)
        if not table.num_rows:
            return table
        table = table.sort_by([("start", "ascending"), ("end", "ascending")])
        if "resource" in table.column_names:
            table = table.set_column(
                table.column_names.index("resource"), "resource", pc.dictionary_encode(table["resource"])
            )
    if {"task", "job"} <= set(table.column_names) and not table["task"].null_count and not table["job"].null_count:
        parts = pc.split_pattern(table["task"], ".", max_splits=1, reverse=True)
        if pc.all(pc.equal(pc.list_value_length(parts), 2)).as_py():
            head, tail = pc.list_element(parts, 0), pc.list_element(parts, 1)
            job = pc.cast(table["job"], pa.string())
            canonical = pc.and_(pc.match_substring_regex(tail, r"^(0|[1-9][0-9]{0,8})$"), pc.equal(head, job))
            if pc.all(canonical).as_py():
                k = pc.cast(tail, pa.int32())
                table = table.set_column(table.column_names.index("task"), "task_k", k)
    return table


def _start_order(cols: Columns) -> Columns:
    """The segments sorted by start, then end; ties keep the family's order (stable, as ``sort_by``)."""
    start, end = cols.column("start"), cols.column("end")
    last = len(cols) - 1
    for lo in range(0, max(last, 0), _SCAN):  # most families emit start order already
        hi = min(lo + _SCAN, last)
        a, b = slice(lo, hi), slice(lo + 1, hi + 1)
        if not ((start[b] > start[a]) | ((start[b] == start[a]) & (end[b] >= end[a]))).all():
            return cols.take(np.lexsort((end, start)))  # stable, as sort_by
    return cols


# --- stretches ------------------------------------------------------------------------------
# A job on p processors is p segments alike in everything but ``resource`` and the task's ``k``
# (backfill: 54 M segments for 200,000 jobs × 4 algorithms, 25-60 per stretch). A file of
# stretches holds one row per run of such rows (adjacent in start order, ``k`` counting up by
# one) with ``resource`` as the list of the run's resource codes, ``task_k`` as the first ``k``,
# and the resource labels in the schema metadata. :func:`_restore` expands it to the very rows
# and order :func:`segments_table` gives, so no reader sees the difference.

STRETCH = b"cloudsched.stretch"  # schema metadata of a file of stretches: the resource labels (JSON list)


def stored_segments(schedule: list[dict] | Columns) -> pa.Table:
    """The segments as written to the file: stretches where they cut the rows ≥ ``MIN_GAIN``×,
    else :func:`segments_table` (same rows; families whose segments are all different)."""
    if isinstance(schedule, Columns):
        if not len(schedule):
            return segments_table(schedule)
        schedule = _start_order(schedule)
        starts = _stretches_of_columns(schedule)
        if starts is None:
            return segments_table(schedule)
        first = columns_table(schedule.take(starts), SEGMENT_TYPES, dictionary=("resource",))
        return _stretch_file(first, starts, *_first_appearance(schedule.raw("resource")))
    table = segments_table(schedule)
    return _stretch_table(table)


def _first_appearance(res: Coded) -> tuple[pa.Array, pa.Array]:
    """``res`` (no missing codes) as codes into its labels in order of first appearance, as
    ``Columns.to_arrow`` dictionary-encodes a column; the labels are found in a prefix of
    doubling length (all of them within the first rows, as a rule), then one pass remaps."""
    codes, n, size = res.codes, res.codes.size, len(res.labels)
    first = np.full(size, n, dtype=np.int64)
    lo, step = 0, 65_536
    while lo < n and (first == n).any():
        chunk = codes[lo : lo + step]
        here = np.full(size, n, dtype=np.int64)
        here[chunk[::-1]] = np.arange(lo + chunk.size - 1, lo - 1, -1)  # numpy assigns in order: the first wins
        np.minimum(first, here, out=first)
        lo, step = lo + chunk.size, step * 2
    used = np.flatnonzero(first < n)
    order = used[np.argsort(first[used], kind="stable")]
    remap = np.zeros(max(size, 1), dtype=np.int32)
    remap[order] = np.arange(order.size, dtype=np.int32)
    labels = pa.array(res.labels[order].tolist(), type=pa.string())
    return pa.array(remap[codes]), labels


def _stretches_of_columns(cols: Columns) -> np.ndarray | None:
    """Where each stretch starts (row positions), or None when stretches would not pay."""
    res = cols.raw("resource") if "resource" in cols else None
    if not isinstance(res, Coded) or "start" not in cols or (res.codes < 0).any():
        return None
    n = len(cols)
    checks = []  # (values, mask or None, is the task's k)
    for name in cols.names:
        col = cols.raw(name)
        if name == "resource":
            continue
        if isinstance(col, TaskOf):
            k = col.k  # stored as task_k only inside to_arrow's range (else as text, every row different)
            if not (int(k.min()) >= 0 and int(k.max()) < 10**9):
                return None
            checks.append((k, None, True))
            continue
        values = col.codes if isinstance(col, Coded) else col
        if values.dtype == object:
            return None
        if values.dtype.kind == "f":  # bit for bit: -0.0 and 0.0 (and NaNs) stay apart
            values = values.view(np.dtype(f"i{values.dtype.itemsize}"))
        checks.append((values, cols.valid(name), False))
    same = np.ones(n - 1, dtype=bool)
    eq = np.empty(min(n - 1, _SCAN), dtype=bool)
    for lo in range(0, n - 1, _SCAN):  # a block at a time: small temporaries, the block stays in cache
        hi = min(lo + _SCAN, n - 1)
        block, e = same[lo:hi], eq[: hi - lo]
        for values, mask, is_k in checks:
            if is_k:
                np.equal(values[lo + 1 : hi + 1] - values[lo:hi], 1, out=e)
            else:
                np.equal(values[lo + 1 : hi + 1], values[lo:hi], out=e)
            if mask is not None:  # both missing counts as equal
                m0, m1 = mask[lo:hi], mask[lo + 1 : hi + 1]
                e &= m1 == m0
                e |= ~m0 & ~m1
            block &= e
    return _starts(same, n)


_SCAN = 1 << 18  # rows compared a block at a time


def _starts(same: np.ndarray, n: int) -> np.ndarray | None:
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    return starts if starts.size * MIN_GAIN <= n else None


def _stretch_table(table: pa.Table) -> pa.Table:
    """:func:`_stretches_of_columns` for a table of segments (the list path): stretches where they pay."""
    names = table.column_names
    n = table.num_rows
    if n < 2 or "resource" not in names or "start" not in names or table["resource"].null_count:
        return table
    same = np.ones(n - 1, dtype=bool)
    for name in names:
        if name == "resource":
            continue
        col = table[name].combine_chunks() if table[name].num_chunks != 1 else table[name].chunk(0)
        typ = col.type
        if pa.types.is_null(typ):
            continue
        if name == "task_k":  # never null (segments_table only writes it for a full column)
            k = col.to_numpy()
            same &= k[1:] == k[:-1] + 1
            continue
        if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_dictionary(typ):
            if pa.types.is_dictionary(typ):
                col = pc.cast(col, typ.value_type)
            values = pc.fill_null(pc.dictionary_encode(col).indices, -1).to_numpy()
        elif pa.types.is_integer(typ) or pa.types.is_boolean(typ) or pa.types.is_floating(typ):
            values = pc.fill_null(col, False if pa.types.is_boolean(typ) else 0).to_numpy(zero_copy_only=False)
            if values.dtype.kind == "f":
                values = values.view(np.dtype(f"i{values.dtype.itemsize}"))
        else:
            return table
        eq = values[1:] == values[:-1]
        if col.null_count:
            mask = pc.is_valid(col).to_numpy(zero_copy_only=False)
            eq = (mask[1:] == mask[:-1]) & (eq | ~mask[1:])
        same &= eq
    starts = _starts(same, n)
    if starts is None:
        return table
    resource = pc.dictionary_encode(pc.cast(table["resource"], pa.string()).combine_chunks())
    first = table.take(pa.array(starts))
    return _stretch_file(first, starts, resource.indices, resource.dictionary)


def _stretch_file(first: pa.Table, starts: np.ndarray, codes: pa.Array, labels: pa.Array) -> pa.Table:
    """The file's table: the stretches' first rows, ``resource`` the list of each stretch's resource codes."""
    offsets = pa.array(np.append(starts, len(codes)).astype(np.int32))
    lists = pa.ListArray.from_arrays(offsets, codes)
    table = first.set_column(first.column_names.index("resource"), "resource", lists)
    meta = {**(first.schema.metadata or {}), STRETCH: orjson.dumps(labels.to_pylist())}
    return table.replace_schema_metadata(meta)


def _expand(table: pa.Table, labels: pa.Array) -> pa.Table:
    """The segments of a table of stretches (inverse of :func:`_stretch_file`), in order; numbers are
    repeated in numpy (no index array of n rows unless a text or nullable column needs one)."""
    lists = table["resource"].combine_chunks() if table["resource"].num_chunks != 1 else table["resource"].chunk(0)
    lengths = np.diff(lists.offsets.to_numpy())
    codes = lists.flatten()
    n = len(codes)
    parent = None
    arrays = []
    for name in table.column_names:
        col = table[name]
        if name == "resource":
            arrays.append(pa.DictionaryArray.from_arrays(codes, labels))
        elif name == "task_k":  # the first k, counting up along the stretch
            k = np.repeat(col.to_numpy().astype(np.int32) - (np.cumsum(lengths) - lengths).astype(np.int32), lengths)
            k += np.arange(n, dtype=np.int32)
            arrays.append(pa.array(k))
        elif not col.null_count and (pa.types.is_floating(col.type) or pa.types.is_integer(col.type)):
            arrays.append(pa.array(np.repeat(col.to_numpy(), lengths)))
        else:
            if parent is None:
                parent = pa.array(np.repeat(np.arange(len(lists), dtype=np.int32), lengths))
            arrays.append(col.take(parent))
    return pa.Table.from_arrays(arrays, schema=_logical(table.schema))


def _logical(schema: pa.Schema) -> pa.Schema:
    """A stretch file's schema with ``resource`` as the segments have it (dictionary-encoded text)."""
    meta = {k: v for k, v in (schema.metadata or {}).items() if k != STRETCH}
    if STRETCH in (schema.metadata or {}):
        i = schema.get_field_index("resource")
        schema = schema.set(i, pa.field("resource", pa.dictionary(pa.int32(), pa.string())))
    return schema.with_metadata(meta)


def jobs_table(jobs: list[dict] | Columns) -> pa.Table:
    """Job records as a table (Columns straight from their arrays)."""
    return columns_table(jobs) if isinstance(jobs, Columns) else records_table(jobs)


def _restore(table: pa.Table) -> pa.Table:
    """Undo the storage encodings: stretches expanded (:func:`_expand`), ``task_k`` back to ``task``."""
    labels = (table.schema.metadata or {}).get(STRETCH)
    if labels is not None:
        table = _expand(table, pa.array(orjson.loads(labels), pa.string()))
    if "task_k" in table.column_names:
        i = table.column_names.index("task_k")
        if "job" in table.column_names:
            task = pc.binary_join_element_wise(table["job"], pc.cast(table["task_k"], pa.string()), ".")
            table = table.set_column(i, "task", task)
        else:
            table = table.remove_column(i)
    return table


def _physical(columns: list[str] | None, present: list[str], stretches: bool = False) -> list[str] | None:
    """The stored columns to read for the logical ``columns`` asked for (stretches: always ``resource``,
    whose list lengths expand them)."""
    if columns is None:
        return columns
    out = list(columns)
    if "task" in out and "task_k" in present:
        out = [c for c in out if c != "task"] + ["task_k"]
        out = out if "job" in out else [*out, "job"]
    return [*out, "resource"] if stretches and "resource" not in out else out


def series_table(series: dict[str, list]) -> tuple[pa.Table, dict[str, list]]:
    """The series sharing the time axis ``t`` as a table; any other series stays in the header."""
    t = series.get("t")
    plain = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in series.items()}
    if t is None or not len(t):
        return pa.table({}), plain
    aligned = {k: v for k, v in series.items() if isinstance(v, (list, np.ndarray)) and len(v) == len(t)}
    rest = {k: v for k, v in plain.items() if k not in aligned}
    return pa.table({k: _column(v, pa.float64()) for k, v in aligned.items()}), rest


def _write(name: str, table: pa.Table, kind: str = "segments") -> str:
    """One Parquet file, settings measured on the 54 M-segment backfill result (docs/results.md):
    zstd level 1 (level 6: twice the CPU for 7 % less); min/max statistics only for a segment
    file's ``start`` and ``end``, the columns a window filters on (nothing reads the others';
    they were a quarter of the encoding); Parquet's dictionary encoding only for columns Arrow
    already holds as a dictionary (``resource`` of a segment-per-row file: zstd alone is smaller
    and faster for the rest); byte-stream-split floats in job and series files (13-21 % smaller)."""
    fields = table.schema
    dictionary = [f.name for f in fields if pa.types.is_dictionary(f.type)]
    floats = [f.name for f in fields if f.type in (pa.float32(), pa.float64())] if kind != "segments" else []
    stats = [c for c in ("start", "end") if c in fields.names] if kind == "segments" else []
    stretches = STRETCH in (fields.metadata or {})
    return save_parquet(name, table, row_group_size=STRETCH_GROUP if stretches else ROW_GROUP,
                        use_dictionary=dictionary or False, write_statistics=stats or False,
                        column_encoding=dict.fromkeys(floats, "BYTE_STREAM_SPLIT") or None)  # fmt: skip


def save_parquet(name: str, table: pa.Table, **options) -> str:
    """Write ``table`` as a zstd-1 Parquet file through the storage API (``options``: pq.write_table's)."""
    with tempfile.TemporaryFile() as tmp:
        pq.write_table(table, tmp, compression="zstd", compression_level=1, **options)
        tmp.seek(0)
        return default_storage.save(name, File(tmp))


def source(name: str):
    """A stored file for Parquet to read: its path when local (only the row groups needed are read),
    else its bytes."""
    try:
        return default_storage.path(name)
    except NotImplementedError:
        with default_storage.open(name, "rb") as f:
            return io.BytesIO(f.read())


class _Writer:
    """Writes one file in a thread while the caller builds the next table (Parquet encoding and the
    array work release the GIL): the two overlap, and at most one table waits to be written."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parquet")
        self.pending: tuple[dict, str, Future] | None = None

    def submit(self, files: dict, kind: str, name: str, table: pa.Table) -> None:
        self.wait()
        self.pending = (files, kind, self.pool.submit(_write, name, table, kind))

    def wait(self) -> None:
        if self.pending is not None:
            files, kind, future = self.pending
            self.pending = None
            files[kind] = future.result()


def save(run_id: int, attempt: str, result: dict) -> tuple[dict, dict]:
    """Write ``result``'s heavy parts as Parquet; returns ``(header, manifest)``."""
    writer = _Writer()
    try:
        header, manifest = _save(writer, run_id, attempt, result)
        writer.wait()
    finally:
        writer.pool.shutdown(wait=True)
    return header, manifest


def _save(writer: _Writer, run_id: int, attempt: str, result: dict) -> tuple[dict, dict]:
    base = posixpath.join("results", str(run_id), attempt or "direct")
    header_runs, manifest_runs = [], []
    for i, run in enumerate(result.get("runs", [])):
        files, info = {}, {}
        segs = stored_segments(run.get("schedule") or [])
        info["segments"] = segments_in(segs)
        info["span"] = (
            [float(pc.min(segs["start"]).as_py()), float(pc.max(segs["end"]).as_py())] if segs.num_rows else [0.0, 0.0]
        )
        if segs.num_rows:
            writer.submit(files, "segments", f"{base}/r{i}-segments.parquet", segs)
        jobs = jobs_table(run.get("jobs") or [])
        info["jobs"] = jobs.num_rows
        if jobs.num_rows:
            writer.submit(files, "jobs", f"{base}/r{i}-jobs.parquet", jobs)
        series, rest = series_table(run.get("series") or {})
        info["series"] = sorted(n for n in series.column_names if n != "t")
        info["series_length"] = series.num_rows
        if series.num_rows:
            writer.submit(files, "series", f"{base}/r{i}-series.parquet", series)
        manifest_runs.append({**info, "files": files})
        head = {k: v for k, v in run.items() if k not in HEAVY}
        if rest:
            head["series_rest"] = rest
        header_runs.append(head)
    header = {**{k: v for k, v in result.items() if k != "runs"}, "runs": header_runs}
    return header, {"version": VERSION, "base": base, "runs": manifest_runs}


def segments_in(table: pa.Table) -> int:
    """The number of segments a table written by :func:`stored_segments` holds."""
    if STRETCH not in (table.schema.metadata or {}):
        return table.num_rows
    return int(pc.sum(pc.list_value_length(table["resource"])).as_py() or 0)


def delete(run_id: int) -> None:
    """Remove every stored file of a run (all attempts)."""
    root = posixpath.join("results", str(run_id))
    try:
        dirs, _ = default_storage.listdir(root)
    except (FileNotFoundError, NotImplementedError):
        return
    for attempt in dirs:
        _, names = default_storage.listdir(posixpath.join(root, attempt))
        for name in names:
            default_storage.delete(posixpath.join(root, attempt, name))


class StoredRun:
    """Readers of one algorithm × repetition run's files (nothing is read until asked)."""

    def __init__(self, info: dict):
        self.info = info
        self.files = info.get("files", {})
        self._schemas: dict[str, pa.Schema] = {}  # file footers, read once per stored run

    def source(self, kind: str):
        """Run ``kind``'s file for Parquet to read (:func:`source`)."""
        return source(self.files[kind])

    def table(self, kind: str, columns: list[str] | None = None, filters=None) -> pa.Table | None:
        if kind not in self.files:
            return None
        source = self.source(kind)
        if kind != "segments":
            return pq.read_table(source, columns=columns, filters=filters)
        physical = self._physical_schema(kind)
        wanted = _physical(columns, physical.names, STRETCH in (physical.metadata or {}))
        table = _restore(pq.read_table(source, columns=wanted, filters=filters))
        return table.select(columns) if columns is not None else table

    def schema(self, kind: str) -> pa.Schema | None:
        """The logical schema (as :meth:`table` returns it)."""
        if kind not in self.files:
            return None
        schema = self._physical_schema(kind)
        if kind == "segments":
            schema = _logical(schema)
        if "task_k" in schema.names:
            schema = schema.set(schema.get_field_index("task_k"), pa.field("task", pa.string()))
        return schema

    def _physical_schema(self, kind: str) -> pa.Schema:
        if kind not in self._schemas:
            self._schemas[kind] = pq.read_schema(self.source(kind))
        return self._schemas[kind]

    def series(self, head: dict) -> dict[str, list]:
        """The run's series: the stored columns plus any the header kept (not on the shared time axis)."""
        return {**series_dict(self.table("series")), **head.get("series_rest", {})}

    def window(self, lo: float, hi: float, columns: list[str] | None = None) -> pa.Table | None:
        """Segments overlapping ``[lo, hi)`` (touching ``lo`` when the window is an instant), in start order."""
        filters = [("start", "<", hi), ("end", ">", lo)] if hi > lo else [("start", "<=", lo), ("end", ">=", lo)]
        return self.table("segments", columns, filters)

    def first_in_window(self, lo: float, hi: float, limit: int) -> pa.Table:
        """The first ``limit`` segments (start order) overlapping the window, reading row groups in order."""
        pf = pq.ParquetFile(self.source("segments"))
        leaves = [pf.metadata.schema.column(i).path for i in range(pf.metadata.num_columns)]
        i_start, i_end = leaves.index("start"), leaves.index("end")  # a list column is one leaf too
        parts, have = [], 0
        for g in range(pf.metadata.num_row_groups):
            meta = pf.metadata.row_group(g)
            s_stats, e_stats = meta.column(i_start).statistics, meta.column(i_end).statistics
            if s_stats is not None and s_stats.has_min_max and s_stats.min >= hi and hi > lo:
                break  # sorted by start: no later group can overlap
            if e_stats is not None and e_stats.has_min_max and e_stats.max <= lo and hi > lo:
                continue
            group = pf.read_row_group(g)
            if hi > lo:
                keep = pc.and_(pc.less(group["start"], hi), pc.greater(group["end"], lo))
            else:
                keep = pc.and_(pc.less_equal(group["start"], lo), pc.greater_equal(group["end"], lo))
            group = _restore(group.filter(keep))
            if group.num_rows:
                parts.append(group.slice(0, limit - have))
                have += parts[-1].num_rows
            if have >= limit:
                break
        return pa.concat_tables(parts) if parts else _restore(pf.schema_arrow.empty_table())

    def batches(self, kind: str, size: int = 20_000) -> Iterator[pa.RecordBatch | pa.Table]:
        """The rows ``size`` at most at a time (segments as tables, in start order)."""
        if kind not in self.files:
            return
        pf = pq.ParquetFile(self.source(kind))
        if kind != "segments":
            yield from pf.iter_batches(batch_size=size)
            return
        stored, segments = pf.metadata.num_rows, self.info.get("segments") or pf.metadata.num_rows
        step = max(1, size * stored // max(segments, 1))  # stretches: about ``size`` segments a batch
        for batch in pf.iter_batches(batch_size=step):
            table = _restore(pa.Table.from_batches([batch]))
            for lo in range(0, table.num_rows, size):
                yield table.slice(lo, size)


def to_records(table: pa.Table | pa.RecordBatch | None) -> list[dict[str, Any]]:
    """Rows as dicts; in a sparse table, without the nulls that stand for keys a record did not have."""
    if table is None:
        return []
    rows = table.to_pylist()
    if (table.schema.metadata or {}).get(SPARSE) == b"0":
        return rows
    return [{k: v for k, v in row.items() if v is not None} for row in rows]


def series_dict(table: pa.Table | None) -> dict[str, list]:
    return {} if table is None else {name: table[name].to_pylist() for name in table.column_names}


def full_document(header: dict, manifest: dict) -> dict:
    """The whole result as the library returned it (for exports and tests; costs the full size)."""
    runs = []
    for head, info in zip(header.get("runs", []), manifest.get("runs", []), strict=False):
        stored = StoredRun(info)
        run = {k: v for k, v in head.items() if k != "series_rest"}
        run["schedule"] = to_records(stored.table("segments"))
        run["jobs"] = to_records(stored.table("jobs"))
        run["series"] = stored.series(head)
        runs.append(run)
    return {**header, "runs": runs}


def stream_json(header: dict, manifest: dict) -> Iterator[bytes]:
    """``result.json`` streamed from the columns: never more than one batch of rows in memory."""
    top = {k: v for k, v in header.items() if k != "runs"}
    yield orjson.dumps(top)[:-1] + (b',"runs":[' if top else b'{"runs":[')
    for n, (head, info) in enumerate(zip(header.get("runs", []), manifest.get("runs", []), strict=False)):
        stored = StoredRun(info)
        run = {k: v for k, v in head.items() if k != "series_rest"}
        yield (b"," if n else b"") + orjson.dumps(run)[:-1]
        for key, kind in (("schedule", "segments"), ("jobs", "jobs")):
            yield f',"{key}":['.encode()
            first = True
            for batch in stored.batches(kind):
                rows = to_records(batch)
                if rows:
                    chunk = orjson.dumps(rows)[1:-1]
                    yield chunk if first else b"," + chunk
                    first = False
            yield b"]"
        series = stored.series(head)
        yield b',"series":' + orjson.dumps(series) + b"}"
    yield b"]}"
