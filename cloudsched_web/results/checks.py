"""The result page's validity box: the library's contract (``schedulers.core.validity``) for every
algorithm × repetition, plus what only the page adds (metrics against their bounds, the family's
limit flags, trace jobs left out).

Each check returns ``{"name", "status": "pass"|"fail"|"skip"|"na"|"warn", "detail"}`` (``warn``: valid,
but the reader must know, e.g. trace jobs the scenario chose to leave out; ``na``: the family's model
has no such thing); the page lists every check with its status, so a reader sees what was verified
and what was not, and says "checks passed" only when no check failed and every contract check ran
(docs/validity.md).
"""

from cloudsched_web.results.bounds import bound_pairs
from schedulers.core import validity as contract
from schedulers.core.validity import check, time_unit

__all__ = ["time_unit", "validity", "well_formed"]

EPS = contract.EPS
well_formed = contract.well_formed


def _check(name, ok, detail):
    return check(name, "pass" if ok else "fail", detail)


def bounds(run):
    metrics = run.get("metrics", {})
    out = []
    for bound, target in bound_pairs(metrics).items():
        value, low = metrics.get(target), metrics.get(bound)
        if isinstance(value, (int, float)) and isinstance(low, (int, float)):
            ok = value >= low * (1 - 1e-6) - EPS
            out.append(_check(f"{target} ≥ {bound}", ok, f"{value:.6g} vs bound {low:.6g}"))
    return out


def limits(run):
    """Rates and limit flags the family reports: a violated deadline or energy limit shows here."""
    metrics = run.get("metrics", {})
    out = []
    for name, value in sorted(metrics.items()):
        if name.endswith("_met") and isinstance(value, (int, float)):
            out.append(_check(name.removesuffix("_met").replace("_", " "), value >= 1 - EPS, f"{name} = {value:g}"))
        elif name.endswith("violation_rate") and isinstance(value, (int, float)):
            out.append(_check(name.replace("_", " "), value <= EPS, f"{name} = {value:.4g}"))
    return out


def trace_jobs_kept(run):
    """Trace jobs wider than the machine that the run left out (``extra.workload.dropped_too_large``): a
    warning when the scenario chose to drop them, a failure otherwise (runs from before they were refused)."""
    measured = (run.get("extra") or {}).get("workload") or {}
    count = measured.get("dropped_too_large")
    if not isinstance(count, int) or isinstance(count, bool):
        return []
    machine = f"{measured.get('processors', '?')} {measured.get('unit') or 'processors'}"  # federated: VMs
    if count == 0:
        return [_check("every trace job fits the machine", True, f"no job needs more than {machine}")]
    chosen = measured.get("wider_jobs") == "drop"
    jobs = "1 job needed" if count == 1 else f"{count:,} jobs needed"
    detail = f"{jobs} more than {machine} and {'was' if count == 1 else 'were'} left out" + (
        " (the scenario drops them)" if chosen else "")  # fmt: skip
    check = _check("every trace job fits the machine", False, detail)
    return [{**check, "status": "warn"} if chosen else check]


def page_checks(run):
    """The checks the page adds to the contract: bounds, limit flags, trace jobs left out."""
    return [*trace_jobs_kept(run), *bounds(run), *limits(run)]


def validity(doc, spans=None):
    """The contract and the page's checks of every algorithm × repetition, and the verdict (``spans(i)``: cached arrays).

    ``passed``: nothing failed and every contract check ran for every run; ``not_run`` names the
    ones that did not (docs/validity.md).
    """
    return contract.report(doc, page_checks, spans)
