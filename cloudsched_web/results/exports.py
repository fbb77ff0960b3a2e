"""Downloads of a stored result: metrics CSV, schedule CSV, the generated workload as SWF.

Functions of a stored result (:class:`~cloudsched_web.results.queries.ParsedResult`; the
metrics and summary CSVs need only its header ``doc``), shared by the result pages'
export buttons and the JSON API. One run per file unless every run is asked for. The table
CSVs and the Parquet files are generators of chunks written from the stored columns a batch
(a row group) at a time, so a 16-million-segment schedule streams in constant memory.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
from django.core.files.storage import default_storage

from cloudsched_web.results import formatting
from cloudsched_web.results.queries import QueryError
from cloudsched_web.results.stretches import restore
from schedulers.core.swf import SwfTrace, write_swf

__all__ = [
    "AS_STORED",
    "SWF_ALIASES",
    "download_sizes",
    "filename",
    "header",
    "metrics_csv",
    "parquet_file",
    "points_csv",
    "schedule_csv",
    "sizes_of",
    "summary_csv",
    "table_csv",
    "table_parquet",
    "workload_swf",
]

SEGMENT_COLUMNS = ("job", "task", "resource", "start", "end", "share", "kind")

# Job-record keys that carry the SWF fields, in order of preference. Families name
# them differently (backfill ``submit_s``/``processors``, dvfs_bot ``tasks``), so the
# export reads whatever is there instead of special-casing families.
SWF_ALIASES = {
    "submit": ("submit_s", "submit", "arrival_s", "arrival"),
    "run_time": ("runtime_s", "run_time_s", "run_time", "runtime", "duration_s"),
    "alloc_procs": ("processors", "procs", "alloc_procs", "size", "vcpus", "tasks"),
    "start": ("start_s", "start"),
    "req_time": ("estimate_s", "req_time_s", "requested_time_s"),
}


def _csv_line(values):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _units(doc, names):
    """``{metric: its stored unit}`` from the family's declarations ("" when it has none)."""
    return {n: spec.get("unit", "") for n, spec in formatting.specs(doc.get("family", ""), names).items()}


def header(name, unit):
    """A metric's CSV column: its key, with `` [unit]`` unless the key already ends in it (``energy_kwh``,
    ``makespan_s``), so no column holds a number without its unit (docs/formats.md)."""
    if not unit or name.lower().endswith("_" + unit.lower()):
        return name
    return f"{name} [{unit}]"


def metrics_csv(doc):
    """One row per algorithm × repetition, one column per metric (union over runs, sorted), units in the header."""
    runs = doc.get("runs", [])
    names = sorted({k for r in runs for k in r.get("metrics", {})})
    units = _units(doc, names)
    lines = [_csv_line(["algorithm", "repetition", "wall_time_s", *(header(n, units[n]) for n in names)])]
    for r in runs:
        m = r.get("metrics", {})
        row = [r.get("algorithm", ""), r.get("repetition", 0), r.get("wall_time_s")] + [m.get(n) for n in names]
        lines.append(_csv_line([_cell(v) for v in row]))
    return "".join(lines)


def summary_csv(doc):
    """One row per algorithm × metric: its stored unit, mean, std, CI half-width, n over repetitions."""
    lines = [_csv_line(["algorithm", "metric", "unit", "mean", "std", "ci", "n"])]
    units = _units(doc, sorted({m for per in doc.get("summary", {}).values() for m in per}))
    for alg, per_metric in doc.get("summary", {}).items():
        for name, stat in sorted(per_metric.items()):
            cells = (_cell(stat.get(k)) for k in ("mean", "std", "ci", "n"))
            lines.append(_csv_line([alg, name, units.get(name, ""), *cells]))
    return "".join(lines)


def points_csv(family, rows):
    """A study's points (``rows``: ``(run, summary)`` in study order; summary ``{}`` for an unfinished run): one
    row per run — its number, status and swept values — then per algorithm × metric its mean and 95 % CI
    half-width over repetitions, units in the header. Every run is a row, finished or not."""
    axes = sorted({k for run, _ in rows for k in (run.point or {})})
    cols = sorted({(a, m) for _, summary in rows for a, per in summary.items() for m in per})
    units = {n: spec.get("unit", "") for n, spec in formatting.specs(family, sorted({m for _, m in cols})).items()}
    head = ["run", "status", *axes]
    for a, m in cols:
        head += [f"{a} {header(m, units.get(m, ''))}", f"{a} {header(m, units.get(m, ''))} ci95"]
    lines = [_csv_line(head)]
    for run, summary in rows:
        cells = [run.pk, run.status, *(_cell((run.point or {}).get(k)) for k in axes)]
        for a, m in cols:
            stat = summary.get(a, {}).get(m) or {}
            cells += [_cell(stat.get("mean")), _cell(stat.get("ci"))]
        lines.append(_csv_line(cells))
    return "".join(lines)


def _selected_runs(parsed, index):
    runs = parsed.doc.get("runs", [])
    if index is None:
        return list(enumerate(runs))
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(runs):
        raise QueryError("run", f"no run #{index}", f"0..{len(runs) - 1}" if runs else "(no runs)")
    return [(index, runs[index])]


def schedule_csv(parsed, index=0):
    """Chunks (bytes) of the schedule CSV of run ``index`` (every run, one after the other, when None).

    Columns: run, algorithm, repetition, the segment fields, then family extras
    (``freq_ghz``, ``tier``, ``cloud``…) that any chosen run's schedule has. Rows
    stream from the Parquet columns a batch at a time.
    """
    return table_csv(parsed, "segments", index, SEGMENT_COLUMNS)


def table_csv(parsed, kind, index=0, first=()):
    """Chunks (bytes) of a CSV of run ``index``'s (every run's when None) ``segments``, ``jobs`` or ``series``.

    Columns: run, algorithm, repetition, ``first``, then every other column any chosen run
    has, in name order. The header comes first (a bad ``index`` raises :class:`QueryError` before
    anything is sent); then ``CSV_ROWS`` rows at a time from the stored columns, written by Arrow's
    CSV writer (text quoted, numbers in their shortest exact form, a missing value empty, booleans
    ``true``/``false``), so neither the file nor a run's table is ever held.
    """
    chosen = _selected_runs(parsed, index)
    names = set()
    for i, _ in chosen:
        schema = parsed.stored(i).schema(kind)
        names.update(schema.names if schema is not None else [])
    columns = [*first, *sorted(names - set(first))]
    return _csv_chunks(parsed, kind, chosen, columns)


CSV_ROWS = 65_536  # rows per CSV chunk (a few MB of text)
HEAD = ("run", "algorithm", "repetition")


def _csv_chunks(parsed, kind, chosen, columns):
    yield _csv_line([*HEAD, *columns]).encode()
    for i, r in chosen:
        for batch in parsed.stored(i).batches(kind, CSV_ROWS):
            yield _csv_rows(i, r, batch, columns)


def _csv_rows(i, run, batch, columns):
    """``batch``'s rows as CSV lines (bytes): run ``i``'s index, algorithm and repetition, then ``columns``."""
    n = batch.num_rows
    arrays = [pa.array([i] * n, pa.int64()), pa.array([run.get("algorithm", "")] * n, pa.string()),
              pa.array([run.get("repetition", 0)] * n, pa.int64())]  # fmt: skip
    for c in columns:
        if c not in batch.schema.names:
            arrays.append(pa.nulls(n))
            continue
        col = batch.column(c)
        arrays.append(col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col)
    buf = io.BytesIO()
    pcsv.write_csv(pa.table(arrays, names=[*HEAD, *columns]), buf, pcsv.WriteOptions(include_header=False))
    return buf.getvalue()


PARQUET_ROWS = 65_536  # rows per row group of an exported Parquet file (segments as read back: one per segment)


class _Sink:
    """A write-only file for ``pq.ParquetWriter`` whose bytes are taken out as they come (:meth:`take`)."""

    def __init__(self):
        self.parts, self.position, self.closed = [], 0, False

    def write(self, data):
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self):
        return self.position

    def flush(self):
        pass

    def close(self):
        self.closed = True

    def take(self):
        out = b"".join(self.parts)
        self.parts.clear()
        return out


def table_parquet(parsed, kind, index=0):
    """Run ``index``'s ``segments``, ``jobs`` or ``series`` as one Parquet file, as read back (stretches expanded,
    ``task`` rebuilt), streamed: chunks of bytes, a row group of ``PARQUET_ROWS`` rows at a time (None without
    such a table; a bad ``index`` raises :class:`QueryError` at once)."""
    _selected_runs(parsed, index)
    stored = parsed.stored(index)
    schema = stored.schema(kind)
    if schema is None:
        return None
    return _parquet_chunks(stored, kind, schema)


def _parquet_chunks(stored, kind, schema):
    sink, writer = _Sink(), None
    try:
        for batch in stored.batches(kind, PARQUET_ROWS):
            table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
            if writer is None:  # the batches' own schema (as read back, with the file's metadata)
                writer = pq.ParquetWriter(sink, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=PARQUET_ROWS)
            yield sink.take()
        if writer is None:
            writer = pq.ParquetWriter(sink, schema, compression="zstd")
    finally:
        if writer is not None:
            writer.close()
    yield sink.take()


AS_STORED = ("jobs", "series")  # their stored files are the tables as read back: served byte for byte


def parquet_file(parsed, kind, index=0):
    """Run ``index``'s stored ``jobs`` or ``series`` file, open for reading, served as it is (its size is exact);
    None for ``segments`` (stored as stretches and ``task_k``: :func:`table_parquet` re-encodes them) or no file."""
    _selected_runs(parsed, index)
    name = parsed.stored(index).files.get(kind)
    return default_storage.open(name, "rb") if kind in AS_STORED and name else None


SAMPLE_ROWS = 4_096  # rows of the CSV sample a size estimate extrapolates from
EXPORTS = (("schedule", "segments", "segments"), ("jobs", "jobs", "jobs"), ("series", "series", "series_length"))


def download_sizes(parsed):
    """Per run: each table's rows and its files' sizes, ``{"bytes", "exact"}`` (memoised per result).

    A stored Parquet file served as it is (:func:`parquet_file`) has its exact size; a re-encoded one (segments)
    and every CSV are estimates: the bytes per row of rows from the middle row group of the stored file
    (``SAMPLE_ROWS`` for a CSV, a whole exported row group for Parquet), times the rows. Pages write them
    as "about". ``all_csv`` is the estimate of every run in one CSV per table. Read from the result's index
    where the worker wrote them (:func:`sizes_of`), else computed here once.
    """
    stored = (parsed.manifest.get("index") or {}).get("download_sizes")
    return stored or parsed.memo(("download_sizes",), lambda: sizes_of(parsed))


def sizes_of(parsed):
    """:func:`download_sizes` computed from the stored files (the worker writes them into the result's index,
    ``results.indexes``, so a page never reads the schedule to print them)."""
    runs = []
    for i, r in enumerate(parsed.doc.get("runs", [])):
        stored, info, files = parsed.stored(i), parsed.info(i), {}
        for export, kind, count in EXPORTS:
            rows = int(info.get(count) or 0)
            if kind not in stored.files or not rows:
                continue
            sample = _middle_group(stored, kind)
            head = len(_csv_line([*HEAD, *sample.column_names]).encode())
            part = sample.slice(0, SAMPLE_ROWS)
            body = len(_csv_rows(i, r, part, part.column_names))
            csv = {"bytes": head + round(body / max(part.num_rows, 1) * rows), "exact": False}
            if kind in AS_STORED:
                parquet = {"bytes": default_storage.size(stored.files[kind]), "exact": True}
            else:
                part = sample.slice(0, PARQUET_ROWS)
                sink = _Sink()
                pq.write_table(part, sink, compression="zstd")
                parquet = {"bytes": round(sink.position / max(part.num_rows, 1) * rows), "exact": False}
            files[export] = {"rows": rows, "csv": csv, "parquet": parquet}
        runs.append({"i": i, "algorithm": r.get("algorithm", ""), "repetition": r.get("repetition", 0),
                     "files": files})  # fmt: skip
    totals = {}
    for run in runs:
        for export, f in run["files"].items():
            totals[export] = totals.get(export, 0) + f["csv"]["bytes"]
    return {"runs": runs, "all_csv": {k: {"bytes": v, "exact": False} for k, v in totals.items()}}


def _middle_group(stored, kind):
    """The rows of the stored file's middle row group, as read back (stretches expanded)."""
    pf = pq.ParquetFile(stored.source(kind))
    group = pf.read_row_group(pf.num_row_groups // 2, use_threads=False)
    return restore(group) if kind == "segments" else group


def _pick(names, available):
    return next((n for n in names if n in available), None)


def workload_swf(parsed, repetition=0):
    """The workload of ``repetition`` as SWF text, or None when its job records lack submit/runtime/size.

    Every algorithm of a repetition sees the same generated instance, so the first
    run of that repetition is used; ``wait`` comes from that run's start times.
    """
    index = next((i for i, r in enumerate(parsed.doc.get("runs", [])) if r.get("repetition", 0) == repetition), None)
    table = parsed.jobs_table(index) if index is not None else None
    if table is None or not table.num_rows:
        return None
    keys = {field: _pick(names, table.column_names) for field, names in SWF_ALIASES.items()}
    if not all(keys[f] for f in ("submit", "run_time", "alloc_procs")):
        return None

    def column(key):
        values = table[key].to_numpy(zero_copy_only=False)
        return np.array([np.nan if v is None else float(v) for v in values], dtype=float)

    cols = {f: column(keys[f]) for f in ("submit", "run_time", "alloc_procs")}
    cols["req_procs"] = cols["alloc_procs"]
    if keys["req_time"]:
        cols["req_time"] = column(keys["req_time"])
    if keys["start"]:
        cols["wait"] = column(keys["start"]) - cols["submit"]
    for name, values in cols.items():
        cols[name] = np.where(np.isfinite(values), values, -1.0)
    cols["status"] = np.ones(table.num_rows)
    doc = parsed.doc
    header = [
        "; Version: 2.2",
        f"; Computer: cloudsched {doc.get('family', '')} (generated workload)",
        f"; Note: scenario digest {doc.get('scenario_digest', '')}, seed {doc.get('seed')}, repetition {repetition}",
        f"; MaxJobs: {table.num_rows}",
    ]
    return write_swf(SwfTrace(columns=cols, header=header))


def filename(run_id, kind, run=None):
    """The download's file name; ``run`` (a run of the result: ``{"i", "algorithm"}``) names a one-run table file."""
    if kind.endswith(".parquet") or kind in ("jobs", "series", "schedule"):
        one = ""
        if run is not None:
            alg = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(run.get("algorithm", "")))[:40]
            one = f"-r{run['i']}" + (f"-{alg}" if alg else "")
        return f"run-{run_id}{one}-{kind}" + ("" if kind.endswith(".parquet") else ".csv")
    return {
        "json": f"run-{run_id}.json",
        "metrics": f"run-{run_id}-metrics.csv",
        "summary": f"run-{run_id}-summary.csv",
        "swf": f"run-{run_id}-workload.swf",
    }[kind]
