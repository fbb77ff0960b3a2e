"""KEASY, REASY and MEASY scheduling passes (Algs. 1–3 and Deploy/Dispatch of Alg. 2).

``foreground_pass`` is Alg. 1 Steps 1–2 (run on an arrival or a departure from
the foreground tier, Section 2.2.1 point 1) with REASY's reservation of Alg. 3
in Step 2; ``background_pass`` is Step 3 (SJF into background VMs), run after
every event batch (in particular on a departure from the background tier).

The candidates of Steps 1–2 are J_q ∪ J_bg in arrival order; Deploy (Alg. 2)
moves a background job to the foreground by swapping the CPU priorities of its
VMs when all the fg VMs of its own processors are idle, and otherwise kills
and restarts it (KEASY, 'K'), migrates it with a cost (MEASY, 'M'), or refuses
(REASY, 'R') — or, with a tier-choice plug-in (policy.TierChoice, mode 'P'),
whichever of the three it answers for that job then. Dispatch places the processes: FG on idle fg VMs with the least
loaded bg VM first, BG on free bg VMs whose fg CPU use is below the threshold
with the least loaded fg VM first (all processes of a job have the same CPU
usage, so the process order of Alg. 2 line 18 is immaterial).

Readings where the pseudo-code is loose:

- Alg. 1 Step 1 continues after a failed Deploy, which is only possible in
  REASY; we stop there (FCFS: nothing passes the head), and the head then gets
  the reservation of Step 2. REASY keeps Steps 1 and 3 of Alg. 1 — the paper
  says it differs only in the reservation and in the Deploy mode.
- The backfill test uses t_r = the job's estimated remaining runtime *as it
  would be deployed*: the full estimate for a queued job or a KEASY restart,
  estimate − work done for a swap, plus the migration cost for a MEASY move.
- N_E is reduced (line 31–32) only when the Deploy succeeded.
- The shadow time of KEASY/MEASY (and of REASY for a queued head) is the
  estimated termination of the fg job at which the idle fg VMs plus the VMs
  freed so far reach the head's size, and N_E counts every fg VM free then —
  all jobs whose estimated termination equals the shadow time, not only the
  one at which line 20 breaks (``easy.shadow_and_extra``, shared with EASY);
  for a REASY head running in background it is the last estimated termination
  of the fg jobs on its own processors and N_E = N_idle + (their total size) −
  N_R, literally Alg. 3 lines 14–17 (ties among those jobs are all counted;
  other fg jobs ending by then are not, as the paper's text says).
"""

from __future__ import annotations

import bisect
import heapq
from bisect import bisect_right

import numpy as np

from schedulers.backfill.easy import shadow_and_extra
from schedulers.backfill.policy import TIERS
from schedulers.backfill.simulator import BG, DONE, FG, WAITING, TwoTier, TwoTierResult, bits, low

__all__ = [
    "CHECK",
    "arrival_pass",
    "background_pass",
    "checked_choice",
    "deploy",
    "foreground_pass",
    "simulate_two_tier",
]

inf = float("inf")
LONG_LIST = 32  # above this many jobs after the head, backfill candidates come from one numpy comparison
INCREMENTAL = True  # arrivals alone take arrival_pass (False: always the full Steps 1–2; the tests compare both)


def _choose(sim: TwoTier, j: int, now: float, mode: str) -> str:
    """Deploy's mode for j now: the family's constant ('K', 'M', 'R'); with a tier choice ('P'), its answer for a
    bg job whose own fg VMs are busy (the only Deploy it decides: a swap or a queued job's Dispatch is fixed)."""
    if mode != "P" or sim.tier[j] != BG or sim.own_fg_idle(j):
        return mode
    return sim.choose(now, j)


def checked_choice(plugin, choice):
    """``choice.deploy`` as the passes call it, ``ask(now, j)`` on ``sim``'s job j, through the plug-in guard: an
    exception, or an answer that is not 'K', 'M' or 'R' (policy.KILL, MIGRATE, REFUSE), fails the run naming the
    plug-in. Returns ``bind(sim) -> ask``."""
    from schedulers.plugins import invalid, reraise

    decide = choice.deploy

    def bind(sim: TwoTier):
        size_l, est_l, cost, est_remaining = sim.size_l, sim.est_l, sim.cost, sim.est_remaining

        def ask(now: float, j: int) -> str:
            e = est_l[j]
            try:  # the guard only when it raises (plugins.reraise)
                got = decide(now, j, size_l[j], e, e - est_remaining(j, now), cost)
            except BaseException:
                reraise(plugin, "tier choice")
            if isinstance(got, str) and (got == "K" or got == "M" or got == "R"):
                return str(got)  # numpy's str_ too
            raise invalid(plugin, "tier choice", f"at t = {now:g} s, background job {j}: answered {got!r}; allowed: "
                          "'K' (KILL: restart it), 'M' (MIGRATE) or 'R' (REFUSE: it stays)")  # fmt: skip

        return ask

    return bind


def _deploy_runtime(sim: TwoTier, j: int, now: float, mode: str) -> float | None:
    """t_r of Alg. 1 line 27 for j if deployed now; None if Deploy would fail (``mode`` resolved by ``_choose``)."""
    if sim.tier[j] == WAITING:
        return sim.est_l[j]
    if sim.own_fg_idle(j):
        return sim.est_remaining(j, now)
    if mode == "K":
        return sim.est_l[j]
    if mode == "M":
        return sim.est_remaining(j, now) + sim.cost
    return None


def deploy(sim: TwoTier, j: int, now: float, mode: str) -> bool:
    """Deploy(j, BackfillType) of Alg. 2 ('K' kill, 'M' migrate, 'R' reservation only; resolved by ``_choose``);
    ``place_fg`` takes j out of J_q ∪ J_bg."""
    if sim.tier[j] == BG:
        if sim.own_fg_idle(j):  # Alg. 2 lines 4–6: swap the priorities of its VMs
            m, pr = sim.remove(j, now)
            sim.counters["swaps"] += 1
            sim.place_fg(j, m, pr, now)
            return True
        if mode == "R":  # Alg. 2 lines 8–9
            return False
        sim.remove(j, now)
        if sim.record:
            sim.stretches.end_last(j, now, "killed" if mode == "K" else "migrated")
        if mode == "K":
            sim.counters["kills"] += 1
            sim.counters["wasted_work_s"] += sim.run_l[j] - sim.wl[j]
            sim.wl[j] = sim.run_l[j]
        else:
            sim.counters["migrations"] += 1
            sim.wl[j] += sim.cost
    m, pr = sim.fg_candidates(sim.size_l[j])  # Dispatch(j, FG), Alg. 2 lines 19–22
    sim.place_fg(j, m, pr, now)
    return True


def _reservation(sim: TwoTier, h: int, now: float, mode: str) -> tuple[float, int]:
    """(shadow time T_S, extra fg VMs N_E) for head job h (Alg. 1 lines 14–21, Alg. 3 lines 3–17).

    REASY's background head (Alg. 3 lines 14–17): T_S the last estimated termination of the fg jobs on its own
    processors, N_E = N_idle + (their total size) − N_R. The sum and the max over ``above[h]`` are kept in
    ``sim.above_res`` until ``above[h]`` changes (an fg job lands on or leaves h's processors): the arrival
    path asks for this reservation on every arrival under a pinned head."""
    need = sim.size_l[h]
    if mode == "R" and sim.tier[h] == BG:
        c = sim.above_res.get(h)
        if c is None:
            jobs = sim.above[h]  # a sum of ints and a max: any order gives the same
            size_l, fg_key = sim.size_l, sim.fg_key
            c = sim.above_res[h] = (sum([size_l[k] for k in jobs]), max([fg_key[k][0] for k in jobs], default=-inf))
        total, shadow = c
        return (shadow if shadow > now else now), sim.idle_fg + total - need
    return shadow_and_extra(sim.idle_fg, need, sim.fg_sorted, sim.size_l, now)


def foreground_pass(sim: TwoTier, now: float, na: int, mode: str) -> None:
    """Alg. 1 Steps 1–2 (Step 2 per Alg. 3 for REASY).

    Step 2's candidates are the jobs of J_q ∪ J_bg after the head that fit in the idle fg VMs now (Alg. 1 lines
    24–26), in arrival order. How many there are is known before any scan: the sizes of J_q ∪ J_bg are kept sorted
    (``sim.usz``), so one bisection counts those ≤ N_idle. None: no scan. Few members: a walk over the members
    (``bytearray.find``) that stops at the last one that fits; many: one numpy comparison over the span (the
    span after the head holds ~200 jobs for ~12 members at load 0.7).
    """
    sim.fg_cache = None
    unfg, size_l, tier = sim.unfg, sim.size_l, sim.tier
    # Step 1: FCFS over J_q ∪ J_bg (Alg. 1 lines 3–12), from the first member (_advance, inline)
    lo = sim.qh
    if lo < na:
        lo = unfg.find(1, lo, na)
        sim.qh = lo = na if lo < 0 else lo
    h = lo if lo < na else -1  # _head: the pointer is on the first member
    while True:
        if h < 0:
            return
        if size_l[h] > sim.idle_fg:
            break
        if tier[h] == WAITING:  # Deploy of a queued job: Dispatch(h, FG) (Alg. 2 lines 19–22)
            sim.place_fg(h, *sim.fg_candidates(size_l[h]), now)
        elif not deploy(sim, h, now, mode if mode != "P" else _choose(sim, h, now, mode)):
            break
        lo = h + 1
        h = unfg.find(1, lo, na) if lo < na else -1  # _head
    # Step 2: reservation for the head, then backfill (nothing to do without an idle fg VM or a later job)
    idle = sim.idle_fg
    if idle == 0 or h + 1 >= na:
        return
    if tier[h] == BG and (mode == "R" or (mode == "P" and _choose(sim, h, now, mode) == "R")):
        c = sim.above_res.get(h)  # Alg. 3 lines 14–17 (_reservation; its cached terms inline)
        if c is None:
            shadow, extra = _reservation(sim, h, now, "R")
        else:
            total, shadow = c
            shadow, extra = (shadow if shadow > now else now), idle + total - size_l[h]
    else:  # Alg. 1 lines 14–21 (what _reservation returns for such a head)
        shadow, extra = shadow_and_extra(idle, size_l[h], sim.fg_sorted, size_l, now)
    if sim.reservations is not None and h not in sim.reservations:
        sim.reservations[h] = (shadow, int(tier[h]))
    lo = h + 1
    usz = sim.usz
    k = bisect_right(usz, idle) - (size_l[h] <= idle)  # members after the head that fit now
    if k <= 0:  # none: no scan
        cands = []
    elif len(usz) > LONG_LIST:  # many members: one comparison on their size column
        cands = ((sim.size_u[lo:na] <= idle).nonzero()[0] + lo).tolist()
    else:  # few: walk the members up to the k-th that fits (all members are below na)
        cands = []
        j = lo
        while True:
            j = unfg.find(1, j, na)
            if size_l[j] <= idle:
                cands.append(j)
                if len(cands) == k:
                    break
            j += 1
    sim.fg_cache = (h, shadow, _backfill(sim, cands, now, shadow, extra, mode) if cands else extra)


def arrival_pass(sim: TwoTier, now: float, na0: int, na: int, mode: str) -> None:
    """Steps 1–2 after arrivals only (jobs na0..na−1), with no fg departure since the last pass.

    Equal to ``foreground_pass`` but tests only the new arrivals, as EASY's arrival path does. Between two
    passes the idle fg VMs and the fg jobs change only by these passes' own deployments, so the head still
    does not fit and a recomputed reservation gives the same shadow time T_S and the N_E the last pass
    left (a job backfilled to end by T_S gives its VMs back by T_S; one on extra VMs ends after it) — as
    long as T_S ≥ now (no clamping of overrun terminations) and the head is the same. Every older job of
    J_q ∪ J_bg was rejected under that state and still is: its size is above the idle count, which only
    shrinks, or above N_E, and its t_r — the estimate, fixed while it waits; the estimated remaining work
    (+ cost) once in the background, which shrinks no faster than T_S − now — still exceeds T_S − now;
    a job Step 3 moved into the background since was rejected with t_r = its estimate and obeys the same
    bound. REASY with a background head (Alg. 3 lines 14–17: T_S and N_E come from the fg jobs above it and
    the idle count, which this path's own deployments change) recomputes its reservation: if T_S is unchanged
    and N_E no larger than the last pass left, every older job is still rejected by the argument above and
    the new ones are tested against the recomputed N_E, as the full pass would; otherwise the full pass.

    The new jobs join J_q here (``sim.arrive``; the event loop leaves them to this pass) — except a job that
    starts at once (into an empty J_q ∪ J_bg, Step 1, or by backfilling), which never enters the queue's structures: the tests before a deploy read no queue
    structure, and a job deployed at its arrival would leave them at once (80 % of the
    arrivals at load 0.7). They are all queued (t_r = their estimate), so ``_backfill`` and ``deploy`` are
    inlined: Alg. 1 lines 24–32 / Alg. 3 lines 20–28 with Deploy of a queued job = Dispatch(j, FG).
    """
    if INCREMENTAL and not sim.usz:  # J_q ∪ J_bg empty: Step 1 (Alg. 1 lines 3–10) deploys the new jobs while they fit
        size_l = sim.size_l
        j = na0
        while j < na and size_l[j] <= sim.idle_fg:
            sim.place_fg(j, *sim.fg_candidates(size_l[j]), now)  # never queued
            j += 1
        sim.fg_cache = None
        if j < na:  # the first that does not fit is the head: the rest of the full pass from there
            for k in range(j, na):
                sim.arrive(k)
            foreground_pass(sim, now, na, mode)
        return
    c = sim.fg_cache
    if INCREMENTAL and c is not None and c[1] >= now:
        qh = sim.qh  # _advance to the first member below na0 (the new jobs are not flagged yet)
        if qh < na0:
            qh = sim.unfg.find(1, qh, na0)
            sim.qh = qh = na0 if qh < 0 else qh
        h, shadow, extra = c
        if qh == h and mode == "P" and _choice_moved(sim):
            qh = -1
        elif qh == h and mode == "R" and sim.tier[h] == BG:
            shadow_now, extra_now = _reservation(sim, h, now, mode)
            if shadow_now != shadow or extra_now > extra:
                c = None
            extra = extra_now
    else:
        c = None
    if c is None or qh != h:
        for j in range(na0, na):
            sim.arrive(j)
        foreground_pass(sim, now, na, mode)
        return
    size_l, est_l, arrive = sim.size_l, sim.est_l, sim.arrive
    idle = sim.idle_fg
    for j in range(na0, na):
        sj = size_l[j]
        if sj > idle:
            arrive(j)
            continue
        late = est_l[j] > shadow - now  # t_r + t_c > T_S (Alg. 1 lines 28, 31; Alg. 3 lines 24, 27)
        if late and sj > extra:  # nor N_j ≤ N_E (line 28 / 24): not backfilled
            arrive(j)
            continue
        sim.place_fg(j, *sim.fg_candidates(sj), now)  # starts at once: never enters J_q's structures
        if late:
            extra -= sj
        idle = sim.idle_fg
        if idle == 0:
            for k in range(j + 1, na):
                arrive(k)
            break
    sim.fg_cache = (h, shadow, extra)


def _choice_moved(sim: TwoTier) -> bool:
    """With a tier choice: whether the arrival pass must run the full Steps 1–2. Its answers may change with time
    (a job refused or migrated at the last pass may be killed now, with a t_r that passes), so the argument of
    ``arrival_pass`` holds only while no background job is a candidate: none fits in the idle fg VMs (their count
    only shrinks until the next full pass) and the head is not one (its reservation follows the choice)."""
    idle, size_l = sim.idle_fg, sim.size_l
    if sim.tier[sim.qh] == BG:
        return True
    return any(size_l[k] <= idle for k in sim.bg_run)  # ~2 background jobs at a time


def _backfill(sim: TwoTier, cands, now: float, shadow: float, extra: int, mode: str) -> int:
    """Alg. 1 lines 23–32 / Alg. 3 lines 19–28 over ``cands`` (in arrival order); returns what is left of N_E."""
    size_l, unfg, tier, est_l = sim.size_l, sim.unfg, sim.tier, sim.est_l
    for j in cands:
        sj = size_l[j]
        if sj > sim.idle_fg or not unfg[j]:
            continue
        queued = tier[j] == WAITING
        if not queued:
            md = mode if mode != "P" else _choose(sim, j, now, mode)
        t_r = est_l[j] if queued else _deploy_runtime(sim, j, now, md)
        if t_r is None:
            continue
        late = t_r > shadow - now
        if late and sj > extra:
            continue
        if queued:  # Deploy of a queued job: Dispatch(j, FG)
            sim.place_fg(j, *sim.fg_candidates(sj), now)
        else:
            deploy(sim, j, now, md)  # a bg job with a t_r: Deploy succeeds (a swap, a kill or a migration)
        if late:
            extra -= sj
        if sim.idle_fg == 0:
            break
    return extra


def _advance(sim: TwoTier, na: int) -> int:
    """Move the pointer to the first job of J_q ∪ J_bg (flags are only ever cleared below it)."""
    qh = sim.unfg.find(1, sim.qh, na) if sim.qh < na else -1
    sim.qh = na if qh < 0 else qh
    return sim.qh


def background_pass(sim: TwoTier, now: float, na: int) -> None:
    """Alg. 1 Step 3 (lines 33–38): SJF (by estimate) over the queue into the background tier, or a tier choice's
    static ``background`` order (``sim.bg_key``: one key per job, the estimates by default).

    The queued jobs that fit in the eligible VMs, by key (ties in arrival order): one numpy comparison
    over the span when J_q ∪ J_bg has many members, else a walk over its members."""
    if sim.n_waiting == 0:
        return
    free = (sim.ALL & ~(sim.bgm | sim.hotm) if sim.cpu_known else sim.ALL & ~sim.bgm).bit_count()  # n_elig
    if free == 0 or (not sim.arrived and free <= sim.bg_left):
        return
    sim.arrived = False
    sim.bg_left = free
    if sim.wsz[0] > free:  # the smallest waiting job does not fit: nothing to scan
        return
    lo = _advance(sim, na)
    if len(sim.usz) > LONG_LIST:  # many members of J_q ∪ J_bg: numpy over the span, a stable sort by estimate
        q = lo + ((sim.tier_np[lo:na] == WAITING) & (sim.size[lo:na] <= free)).nonzero()[0]
        q = q[np.argsort(sim.bg_key[q], kind="stable")].tolist()
    else:  # few: walk the members; (estimate, index) pairs sort as the stable sort does
        unfg, tier, size_l, key_l = sim.unfg, sim.tier, sim.size_l, sim.bg_key_l
        pairs = []
        j = unfg.find(1, lo, na)
        while j >= 0:
            if tier[j] == WAITING and size_l[j] <= free:
                pairs.append((key_l[j], j))
            j = unfg.find(1, j + 1, na)
        pairs.sort()
        q = [j for _, j in pairs]
    cand = sim.bg_candidates()
    used = 0
    for j in q:
        sj = sim.size_l[j]
        if sj > free - used:
            continue
        sim.place_bg(j, *sim.take(cand, sj), now)
        used += sj
        if used == free:
            break
    sim.bg_left = free - used


# The papers' two-tier algorithms and Deploy's constant answer in each (policy.TIERS as modes); "P" asks a plug-in.
MODES = {name: tier.deploy(0.0, 0, 0, 0.0, 0.0, 0.0) for name, tier in TIERS.items()}

CHECK = None  # tests: a callable (sim, now) run where each scheduling pass of the event loop ends


def simulate_two_tier(
    inst, algorithm: str, params, progress=None, reservations: dict | None = None, choice=None, background=None
) -> TwoTierResult:
    """Run KEASY, REASY or MEASY (Algs. 1–3) on ``inst``; with ``choice`` (``keasy.checked_choice(plugin, tier
    choice)``), ``algorithm`` names a plug-in and Deploy's mode is its answer per job (policy.TierChoice).
    ``background``: Step 3's keys, one float per job, smallest first (a tier choice's static order; None: SJF).

    ``reservations``, if given, receives {head job: (first shadow time computed for it, its tier then)} (for tests).
    The module's ``CHECK``, if set, is called as ``CHECK(sim, now)`` where each pass ends (tests: the incremental
    structures against a rescan); the loop runs the passes' common paths inline, so a
    wrapper around keasy's functions would no longer see every pass.
    """
    reservation, incremental = _reservation, INCREMENTAL

    mode = "P" if choice is not None else MODES[algorithm]
    sim = TwoTier(inst, params, record=params.record_schedule)
    if choice is not None:
        sim.choose = choice(sim)
    if background is not None:
        sim.bg_key = np.asarray(background, dtype=np.float64)
        sim.bg_key_l = sim.bg_key.tolist()
    choice_moved = _choice_moved
    sim.reservations = reservations
    check = CHECK
    n = sim.n
    submit = inst.submit.tolist()
    heap = sim.heap
    ts: list[float] = []
    s_fg: list[int] = []
    s_bg: list[int] = []
    s_q: list[int] = []
    ts_append, s_fg_append, s_bg_append, s_q_append = ts.append, s_fg.append, s_bg.append, s_q.append
    na = done = 0
    step = max(1, n // 100)
    inf = float("inf")
    version, tier, unfg, wl, end = sim.version, sim.tier, sim.unfg, sim.wl, sim.end
    arrive, leave_unfg, heappop = sim.arrive, sim.leave_unfg, heapq.heappop
    ALL, cpu_known, record, P = sim.ALL, sim.cpu_known, sim.record, sim.P
    jm, size_l, fg_run, bg_run, fg_sorted, fg_key = (
        sim.jm,
        sim.size_l,
        sim.fg_run,
        sim.bg_run,
        sim.fg_sorted,
        sim.fg_key,
    )
    above, above_res, bisect_left = sim.above, sim.above_res, bisect.bisect_left
    fg_candidates, usz, est_l = sim.fg_candidates, sim.usz, sim.est_l
    first_start, tupd, rate, slack, seg_start, procs = (
        sim.first_start,
        sim.tupd,
        sim.rate,
        sim.slack,
        sim.seg_start,
        sim.procs,
    )
    cpu, loss, eff, threshold, heappush, insort = (
        sim.cpu,
        sim.loss,
        sim.eff,
        sim.threshold,
        heapq.heappush,
        bisect.insort,
    )
    while done < n:
        while heap and heap[0][1] != version[heap[0][2]]:
            heappop(heap)
        t_done = heap[0][0] if heap else inf
        t_arr = submit[na] if na < n else inf
        now = t_done if t_done <= t_arr else t_arr  # min(), the first on a tie
        if now == inf:  # nothing running, nothing to come: only a pass can restart the machine
            now = ts[-1] if ts else 0.0
            foreground_pass(sim, now, na, mode)
            if check is not None:
                check(sim, now)
            background_pass(sim, now, na)
            if check is not None:
                check(sim, now)
            if not heap:
                raise RuntimeError(f"{algorithm}: {n - done} jobs can never start (simulation stalled)")
            continue
        full = False  # an fg job left: full Steps 1–2; arrivals alone: the incremental pass
        na0 = na
        while heap and heap[0][0] <= now:
            _, ver, j = heappop(heap)
            if ver != version[j]:
                continue
            # sim.remove(j, now, done=True), inline: a job done is never read again, so its work is not settled
            # unless its last stretch is recorded (its pending completion event is this one: no version bump)
            if record:
                sim._set_rate(j, 0.0, now, force=True)
            m = jm[j]
            if tier[j] == FG:
                full = True
                sim.fgm &= ~m
                if sim.hotm & m:
                    sim.elig_up = True
                    sim.hotm &= ~m
                sim.idle_fg += size_l[j]
                fg_run.discard(j)
                if record:
                    fgj = sim.fgj
                    for p in sim.procs[j]:
                        fgj[p] = -1
                del fg_sorted[bisect_left(fg_sorted, fg_key[j])]
                if sim.bgm & m:
                    under = [k for k in bg_run if jm[k] & m]
                    if len(under) > 1:  # job order (the order stretches close in); ~2 bg jobs run at a time
                        under.sort()
                    for k in under:  # and sim._refresh, inline: each bg job's new rate
                        over = above[k]
                        del over[j]
                        above_res.pop(k, None)
                        if over:  # eq. 3.2, the slowest process: under the busiest fg job above k
                            e = eff[k]
                            r = min(e, e * (1.0 - max(over.values())) / cpu[k])
                        else:
                            r = 1.0
                        old = rate[k]
                        if r != old:  # _set_rate: settle the work at the old rate
                            w = wl[k] = wl[k] - old * (now - tupd[k])
                            tupd[k] = now
                            if record:
                                sim._close(k, now)
                            rate[k] = r
                            v = version[k] = version[k] + 1
                            if r > 0:
                                heappush(heap, (now + (0.0 if w < 0.0 else w) / r, v, k))
            else:
                sim.bgm &= ~m
                sim.elig_up = True
                bg_run.discard(j)
                sim.busy_bg -= size_l[j]
                over = above.pop(j)
                above_res.pop(j, None)
                if over:
                    bgm = sim.bgm
                    for f in sim._over(j) if record else over:  # and sim._refresh, inline: eq. 3.1
                        r = 1.0 if not bgm & jm[f] else 1.0 - loss[f]
                        old = rate[f]
                        if r != old:  # _set_rate: settle the work at the old rate
                            w = wl[f] = wl[f] - old * (now - tupd[f])
                            tupd[f] = now
                            if record:
                                sim._close(f, now)
                            rate[f] = r
                            v = version[f] = version[f] + 1
                            if r > 0:
                                heappush(heap, (now + (0.0 if w < 0.0 else w) / r, v, f))
            wl[j] = 0.0
            tier[j] = DONE
            if unfg[j]:  # a job done in the background
                leave_unfg(j)
            end[j] = now
            done += 1
            if progress is not None and done % step == 0:
                progress(done / n)
        while na < n and submit[na] <= now:
            na += 1
        if full:
            for j in range(na0, na):
                arrive(j)
            foreground_pass(sim, now, na, mode)
            if check is not None:
                check(sim, now)
        elif na > na0:  # keasy.arrival_pass (it makes the new jobs arrive, or starts them at once); its two
            # common paths inline, the rest by the call
            c = sim.fg_cache
            empty = not usz  # J_q ∪ J_bg empty: Step 1 (Alg. 1 lines 3–10) deploys the new jobs while they fit
            if not incremental or (not empty and (c is None or c[1] < now)):
                arrival_pass(sim, now, na0, na, mode)
                j = -1
            elif empty:
                j = na0
            else:  # the new jobs against the kept reservation (Alg. 1 lines 24–32 / Alg. 3 lines 20–28)
                qh = sim.qh  # _advance to the first member below na0 (the new jobs are not flagged yet)
                if qh < na0:
                    qh = unfg.find(1, qh, na0)
                    sim.qh = qh = na0 if qh < 0 else qh
                h, shadow, extra = c
                if qh == h and mode == "P" and choice_moved(sim):  # a tier choice may answer otherwise now
                    qh = -1
                elif qh == h and mode == "R" and tier[h] == BG:  # Alg. 3 lines 14–17: the reservation afresh
                    rc = above_res.get(h)  # keasy._reservation, its cached terms inline
                    if rc is None:
                        shadow_now, extra_now = reservation(sim, h, now, mode)
                    else:
                        shadow_now = rc[1] if rc[1] > now else now
                        extra_now = sim.idle_fg + rc[0] - size_l[h]
                    if shadow_now != shadow or extra_now > extra:
                        qh = -1
                    extra = extra_now
                if qh != h:  # not the same head (or REASY's reservation changed): the full Steps 1–2
                    for j in range(na0, na):
                        arrive(j)
                    foreground_pass(sim, now, na, mode)
                    j = -1
                else:
                    j = na0
            if j >= 0:
                idle = sim.idle_fg
                while j < na:
                    sj = size_l[j]
                    if sj > idle:
                        if empty:  # the first that does not fit is the head: the rest of the full pass from there
                            break
                        arrive(j)
                        j += 1
                        continue
                    if not empty:
                        late = est_l[j] > shadow - now  # t_r + t_c > T_S (Alg. 1 lines 28, 31; Alg. 3 lines 24, 27)
                        if late:
                            if sj > extra:  # nor N_j ≤ N_E (line 28 / 24): not backfilled
                                arrive(j)
                                j += 1
                                continue
                            extra -= sj
                    # Deploy of a new job = Dispatch(j, FG) (Alg. 2 lines 19–22) and sim.place_fg, inline: it starts
                    # at once and never enters J_q's structures; fg_candidates' common cases (every VM from the
                    # calm ones, or no CPU information) inline, the grouping by bg CPU use by the call
                    free_fg = ALL & ~sim.fgm
                    if not cpu_known:
                        m = low(free_fg, sj) if sj > 1 else free_fg & -free_fg
                        pr = bits(m, sj) if record else None
                    else:
                        calm = free_fg & ~sim.bgm
                        if sj == 1 and calm:  # a serial job: the lowest calm VM
                            m = calm & -calm
                            pr = [m.bit_length() - 1] if record else None
                        elif calm.bit_count() >= sj:
                            m = low(calm, sj)
                            pr = bits(m, sj) if record else None
                        else:
                            m, pr = fg_candidates(sj)
                    first_start[j] = now
                    tupd[j] = now
                    jm[j] = m
                    sim.fgm |= m
                    idle = sim.idle_fg = idle - sj
                    if cpu_known and cpu[j] >= threshold:  # the bg VMs above it stop being eligible
                        sim.hotm |= m
                    fg_run.add(j)
                    tier[j] = FG
                    if record:
                        procs[j] = pr
                        fgj = sim.fgj
                        for p in pr:
                            fgj[p] = j
                    seg_start[j] = now
                    w = wl[j]
                    key = (now + ((w - rate[j] * (now - tupd[j])) + slack[j]), j)  # est_remaining
                    fg_key[j] = key
                    insort(fg_sorted, key)
                    shared = sim.bgm & m
                    r = 1.0 if not shared else 1.0 - loss[j]  # eq. 3.1; start the rate:
                    rate[j] = r
                    v = version[j] + 1
                    version[j] = v
                    if r > 0:
                        heappush(heap, (now + (0.0 if w < 0.0 else w) / r, v, j))
                    if shared:
                        c_j = cpu[j]
                        under = [k for k in bg_run if jm[k] & m]
                        if len(under) > 1:  # job order (the order stretches close in)
                            under.sort()
                        for k in under:  # and sim._refresh, inline: each bg job's new rate
                            over = above[k]
                            over[j] = c_j
                            above_res.pop(k, None)
                            e = eff[k]  # eq. 3.2, the slowest process: under the busiest fg job above k
                            r = min(e, e * (1.0 - max(over.values())) / cpu[k])
                            old = rate[k]
                            if r != old:  # _set_rate: settle the work at the old rate
                                w = wl[k] = wl[k] - old * (now - tupd[k])
                                tupd[k] = now
                                if record:
                                    sim._close(k, now)
                                rate[k] = r
                                v = version[k] = version[k] + 1
                                if r > 0:
                                    heappush(heap, (now + (0.0 if w < 0.0 else w) / r, v, k))
                    j += 1
                    if idle == 0 and not empty:
                        for k in range(j, na):
                            arrive(k)
                        break
                if empty:
                    sim.fg_cache = None
                    if j < na:
                        for k in range(j, na):
                            arrive(k)
                        foreground_pass(sim, now, na, mode)
                else:
                    sim.fg_cache = (h, shadow, extra)
            if check is not None:
                check(sim, now)
        if sim.n_waiting and (sim.arrived or sim.elig_up):  # Step 3 has nothing to place otherwise
            # background_pass's own early returns, tested here: no eligible bg VM; the smallest waiting job does
            # not fit; no arrival and no more eligible VMs than the last pass left (every job still waiting is
            # larger) — most events. Skipping a pass that places nothing keeps its
            # bookkeeping (``arrived``, ``bg_left``) on the safe side: fewer later skips, never a wrong one. With
            # no arrival and no removal that frees an eligible VM since the last count (``elig_up``), the count
            # can only have fallen: each of these skips still holds, and nothing is counted.
            sim.elig_up = False
            free = (ALL & ~(sim.bgm | sim.hotm) if cpu_known else ALL & ~sim.bgm).bit_count()
            if free and sim.wsz[0] <= free and (sim.arrived or free > sim.bg_left):
                background_pass(sim, now, na)
                if check is not None:
                    check(sim, now)
        ts_append(now)
        s_fg_append(P - sim.idle_fg)
        s_bg_append(sim.busy_bg)
        s_q_append(sim.n_waiting)
    return TwoTierResult(np.array(sim.first_start), np.array(sim.end), sim.stretches, sim.counters, ts, s_fg, s_bg, s_q)
