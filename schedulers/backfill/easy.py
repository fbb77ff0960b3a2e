"""FCFS and EASY backfilling on a one-tier machine — the baselines of Section 1 / Figs. 6–14.

EASY (Lifka 1995; Mu'alem & Feitelson 2001 [14]): jobs start in arrival order
while they fit; when the head job does not fit it gets a reservation at the
*shadow time* — the earliest time, by the running jobs' estimated terminations
(start + user estimate), at which enough processors are free — and the
processors left over at that time are the *extra* processors. A later job may
backfill if it fits now and either ends by the shadow time by its estimate or
uses no more than the extra processors (then the extra count shrinks). This is
Step 2 of the paper's Alg. 1 restricted to one tier. FCFS stops at the head.

Readings: a completion and an arrival at the same instant are handled
completion first; processors are handed out from a LIFO free list (any choice
is valid on a flat machine); estimates are ≥ runtimes (see workloads.py), so a
job never runs past its estimate and is never killed.

Complexity: arrivals are a pointer walk over the sorted submit column,
completions a heap; the running jobs are kept in a list sorted by estimated
end (bisect), so the shadow time costs O(jobs passed) and never a scan of the
processors. The waiting queue is a byte mask over the job index (the head is
found with ``bytearray.find``) plus a numpy column holding each waiting job's
size (and "infinity" otherwise), so the backfill candidates of a pass — the
waiting jobs that fit in the free processors — come from one vectorised
comparison when the queue span is long; the candidates are then tested in
arrival order (free and extra only shrink during a pass). An arrival into a
non-empty queue only tests the new job against the cached shadow/extra —
every older job was already rejected under the same state.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

__all__ = ["OneTierResult", "shadow_and_extra", "simulate_one_tier"]


def shadow_and_extra(
    free: int, need: int, running: list, size_l: list, now: float = float("-inf")
) -> tuple[float, int]:
    """EASY's reservation for a head job of ``need`` processors: (shadow time, extra processors).

    ``running`` is the list of (estimated end, job) of the running jobs in ascending order and ``free``
    the processors idle now. The shadow time is the first estimated end at which the processors idle
    now plus those freed so far reach ``need`` (Alg. 1 lines 16–21, Alg. 3 lines 5–12); an estimated
    end before ``now`` (a job that overran its estimate) counts as ``now``. The extra processors are
    *all* processors free at the shadow time minus ``need``: every job whose estimated end equals the
    shadow time frees its processors too (textbook EASY, Mu'alem & Feitelson 2001 [14]; the paper's
    loop breaks at the first such job, which is the same whenever estimated ends are distinct).
    (inf, 0) if the running jobs never free enough processors.
    """
    avail = free
    n = len(running)
    i = 0
    while i < n:
        t_end, k = running[i]
        avail += size_l[k]
        i += 1
        if avail >= need:
            shadow = t_end if t_end > now else now
            while i < n and running[i][0] <= shadow:
                avail += size_l[running[i][1]]
                i += 1
            return shadow, avail - need
    return float("inf"), 0


@dataclass
class OneTierResult:
    start: np.ndarray
    end: np.ndarray
    alloc: list[list[int]]  # processors of each job
    series_t: list[float] = field(default_factory=list)
    series_busy: list[int] = field(default_factory=list)
    series_queue: list[int] = field(default_factory=list)


def simulate_one_tier(
    inst, backfill: bool = True, progress=None, reservations: dict | None = None, processors: bool = True
) -> OneTierResult:
    """Run FCFS (``backfill=False``) or EASY on ``inst`` (jobs sorted by submit).

    ``reservations``, if given, receives {head job: first shadow time computed for it} (for tests).
    ``processors=False`` skips the processor numbers of each job (``alloc`` stays empty): a run that
    records no schedule never reads them, and handing them out is a fifth of the loop's time.
    """
    n = len(inst)
    submit = inst.submit.tolist()
    size_l = inst.size.tolist()
    run_l = inst.runtime.tolist()
    est_l = inst.estimate.tolist()
    # size of each waiting job, "infinite" otherwise: one comparison finds the jobs that fit now
    big = inst.processors + 1
    size_w = np.full(n, big, dtype=np.int64)
    waiting = bytearray(n)
    start = [0.0] * n
    end = [0.0] * n
    alloc: list[list[int]] = [[]] * n
    free_ids = list(range(inst.processors - 1, -1, -1))
    free = inst.processors
    heap: list[tuple[float, int]] = []
    running: list[tuple[float, int]] = []  # (estimated end, job), sorted
    ts: list[float] = []
    busy_s: list[int] = []
    queue_s: list[int] = []
    total = inst.processors
    qh = 0  # first index that may still wait
    na = 0  # jobs arrived
    qlen = 0
    done = 0
    step = max(1, n // 100)
    shadow = extra = 0.0
    inf = float("inf")

    def begin(j: int, now: float) -> None:
        nonlocal free, qlen
        waiting[j] = 0
        size_w[j] = big
        qlen -= 1
        s = size_l[j]
        free -= s
        start[j] = now
        if processors:
            alloc[j] = free_ids[-s:]
            del free_ids[-s:]
        heapq.heappush(heap, (now + run_l[j], j))
        bisect.insort(running, (now + est_l[j], j))

    def schedule(now: float) -> None:
        nonlocal qh, shadow, extra
        while qlen:
            qh = waiting.find(1, qh)
            if size_l[qh] > free:
                break
            begin(qh, now)
        if not qlen or not backfill:
            return
        qh = waiting.find(1, qh)
        shadow, extra = shadow_and_extra(free, size_l[qh], running, size_l)
        if reservations is not None and qh not in reservations:
            reservations[qh] = shadow
        if free == 0 or na <= qh + 1:
            return
        lo = qh + 1
        dt = shadow - now
        # long queue: one vectorised size test; short queue: a plain loop is cheaper
        cands = ((size_w[lo:na] <= free).nonzero()[0] + lo).tolist() if na - lo > 48 else range(lo, na)
        for j in cands:
            if not waiting[j]:
                continue
            sj = size_l[j]
            if sj > free:
                continue
            if est_l[j] <= dt:
                begin(j, now)
            elif sj <= extra:
                begin(j, now)
                extra -= sj
            else:
                continue
            if free == 0:
                break

    while done < n:
        t_arr = submit[na] if na < n else inf
        if heap and heap[0][0] <= t_arr:
            now = heap[0][0]
            while heap and heap[0][0] == now:
                _, j = heapq.heappop(heap)
                end[j] = now
                free += size_l[j]
                if processors:
                    free_ids.extend(alloc[j])
                del running[bisect.bisect_left(running, (start[j] + est_l[j], j))]
                done += 1
                if progress is not None and done % step == 0:
                    progress(done / n)
            schedule(now)
        else:
            now = t_arr
            j = na
            na += 1
            waiting[j] = 1
            size_w[j] = size_l[j]
            qlen += 1
            if qlen == 1 or not backfill:
                schedule(now)
            elif size_l[j] <= free and (est_l[j] <= shadow - now or size_l[j] <= extra):
                if est_l[j] > shadow - now:
                    extra -= size_l[j]
                begin(j, now)
        ts.append(now)
        busy_s.append(total - free)
        queue_s.append(qlen)
    return OneTierResult(np.array(start), np.array(end), alloc, ts, busy_s, queue_s)
