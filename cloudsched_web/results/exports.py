"""Downloads of a stored result: metrics CSV, schedule CSV, the generated workload as SWF.

Functions of a stored result (:class:`~cloudsched_web.results.queries.ParsedResult`; the
metrics and summary CSVs need only its header ``doc``), shared by the result pages'
export buttons and the JSON API. The schedule CSV is a generator of lines read from
the Parquet columns a batch at a time, so a 2-million-segment schedule streams.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pyarrow.parquet as pq

from cloudsched_web.results.queries import QueryError
from cloudsched_web.runs import formatting
from schedulers.core.swf import SwfTrace, write_swf

__all__ = ["SWF_ALIASES", "filename", "header", "metrics_csv", "schedule_csv", "summary_csv", "table_csv", "table_parquet",
           "workload_swf"]

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


def _selected_runs(parsed, index):
    runs = parsed.doc.get("runs", [])
    if index is None:
        return list(enumerate(runs))
    if not 0 <= index < len(runs):
        raise QueryError("run", f"no run #{index}", f"0..{len(runs) - 1}" if runs else "(no runs)")
    return [(index, runs[index])]


def schedule_csv(parsed, index=None):
    """Lines of the schedule CSV of run ``index`` (all runs when None), header first.

    Columns: algorithm, repetition, the segment fields, then family extras
    (``freq_ghz``, ``tier``, ``cloud``…) that any chosen run's schedule has. Rows
    stream from the Parquet columns a batch at a time.
    """
    return table_csv(parsed, "segments", index, SEGMENT_COLUMNS)


def table_csv(parsed, kind, index=None, first=()):
    """Lines of a CSV of run ``index``'s (all runs' when None) ``segments``, ``jobs`` or ``series``.

    Columns: run, algorithm, repetition, ``first``, then every other column any chosen run
    has, in name order. Streamed a batch at a time from the stored columns.
    """
    chosen = _selected_runs(parsed, index)
    names = set()
    for i, _ in chosen:
        schema = parsed.stored(i).schema(kind)
        names.update(schema.names if schema is not None else [])
    columns = [*first, *sorted(names - set(first))]
    yield _csv_line(["run", "algorithm", "repetition", *columns])
    for i, r in chosen:
        head = [i, r.get("algorithm", ""), r.get("repetition", 0)]
        for batch in parsed.stored(i).batches(kind, 5000):
            present = [batch.column(c).to_pylist() if c in batch.schema.names else None for c in columns]
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            for n in range(batch.num_rows):
                writer.writerow(head + [_cell(col[n]) if col is not None else "" for col in present])
            yield buf.getvalue()


def table_parquet(parsed, kind, index=0):
    """Run ``index``'s ``segments``, ``jobs`` or ``series`` as one Parquet file (bytes), as read back."""
    _selected_runs(parsed, index)
    table = parsed.stored(index).table(kind)
    if table is None:
        return None
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


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


def filename(run_id, kind):
    if kind.endswith(".parquet") or kind in ("jobs", "series"):
        return f"run-{run_id}-{kind}" + ("" if kind.endswith(".parquet") else ".csv")
    return {
        "json": f"run-{run_id}.json",
        "metrics": f"run-{run_id}-metrics.csv",
        "summary": f"run-{run_id}-summary.csv",
        "schedule": f"run-{run_id}-schedule.csv",
        "swf": f"run-{run_id}-workload.swf",
    }[kind]
