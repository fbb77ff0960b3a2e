"""Columnar result store: a run's schedule, job records and series as Parquet files.

A result document (DESIGN.md "Result") is split when the worker stores it:

- the **header** — family, digest, seed, scenario, summary, and per algorithm × repetition
  the metrics, extras and wall time — stays a small zlib-compressed JSON blob in the
  database (``Run.result_blob``);
- the heavy parts of every run ``i`` become typed columns in Parquet files kept through
  Django's storage API (``MEDIA_ROOT`` by default; any django-storages backend when
  workers run on other machines): ``r{i}-segments.parquet`` (sorted by start, in row
  groups whose min/max statistics let a time window skip the rest of the file),
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

from schedulers.core.columns import Columns

HEAVY = ("schedule", "jobs", "series")
KINDS = {"schedule": "segments", "jobs": "jobs", "series": "series"}
ROW_GROUP = 65_536
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
        start, end = schedule.column("start"), schedule.column("end")
        step = (start[1:] > start[:-1]) | ((start[1:] == start[:-1]) & (end[1:] >= end[:-1]))
        if not step.all():  # most families emit start order already
            schedule = schedule.take(np.lexsort((end, start)))  # stable, as sort_by
        table = columns_table(schedule, SEGMENT_TYPES, dictionary=("resource",))
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


def jobs_table(jobs: list[dict] | Columns) -> pa.Table:
    """Job records as a table (Columns straight from their arrays)."""
    return columns_table(jobs) if isinstance(jobs, Columns) else records_table(jobs)


def _restore(table: pa.Table) -> pa.Table:
    """Undo the storage encodings of :func:`segments_table` (``task_k`` back to ``task``)."""
    if "task_k" in table.column_names:
        i = table.column_names.index("task_k")
        if "job" in table.column_names:
            task = pc.binary_join_element_wise(table["job"], pc.cast(table["task_k"], pa.string()), ".")
            table = table.set_column(i, "task", task)
        else:
            table = table.remove_column(i)
    return table


def _physical(columns: list[str] | None, present: list[str]) -> list[str] | None:
    """The stored columns to read for the logical ``columns`` asked for."""
    if columns is None or "task" not in columns or "task_k" not in present:
        return columns
    out = [c for c in columns if c != "task"] + ["task_k"]
    return out if "job" in out else [*out, "job"]


def series_table(series: dict[str, list]) -> tuple[pa.Table, dict[str, list]]:
    """The series sharing the time axis ``t`` as a table; any other series stays in the header."""
    t = series.get("t")
    plain = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in series.items()}
    if t is None or not len(t):
        return pa.table({}), plain
    aligned = {k: v for k, v in series.items() if isinstance(v, (list, np.ndarray)) and len(v) == len(t)}
    rest = {k: v for k, v in plain.items() if k not in aligned}
    return pa.table({k: _column(v, pa.float64()) for k, v in aligned.items()}), rest


def _write(name: str, table: pa.Table) -> str:
    with tempfile.TemporaryFile() as tmp:
        pq.write_table(table, tmp, row_group_size=ROW_GROUP, compression="zstd", compression_level=6)
        tmp.seek(0)
        return default_storage.save(name, File(tmp))


class _Writer:
    """Writes one file in a thread while the caller builds the next table (Parquet encoding and the
    array work release the GIL): the two overlap, and at most one table waits to be written."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parquet")
        self.pending: tuple[dict, str, Future] | None = None

    def submit(self, files: dict, kind: str, name: str, table: pa.Table) -> None:
        self.wait()
        self.pending = (files, kind, self.pool.submit(_write, name, table))

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
        segs = segments_table(run.get("schedule") or [])
        info["segments"] = segs.num_rows
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
    return header, {"version": 1, "base": base, "runs": manifest_runs}


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

    def _source(self, kind: str):
        name = self.files[kind]
        try:
            return default_storage.path(name)  # a local file: Parquet reads only the row groups it needs
        except NotImplementedError:
            with default_storage.open(name, "rb") as f:
                return io.BytesIO(f.read())

    def table(self, kind: str, columns: list[str] | None = None, filters=None) -> pa.Table | None:
        if kind not in self.files:
            return None
        source = self._source(kind)
        if kind != "segments":
            return pq.read_table(source, columns=columns, filters=filters)
        present = self._physical_schema(kind).names
        table = _restore(pq.read_table(source, columns=_physical(columns, present), filters=filters))
        return table.select(columns) if columns is not None else table

    def schema(self, kind: str) -> pa.Schema | None:
        """The logical schema (as :meth:`table` returns it)."""
        if kind not in self.files:
            return None
        schema = self._physical_schema(kind)
        if "task_k" in schema.names:
            schema = schema.set(schema.get_field_index("task_k"), pa.field("task", pa.string()))
        return schema

    def _physical_schema(self, kind: str) -> pa.Schema:
        if kind not in self._schemas:
            self._schemas[kind] = pq.read_schema(self._source(kind))
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
        pf = pq.ParquetFile(self._source("segments"))
        names = pf.schema_arrow.names
        i_start, i_end = names.index("start"), names.index("end")
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

    def batches(self, kind: str, size: int = 20_000) -> Iterator[pa.RecordBatch]:
        if kind not in self.files:
            return
        for batch in pq.ParquetFile(self._source(kind)).iter_batches(batch_size=size):
            yield _restore(pa.Table.from_batches([batch])) if kind == "segments" else batch


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
