"""Turning a finished :class:`Simulation` into metrics, schedule segments, series and per-application records.

Metrics (docs/design.md): ``avg_app_execution_time_s`` — from submission to the end of the
application's last task (Section 6.1), over the applications that were not rejected —
``energy_kwh`` (active and idle servers, Section 3.3), ``preemptions`` (best-effort
stints that an AR task cut short after they had run), the contention applications met
(``app_wait_share``: the share of their execution time spent waiting for VMs, against their time
alone, :func:`uncontended_times`; ``apps_uncontended_share``: the share within 10 % of it), plus
rejections, makespan, the share of tasks run away
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

from schedulers.core.columns import Columns, coded, schedule_cut, task_of
from schedulers.core.metrics import Metric
from schedulers.core.series import exact_series
from schedulers.core.validity import spec
from schedulers.registry import RunOutput

if TYPE_CHECKING:  # annotations only: the family registers without importing its simulator
    from schedulers.federated.simulator import Simulation

ENDED = ("finish", "preempted")  # how a stint ended: the codes of the ``ended`` column

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
    "resubmitted_apps": Metric("count", "", "AR apps run as best-effort", "refused a reservation, submitted again"),
    "app_wait_share": Metric(
        "fraction", "", "time apps wait (share)", "1 − Σ uncontended / Σ execution time over completed apps"
    ),
    "apps_uncontended_share": Metric(
        "fraction",
        "",
        "apps without contention (share)",
        "completed apps within 10 % of their time alone on their clouds",
    ),
    "makespan_s": Metric("duration", "s", "makespan", "from the first arrival"),
    "remote_task_share": Metric("fraction", "", "tasks run remotely", "tasks placed away from their home cloud"),
    "load_*": Metric("fraction", "", "load of {}", "busy VM-seconds over VM-seconds available, per cloud"),
}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "cloud"


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else 0.0


UNCONTENDED_SLACK = 0.10  # an application within 10 % of its time alone "does not need to contend"


def uncontended_times(sim: Simulation) -> np.ndarray:
    """Each application's execution time alone on the clouds it was given (nan where a task was not placed).

    The contention the paper's loose and tight situations differ by (Section 6.1: in the loose one
    "applications do not need to contend resources"): every task starts as soon as its inputs are there
    (the dataset ``M_s/S_c`` after arrival away from home, each predecessor's end plus the edge transfer
    between clouds, an AR entry task at its required start), loads its image and runs its actual runtime.
    What an application takes beyond this it spent waiting for VMs other applications held.
    """
    inst = sim.inst
    cloud, preds, actual = sim.planner.cloud, sim.preds, sim.actual
    arrival, home, start = inst.app_arrival.tolist(), inst.app_home.tolist(), inst.app_start.tolist()
    ar, task_app = inst.app_ar.tolist(), inst.task_app.tolist()
    image, dataset, edge = inst.image_s, inst.dataset_s, inst.edge_s
    fin = [np.nan] * inst.n_tasks
    for t in range(inst.n_tasks):
        c = cloud[t]
        if c < 0:
            continue
        a = task_app[t]
        ready = arrival[a] if c == home[a] else arrival[a] + dataset
        if ar[a] and not preds[t] and start[a] > ready:
            ready = start[a]
        for p in preds[t]:
            f = fin[p] + edge if cloud[p] != c else fin[p]
            if f > ready:
                ready = f
        fin[t] = ready + image + actual[t][c]
    if not inst.n_tasks:
        return np.full(inst.n_apps, np.nan)
    ends = np.fmax.reduceat(np.asarray(fin, dtype=float), np.asarray(inst.app_ptr[:-1], dtype=np.int64))
    return ends - inst.app_arrival


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
        "resubmitted_apps": int(sim.app_resubmitted.sum()),
        "makespan_s": float(span),
        "remote_task_share": float(remote.sum() / max(1, placed.sum())),
    }
    alone = uncontended_times(sim)[done]
    total = float(exec_time[done].sum())
    out["app_wait_share"] = max(0.0, 1.0 - float(alone.sum()) / total) if total > 0 else 0.0
    out["apps_uncontended_share"] = (
        float(np.mean(exec_time[done] <= (1 + UNCONTENDED_SLACK) * alone + 1e-9)) if alone.size else 0.0
    )
    for c, cl in enumerate(sim.clouds):
        denom = float(inst.cloud_vms[c]) * span
        out[f"load_{_slug(inst.cloud_names[c])}"] = float(cl.busy_vm_s / denom) if denom > 0 else 0.0
    return out


def segments(sim: Simulation) -> Columns:
    """One segment per server of every recorded stint, in the order the stints ended (built column-wise)."""
    inst = sim.inst
    counts = np.frombuffer(sim.st_servers, dtype=np.int64)
    rows = np.repeat(np.arange(counts.size), counts)
    task = np.frombuffer(sim.st_task, dtype=np.int64)[rows]
    cloud = np.frombuffer(sim.st_cloud, dtype=np.int64)[rows]
    server = np.frombuffer(sim.seg_server, dtype=np.int64)
    app = np.asarray(inst.task_app, dtype=np.int64)[task]
    names = list(inst.cloud_names)
    # resource "<cloud>/<server>": one label per (cloud, server) pair that occurs
    pair = cloud * (int(server.max(initial=0)) + 1) + server
    used, resource = np.unique(pair, return_inverse=True)
    width = int(server.max(initial=0)) + 1
    is_ar = np.asarray(sim.planner.is_ar, dtype=bool)[task] if task.size else np.zeros(0, dtype=bool)
    return Columns(
        {
            "job": coded(app, [str(a) for a in range(inst.n_apps)]),
            "task": task_of(task - np.asarray(inst.app_ptr, dtype=np.int64)[app]),
            "resource": coded(resource.reshape(-1), [f"{names[p // width]}/{p % width}" for p in used.tolist()]),
            "start": np.frombuffer(sim.st_start, dtype=np.float64)[rows],
            "end": np.frombuffer(sim.st_end, dtype=np.float64)[rows],
            "share": np.frombuffer(sim.seg_vms, dtype=np.int64).copy(),
            "kind": coded(np.where(is_ar, 0, 1), ["ar", "be"]),
            "cloud": coded(cloud, names),
            "server": server.copy(),
            "overhead_s": np.frombuffer(sim.st_overhead, dtype=np.float64)[rows],
            "ended": coded(np.frombuffer(sim.st_reason, dtype=np.int64)[rows], ENDED),
        }
    )


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


REJECTED = (
    "rejected on arrival: a task fits no cloud (allocate.py)",
    "rejected on arrival: no cloud could reserve its AR entry task by its required start (Section 5.1.3)",
)
STATUS = ("finished", "rejected", "unfinished")


def jobs(sim: Simulation) -> Columns:
    """One record per application (``None`` where it has no value: not AR, rejected), with its status and why."""
    inst = sim.inst
    fin = np.asarray(sim.app_finish, dtype=float)
    done = ~np.isnan(fin)
    ar = np.asarray(inst.app_ar, dtype=bool)
    arrival = np.asarray(inst.app_arrival, dtype=float)
    rejected = np.asarray(sim.app_rejected, dtype=bool)
    status = np.where(rejected, 1, np.where(done, 0, 2))
    # a task that fits no cloud (inf everywhere) rejects its application whatever the algorithm
    unfit = np.isinf(np.asarray(inst.etm, dtype=float)).all(axis=1) if inst.n_tasks else np.zeros(0, dtype=bool)
    app_unfit = np.zeros(inst.n_apps, dtype=bool)
    app_unfit[np.asarray(inst.task_app, dtype=np.int64)[unfit]] = True
    reason = np.where(rejected, np.where(app_unfit, 0, 1), -1)
    why = np.where(status == 2, 2, reason)
    # only when some application did not finish: a column of nothing but missing values has no type
    whys = {"reason": coded(why, [*REJECTED, "never finished: the simulation ended first"])} if (why >= 0).any() else {}
    return Columns(
        {
            "job": coded(np.arange(inst.n_apps), [str(a) for a in range(inst.n_apps)]),
            "arrival": arrival,
            "ar": ar.copy(),
            "required_start": np.where(ar, np.asarray(inst.app_start, dtype=float), 0.0),
            "home": coded(np.asarray(inst.app_home, dtype=np.int64), list(inst.cloud_names)),
            "tasks": np.diff(np.asarray(inst.app_ptr, dtype=np.int64)),
            "rejected": np.asarray(sim.app_rejected, dtype=bool).copy(),
            # refused its reservation and run as best-effort (params.rejected_ar_apps = "run_best_effort")
            "resubmitted": np.asarray(sim.app_resubmitted, dtype=bool).copy(),
            "finish": np.where(done, fin, 0.0),
            "execution_time_s": np.where(done, fin - arrival, 0.0),
            "status": coded(status, STATUS),
            **whys,
            "preds": coded(*_unique(preds_text(inst))),
        },
        masks={"required_start": ar, "finish": done, "execution_time_s": done},
    )


def preds_text(inst) -> list[str]:
    """Each application's DAG as text: its tasks' predecessors (indices in the application), ``,`` within a
    task and ``;`` between tasks (``";0;0;1,2"``: task 0 has none, 1 and 2 follow 0, 3 follows 1 and 2).

    A column of the job records (compressed with them, out of the run's header): the validity contract
    reads the edges from it."""
    ptr, pred_ptr = np.asarray(inst.app_ptr, dtype=np.int64), np.asarray(inst.pred_ptr, dtype=np.int64)
    local = (np.asarray(inst.pred_idx, dtype=np.int64) - ptr[np.asarray(inst.task_app, dtype=np.int64)[
        np.repeat(np.arange(inst.n_tasks), np.diff(pred_ptr))]]).tolist()  # fmt: skip
    bounds = pred_ptr.tolist()
    tasks = [",".join(map(str, local[bounds[t] : bounds[t + 1]])) for t in range(inst.n_tasks)]
    return [";".join(tasks[a:b]) for a, b in zip(ptr[:-1].tolist(), ptr[1:].tolist(), strict=True)]


def _unique(texts: list[str]) -> tuple[np.ndarray, list[str]]:
    labels, codes = np.unique(np.asarray(texts, dtype=str), return_inverse=True)
    return codes.reshape(-1), labels.tolist()


def validity_spec(inst) -> dict:
    """The contract's inputs (docs/validity.md): a task starts once its application arrived (an AR one: at its
    required start) and its dataset is on the cloud (``dataset_s`` later away from home), and after each
    predecessor ended (``edge_s`` later on another cloud)."""
    dag = {"column": "preds", "site": "cloud", "transfer_s": float(inst.edge_s)}  # the DAG: the records' ``preds``
    site = {"segment": "cloud", "job": "home", "delay_s": float(inst.dataset_s), "adds_to": "arrival"}
    return spec(inst.n_apps, ["arrival", "required_start"], precedence=dag, site=site)


def build_output(sim: Simulation) -> RunOutput:
    extra: dict = {}
    if sim.cut is not None:
        schedule_cut(extra, *sim.cut)
    if sim.inst.info:  # a trace: jobs used and those left out as wider than every cloud
        extra["workload"] = dict(sim.inst.info)
    if sim.cfg.params.record_schedule:
        # every server of every cloud, idle ones too (the Gantt's rows, grouped by cloud)
        extra["resources"] = {f"{c.name}/{s}": c.name for c in sim.cfg.datacenter.clouds for s in range(c.servers)}
        extra["capacities"] = {f"{c.name}/{s}": float(c.server_capacity) for c in sim.cfg.datacenter.clouds
                               for s in range(c.servers)}  # fmt: skip
    extra["validity"] = validity_spec(sim.inst)
    return RunOutput(
        metrics=metrics(sim),
        schedule=segments(sim),
        series=series(sim, sim.cfg.params.series_points),
        jobs=jobs(sim),
        extra=extra,
    )
