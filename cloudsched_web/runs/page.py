"""What a result page needs, computed once by the worker when the run finishes.

A 200,000-job result is ~90 MB of JSON; parsing it takes about a second. The page
itself needs only the summary, the series and the validity checks, so the task
stores those beside the blob (``Run.page``) and the first view of a big run no
longer waits for the full parse. Windows of the schedule still come from the blob
through ``results.queries`` (parsed once per process, then cached).
"""

from cloudsched_web.results import checks, exports
from schedulers.core.columns import Columns

HEAVY = ("schedule", "jobs", "series")  # series come windowed from the data endpoint


def has_jobs(doc):
    """Whether the SWF export can work: job records with submit time, runtime and size."""
    runs = doc.get("runs", [])
    jobs = (runs[0].get("jobs") or []) if runs else []
    first = set(jobs.names) if isinstance(jobs, Columns) else set(jobs[0] if jobs else {})
    needed = ("submit", "run_time", "alloc_procs")
    return all(any(k in first for k in exports.SWF_ALIASES[f]) for f in needed)


def summarize(doc):
    runs = doc.get("runs", [])
    header = {**doc, "runs": [{k: v for k, v in r.items() if k not in HEAVY} for r in runs]}
    header["time_unit"] = checks.time_unit(runs[0]) if runs else "s"  # read off the series, which stay out
    return {"header": header, "validity": checks.validity(doc), "can_swf": has_jobs(doc)}
