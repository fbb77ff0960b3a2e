"""Downloads of a stored result: metrics CSV, schedule CSV, the generated workload as SWF.

Pure functions of a result document (or a :class:`~cloudsched_web.runs.queries.ParsedResult`'s
``doc``), shared by the result pages' export buttons and the JSON API. The schedule
CSV is a generator of lines so a 200,000-segment schedule streams instead of
being built in memory twice.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from cloudsched_web.runs.queries import QueryError
from schedulers.core.swf import SwfTrace, write_swf

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


def metrics_csv(doc):
    """One row per algorithm × repetition, one column per metric (union over runs, sorted)."""
    runs = doc.get("runs", [])
    names = sorted({k for r in runs for k in r.get("metrics", {})})
    lines = [_csv_line(["algorithm", "repetition", "wall_time_s", *names])]
    for r in runs:
        m = r.get("metrics", {})
        row = [r.get("algorithm", ""), r.get("repetition", 0), r.get("wall_time_s")] + [m.get(n) for n in names]
        lines.append(_csv_line([_cell(v) for v in row]))
    return "".join(lines)


def summary_csv(doc):
    """One row per algorithm × metric: mean, std, CI half-width, n over repetitions."""
    lines = [_csv_line(["algorithm", "metric", "mean", "std", "ci", "n"])]
    for alg, per_metric in doc.get("summary", {}).items():
        for name, stat in sorted(per_metric.items()):
            lines.append(_csv_line([alg, name, *(_cell(stat.get(k)) for k in ("mean", "std", "ci", "n"))]))
    return "".join(lines)


def _selected_runs(doc, index):
    runs = doc.get("runs", [])
    if index is None:
        return list(enumerate(runs))
    if not 0 <= index < len(runs):
        raise QueryError("run", f"no run #{index}", f"0..{len(runs) - 1}" if runs else "(no runs)")
    return [(index, runs[index])]


def schedule_csv(doc, index=None):
    """Lines of the schedule CSV of run ``index`` (all runs when None), header first.

    Columns: algorithm, repetition, the segment fields, then family extras
    (``freq_ghz``, ``tier``, ``cloud``…) found in the first segments of each run.
    """
    chosen = _selected_runs(doc, index)
    extras = set()
    for _, r in chosen:
        for seg in r.get("schedule", [])[:1000]:
            extras.update(k for k in seg if k not in SEGMENT_COLUMNS)
    extras = sorted(extras)
    columns = [*SEGMENT_COLUMNS, *extras]
    yield _csv_line(["run", "algorithm", "repetition", *columns])
    for i, r in chosen:
        head = [i, r.get("algorithm", ""), r.get("repetition", 0)]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for n, seg in enumerate(r.get("schedule", []), start=1):
            writer.writerow(head + [_cell(seg.get(c)) for c in columns])
            if n % 5000 == 0:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        if buf.tell():
            yield buf.getvalue()


def _pick(record, names):
    return next((n for n in names if n in record), None)


def workload_swf(doc, repetition=0):
    """The workload of ``repetition`` as SWF text, or None when its job records lack submit/runtime/size.

    Every algorithm of a repetition sees the same generated instance, so the first
    run of that repetition is used; ``wait`` comes from that run's start times.
    """
    run = next((r for r in doc.get("runs", []) if r.get("repetition", 0) == repetition), None)
    records = (run or {}).get("jobs") or []
    if not records:
        return None
    first = records[0]
    keys = {field: _pick(first, names) for field, names in SWF_ALIASES.items()}
    if not all(keys[f] for f in ("submit", "run_time", "alloc_procs")):
        return None

    def column(key):
        return np.array([np.nan if r.get(key) is None else float(r[key]) for r in records], dtype=float)

    cols = {f: column(keys[f]) for f in ("submit", "run_time", "alloc_procs")}
    cols["req_procs"] = cols["alloc_procs"]
    if keys["req_time"]:
        cols["req_time"] = column(keys["req_time"])
    if keys["start"]:
        cols["wait"] = column(keys["start"]) - cols["submit"]
    for name, values in cols.items():
        cols[name] = np.where(np.isfinite(values), values, -1.0)
    cols["status"] = np.ones(len(records))
    header = [
        "; Version: 2.2",
        f"; Computer: cloudsched {doc.get('family', '')} (generated workload)",
        f"; Note: scenario digest {doc.get('scenario_digest', '')}, seed {doc.get('seed')}, repetition {repetition}",
        f"; MaxJobs: {len(records)}",
    ]
    return write_swf(SwfTrace(columns=cols, header=header))


def filename(run_id, kind):
    return {
        "json": f"run-{run_id}.json",
        "metrics": f"run-{run_id}-metrics.csv",
        "summary": f"run-{run_id}-summary.csv",
        "schedule": f"run-{run_id}-schedule.csv",
        "swf": f"run-{run_id}-workload.swf",
    }[kind]
