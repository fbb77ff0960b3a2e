"""Cross-field validation of a federated scenario (``Family.check``): what the field types cannot say alone,
and trace jobs wider than any cloud (which reads the trace through workloads.py; model.py stays below it)."""

from __future__ import annotations

from schedulers.core.traces import check_trace_path, check_trace_ref, check_trace_text
from schedulers.core.validation import ScenarioError
from schedulers.federated.model import FederatedScenario, GeneratorWorkload, InlineWorkload, TraceWorkload

__all__ = ["check", "largest_cloud_vms"]


def largest_cloud_vms(cfg: FederatedScenario) -> int:
    """VMs of the largest cloud: the widest trace job that fits somewhere (a job needs a VM per processor)."""
    return max(c.servers * c.server_capacity for c in cfg.datacenter.clouds)


def _wider_jobs(cfg: FederatedScenario) -> list[dict[str, str]]:
    """Trace jobs needing more VMs than any cloud has refuse the scenario unless the user chose to drop
    them: they were rejected applications before, mixed with AR rejections, without a word."""
    from schedulers.federated.workloads import load_trace_jobs  # on first use: reads the trace (start-up time)

    wl = cfg.workload
    _, _, vms = load_trace_jobs(wl)
    cap = largest_cloud_vms(cfg)
    over = vms[vms > cap]
    if over.size == 0 or wl.wider_jobs == "drop":
        return []
    jobs = "1 job of the trace needs" if over.size == 1 else f"{over.size:,} jobs of the trace need"
    return [{
        "field": "datacenter.clouds",
        "message": f"{jobs} more VMs than the largest cloud's {cap:,} (the widest needs {int(over.max()):,})",
        "allowed": f"a cloud of ≥ {int(over.max()):,} VMs (servers × VMs per server), or set 'Jobs wider than "
                   "the machine' (workload.wider_jobs) to drop",
    }]  # fmt: skip


def check(cfg: FederatedScenario) -> None:
    """Cross-field validation: one :class:`ScenarioError` naming every bad field."""
    errors: list[dict[str, str]] = []
    dc, wl = cfg.datacenter, cfg.workload
    n_clouds = len(dc.clouds)

    def bad(field: str, message: str, allowed: str = "") -> None:
        errors.append({"field": field, "message": message, "allowed": allowed})

    names = [c.name for c in dc.clouds]
    if len(set(names)) != len(names):
        bad("datacenter.clouds", "cloud names must be unique", "distinct names")
    for i, c in enumerate(dc.clouds):
        if c.p_idle_w > c.p_active_w:
            bad(f"datacenter.clouds[{i}].p_idle_w", "idle power exceeds active power", f"≤ {c.p_active_w}")
    if dc.etm is not None:
        if not dc.etm or any(len(row) != n_clouds for row in dc.etm):
            bad("datacenter.etm", "every ETM row needs one time per cloud", f"rows of {n_clouds} values")
        elif any(not (v > 0) for row in dc.etm for v in row):
            bad("datacenter.etm", "execution times must be positive", "> 0")
    if isinstance(wl, GeneratorWorkload):
        if wl.tasks_min > wl.tasks_max:
            bad("workload.tasks_min", "exceeds tasks_max", f"≤ {wl.tasks_max}")
        if wl.runtime_min_s > wl.runtime_max_s:
            bad("workload.runtime_min_s", "exceeds runtime_max_s", f"≤ {wl.runtime_max_s}")
    if isinstance(wl, (GeneratorWorkload, TraceWorkload)) and wl.homes == "fixed" and wl.home_cloud >= n_clouds:
        bad("workload.home_cloud", "no such cloud", f"0..{n_clouds - 1}")
    if isinstance(wl, TraceWorkload):
        if sum(v is not None for v in (wl.swf, wl.path, wl.trace)) != 1:
            bad("workload.swf", "give exactly one of swf (text), path and trace", "swf, path or trace")
        elif wl.path is not None:
            for err in check_trace_path(wl.path):
                bad(err["field"], err["message"], err["allowed"])
        elif wl.trace is not None:
            for err in check_trace_ref(wl.trace):
                bad(err["field"], err["message"], err["allowed"])
        else:
            for err in check_trace_text(wl.swf, "workload.swf"):
                bad(err["field"], err["message"], err["allowed"])
        if wl.group_min > wl.group_max:
            bad("workload.group_min", "exceeds group_max", f"≤ {wl.group_max}")
        if not errors:
            errors.extend(_wider_jobs(cfg))
    if isinstance(wl, InlineWorkload):
        n_types = len(dc.etm) if dc.etm else 0
        for a, app in enumerate(wl.jobs):
            if app.home >= n_clouds:
                bad(f"workload.jobs[{a}].home", "no such cloud", f"0..{n_clouds - 1}")
            if app.start is not None and app.start < app.arrival:
                bad(f"workload.jobs[{a}].start", "required start precedes arrival", f"≥ {app.arrival}")
            for k, task in enumerate(app.tasks):
                where = f"workload.jobs[{a}].tasks[{k}]"
                if any(p < 0 or p >= k for p in task.preds):  # earlier tasks only: the DAG cannot have a cycle
                    earlier = (
                        f"indices of earlier tasks, 0..{k - 1}" if k else "none (the first task has no predecessor)"
                    )
                    bad(f"{where}.preds", "predecessors must be earlier tasks", earlier)
                elif len(set(task.preds)) != len(task.preds):
                    bad(f"{where}.preds", "a predecessor is listed more than once", "distinct task indices")
                if app.ar and task.actual_runtime_s is not None:
                    bad(
                        f"{where}.actual_runtime_s",
                        "an AR lease runs exactly its reserved time",
                        "omit it in AR applications",
                    )
                if task.type is not None and task.type >= n_types:
                    rows = f"0..{n_types - 1}" if n_types else "none (datacenter.etm is not given)"
                    bad(f"{where}.type", "no such ETM row", rows)
    if errors:
        raise ScenarioError(errors)
