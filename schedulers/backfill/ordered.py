"""EASY (or list scheduling) on one tier with any queue order (policy.py): the loop behind ``easy:<order>``
and backfill plug-ins.

The rule is EASY's as in easy.py (paper 001, Section 1 and Alg. 1 Step 2 on one tier; reservation by
``easy.shadow_and_extra``): after the completions and then the arrivals of an instant, start jobs in
queue order while they fit; reserve for the first that does not (the head); backfill the others in
queue order if they fit now and end by the shadow time or use no more than the extra processors.
With the ``fcfs`` order the schedules equal ``easy``/``fcfs`` of easy.py job for job
(tests/schedulers/backfill/test_policy.py); easy.py stays the specialised loop of the papers' EASY.

Reading: the jobs that arrive at one instant are queued together before one pass (easy.py passes after
each arrival, which gives the same schedule in arrival order but not in another order: two jobs
arriving together must be ordered by the policy, not by the file's line order).

A static order's keys are computed once for all jobs and ranked; the queue is a sorted list of ranks,
and an arrival behind the head is tested alone against the last reservation, as in easy.py (every
other waiting job was refused under the same state). A dynamic order is asked for the waiting jobs'
keys at every pass. ``ask(now, jobs)`` returns the keys as a float array; for a plug-in it is the
checked call of backfill/__init__.py (its errors name the plug-in).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable

import numpy as np

from schedulers.backfill.easy import OneTierResult, shadow_and_extra
from schedulers.backfill.policy import Jobs
from schedulers.core.readonly import frozen, view, wrote

__all__ = ["STATIC_AT", "checked", "checked_admit", "jobs_view", "simulate_ordered"]


def jobs_view(inst, idx: np.ndarray) -> Jobs:
    """The :class:`Jobs` columns of ``inst``'s jobs ``idx`` (copies: fancy indexing)."""
    return Jobs(idx, inst.submit[idx], inst.size[idx], inst.estimate[idx], inst.processors)


def simulate_ordered(
    inst,
    ask: Callable[[float, Jobs], np.ndarray],
    dynamic: bool,
    backfill: bool = True,
    progress=None,
    processors: bool = True,
    admit: Callable[[float, int, int, float, float, int], bool] | None = None,
) -> OneTierResult:
    """Run EASY (``backfill``) or list scheduling on ``inst`` with the queue order ``ask`` (see the module).

    ``admit(now, job, size, estimate, shadow, extra)`` (a plug-in's :class:`~policy.Backfill` rule, checked)
    replaces EASY's backfill test for the jobs after the head that fit now; None: EASY's."""
    n = len(inst)
    submit = inst.submit.tolist()
    size_l = inst.size.tolist()
    run_l = inst.runtime.tolist()
    est_l = inst.estimate.tolist()
    if not dynamic:
        perm = np.argsort(ask(float("nan"), jobs_view(inst, np.arange(n))), kind="stable")
        job_of = perm.tolist()  # rank -> job
        rank_l = np.empty(n, dtype=np.int64)
        rank_l[perm] = np.arange(n)
        rank_l = rank_l.tolist()
    queue: list[int] = []  # static: ranks, sorted; dynamic: jobs in arrival order
    start = [0.0] * n
    end = [0.0] * n
    alloc: list[list[int]] = [[]] * n
    free_ids = list(range(inst.processors - 1, -1, -1))
    free = inst.processors
    total = inst.processors
    heap: list[tuple[float, int]] = []
    running: list[tuple[float, int]] = []  # (estimated end, job), sorted
    ts: list[float] = []
    busy_s: list[int] = []
    queue_s: list[int] = []
    started = bytearray(n)
    na = done = 0
    step = max(1, n // 100)
    shadow, extra, reserved = 0.0, 0, False  # the last pass's reservation (static orders' arrival shortcut)
    inf = float("inf")

    def begin(j: int, now: float) -> None:
        nonlocal free
        started[j] = 1
        s = size_l[j]
        free -= s
        start[j] = now
        if processors:
            alloc[j] = free_ids[-s:]
            del free_ids[-s:]
        heapq.heappush(heap, (now + run_l[j], j))
        bisect.insort(running, (now + est_l[j], j))

    def ordered(now: float) -> list[int]:
        if not dynamic:
            return [job_of[r] for r in queue]
        keys = ask(now, jobs_view(inst, np.array(queue, dtype=np.int64)))
        return [queue[i] for i in np.argsort(keys, kind="stable").tolist()]

    def schedule(now: float) -> None:
        nonlocal shadow, extra, reserved
        jobs = ordered(now)
        i, m = 0, len(jobs)
        while i < m and size_l[jobs[i]] <= free:
            begin(jobs[i], now)
            i += 1
        before = free
        reserved = backfill and i < m
        if reserved:
            shadow, extra = shadow_and_extra(free, size_l[jobs[i]], running, size_l)
            dt = shadow - now
            for j in jobs[i + 1 :]:
                if free == 0:
                    break
                sj = size_l[j]
                if sj > free:
                    continue
                if admit is not None:
                    if admit(now, j, sj, est_l[j], shadow, extra):
                        if est_l[j] > dt:
                            extra -= sj
                        begin(j, now)
                elif est_l[j] <= dt:
                    begin(j, now)
                elif sj <= extra:
                    begin(j, now)
                    extra -= sj
        if i or free != before:
            queue[:] = [x for x in queue if not started[x]] if dynamic else [r for r in queue if not started[job_of[r]]]

    def enqueue(new: list[int]) -> None:
        for j in new:
            if dynamic:
                queue.append(j)
            else:
                bisect.insort(queue, rank_l[j])

    def arrive(new: list[int], now: float) -> None:
        nonlocal extra
        if dynamic or admit is not None or not reserved or not queue or min(rank_l[j] for j in new) < queue[0]:
            enqueue(new)
            schedule(now)
            return
        for j in sorted(new, key=rank_l.__getitem__):  # behind the head: test against the last reservation
            sj = size_l[j]
            if sj <= free and (est_l[j] <= shadow - now or sj <= extra):
                if est_l[j] > shadow - now:
                    extra -= sj
                begin(j, now)
            else:
                bisect.insort(queue, rank_l[j])

    while done < n:
        t_arr = submit[na] if na < n else inf
        now = min(heap[0][0], t_arr) if heap else t_arr
        freed = False
        while heap and heap[0][0] == now:
            _, j = heapq.heappop(heap)
            end[j] = now
            free += size_l[j]
            if processors:
                free_ids.extend(alloc[j])
            del running[bisect.bisect_left(running, (start[j] + est_l[j], j))]
            done += 1
            freed = True
            if progress is not None and done % step == 0:
                progress(done / n)
        new = []
        while na < n and submit[na] == now:
            new.append(na)
            na += 1
        if new and not freed:
            arrive(new, now)
        else:
            enqueue(new)
            if queue:
                schedule(now)
        ts.append(now)
        busy_s.append(total - free)
        queue_s.append(len(queue))
    return OneTierResult(np.array(start), np.array(end), alloc, ts, busy_s, queue_s)


def checked_admit(plugin, rule) -> Callable[[float, int, int, float, float, int], bool]:
    """``rule.admit`` through the plug-in guard: an exception or an answer that is not a bool fails the run."""
    from schedulers.plugins import invalid, reraise

    admit = rule.admit

    def ask(now: float, job: int, size: int, estimate: float, shadow: float, extra: int) -> bool:
        try:
            got = admit(now, job, size, estimate, shadow, extra)
        except BaseException:
            reraise(plugin, "backfill decision")
        if got is True or got is False:
            return got
        if isinstance(got, np.bool_):
            return bool(got)
        raise invalid(plugin, "backfill decision", f"at t = {now:g} s, job {job}: answered {got!r}; allowed: "
                      "True (start it now) or False")  # fmt: skip

    return ask


def checked(plugin, order) -> Callable[[float, Jobs], np.ndarray]:
    """``order``'s keys through the plug-in guard: an exception or a bad answer fails the run naming ``plugin``.

    The plug-in sees read-only columns: a write fails its run naming the field. The columns are plain read-only
    views (a dynamic order is asked at every pass of a 200,000-job run); only when a write was refused is it
    asked once more with views that name their field (``core.readonly``), for the message."""
    from schedulers.plugins import keys_of, reraise

    decision = "queue order"
    key = order.key

    def ask(now: float, jobs: Jobs) -> np.ndarray:
        shown = Jobs(frozen(jobs.index), frozen(jobs.submit), frozen(jobs.size), frozen(jobs.estimate), jobs.processors)
        try:  # the guard only when it raises (plugins.reraise)
            got = key(now, shown)
        except BaseException as exc:
            if wrote(exc):
                named = Jobs(view(jobs.index, "jobs.index"), view(jobs.submit, "jobs.submit"),
                             view(jobs.size, "jobs.size"), view(jobs.estimate, "jobs.estimate"), jobs.processors)  # fmt: skip
                try:
                    key(now, named)
                except BaseException:
                    reraise(plugin, decision)
            reraise(plugin, decision)
        at, hint = (f"at t = {now:g} s", "") if now == now else STATIC_AT
        return keys_of(plugin, decision, got, len(jobs), at, "job", _JobNames(jobs.index), hint)

    return ask


STATIC_AT = ("(static order: called once with now = nan)", "; an order that reads `now` must be declared dynamic=True")


class _JobNames:
    """``names[i]`` for :func:`schedulers.plugins.keys_of`: the job of key ``i`` (built only for a bad key)."""

    def __init__(self, index: np.ndarray) -> None:
        self.index = index

    def __getitem__(self, i: int) -> str:
        return f"job {int(self.index[i])}"
