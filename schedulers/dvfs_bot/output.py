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

from typing import TYPE_CHECKING, Any

import numpy as np

from schedulers.core.metrics import Metric
from schedulers.core.series import exact_series
from schedulers.dvfs_bot.datacenter import Datacenter, power_timeline

if TYPE_CHECKING:  # annotations only: the family registers without importing its simulator
    from schedulers.dvfs_bot.simulator import SimResult
    from schedulers.dvfs_bot.workloads import Workload

__all__ = ["METRICS", "SUMMARY_METRICS", "build_output", "host_energy_j"]

SUMMARY_METRICS = ("energy_kwh", "rejection_rate", "deadline_violation_rate", "avg_job_execution_time_s")
# Every metric of a run (see _metrics), its kind and unit.
METRICS = {
    "energy_kwh": Metric("energy", "kWh", "energy", "∫ host power dt over the run"),
    "energy_j": Metric("energy", "J", "energy (stored in J)", "the same energy in joules"),
    "rejection_rate": Metric("fraction", "", "rejected jobs", "jobs refused at submission over all jobs"),
    "deadline_violation_rate": Metric("fraction", "", "deadline misses", "accepted jobs finished after their deadline"),
    "avg_job_execution_time_s": Metric("duration", "s", "avg job execution time", "end − submit, accepted jobs"),
    "jobs": Metric("count", "", "jobs"),
    "accepted_jobs": Metric("count", "", "accepted jobs"),
    "tasks_run": Metric("count", "", "tasks run"),
    "avg_freq_ghz": Metric("frequency", "GHz", "avg CPU frequency", "weighted by busy time"),
    "vm_busy_time_s": Metric("duration", "s", "VM busy time", "summed over VMs"),
    "makespan_s": Metric("duration", "s", "makespan"),
    "scheduler_time_s": Metric("duration", "s", "scheduler wall time", "wall-clock time of the simulation"),
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


def _segments(wl: Workload, res: SimResult, dc: Datacenter) -> list[dict[str, Any]]:
    task_job = np.repeat(np.arange(wl.n_jobs), wl.ntasks)
    task_index = np.arange(task_job.size) - wl.first[task_job]
    jobs = wl.job_ids[task_job[res.seg_task]]
    idx = task_index[res.seg_task]
    hosts = dc.vm_host[res.seg_vm]
    types = dc.vm_type[res.seg_vm]
    freq = np.array([dc.freq_ghz[t][lv] for t, lv in zip(types.tolist(), res.seg_level.tolist(), strict=True)])
    order = np.lexsort((res.seg_start, res.seg_vm))
    return [
        {
            "job": str(j),
            "task": f"{j}.{k}",
            "resource": f"vm{v}",
            "start": s,
            "end": e,
            "share": 1.0,
            "kind": "task",
            "freq_ghz": f,
            "host": f"h{h}",
        }
        for j, k, v, s, e, f, h in zip(
            jobs[order].tolist(),
            idx[order].tolist(),
            res.seg_vm[order].tolist(),
            res.seg_start[order].tolist(),
            res.seg_end[order].tolist(),
            freq[order].tolist() if freq.size else [],
            hosts[order].tolist(),
            strict=True,
        )
    ]


def _jobs(wl: Workload, res: SimResult) -> list[dict[str, Any]]:
    """One record per job, in the user's order and under the user's id.

    ``deadline_s`` counts from submission, as in the input; ``due_s`` is the absolute deadline.
    """
    finish = np.where(res.accepted, res.job_finish, np.nan)
    rows = []
    for j, s, d, n, rt, u, a, f in sorted(
        zip(
            wl.job_ids.tolist(),
            wl.submit.tolist(),
            wl.deadline.tolist(),
            wl.ntasks.tolist(),
            wl.runtime.tolist(),
            wl.urgent.tolist(),
            res.accepted.tolist(),
            finish.tolist(),
            strict=True,
        )
    ):
        rows.append(
            {
                "job": str(j),
                "submit_s": s,
                "deadline_s": d - s,
                "due_s": d,
                "tasks": n,
                "runtime_s": rt,
                "urgent": u,
                "accepted": a,
                "finish_s": f if a else None,
                "violated": bool(a and f > d + VIOLATION_TOL * max(1.0, abs(d))),
            }
        )
    return rows


def build_output(
    wl: Workload, res: SimResult, dc: Datacenter, series_points: int | None, record_schedule: bool
) -> tuple[dict[str, float], list[dict[str, Any]], dict[str, list[float]], list[dict[str, Any]]]:
    """Metrics, segments (``freq_ghz`` and ``host`` extras), series, per-job records."""
    t_end = float(max(np.max(res.seg_end, initial=0.0), np.max(wl.submit, initial=0.0)))
    t, power, active = power_timeline(dc, res.seg_vm, res.seg_start, res.seg_end, res.seg_level, t_end)
    energy = host_energy_j(t, power)
    # every change point unless the user states a cap: the stored series integrates to the energy
    series = exact_series(t, {"power_w": power, "active_hosts": active}, power="power_w", points=series_points)
    schedule = _segments(wl, res, dc) if record_schedule else []
    jobs = _jobs(wl, res) if record_schedule else []
    return _metrics(wl, res, energy, dc, t_end), schedule, series, jobs
