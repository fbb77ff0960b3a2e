"""Columnar result store: a run's schedule, job records and series as Parquet files.

A result document (docs/design.md "Result") is split when the worker stores it:

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

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from django.core.files import File
from django.core.files.storage import default_storage

from cloudsched_web.results.stretches import (
    STRETCH,
    logical_schema,
    physical_columns,
    restore,
    segments_in,
    stored_segments,
)
from cloudsched_web.results.tables import SPARSE, jobs_table, series_table

__all__ = ["HEAVY", "ROW_GROUP", "STRETCH_GROUP", "StoredRun", "delete", "full_document", "save", "save_parquet",
           "source", "stream_json", "to_records"]  # fmt: skip

HEAVY = ("schedule", "jobs", "series")
KINDS = {"schedule": "segments", "jobs": "jobs", "series": "series"}
VERSION = 2  # the manifest's format: 2 = a segments file may hold stretches (docs/results.md); 1 is read as ever
ROW_GROUP = 65_536  # rows of a row group (segments, jobs, series files)
STRETCH_GROUP = 8_192  # stretches of a row group in a file of stretches (a few hundred thousand segments)


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
        wanted = physical_columns(columns, physical.names, STRETCH in (physical.metadata or {}))
        table = restore(pq.read_table(source, columns=wanted, filters=filters))
        return table.select(columns) if columns is not None else table

    def schema(self, kind: str) -> pa.Schema | None:
        """The logical schema (as :meth:`table` returns it)."""
        if kind not in self.files:
            return None
        schema = self._physical_schema(kind)
        if kind == "segments":
            schema = logical_schema(schema)
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
            group = restore(group.filter(keep))
            if group.num_rows:
                parts.append(group.slice(0, limit - have))
                have += parts[-1].num_rows
            if have >= limit:
                break
        return pa.concat_tables(parts) if parts else restore(pf.schema_arrow.empty_table())

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
            table = restore(pa.Table.from_batches([batch]))
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
