"""Metrics, schedule segments, series and per-job records of one ``dvfs_bot`` run (Sec. V metrics).

* ``energy_kwh``: ∫ power dt over [0, end of the last task or last arrival] of
  the data-centre power step function (every host through the power model of
  :mod:`schedulers.dvfs_bot.datacenter`); the ``power_w`` series is that function.
* ``rejection_rate``: rejected jobs / submitted jobs.
* ``deadline_violation_rate``: accepted jobs finishing after their deadline /
  accepted jobs (a relative tolerance of 1e-9 absorbs floating-point rounding).
* ``avg_job_execution_time_s``: mean over accepted jobs of (end of last task −
  submission).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from schedulers.core.columns import Columns, coded, task_of
from schedulers.core.metrics import Metric
from schedulers.core.series import exact_series
from schedulers.core.validity import spec
from schedulers.dvfs_bot.datacenter import Datacenter, power_timeline

if TYPE_CHECKING:  # annotations only: the family registers without importing its simulator
    from schedulers.dvfs_bot.simulator import SimResult
    from schedulers.dvfs_bot.workloads import Workload

__all__ = ["METRICS", "SUMMARY_METRICS", "build_output", "host_energy_j", "validity_spec"]

SUMMARY_METRICS = ("energy_kwh", "rejection_rate", "deadline_violation_rate", "avg_job_execution_time_s")
# Every metric of a run (see _metrics), its kind and unit.
METRICS = {
    "energy_kwh": Metric("energy", "kWh", "energy", "∫ host power dt over the run"),
    "energy_j": Metric("energy", "J", "energy", "the same energy in joules", same_as="energy_kwh"),
    "rejection_rate": Metric("fraction", "", "rejected jobs", "jobs refused at submission over all jobs"),
    "deadline_violation_rate": Metric("fraction", "", "deadline misses", "accepted jobs finished after their deadline"),
    "avg_job_execution_time_s": Metric("duration", "s", "avg job execution time", "end − submit, accepted jobs"),
    "jobs": Metric("count", "", "jobs"),
    "accepted_jobs": Metric("count", "", "accepted jobs"),
    "tasks_run": Metric("count", "", "tasks run"),
    "avg_freq_ghz": Metric("frequency", "GHz", "avg CPU frequency", "weighted by busy time"),
    "vm_busy_time_s": Metric("duration", "s", "VM busy time", "summed over VMs"),
    "makespan_s": Metric("duration", "s", "makespan"),
    "scheduler_time_s": Metric("duration", "s", "scheduler CPU time", "process CPU time of the simulation"),
}
VIOLATION_TOL = 1e-9


def host_energy_j(t: np.ndarray, power_w: np.ndarray) -> float:
    """∫ power dt of a step function whose last point closes the interval."""
    return float(np.sum(power_w[:-1] * np.diff(t)))


def _metrics(wl: Workload, res: SimResult, energy_j: float, dc: Datacenter, t_end: float) -> dict[str, float]:
    n = wl.n_jobs
    acc = res.accepted
    n_acc = int(acc.sum())
    finish = res.job_finish[acc]
    late = finish > wl.deadline[acc] + VIOLATION_TOL * np.maximum(1.0, np.abs(wl.deadline[acc]))
    exec_time = finish - wl.submit[acc]
    busy_s = float(np.sum(res.seg_end - res.seg_start))
    freq = np.zeros(res.seg_vm.size)
    types = dc.vm_type[res.seg_vm]
    for i, f in enumerate(dc.freq_ghz):
        sel = types == i
        freq[sel] = f[res.seg_level[sel]]
    dur = res.seg_end - res.seg_start
    return {
        "energy_kwh": energy_j / 3.6e6,
        "energy_j": energy_j,
        "rejection_rate": (n - n_acc) / n if n else 0.0,
        "deadline_violation_rate": float(late.mean()) if n_acc else 0.0,
        "avg_job_execution_time_s": float(exec_time.mean()) if n_acc else 0.0,
        "jobs": n,
        "accepted_jobs": n_acc,
        "tasks_run": int(np.count_nonzero(res.task_vm >= 0)),
        "avg_freq_ghz": float(np.sum(freq * dur) / busy_s) if busy_s > 0 else 0.0,
        "vm_busy_time_s": busy_s,
        "makespan_s": t_end,
        "scheduler_time_s": res.scheduler_time_s,
    }


def _segments(wl: Workload, res: SimResult, dc: Datacenter) -> Columns:
    """One segment per task stint on a VM, by VM then start, built column-wise."""
    task_job = np.repeat(np.arange(wl.n_jobs), wl.ntasks)
    task_index = np.arange(task_job.size) - wl.first[task_job]
    order = np.lexsort((res.seg_start, res.seg_vm))
    task = res.seg_task[order]
    vm = res.seg_vm[order]
    types = dc.vm_type[vm]
    levels = max((len(f) for f in dc.freq_ghz), default=1)
    table = np.zeros((len(dc.freq_ghz), levels))  # frequency of (VM type, DVFS level)
    for i, f in enumerate(dc.freq_ghz):
        table[i, : len(f)] = f
    freq = table[types, res.seg_level[order]] if vm.size else np.zeros(0)
    n_vms = dc.n_vms
    return Columns(
        {
            "job": coded(task_job[task], [str(j) for j in wl.job_ids.tolist()]),
            "task": task_of(task_index[task]),
            "resource": coded(vm, [f"vm{v}" for v in range(n_vms)]),
            "start": res.seg_start[order].astype(float),
            "end": res.seg_end[order].astype(float),
            "share": np.ones(vm.size),
            "kind": coded(np.zeros(vm.size, dtype=np.int32), ["task"]),
            "freq_ghz": freq.astype(float),
            "host": coded(dc.vm_host[vm], [f"h{h}" for h in range(int(dc.vm_host.max(initial=-1)) + 1)]),
        }
    )


def _jobs(wl: Workload, res: SimResult) -> Columns:
    """One record per job, in the user's order and under the user's id.

    ``deadline_s`` counts from submission, as in the input; ``due_s`` is the absolute deadline.
    """
    order = np.argsort(wl.job_ids, kind="stable")
    acc = res.accepted[order].astype(bool)
    due = wl.deadline[order].astype(float)
    submit = wl.submit[order].astype(float)
    finish = np.where(acc, res.job_finish[order], 0.0).astype(float)
    violated = acc & (finish > due + VIOLATION_TOL * np.maximum(1.0, np.abs(due)))
    return Columns(
        {
            "job": coded(np.arange(order.size), [str(j) for j in wl.job_ids[order].tolist()]),
            "submit_s": submit,
            "deadline_s": due - submit,
            "due_s": due,
            "tasks": wl.ntasks[order].astype(np.int64),
            "runtime_s": wl.runtime[order].astype(float),
            "urgent": wl.urgent[order].astype(bool),
            "accepted": acc,
            "finish_s": finish,
            "violated": violated,
            "status": coded(np.where(acc, 0, 1), ["finished", "rejected"]),
            # only when a job was rejected: a column of nothing but missing values has no type
            **({"reason": coded(np.where(acc, -1, 0), [REJECTED])} if not acc.all() else {}),
        },
        masks={"finish_s": acc},
    )


REJECTED = ("rejected at submission: no VM could meet its deadline (Alg. 1 lines 41–43), or its deadline lies "
            "past params.deadline_horizon_h")  # fmt: skip


def validity_spec(wl: Workload) -> dict:
    """The contract's inputs (docs/validity.md): independent jobs, none of whose tasks starts before its submission."""
    return spec(wl.n_jobs, ["submit_s"])


def build_output(
    wl: Workload, res: SimResult, dc: Datacenter, series_points: int | None, record_schedule: bool
) -> tuple[dict[str, float], Columns, dict[str, list[float]], Columns]:
    """Metrics, segments (``freq_ghz`` and ``host`` extras), series, per-job records."""
    t_end = float(max(np.max(res.seg_end, initial=0.0), np.max(wl.submit, initial=0.0)))
    t, power, active = power_timeline(dc, res.seg_vm, res.seg_start, res.seg_end, res.seg_level, t_end)
    energy = host_energy_j(t, power)
    # every change point unless the user states a cap: the stored series integrates to the energy
    series = exact_series(t, {"power_w": power, "active_hosts": active}, power="power_w", points=series_points)
    schedule = _segments(wl, res, dc) if record_schedule else Columns()
    jobs = _jobs(wl, res) if record_schedule else Columns()
    return _metrics(wl, res, energy, dc, t_end), schedule, series, jobs
