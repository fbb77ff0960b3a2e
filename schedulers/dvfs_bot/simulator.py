"""Event-driven simulation of urgent BoT jobs on DVFS-capable VMs (paper 002, Sections III–V).

Readings chosen where the paper is silent:

* Each VM runs one task at a time at its current level; the rest wait in its
  deadline-ordered queue (Sec. III). A VM's level is set only when Alg. 1 places
  a task on it (to the lowest level meeting every queued deadline) and applies
  to the running task too, from that instant; a frequency change splits the
  running task's segment. When its queue empties the core returns to the idle
  state. Completions at the same instant as an arrival are processed first.
* A job is scheduled task by task at its submission instant; if a task finds no
  VM, every task of the job already placed is taken out of the queues again
  (Alg. 1 line 42) and the job is rejected whole. Nothing of a rejected job runs.
* The scheduler knows estimated runtimes only: the remaining work of a running
  task is its estimate minus the work done, floored at 0 when it overruns. The
  actual runtime decides when the task ends. With exact estimates no accepted job
  misses its deadline (tested); with inexact ones violations appear. A queue
  holding a task whose deadline has passed cannot take new tasks (line 12: no
  frequency meets all deadlines).
* A job's execution time runs from submission to the end of its last task.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

from schedulers.dvfs_bot.cloud_aware import (
    BASE_SCORES,
    SPEED_TOL,
    feasible_levels,
    queue_terms,
    score_vms,
    speed_from_terms,
)
from schedulers.dvfs_bot.datacenter import Datacenter
from schedulers.dvfs_bot.workloads import Workload

__all__ = ["SimResult", "simulate_jobs"]


@dataclass
class SimResult:
    accepted: np.ndarray  # per job
    job_finish: np.ndarray  # per job (nan if rejected)
    task_vm: np.ndarray  # per task (−1 if rejected)
    task_start: np.ndarray
    task_finish: np.ndarray
    seg_task: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    seg_vm: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    seg_start: np.ndarray = field(default_factory=lambda: np.zeros(0))
    seg_end: np.ndarray = field(default_factory=lambda: np.zeros(0))
    seg_level: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    scheduler_time_s: float = 0.0


class _Vms:
    """Per-VM state as arrays.

    Each waiting queue is a Python list of ``(work, actual, deadline, task)``; the
    columns that Alg. 1 reads for every VM at once (work and deadline) are mirrored
    in rows of padded matrices (work 0, deadline +inf beyond the queue), stored
    transposed — one row per queue slot, one column per VM — so that ``queue_terms``
    reads contiguous memory. The running sums of work are not kept up to date per
    change: ``_Sim._terms`` redoes them for every VM at once, once per job.
    """

    def __init__(self, dc: Datacenter, width: int = 8):
        n = dc.n_vms
        self.dc = dc
        self.busy = np.zeros(n, dtype=bool)
        self.level = np.full(n, -1, dtype=np.int64)
        self.task = np.full(n, -1, dtype=np.int64)
        self.rem_est = np.zeros(n)
        self.rem_act = np.zeros(n)
        self.t0 = np.zeros(n)
        self.run_deadline = np.zeros(n)
        self.seg_start = np.zeros(n)
        self.version = np.zeros(n, dtype=np.int64)
        self.qlen = np.zeros(n, dtype=np.int64)
        self.queue: list[list[tuple[float, float, float, int]]] = [[] for _ in range(n)]
        self.qwork = np.zeros((width, n))  # slot k of VM v's queue at [k, v]
        self.qcum = np.zeros((width, n))  # np.cumsum of qwork down each column, written by _Sim._terms
        self.dirty: set[int] = set()  # VMs whose queue changed since _Sim._terms last redid their qcum column
        self.qdead = np.full((width, n), np.inf)
        self.scratch = (np.empty((width, n)), np.empty((width, n)))  # intermediates of queue_terms
        self.host_busy = np.zeros(dc.n_hosts, dtype=np.int64)
        self.rows = np.arange(n)
        self.speed_table = np.zeros((n, max(s.size for s in dc.speeds)))
        for i, sp in enumerate(dc.speeds):
            self.speed_table[dc.vm_type == i, : sp.size] = sp

    def speed(self, v: int) -> float:
        return float(self.speed_table[v, self.level[v]])

    def advance(self, now: float) -> None:
        """Bring every running task's remaining work to ``now`` (O(V) vector work, once per job)."""
        # Idle VMs need no mask: their remaining work is 0 and 0 − done (done ≥ 0) is floored back to 0.
        spd = self.speed_table[self.rows, np.maximum(self.level, 0)]
        done = (now - self.t0) * spd
        np.maximum(np.subtract(self.rem_est, done, out=self.rem_est), 0.0, out=self.rem_est)
        np.maximum(np.subtract(self.rem_act, done, out=self.rem_act), 0.0, out=self.rem_act)
        self.t0.fill(now)

    def _grow(self) -> None:
        w, n = self.qwork.shape
        self.qwork = np.vstack([self.qwork, np.zeros((w, n))])
        self.qcum = np.vstack([self.qcum, np.zeros((w, n))])
        self.qdead = np.vstack([self.qdead, np.full((w, n), np.inf)])
        self.scratch = (np.empty((2 * w, n)), np.empty((2 * w, n)))

    def insert(self, v: int, pos: int, work: float, act: float, deadline: float, task: int) -> None:
        """Queue a task at ``pos``: the slots from ``pos`` on move down one, the prefix sums are redone."""
        queue = self.queue[v]
        if len(queue) == self.qwork.shape[0]:
            self._grow()
        queue.insert(pos, (work, act, deadline, task))
        k = len(queue)
        qwork, qdead = self.qwork[:k, v], self.qdead[:k, v]
        qwork[pos + 1 :] = qwork[pos:-1]
        qdead[pos + 1 :] = qdead[pos:-1]
        qwork[pos], qdead[pos] = work, deadline
        self.qlen[v] = k
        self.dirty.add(v)

    def remove(self, v: int, pos: int) -> tuple[float, float, float, int]:
        """Take the task at ``pos`` out: later slots move up one, the emptied last slot is padding again."""
        queue = self.queue[v]
        out = queue.pop(pos)
        k = len(queue)
        qwork, qdead = self.qwork[: k + 1, v], self.qdead[: k + 1, v]
        qwork[pos:-1] = qwork[pos + 1 :]
        qdead[pos:-1] = qdead[pos + 1 :]
        qwork[k], qdead[k] = 0.0, np.inf
        self.qlen[v] = k
        self.dirty.add(v)
        return out

    def start(self, v: int, now: float, level: int, work: float, act: float, deadline: float, task: int) -> None:
        self.busy[v] = True
        self.level[v] = level
        self.task[v] = task
        self.rem_est[v], self.rem_act[v], self.t0[v], self.run_deadline[v] = work, act, now, deadline
        self.host_busy[self.dc.vm_host[v]] += 1

    def stop(self, v: int) -> None:
        self.busy[v] = False
        self.level[v] = -1
        self.task[v] = -1
        self.rem_est[v] = self.rem_act[v] = 0.0
        self.host_busy[self.dc.vm_host[v]] -= 1


class _Sim:
    def __init__(self, dc: Datacenter, wl: Workload, cloud_aware: bool, progress, choose=None):
        self.dc, self.wl, self.cloud_aware, self.progress = dc, wl, cloud_aware, progress
        self.choose = choose  # a plug-in's checked VM choice (policy.py), None: Alg. 1 lines 34-39
        self.top_level = np.array([dc.speeds[k].size - 1 for k in dc.vm_type.tolist()], dtype=np.int64)
        self.vms = _Vms(dc)
        n_tasks = int(wl.ntasks.sum())
        self.first = wl.first
        self.task_vm = np.full(n_tasks, -1, dtype=np.int64)
        self.task_start = np.full(n_tasks, np.nan)
        self.task_finish = np.full(n_tasks, np.nan)
        self.accepted = np.zeros(wl.n_jobs, dtype=bool)
        self.heap: list[tuple[float, int, int, int]] = []  # (finish time, vm, version, seq)
        self.seq = 0
        self.segs: list[tuple[int, int, float, float, int]] = []
        self.horizon = np.inf
        self.host_vms = [[] for _ in range(dc.n_hosts)]  # VM indices of each host, ascending
        for v, h in enumerate(dc.vm_host.tolist()):
            self.host_vms[h].append(v)
        self.speed_lists = [sp.tolist() for sp in dc.speeds]
        self.top_speed = max(self.speed_lists[t][-1] for t in set(dc.vm_type.tolist()))
        self.vm_type, self.vm_rank, self.vm_host = dc.vm_type.tolist(), dc.vm_rank.tolist(), dc.vm_host.tolist()

    # --- events -----------------------------------------------------------------------------
    def _push(self, v: int, now: float) -> None:
        vms = self.vms
        vms.version[v] += 1
        finish = now + float(vms.rem_act[v]) / vms.speed(v)
        heapq.heappush(self.heap, (finish, v, int(vms.version[v]), self.seq))
        self.seq += 1

    def _close_segment(self, v: int, now: float) -> None:
        vms = self.vms
        if now > vms.seg_start[v]:
            self.segs.append((int(vms.task[v]), v, float(vms.seg_start[v]), now, int(vms.level[v])))
        vms.seg_start[v] = now

    def _complete(self, now: float, v: int) -> None:
        vms = self.vms
        self._close_segment(v, now)
        self.task_finish[vms.task[v]] = now
        if vms.qlen[v] > 0:
            # The head of the queue starts at once: the VM stays busy at its level, its host stays on
            # (the state vms.stop + vms.start would leave; _close_segment began its segment).
            work, act, deadline, task = vms.remove(v, 0)
            vms.task[v] = task
            vms.rem_est[v], vms.rem_act[v], vms.t0[v], vms.run_deadline[v] = work, act, now, deadline
            self.task_start[task] = now
            self._push(v, now)
        else:
            vms.stop(v)

    # --- Alg. 1 for one job -----------------------------------------------------------------
    def _schedule_job(self, j: int, now: float) -> None:
        """Alg. 1 for every task of job j at its submission instant.

        The first task scores every VM with numpy. Placing a task changes the inputs
        of the score only on the chosen VM (its queue, level, busy flag) and, when it
        wakes a suspended host, on the idle VMs of that host (host on/off, line 24,
        which only the cloud-aware score reads), so later tasks rescore just those
        VMs with the scalar twin of the vector code (``_rescore``: the same IEEE
        operations in the same order, hence the same scores). Every other VM's inputs
        are unchanged, so rescoring it would give back its score. After the job's
        last task nothing is rescored.
        """
        vms, dc, wl = self.vms, self.dc, self.wl
        vms.advance(now)
        work, deadline = float(wl.runtime[j]), float(wl.deadline[j])
        if deadline > self.horizon:
            return
        horizon = deadline - now
        if horizon <= 0 or (work / horizon) * (1.0 - SPEED_TOL) > self.top_speed:
            # Even an idle VM at the top level misses the deadline (Alg. 1 line 23: −1), and a busy VM needs
            # at least as much ((ahead + work) / horizon ≥ work / horizon; line 12: −1): every score is −1,
            # so no VM is chosen for the first task and the job is rejected (lines 41–43).
            return
        first = int(self.first[j])
        log: list[tuple[int, int, int, int]] = []  # (vm, queue position or −1 if started, old level, task)
        terms = self._terms(now, work, deadline)
        position = terms[0]
        s_star = speed_from_terms(now, work, deadline, vms.busy, *terms[1:])
        level = feasible_levels(s_star, dc.vm_type, dc.speeds)
        host_on = vms.host_busy[dc.vm_host] > 0
        scores = score_vms(level, vms.busy, vms.level, host_on, dc.vm_rank, self.cloud_aware)
        last = first + int(wl.ntasks[j]) - 1
        for task in range(first, last + 1):
            if self.choose is None:
                v = int(scores.argmax())  # select_vm: the first maximum, rejected if not positive
                if scores[v] <= 0:
                    self._rollback(log)
                    return
            else:  # a plug-in's choice (policy.py)
                v, lv = self.choose(self._task_view(j, task, now, work, deadline, level, scores))
                if v < 0:
                    self._rollback(log)
                    return
                level[v] = lv
            act = float(wl.actual[task])
            woke = False
            if vms.busy[v]:
                log.append((v, int(position[v]), int(vms.level[v]), task))
                vms.insert(v, int(position[v]), work, act, deadline, task)
                vms.level[v] = level[v]
            else:
                log.append((v, -1, -1, task))
                h = self.vm_host[v]
                woke = vms.host_busy[h] == 0
                vms.start(v, now, int(level[v]), work, act, deadline, task)
            if task == last:
                break
            row = self._row_terms(v, now, work, deadline)
            for full, part in zip(terms, row, strict=True):
                full[v] = part
            self._rescore(
                self.host_vms[h] if woke and self.cloud_aware else [v], now, work, deadline, terms, level, scores
            )
        self._commit(j, log, now)

    def _task_view(self, j, task, now, work, deadline, level, scores):
        from schedulers.core.readonly import view
        from schedulers.dvfs_bot.policy import Task

        vms, dc = self.vms, self.dc
        return Task(j, task, now, work, deadline, view(level.copy(), "task.level"), view(self.top_level, "task.top"),
                    view(vms.level.copy(), "task.current"), view(vms.busy.copy(), "task.busy"),
                    view(vms.host_busy[dc.vm_host] > 0, "task.host_on"), view(dc.vm_rank, "task.energy_rank"),
                    view(scores.copy(), "task.score"))  # fmt: skip

    def _row_terms(self, v: int, now: float, work: float, deadline: float) -> tuple[int, float, float, float]:
        """``queue_terms`` for the one VM ``v`` in scalars (same operations and order)."""
        vms = self.vms
        head, run_deadline = float(vms.rem_est[v]), float(vms.run_deadline[v])
        run_slack = run_deadline - now
        s_run = (head / run_slack if run_slack > 0 else np.inf) if head > 0 else 0.0
        width = int(vms.qlen[v])
        if width == 0:
            return 0, head, 0.0, s_run
        position, ahead, worst, inf = 0, head, -np.inf, np.inf
        prefix = 0.0
        for w, _act, d, _task in vms.queue[v]:
            prefix += w  # as np.cumsum
            cum = head + prefix
            slack = d - now
            if d <= deadline:  # before the new task
                position += 1
                ahead = cum
                r = cum / slack if slack > 0 else inf
            else:
                r = (cum + work) / slack if slack > 0 else inf
            if r > worst:  # max(worst, r)
                worst = r
        return position, ahead, worst, s_run

    def _rescore(self, vms_of_host, now, work, deadline, terms, level, scores) -> None:
        """``speed_from_terms``, ``feasible_levels`` and ``score_vms`` for a few VMs of one host, in scalars."""
        vms = self.vms
        _, ahead, worst, s_run = terms
        horizon = deadline - now
        host_on = int(vms.host_busy[self.vm_host[vms_of_host[0]]]) > 0
        for u in vms_of_host:
            busy = bool(vms.busy[u])
            if horizon <= 0:
                s = np.inf
            elif busy:
                s = max(max(float(s_run[u]), (float(ahead[u]) + work) / horizon), float(worst[u]))
            else:
                s = work / horizon
            speeds = self.speed_lists[self.vm_type[u]]
            lv = bisect.bisect_left(speeds, s * (1.0 - SPEED_TOL))
            lv = lv if lv < len(speeds) else -1
            level[u] = lv
            rank = self.vm_rank[u]
            if lv < 0:
                scores[u] = -1
            elif busy:
                scores[u] = (BASE_SCORES[1] if lv > vms.level[u] else BASE_SCORES[0]) - lv - rank
            elif self.cloud_aware and not host_on:
                scores[u] = BASE_SCORES[3] - rank
            else:
                scores[u] = BASE_SCORES[2] - rank

    def _terms(self, now: float, work: float, deadline: float, rows: np.ndarray | None = None) -> list[np.ndarray]:
        """Per-VM queue terms of the job's task (see ``queue_terms``); idle VMs get zeros.

        Computed for every busy VM once per job, then only for the VM that took a task:
        the other rows do not change while the job's tasks are placed.
        """
        vms, n = self.vms, self.vms.busy.size
        if not vms.busy.any():  # (``rows``, the busy VMs' indices, is no longer needed)
            return [np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n), np.zeros(n)]
        # Every VM at once: an idle VM has no queue and no running work, so its terms are zeros.
        width = int(vms.qlen.max())
        # Running sums down the slots of the queues that changed since the last job (a few VMs: those
        # that finished a task or took one), sequential per column as np.cumsum of one column. A column
        # keeps its sums while its queue is unchanged; below its queue (padding) they are finite
        # leftovers that are never read as work ahead and give 0 over the infinite slack of the padding.
        if vms.dirty:
            cols = np.fromiter(vms.dirty, dtype=np.int64, count=len(vms.dirty))
            vms.dirty.clear()
            vms.qcum[:width, cols] = np.cumsum(vms.qwork[:width, cols], axis=0)
        part = queue_terms(
            now, work, deadline, vms.rem_est, vms.run_deadline,
            vms.qwork[:width].T, vms.qdead[:width].T, vms.qcum[:width].T,
            (vms.scratch[0][:width], vms.scratch[1][:width]),
        )  # fmt: skip
        return list(part)

    def _rollback(self, log: list[tuple[int, int, int, int]]) -> None:
        vms = self.vms
        for v, pos, old_level, _ in reversed(log):
            if pos < 0:
                vms.stop(v)
            else:
                vms.remove(v, pos)
                vms.level[v] = old_level

    def _commit(self, j: int, log: list[tuple[int, int, int, int]], now: float) -> None:
        vms = self.vms
        self.accepted[j] = True
        seen: dict[int, int] = {}
        for v, pos, old_level, task in log:
            seen.setdefault(v, -1 if pos < 0 else old_level)
            self.task_vm[task] = v
        for v, old_level in seen.items():
            if old_level < 0:  # started now: the task at the head begins its first segment
                vms.seg_start[v] = now
                self.task_start[vms.task[v]] = now
                self._push(v, now)
            elif old_level != vms.level[v]:  # frequency change: split the running task's segment
                new_level = int(vms.level[v])
                vms.level[v] = old_level
                self._close_segment(v, now)
                vms.level[v] = new_level
                self._push(v, now)

    def run(self) -> None:
        wl, heap, vms = self.wl, self.heap, self.vms
        n = wl.n_jobs
        step = max(1, n // 100)
        j = 0
        while j < n or heap:
            next_arrival = float(wl.submit[j]) if j < n else np.inf
            if heap and heap[0][0] <= next_arrival:
                finish, v, version, _ = heapq.heappop(heap)
                if version == vms.version[v]:
                    self._complete(finish, v)
                continue
            self._schedule_job(j, next_arrival)
            j += 1
            if j % step == 0:
                self.progress(0.95 * j / n)


def simulate_jobs(
    dc: Datacenter,
    wl: Workload,
    cloud_aware: bool,
    progress=lambda f: None,
    deadline_horizon_s: float | None = None,
    choose=None,
) -> SimResult:
    """Run Alg. 1 (``cloud_aware``) or the baseline over a workload; see the module docstring.

    ``deadline_horizon_s`` (off by default) rejects, before Alg. 1 runs, every job whose
    deadline lies after that time: our hypothesis for Table II's load-independent ≈30 %
    rejection floor (a simulation that ends with the 24-hour workload).
    """
    sim = _Sim(dc, wl, cloud_aware, progress, choose)
    sim.horizon = np.inf if deadline_horizon_s is None else float(deadline_horizon_s)
    sim.run()
    segs = np.array(sim.segs, dtype=float).reshape(-1, 5)
    task_job = np.repeat(np.arange(wl.n_jobs), wl.ntasks)
    job_finish = np.full(wl.n_jobs, -np.inf)
    np.maximum.at(job_finish, task_job, np.nan_to_num(sim.task_finish, nan=-np.inf))
    job_finish[~sim.accepted] = np.nan
    return SimResult(
        accepted=sim.accepted,
        job_finish=job_finish,
        task_vm=sim.task_vm,
        task_start=sim.task_start,
        task_finish=sim.task_finish,
        seg_task=segs[:, 0].astype(np.int64),
        seg_vm=segs[:, 1].astype(np.int64),
        seg_start=segs[:, 2],
        seg_end=segs[:, 3],
        seg_level=segs[:, 4].astype(np.int64),
    )
