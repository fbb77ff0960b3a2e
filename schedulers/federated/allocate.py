"""Assigning an arriving application's tasks to clouds: AR admission, then the chosen algorithm.

When an application arrives its manager server partitions it into tasks and places
all of them at once (Section 5.1, Fig. 2): first the AR entry tasks, which must be
admitted at their required start (Section 5.1.3), then the rest by FCFS, round robin,
CLS/DCLS (Algs. 1-2) or CMMS/DCMMS (Alg. 3).

Readings where the paper is silent:

* FCFS (the baseline of Section 6.2, after [34]) keeps every task on its application's
  home cloud, where the dataset is, and each cloud serves its queue first come first
  served; a task larger than its home cloud goes to the first cloud (by index) it fits.
  Its drawback is the workload imbalance the paper names: no sharing between clouds.
  The paper does not say where FCFS places tasks; ``params.fcfs_placement = "any"`` is the
  other reading: each task, in index order, goes to the cloud where it can start earliest
  (the ERAT of eq. 5 from the slot tables, the dataset transfer included; ties go home),
  whatever the cloud's speed -- first come, first served by whichever cloud serves first.
* Round robin (Section 4.2) deals tasks to clouds in turn (one counter for the whole
  run, in task order), skipping clouds the task does not fit, regardless of speed.
* An AR entry task may run on a cloud only if the dataset can be there by its required
  start and the cloud's AR slot table admits it (:class:`~planner.ArBook`). Candidate
  clouds are tried in the algorithm's order (FCFS: home first; round robin: the next in
  turn; the list algorithms: earliest τ_fd). If an entry task fits nowhere the whole
  application is rejected ("the only case where an AR task is rejected", Section 5.1.3)
  and its tentative reservations are released.
* Later tasks of an AR application are "zero advance notice" AR tasks: they start as
  soon as their inputs are ready, with priority over (and preempting) best-effort tasks.
* An application with a task that fits no cloud is rejected as well.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedulers.federated.cls import cls_assign
from schedulers.federated.cmms import cmms_assign
from schedulers.federated.planner import Planner

__all__ = ["ASSIGNERS", "assign_app"]


def _fcfs(planner: Planner, app: int) -> None:
    inst = planner.inst
    home = int(inst.app_home[app])
    clouds = [home] + [c for c in range(inst.n_clouds) if c != home]  # ties go home
    for t in range(int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])):
        if planner.cloud[t] >= 0:
            continue
        if planner.fcfs_any:  # tasks in index order (a topological order): predecessors are placed first
            starts = [planner.estimate(t, c)[0] for c in clouds]
            k = min(range(len(clouds)), key=lambda i: starts[i])
            if np.isfinite(starts[k]):
                planner.commit(t, clouds[k], starts[k])
                continue
        c = home if np.isfinite(inst.etm[t, home]) else int(np.flatnonzero(np.isfinite(inst.etm[t]))[0])
        planner.cloud[t] = c


def _round_robin_cloud(planner: Planner, t: int) -> int:
    n = planner.inst.n_clouds
    for k in range(n):
        c = (planner.rr_next + k) % n
        if np.isfinite(planner.inst.etm[t, c]):
            planner.rr_next = (c + 1) % n
            return c
    raise AssertionError("task fits no cloud")  # excluded by assign_app


def _round_robin(planner: Planner, app: int) -> None:
    for t in range(int(planner.inst.app_ptr[app]), int(planner.inst.app_ptr[app + 1])):
        if planner.cloud[t] < 0:
            planner.cloud[t] = _round_robin_cloud(planner, t)


ASSIGNERS: dict[str, Callable[[Planner, int], None]] = {
    "fcfs": _fcfs,
    "round_robin": _round_robin,
    "cls": cls_assign,
    "dcls": cls_assign,
    "cmms": cmms_assign,
    "dcmms": cmms_assign,
}


def _entry_order(algorithm: str, planner: Planner, t: int, start: float) -> list[int]:
    inst = planner.inst
    n = inst.n_clouds
    if algorithm == "fcfs":
        home = int(inst.app_home[inst.task_app[t]])
        return [home] + [c for c in range(n) if c != home]
    if algorithm == "round_robin":
        return [(planner.rr_next + k) % n for k in range(n)]
    taus = [start + planner.factor(t, c) * planner.span(t, c) for c in range(n)]
    return sorted(range(n), key=lambda c: (taus[c], c))


def _reserve_entries(algorithm: str, planner: Planner, app: int) -> bool:
    inst, book = planner.inst, planner.book
    start = float(inst.app_start[app])
    placed: list[tuple[int, int]] = []
    for t in range(int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])):
        if not planner.is_entry[t]:
            continue
        w = int(inst.task_vms[t])
        for c in _entry_order(algorithm, planner, t, start):
            duration = 2 * inst.image_s + float(inst.etm[t, c])
            if not np.isfinite(duration) or planner.data_ready(app, c) > start:
                continue
            if book.fits(c, start, w, duration, int(inst.cloud_vms[c])):
                book.reserve(c, t, start, start + duration, w)
                placed.append((t, c))
                if algorithm == "round_robin":
                    planner.rr_next = (c + 1) % inst.n_clouds
                break
        else:
            for task, c in placed:
                book.release(c, task)
            return False
    for t, c in placed:
        if algorithm == "round_robin" or (algorithm == "fcfs" and not planner.fcfs_any):
            planner.cloud[t] = c
        else:
            planner.commit(t, c, start)
    return True


def assign_app(algorithm: str, planner: Planner, app: int, assigner: Callable[[Planner, int], None] | None = None
               ) -> bool:  # fmt: skip
    """Place every task of ``app``; ``False`` when the application is rejected. A plug-in's ``assigner``
    (policy.py) replaces the algorithm's; its AR entry tasks are tried in order of τ, as the list algorithms'."""
    inst = planner.inst
    lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
    if not np.isfinite(inst.etm[lo:hi]).any(axis=1).all():
        return False
    if planner.app_ar[app] and not _reserve_entries(algorithm, planner, app):
        return False
    (assigner or ASSIGNERS[algorithm])(planner, app)
    return True
