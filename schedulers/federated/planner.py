"""What the manager servers know when they assign tasks: estimates (eq. 5), feedback (eqs. 6-8), AR slots.

Section 3.1: a manager server pulls, from every other manager, only "the earliest
available time of required resources" (ERAT), including the dataset transfer time
``M_s / S_c`` when the target cloud lacks the dataset. Section 5.1.4 then ranks clouds
by the estimated finish time ``τ = ERAT + S_l/b + ETM`` (eq. 5), or, in DCLS/DCMMS,
by ``τ_fd = ERAT + (1 + fd_j)(S_l/b + ETM)`` (eq. 8) with the feedback factor
``fd_j = α (Δτ − S_l/b − ETM) / (S_l/b + ETM)`` (eq. 7), ``Δτ = T_act_fin − ERAT`` (eq. 6).

Readings where the paper is silent:

* A cloud answers the ERAT pull from its *slot table* of planned work, kept as a
  multiset of per-VM "free from" times (:class:`Frontier`): a task needing ``w`` VMs can
  start when the ``w``-th earliest VM is free (list scheduling without insertion). The
  table holds the plan (eq. 5 finish times), not the actual execution: delays caused
  by preemption are exactly what the feedback factor is there to learn.
* An AR task is planned at its required start (entry tasks) or as soon as its inputs
  are ready (later tasks of an AR application, "zero advance notice"): it preempts
  best-effort work, so planned VMs already busy then are pushed back by its duration.
* ERAT also includes the ready time of the task's inputs: predecessors' estimated
  finish (eq. 8) plus the edge transfer when they were placed on another cloud.
* ``fd`` is kept per (origin manager = home cloud, executing cloud); each push
  (task completion) replaces it with the latest observation, as eq. 7 has no smoothing.
  Completions on the home cloud itself update its own entry too.
* ``fd`` is floored at 0 by default. Section 5.1.4 introduces it "to reduce the impacts
  of delays"; a task finishing *before* ``ERAT + S_l/b + ETM`` means the ERAT was
  pessimistic (e.g. predecessors beat their own estimates), not that the cloud runs
  faster than its ETM, and a negative factor would make that cloud look up to 1/(1−α)
  times faster and attract a pile-up. ``params.negative_feedback`` restores eq. 7 as
  printed.
* :class:`ArBook` is the AR part of the slot tables: an AR task is admitted on a cloud
  only if running AR tasks plus reservations plus itself never exceed the cloud's VMs
  during ``[start, start + 2·S_l/b + ETM)`` (image store of a preempted task + load).
"""

from __future__ import annotations

import numpy as np

from schedulers.federated.workloads import Instance

__all__ = ["ArBook", "Frontier", "Planner"]


class Frontier:
    """Sorted run-length multiset of per-VM planned free times of one cloud."""

    def __init__(self, vms: int):
        self.times = np.zeros(1)
        self.counts = np.array([int(vms)], dtype=np.int64)
        self.cum = self.counts.copy()

    def kth(self, w) -> np.ndarray | float:
        """Time at which ``w`` VMs are planned free (vectorised over ``w``)."""
        idx = np.searchsorted(self.cum, w)
        return self.times[idx]

    def take(self, w: int, now: float, start: float, duration: float, shift: bool) -> None:
        """Plan ``w`` VMs (the earliest free) for ``duration`` from ``start``.

        ``shift`` (AR): VMs planned busy past ``start`` are pushed back by ``duration``.
        """
        i = int(np.searchsorted(self.cum, w))
        head_t = self.times[: i + 1].copy()
        head_n = self.counts[: i + 1].copy()
        used_last = w - (int(self.cum[i - 1]) if i else 0)
        head_n[-1] = used_last
        rest_t = self.times[i:]
        rest_n = self.counts[i:].copy()
        rest_n[0] -= used_last
        new_t = np.maximum(head_t, start) + duration if shift else np.full(head_t.size, start + duration)
        times = np.concatenate([new_t, rest_t])
        counts = np.concatenate([head_n, rest_n])
        times = np.maximum(times, now)
        order = np.argsort(times, kind="stable")
        times, counts = times[order], counts[order]
        keep = counts > 0
        times, counts = times[keep], counts[keep]
        uniq, inv = np.unique(times, return_inverse=True)
        self.times = uniq
        self.counts = np.bincount(inv, weights=counts, minlength=uniq.size).astype(np.int64)
        self.cum = np.cumsum(self.counts)


class ArBook:
    """AR reservations and running AR tasks of every cloud (admission control)."""

    def __init__(self, n_clouds: int):
        self.reserved: list[dict[int, tuple[float, float, int]]] = [{} for _ in range(n_clouds)]
        self.running: list[dict[int, tuple[float, int]]] = [{} for _ in range(n_clouds)]

    def fits(self, c: int, start: float, w: int, duration: float, capacity: int) -> bool:
        end = start + duration
        res = self.reserved[c].values()
        probes = [start] + [s for s, _, _ in res if start < s < end]
        for t in probes:
            used = sum(v for e, v in self.running[c].values() if e > t)
            used += sum(v for s, e, v in res if s <= t < e)
            if used + w > capacity:
                return False
        return True

    def reserve(self, c: int, task: int, start: float, end: float, w: int) -> None:
        self.reserved[c][task] = (start, end, w)

    def release(self, c: int, task: int) -> None:
        self.reserved[c].pop(task, None)

    def start(self, c: int, task: int, end: float, w: int) -> None:
        self.reserved[c].pop(task, None)
        self.running[c][task] = (end, w)

    def finish(self, c: int, task: int) -> None:
        self.running[c].pop(task, None)


class Planner:
    """Assignment-time state: task placements, ERATs, estimates, slot tables, feedback."""

    def __init__(self, inst: Instance, alpha: float, feedback: bool, negative_feedback: bool = False):
        self.inst = inst
        self.fd_floor = -np.inf if negative_feedback else 0.0
        self.alpha = float(alpha) if feedback else 0.0
        self.feedback = feedback
        self.frontiers = [Frontier(int(v)) for v in inst.cloud_vms]
        self.book = ArBook(inst.n_clouds)
        self.fd = np.zeros((inst.n_clouds, inst.n_clouds))
        self.cloud = np.full(inst.n_tasks, -1, dtype=np.int64)
        self.erat = np.full(inst.n_tasks, np.nan)
        self.est_fin = np.full(inst.n_tasks, np.nan)
        self.is_entry = np.diff(inst.pred_ptr) == 0
        self.is_ar = inst.app_ar[inst.task_app]
        self.now = 0.0
        self.rr_next = 0

    # --- eq. 5 ingredients -------------------------------------------------------------
    def data_ready(self, app: int, c: int) -> float:
        """When the application's dataset is in cloud ``c`` (transfer from home starts at arrival)."""
        arrival = float(self.inst.app_arrival[app])
        return arrival if c == int(self.inst.app_home[app]) else arrival + self.inst.dataset_s

    def ready_est(self, t: int, c: int) -> float:
        ready = self.data_ready(int(self.inst.task_app[t]), c)
        for p in self.inst.preds(t):
            fin = self.est_fin[p] + (self.inst.edge_s if self.cloud[p] != c else 0.0)
            ready = max(ready, fin)
        return max(ready, self.now)

    def span(self, t: int, c: int) -> float:
        """``S_l/b + ETM`` of task ``t`` on cloud ``c``."""
        return self.inst.image_s + float(self.inst.etm[t, c])

    def factor(self, t: int, c: int) -> float:
        return 1.0 + self.fd[int(self.inst.app_home[self.inst.task_app[t]]), c]

    def estimate(self, t: int, c: int) -> tuple[float, float]:
        """(ERAT, τ_fd) of task ``t`` on cloud ``c`` (eqs. 5 and 8; τ_fd = τ when fd = 0)."""
        if not np.isfinite(self.inst.etm[t, c]):
            return np.inf, np.inf
        ready = self.ready_est(t, c)
        # a zero-notice AR task preempts best-effort work, so it waits only for its inputs
        erat = ready if self.is_ar[t] else max(ready, float(self.frontiers[c].kth(int(self.inst.task_vms[t]))))
        return erat, erat + self.factor(t, c) * self.span(t, c)

    def commit(self, t: int, c: int, erat: float) -> None:
        """Assign ``t`` to ``c`` and write it in ``c``'s slot table (eq. 5 duration)."""
        self.cloud[t] = c
        self.erat[t] = erat
        self.est_fin[t] = erat + self.factor(t, c) * self.span(t, c)
        w = int(self.inst.task_vms[t])
        self.frontiers[c].take(w, self.now, erat, self.span(t, c), shift=bool(self.is_ar[t]))

    # --- eqs. 6-7 ------------------------------------------------------------------------
    def observe(self, t: int, finish: float) -> None:
        """Push from the executing cloud: update the origin's feedback factor (eqs. 6-7)."""
        if not self.feedback:
            return
        c = int(self.cloud[t])
        home = int(self.inst.app_home[self.inst.task_app[t]])
        fd = feedback_factor(self.alpha, finish, self.erat[t], self.inst.image_s, self.inst.etm[t, c])
        self.fd[home, c] = max(fd, self.fd_floor)


def feedback_factor(alpha: float, t_act_fin: float, erat: float, image_s: float, etm: float) -> float:
    """Eq. 7 with eq. 6: ``α (Δτ − S_l/b − ETM) / (S_l/b + ETM)``, ``Δτ = T_act_fin − ERAT``."""
    delta = t_act_fin - erat
    span = image_s + etm
    return float(alpha * (delta - span) / span)
