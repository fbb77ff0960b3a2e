"""Turning a finished :class:`Simulation` into metrics, schedule segments, series and per-application records.

Metrics (DESIGN.md): ``avg_app_execution_time_s`` — from submission to the end of the
application's last task (Section 6.1), over the applications that were not rejected —
``energy_kwh`` (active and idle servers, Section 3.3), ``preemptions`` (best-effort
stints that an AR task cut short after they had run), plus rejections, makespan, the share of tasks run away
from their home cloud and the per-cloud load ``load_<cloud>`` (busy VM-seconds over
VM-seconds available from the first arrival to the last completion). Energy, loads and
``makespan_s`` count from the first arrival (0 for generated and trace workloads; inline
applications keep the user's times). Records and segments name applications by their
index in the user's list (``job``) and tasks as ``<job>.<index in the app>``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from schedulers.core.metrics import Metric
from schedulers.core.series import exact_series
from schedulers.registry import RunOutput

if TYPE_CHECKING:  # annotations only: the family registers without importing its simulator
    from schedulers.federated.simulator import Simulation

__all__ = ["METRICS", "SUMMARY_METRICS", "build_output"]

SUMMARY_METRICS = ("avg_app_execution_time_s", "energy_kwh", "preemptions", "rejected_apps")
# Every metric of a run (see metrics), its kind and unit; load_<cloud> is one per cloud.
METRICS = {
    "avg_app_execution_time_s": Metric("duration", "s", "avg app execution time", "submission → last task's end"),
    "avg_ar_app_execution_time_s": Metric("duration", "s", "avg AR app execution time", "advance-reservation apps"),
    "avg_be_app_execution_time_s": Metric("duration", "s", "avg BE app execution time", "best-effort apps"),
    "energy_kwh": Metric("energy", "kWh", "energy", "active and idle servers (Section 3.3)"),
    "preemptions": Metric("count", "", "preemptions", "best-effort stints cut short by an AR task"),
    "rejected_apps": Metric("count", "", "rejected apps"),
    "completed_apps": Metric("count", "", "completed apps"),
    "rejection_rate": Metric("fraction", "", "rejected apps (share)"),
    "makespan_s": Metric("duration", "s", "makespan", "from the first arrival"),
    "remote_task_share": Metric("fraction", "", "tasks run remotely", "tasks placed away from their home cloud"),
    "schedule_truncated": Metric("flag", "", "schedule truncated", "the recorded schedule hit max_segments"),
    "load_*": Metric("fraction", "", "load of {}", "busy VM-seconds over VM-seconds available, per cloud"),
}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "cloud"


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else 0.0


def metrics(sim: Simulation) -> dict[str, float]:
    inst = sim.inst
    done = ~np.isnan(sim.app_finish)
    exec_time = sim.app_finish - inst.app_arrival
    end = sim.end_time
    span = end - inst.origin
    energy_j = sum(
        float(sim.p_idle[c] * sim.n_servers[c] * span + sim.p_gap[c] * cl.active_s) for c, cl in enumerate(sim.clouds)
    )
    placed = ~np.isnan(np.asarray(sim.finish, dtype=float))
    home = inst.app_home[inst.task_app]
    remote = placed & (np.asarray(sim.planner.cloud) != home)
    out = {
        "avg_app_execution_time_s": _mean(exec_time[done]),
        "avg_be_app_execution_time_s": _mean(exec_time[done & ~inst.app_ar]),
        "avg_ar_app_execution_time_s": _mean(exec_time[done & inst.app_ar]),
        "energy_kwh": energy_j / 3.6e6,
        "preemptions": int(sim.preemptions),
        "rejected_apps": int(sim.app_rejected.sum()),
        "completed_apps": int(done.sum()),
        "rejection_rate": float(sim.app_rejected.mean()) if inst.n_apps else 0.0,
        "makespan_s": float(span),
        "remote_task_share": float(remote.sum() / max(1, placed.sum())),
        "schedule_truncated": int(sim.truncated),
    }
    for c, cl in enumerate(sim.clouds):
        denom = float(inst.cloud_vms[c]) * span
        out[f"load_{_slug(inst.cloud_names[c])}"] = float(cl.busy_vm_s / denom) if denom > 0 else 0.0
    return out


def segments(sim: Simulation) -> list[dict]:
    inst = sim.inst
    names = inst.cloud_names
    ptr = inst.app_ptr
    out = []
    for t, c, servers, start, end, overhead, reason in sim.segments:
        app = int(inst.task_app[t])
        kind = "ar" if sim.planner.is_ar[t] else "be"
        task = f"{app}.{t - int(ptr[app])}"
        for s, vms in servers:
            out.append(
                {
                    "job": str(app),
                    "task": task,
                    "resource": f"{names[c]}/{s}",
                    "start": float(start),
                    "end": float(end),
                    "share": int(vms),
                    "kind": kind,
                    "cloud": names[c],
                    "server": int(s),
                    "overhead_s": float(overhead),
                    "ended": reason,
                }
            )
    return out


def series(sim: Simulation, points: int | None = None) -> dict[str, list[float]]:
    """Power (W), cumulative energy (J) and busy VMs at every change point, up to the run's end.

    The simulator records the state after each instant (``Simulation._refresh``); the last
    level holds until ``end_time``, where the series ends. So ``energy_j[-1]`` = ∫ power dt =
    the ``energy_kwh`` metric (to rounding); ``points`` (``params.series_points``) is the
    stated cap that gives this up.
    """
    t = [*sim.power_t, sim.end_time]
    p = [*sim.power_w, sim.power_w[-1]]
    b = [*sim.busy_vms, sim.busy_vms[-1]]
    return exact_series(t, {"power_w": p, "busy_vms": b}, power="power_w", points=points)


def jobs(sim: Simulation) -> list[dict]:
    inst = sim.inst
    out = []
    for a in range(inst.n_apps):
        fin = sim.app_finish[a]
        out.append(
            {
                "job": str(a),
                "arrival": float(inst.app_arrival[a]),
                "ar": bool(inst.app_ar[a]),
                "required_start": float(inst.app_start[a]) if inst.app_ar[a] else None,
                "home": inst.cloud_names[int(inst.app_home[a])],
                "tasks": int(inst.app_ptr[a + 1] - inst.app_ptr[a]),
                "rejected": bool(sim.app_rejected[a]),
                "finish": None if np.isnan(fin) else float(fin),
                "execution_time_s": None if np.isnan(fin) else float(fin - inst.app_arrival[a]),
            }
        )
    return out


def build_output(sim: Simulation) -> RunOutput:
    return RunOutput(
        metrics=metrics(sim),
        schedule=segments(sim),
        series=series(sim, sim.cfg.params.series_points),
        jobs=jobs(sim),
    )
