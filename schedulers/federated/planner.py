"""What the manager servers know when they assign tasks: estimates (eq. 5), feedback (eqs. 6-8), AR slots.

Section 3.1: a manager server pulls, from every other manager, only "the earliest
available time of required resources" (ERAT), including the dataset transfer time
``M_s / S_c`` when the target cloud lacks the dataset. Section 5.1.4 then ranks clouds
by the estimated finish time ``τ = ERAT + S_l/b + ETM`` (eq. 5), or, in DCLS/DCMMS,
by ``τ_fd = ERAT + (1 + fd_j)(S_l/b + ETM)`` (eq. 8) with the feedback factor
``fd_j = α (Δτ − S_l/b − ETM) / (S_l/b + ETM)`` (eq. 7), ``Δτ = T_act_fin − ERAT`` (eq. 6).

Readings where the paper is silent:

* A cloud answers the ERAT pull from its *slot table*, kept as a multiset of per-VM
  "free from" times (:class:`Frontier`): a task needing ``w`` VMs can start when the
  ``w``-th earliest VM is free (list scheduling without insertion). Section 3.1 says the
  answer is "based on its current status of resources" and eq. 5's ERAT "on the current
  task queue of cloud j", so at every pull (each instant an application arrives) the
  table is rebuilt from what the cloud holds (:meth:`Planner.resync`): running tasks
  (ending when their ETM says), AR reservations, the waiting AR and best-effort queues.
  The tasks assigned during the pull are then written into it. ``params.slot_tables =
  "plan"`` keeps instead the plan written at assignment, never corrected (the
  earlier reading): with no insertion, every future task of every application holds its
  VMs from the moment they are free, so on the first 20,000 Thunder jobs (loose) the plan
  showed 41 of Thunder's 4,096 VMs free at the average arrival while 3,161 were, and
  DCLS/DCMMS sent work to the slower clouds. Finish times late against eq. 5 (hidden
  contention, estimate errors, preemption) are still what the feedback learns.
* An AR task is planned at its required start (entry tasks) or as soon as its inputs
  are ready (later tasks of an AR application, "zero advance notice"): it preempts
  best-effort work, so planned VMs already busy then are pushed back by its duration.
  It cannot preempt other AR work, so each cloud also keeps an AR-only slot table and
  a zero-notice AR task's ERAT is when ``w`` VMs are free of planned AR work.
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

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from heapq import heappop, heappush, heapreplace

import numpy as np

from schedulers.federated.workloads import Instance

__all__ = ["EXACT_COMMITTED", "EXACT_QUEUE", "ArBook", "Frontier", "Planner"]

EXACT_QUEUE = 64  # a pull places this many waiting tasks per queue one by one, the rest as total work
# ... and this many of the tasks committed to a cloud but not ready yet (the earliest ready first): each is
# fitted around the others (Frontier.earliest), which costs more than a queued task's take
EXACT_COMMITTED = 16


class Frontier:
    """Sorted run-length multiset of per-VM planned free times of one cloud.

    Kept as two Python lists, the distinct times and the cumulative VM counts up to each
    (a cloud's table holds a few hundred runs; list slices and :func:`bisect` beat numpy's
    per-call overhead at that size).
    """

    def __init__(self, vms: int, now: float = 0.0, busy: list[tuple[float, int]] = ()):
        """``vms`` VMs; ``busy`` lists ``(free time, VMs)`` of those not free at ``now``."""
        free_at: dict[float, int] = {}
        for t, w in busy:
            t = t if t > now else now
            free_at[t] = free_at.get(t, 0) + w
        free_at[now] = free_at.get(now, 0) + int(vms) - sum(w for _, w in busy)
        self._set_runs(free_at)

    # Work committed to the cloud but not ready yet (:meth:`Planner.resync`): VMs in use over
    # intervals, a step function kept apart from the free times so that a task may still be
    # planned in the VMs it leaves idle before it starts (the breakpoints and the use from each).
    _p_times: tuple[float, ...] | list[float] = ()
    _p_use: tuple[int, ...] | list[int] = ()

    def _set_runs(self, free_at: dict[float, int]) -> None:
        """The table from ``{free time: VMs}``."""
        self._times: list[float] = sorted(free_at)
        cum, acc = [], 0
        for t in self._times:
            acc += free_at[t]
            cum.append(acc)
        self._cum: list[int] = cum

    def take_fifo(self, now: float, tasks: list[tuple[int, float]]) -> None:
        """``take(w, max(now, kth(w)), duration, shift=False)`` for each ``(w, duration)`` in turn.

        The same table, in O(log n) per task instead of O(n): a take always consumes the
        earliest runs and adds one run later than all of them, so a heap of runs serves.
        """
        if not tasks:
            return
        heap = self.heap()
        _fifo_takes(heap, now, ((None, w, duration) for w, duration in tasks))
        self._set_heap(heap)

    def heap(self) -> list[tuple[float, int]]:
        """The table as ``(time, VMs)`` runs, a valid :mod:`heapq` heap (they are in ascending order)."""
        heap, prev = [], 0
        for t, c in zip(self._times, self._cum, strict=True):
            heap.append((t, c - prev))
            prev = c
        return heap

    def _set_heap(self, heap: list[tuple[float, int]]) -> None:
        """The table from ``(time, VMs)`` runs in any order, equal times merged."""
        free_at: dict[float, int] = {}
        for t, n in heap:
            free_at[t] = free_at.get(t, 0) + n
        self._set_runs(free_at)

    @classmethod
    def from_heap(cls, heap: list[tuple[float, int]]) -> Frontier:
        f = cls.__new__(cls)
        f._set_heap(heap)
        return f

    def water_fill(self, work: float) -> None:
        """Spread ``work`` VM-seconds over the earliest free VMs, raising them to one level.

        The level ``L`` solves ``Σ max(0, L − free time) = work``: when a long queue has
        drained, as far as the total of its work tells (used past :data:`EXACT_QUEUE`).
        """
        if work <= 0:
            return
        times, cum = self._times, self._cum
        total, prev, weighted = 0, 0, 0.0
        for i, t in enumerate(times):
            n = cum[i] - prev
            prev = cum[i]
            total += n
            weighted += n * t
            level = (work + weighted) / total
            nxt = times[i + 1] if i + 1 < len(times) else np.inf
            if level <= nxt:
                break
        if level == nxt:  # merges with the next run, whose count already includes these VMs
            self._times, self._cum = times[i + 1 :], cum[i + 1 :]
        else:
            self._times, self._cum = [level, *times[i + 1 :]], [cum[i], *cum[i + 1 :]]

    @property
    def times(self) -> np.ndarray:
        return np.array(self._times)

    @property
    def counts(self) -> np.ndarray:
        return np.diff(np.array(self._cum, dtype=np.int64), prepend=0)

    def kth(self, w: int) -> float:
        """Time at which ``w`` VMs are planned free."""
        return self._times[bisect_left(self._cum, w)]

    def _free_by(self, t: float) -> int:
        """VMs planned free by ``t`` (before the committed work)."""
        i = bisect_right(self._times, t)
        return self._cum[i - 1] if i else 0

    def _use_at(self, t: float) -> int:
        """VMs the committed work holds at ``t``."""
        i = bisect_right(self._p_times, t)
        return self._p_use[i - 1] if i else 0

    def earliest(self, w: int, ready: float, duration: float) -> float:
        """Earliest start ≥ ``ready`` at which ``w`` VMs stay free for ``duration``.

        ``max(ready, kth(w))`` when no work is committed; else the first time from there at
        which, over the whole stretch, the VMs planned free minus those the committed work
        holds are at least ``w`` (the committed work's idle VMs before it starts are usable).
        """
        t = self._times[bisect_left(self._cum, w)]
        if ready > t:
            t = ready
        pt = self._p_times
        if not pt or t >= pt[-1] or t + duration <= pt[0]:
            return t
        times = self._times
        while True:
            clash = self._clash(w, t, t + duration)
            if clash is None:
                return t
            # the next moment anything frees up after the clash: a committed stretch ends or VMs free
            i, j = bisect_right(pt, clash), bisect_right(times, clash)
            t = min(pt[i] if i < len(pt) else np.inf, times[j] if j < len(times) else np.inf)

    def _clash(self, w: int, start: float, end: float) -> float | None:
        """The first moment in ``[start, end)`` with fewer than ``w`` VMs left, or None."""
        pt, use = self._p_times, self._p_use
        if self._free_by(start) - self._use_at(start) < w:
            return start
        i = bisect_right(pt, start)
        while i < len(pt) and pt[i] < end:  # the free count only grows with time: test where the use steps
            if self._free_by(pt[i]) - use[i] < w:
                return pt[i]
            i += 1
        return None

    def commit_later(self, w: int, start: float, duration: float) -> None:
        """Write committed work that is not ready yet: ``w`` VMs over ``[start, start + duration)``."""
        end = start + duration
        pt, use = list(self._p_times), list(self._p_use)
        for t in (start, end):
            i = bisect_left(pt, t)
            if i == len(pt) or pt[i] != t:
                pt.insert(i, t)
                use.insert(i, use[i - 1] if i else 0)
        a, b = bisect_left(pt, start), bisect_left(pt, end)
        for k in range(a, b):
            use[k] += w
        self._p_times, self._p_use = pt, use

    def take(self, w: int, start: float, duration: float, shift: bool) -> None:
        """Plan ``w`` VMs (the earliest free) for ``duration`` from ``start``.

        ``shift`` (AR): VMs planned busy past ``start`` are pushed back by ``duration``.
        """
        times, cum = self._times, self._cum
        i = bisect_left(cum, w)
        if shift:
            self._take_shift(w, i, start, duration)
            return
        j0 = i + 1 if cum[i] == w else i  # first run with VMs left
        t_new = start + duration
        k = bisect_left(times, t_new, j0)
        # runs before the new one lose the w VMs taken; from the new one on the counts are as before
        head = [c - w for c in cum[j0:k]]
        if k < len(times) and times[k] == t_new:
            self._times = times[j0:]
            self._cum = head + cum[k:]
        else:
            self._times = [*times[j0:k], t_new, *times[k:]]
            self._cum = [*head, cum[k - 1] if k > j0 else w, *cum[k:]]

    def _take_shift(self, w: int, i: int, start: float, duration: float) -> None:
        """AR: the ``w`` earliest VMs (runs ``0..i``) become free at ``max(t, start) + duration``."""
        times, cum = self._times, self._cum
        head: list[list] = []  # [new time, VMs], times ascending and distinct
        prev = 0
        for j in range(i + 1):
            c = cum[j] if j < i else w
            t = times[j]
            nt = (t if t > start else start) + duration
            if head and head[-1][0] == nt:
                head[-1][1] += c - prev
            else:
                head.append([nt, c - prev])
            prev = c
        # merge the shifted runs into the untouched ones (which hold cum - w VMs until then)
        pos = i + 1 if cum[i] == w else i
        out_t: list[float] = []
        out_c: list[int] = []
        acc = 0
        for nt, n in head:
            k = bisect_left(times, nt, pos)
            out_t.extend(times[pos:k])
            out_c.extend([c - w + acc for c in cum[pos:k]])
            acc += n
            out_t.append(nt)
            if k < len(times) and times[k] == nt:
                out_c.append(cum[k] - w + acc)
                pos = k + 1
            else:
                out_c.append((out_c[-1] if out_c else 0) + n)
                pos = k
        out_t.extend(times[pos:])
        out_c.extend(cum[pos:])  # every shifted VM is before these: cum − w + w
        self._times, self._cum = out_t, out_c


def busy_heap(vms: int, now: float, running: list[tuple[float, int, bool]], ar_only: bool) -> list[tuple[float, int]]:
    """The VMs' free times as runs ``(time, VMs)`` in a heap: ``running`` stints ``(end, VMs, is AR)``
    (only the AR ones if ``ar_only``) free theirs at ``max(end, now)``, the rest are free at ``now``.

    ``Frontier(vms, now, busy).heap()`` without the sorting: equal times are not merged (a
    multiset of VMs either way, see :meth:`Frontier._set_heap`), and a run of no VMs is left
    out (it changes no ``kth`` and no :meth:`Frontier.water_fill` level).
    """
    free = int(vms)
    heap = []
    for t, w, is_ar in running:
        if is_ar or not ar_only:
            heap.append((t if t > now else now, w))
            free -= w
    if free:
        heap.append((now, free))
    heapq.heapify(heap)
    return heap


def _pop_earliest(heap: list[tuple[float, int]], w: int) -> float:
    """Remove the ``w`` earliest VMs from a run heap (run by run, the last one split); returns the
    free time of the last of them, ``kth(w)``."""
    need = w
    while True:
        t, n = heap[0]
        if n > need:
            heapreplace(heap, (t, n - need))
            return t
        heappop(heap)
        need -= n
        if need == 0:
            return t


def _fifo_takes(heap: list[tuple[float, int]], now: float, queue) -> None:
    """``Frontier.take(w, max(now, kth(w)), duration, shift=False)`` on a run heap for each
    ``(task, w, duration)`` of ``queue`` in turn: the ``w`` earliest VMs (popped run by run, the
    last one split) become one run at ``max(now, kth(w)) + duration``."""
    for _, w, duration in queue:
        t = _pop_earliest(heap, w)  # kth(w)
        heappush(heap, ((t if t > now else now) + duration, w))


def _ar_queue_takes(ar: list[tuple[float, int]], fr: list[tuple[float, int]], now: float, queue) -> None:
    """The waiting zero-notice AR tasks ``(task, w, duration)``, in turn: each starts at
    ``max(now, kth(w))`` of the AR table and shifts the best-effort table (:func:`heap_shift`).

    On the AR table ``max(now, kth(w))`` is past the ``w`` earliest VMs, so the shift there is a
    plain take (:func:`_fifo_takes`).
    """
    push, replace = heappush, heapreplace
    for _, w, duration in queue:
        t = _pop_earliest(ar, w)
        start = t if t > now else now
        push(ar, (start + duration, w))
        t, n = fr[0]
        if n > w:  # heap_shift's one-run case, inline
            replace(fr, (t, n - w))
            push(fr, ((t if t > start else start) + duration, w))
        elif n == w:
            replace(fr, ((t if t > start else start) + duration, w))
        else:
            heap_shift(fr, w, start, duration)


def heap_shift(heap: list[tuple[float, int]], w: int, start: float, duration: float) -> None:
    """``Frontier.take(w, start, duration, shift=True)`` on a run heap (AR: the ``w`` earliest VMs
    become free at ``max(free time, start) + duration``, :meth:`Frontier._take_shift`)."""
    t, n = heap[0]
    if n >= w:  # one run holds them
        if n > w:
            heapreplace(heap, (t, n - w))
            heappush(heap, ((t if t > start else start) + duration, w))
        else:
            heapreplace(heap, ((t if t > start else start) + duration, w))
        return
    pop = heappop
    taken = []  # popped first, pushed back shifted after: a shifted run must not be taken again
    need = w
    while True:
        t, n = heap[0]
        if n > need:
            heapreplace(heap, (t, n - need))
            taken.append((t, need))
            break
        pop(heap)
        taken.append((t, n))
        need -= n
        if need == 0:
            break
    for t, n in taken:
        heappush(heap, ((t if t > start else start) + duration, n))


class ArBook:
    """AR reservations and running AR tasks of every cloud (admission control)."""

    def __init__(self, n_clouds: int):
        self.reserved: list[dict[int, tuple[float, float, int]]] = [{} for _ in range(n_clouds)]
        self.running: list[dict[int, tuple[float, int]]] = [{} for _ in range(n_clouds)]

    def fits(self, c: int, start: float, w: int, duration: float, capacity: int) -> bool:
        end = start + duration
        res = list(self.reserved[c].values())
        running = list(self.running[c].values())
        probes = [start] + [s for s, _, _ in res if start < s < end]
        for t in probes:
            used = w  # VM counts: integers, in any order
            for e, v in running:
                if e > t:
                    used += v
            for s, e, v in res:
                if s <= t < e:
                    used += v
            if used > capacity:
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
    """Assignment-time state: task placements, ERATs, estimates, slot tables, feedback.

    Per-task state is kept in Python lists: the estimates are scalar code on the hot path.
    """

    def __init__(self, inst: Instance, alpha: float, feedback: bool, negative_feedback: bool = False,
                 fcfs_any: bool = False):  # fmt: skip
        self.inst = inst
        self.fcfs_any = fcfs_any  # FCFS places each task where it starts earliest (allocate.py), not at home
        n = inst.n_tasks
        self.fd_floor = -np.inf if negative_feedback else 0.0
        self.alpha = float(alpha) if feedback else 0.0
        self.feedback = feedback
        self.frontiers = [Frontier(int(v)) for v in inst.cloud_vms]
        self.ar_frontiers = [Frontier(int(v)) for v in inst.cloud_vms]
        self.book = ArBook(inst.n_clouds)
        self.fd = [[0.0] * inst.n_clouds for _ in range(inst.n_clouds)]
        self.cloud = [-1] * n
        self.erat = [np.nan] * n
        self.est_fin = [np.nan] * n
        self.is_entry = (np.diff(inst.pred_ptr) == 0).tolist()
        self.is_ar = inst.app_ar[inst.task_app].tolist()
        # whether an application still asks for a reservation: one refused and resubmitted without it
        # (params.rejected_ar_apps = "run_best_effort") is best-effort from then on, its tasks too
        self.app_ar = inst.app_ar.tolist()
        self.preds = inst.pred_lists()
        self.etm = inst.etm.tolist()
        self.vms = inst.task_vms.tolist()
        self.task_app = inst.task_app.tolist()
        self.arrival = inst.app_arrival.tolist()
        self.home = inst.app_home.tolist()
        self.task_home = inst.app_home[inst.task_app].tolist()
        self.image_s, self.dataset_s, self.edge_s = inst.image_s, inst.dataset_s, inst.edge_s
        self.now = 0.0
        self.rr_next = 0

    # --- eq. 5 ingredients -------------------------------------------------------------
    def data_ready(self, app: int, c: int) -> float:
        """When the application's dataset is in cloud ``c`` (transfer from home starts at arrival)."""
        arrival = self.arrival[app]
        return arrival if c == self.home[app] else arrival + self.dataset_s

    def ready_est(self, t: int, c: int) -> float:
        app = self.task_app[t]
        ready = self.arrival[app] if c == self.home[app] else self.arrival[app] + self.dataset_s  # data_ready
        if self.now > ready:
            ready = self.now
        cloud, est_fin, edge = self.cloud, self.est_fin, self.edge_s
        for p in self.preds[t]:
            fin = est_fin[p] + edge if cloud[p] != c else est_fin[p]
            if fin > ready:
                ready = fin
        return ready

    def span(self, t: int, c: int) -> float:
        """``S_l/b + ETM`` of task ``t`` on cloud ``c``."""
        return self.image_s + self.etm[t][c]

    def factor(self, t: int, c: int) -> float:
        return 1.0 + self.fd[self.task_home[t]][c]

    def estimate(self, t: int, c: int) -> tuple[float, float]:
        """(ERAT, τ_fd) of task ``t`` on cloud ``c`` (eqs. 5 and 8; τ_fd = τ when fd = 0)."""
        etm = self.etm[t][c]
        if etm == np.inf:
            return np.inf, np.inf
        erat = self.ready_est(t, c)
        # a zero-notice AR task preempts best-effort work: only planned AR work delays it
        table = self.ar_frontiers[c] if self.is_ar[t] else self.frontiers[c]
        erat = table.earliest(self.vms[t], erat, self.image_s + etm)
        return erat, erat + (1.0 + self.fd[self.task_home[t]][c]) * (self.image_s + etm)

    def commit(self, t: int, c: int, erat: float) -> None:
        """Assign ``t`` to ``c`` and write it in ``c``'s slot table (eq. 5 duration)."""
        self.cloud[t] = c
        self.erat[t] = erat
        self.est_fin[t] = erat + self.factor(t, c) * self.span(t, c)
        self.frontiers[c].take(self.vms[t], erat, self.span(t, c), shift=self.is_ar[t])
        if self.is_ar[t]:
            self.ar_frontiers[c].take(self.vms[t], erat, self.span(t, c), shift=True)

    def resync(
        self,
        c: int,
        now: float,
        running: list[tuple[float, int, bool]],
        ar_queue: Iterable[tuple[int, int, float]],
        be_queue: Iterable[tuple[int, int, float]],
        ar_tail: float = 0.0,
        be_tail: float = 0.0,
        committed: Iterable[tuple[float, int, int, float, bool]] = (),
        committed_tail: float = 0.0,
    ) -> None:
        """Rebuild cloud ``c``'s slot tables from its current status (Section 3.1, Section 5.1.3).

        Section 3.1: a manager answers the pull with "the earliest available time of
        required resources, based on its current status of resources"; eq. 5's ERAT is
        "also based on the current task queue of cloud j and the schedule of execution
        order"; Section 5.1.3: the slot table is updated when a best-effort task starts.
        So at every pull the table is rebuilt from what the cloud holds now: ``running``
        stints ``(estimated end, VMs, is AR)`` (estimated: the managers do not see hidden
        contention or estimate errors), the AR reservations of :attr:`book`, the waiting
        zero-notice AR tasks and the best-effort queue (preempted tasks first), each
        ``(task, VMs, estimated remaining duration)`` in dispatch order, and the work
        ``committed`` to the cloud but not ready yet (inputs or dataset on their way), each
        ``(estimated ready time, task, VMs, estimated duration, is AR)`` by ready time.
        Section 3.1: "If the manager server of cloud A assigns a task to cloud B, [...] the task
        will enter a queue waiting for execution", so the queue eq. 5's ERAT is based on holds
        it from its assignment on (left out, a cloud whose dataset was still on its
        way looked empty to every later application and got all their work). Such a task is
        planned at the earliest time from its estimated ready time at which its VMs are free
        for its duration (:meth:`Frontier.earliest`), and kept apart from the free times
        (:meth:`Frontier.commit_later`): the VMs it leaves idle before it starts stay usable,
        as they are when it is not ready (the cloud serves whatever is ready).
        A queue longer than :data:`EXACT_QUEUE` (committed work: :data:`EXACT_COMMITTED`) is
        given as its first tasks and the VM-seconds of the rest (``ar_tail``, ``be_tail``,
        ``committed_tail``), spread by :meth:`Frontier.water_fill`: a pull then costs
        O(running + EXACT_QUEUE), not O(backlog).
        """
        vms = int(self.inst.cloud_vms[c])
        # Both tables are built as run heaps (O(log n) per step; :func:`heap_shift`), sorted once
        # at the end: the same multisets, step for step, as ``Frontier.take`` on sorted runs.
        fr = busy_heap(vms, now, running, ar_only=False)
        ar = busy_heap(vms, now, running, ar_only=True)
        for start, end, w in sorted(self.book.reserved[c].values()):
            heap_shift(ar, w, start, end - start)
            heap_shift(fr, w, start, end - start)
        _ar_queue_takes(ar, fr, now, ar_queue)
        ar_table = Frontier.from_heap(ar)
        ar_table.water_fill(ar_tail)
        if ar_tail > 0:  # water_fill needs the sorted runs
            table = Frontier.from_heap(fr)
            table.water_fill(ar_tail)
            fr = table.heap()
        _fifo_takes(fr, now, be_queue)
        table = Frontier.from_heap(fr)
        table.water_fill(be_tail)
        for ready, _, w, duration, is_ar in committed:
            start = (ar_table if is_ar else table).earliest(w, ready if ready > now else now, duration)
            table.commit_later(w, start, duration)
            if is_ar:  # a zero-notice AR task waits only for AR work, and holds best-effort VMs too
                ar_table.commit_later(w, start, duration)
        table.water_fill(committed_tail)
        self.frontiers[c], self.ar_frontiers[c] = table, ar_table

    # --- eqs. 6-7 ------------------------------------------------------------------------
    def observe(self, t: int, finish: float, inputs_at: float = -math.inf) -> None:
        """Push from the executing cloud: update the origin's feedback factor (eqs. 6-7).

        Eq. 6's ``Δτ = T_act_fin − ERAT`` is taken from ``max(ERAT, inputs_at)``, the moment the
        task's inputs were actually on cloud ``j``: ``fd_j`` is "the feedback factor of cloud j",
        and a task whose predecessors finished late elsewhere says nothing about ``j``. Measured
        from the estimated ERAT alone, a 3 s task whose inputs came 84,459 s late gave a factor of
        29,635 and sent DCMMS to the slowest cloud (docs/federated.md, "Readings";
        tests/schedulers/federated/test_science_findings.py).
        """
        if not self.feedback:
            return
        c = self.cloud[t]
        erat = self.erat[t] if self.erat[t] >= inputs_at else inputs_at
        fd = feedback_factor(self.alpha, finish, erat, self.image_s, self.etm[t][c])
        self.fd[self.task_home[t]][c] = max(fd, self.fd_floor)


def feedback_factor(alpha: float, t_act_fin: float, erat: float, image_s: float, etm: float) -> float:
    """Eq. 7 with eq. 6: ``α (Δτ − S_l/b − ETM) / (S_l/b + ETM)``, ``Δτ = T_act_fin − ERAT``."""
    delta = t_act_fin - erat
    span = image_s + etm
    return float(alpha * (delta - span) / span)
