"""Event-driven two-tier machine with the progress model of Section 3.2 (KEASY, REASY, MEASY).

Every processor hosts a foreground VM (high CPU priority) and a background VM
(low priority). A job's processes each hold one VM of one tier. Rates
(dedicated-processor seconds of work per second) follow the paper:

- eq. 3.1, a foreground process: 1 if the bg VM of its processor is idle, else
  1 − loss (the paper prints "T · loss"; the text makes clear that ``loss`` is
  the 0.5–4 % performance loss, so the progress is T · (1 − loss));
- eq. 3.2, a background process: 1 if the fg VM of its processor is idle; else
  eff if CPU_idle ≥ CPU_req; else eff · CPU_idle / CPU_req, with CPU_idle = 1 −
  (actual CPU usage of the fg process) and CPU_req = the bg process's usage;
- a job advances at the pace of its slowest process (the minimum).

The paper advances processes by fixed time slices T; here rates are piecewise
constant between events (a placement, a departure, a tier change), so each
job's remaining work and completion time are exact: on any change touching a
processor, the jobs on its two VMs settle their work (work −= rate · Δt), get
their new rate and a new completion event (older ones are dropped by a version
number). With a small T the slice model converges to this one.

Other readings: the scheduler's estimated termination of a foreground job is
its (re)start time + its estimated remaining work, ignoring the loss (it knows
only the user estimate); a job whose loss made it overrun is taken to end
"now". A migration costs ``migration_cost_s`` seconds of extra work on the new
processors (the job holds them while it is checkpointed, moved and restarted).
A kill discards the work done (counted as ``wasted_work_s``). Completions at
one instant are all handled before the scheduling pass, and arrivals at that
instant join before it too.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

from schedulers.backfill.output import Stretches

__all__ = ["BG", "DONE", "FG", "WAITING", "TwoTier", "TwoTierResult", "bits", "low"]

WAITING, BG, FG, DONE = 1, 2, 3, 4
_TIER = {BG: "bg", FG: "fg"}


@dataclass
class TwoTierResult:
    first_start: np.ndarray
    end: np.ndarray
    stretches: Stretches
    counters: dict
    series_t: list[float] = field(default_factory=list)
    series_fg: list[int] = field(default_factory=list)
    series_bg: list[int] = field(default_factory=list)
    series_queue: list[int] = field(default_factory=list)


_BYTE_AT: list[list[tuple[int, ...]]] = []  # [byte position][byte value]: its processors (grown on demand)
_MAX_BYTES = 512  # tables up to 4096 processors


def _grow_tables(processors: int) -> None:
    for pos in range(len(_BYTE_AT), min(_MAX_BYTES, (processors + 7) // 8)):
        _BYTE_AT.append([tuple(8 * pos + i for i in range(8) if b >> i & 1) for b in range(256)])


def bits(m: int, k: int) -> list[int]:
    """The first ``k`` processors (set bits) of the mask ``m``, ascending; all of them if it has fewer."""
    if k <= 8:  # a few: peel the lowest bit
        return _bits_peel(m, k)
    out: list[int] = []
    nb = (m.bit_length() + 7) // 8
    if nb > len(_BYTE_AT):  # a machine of more than 4096 processors: peel every bit
        return _bits_peel(m, k)
    for table, b in zip(
        _BYTE_AT, m.to_bytes(nb, "little"), strict=False
    ):  # many: the processors of each byte from a table
        if b:
            out.extend(table[b])
            if len(out) >= k:
                return out[:k]
    return out


def low(m: int, k: int) -> int:
    """The mask of the ``k`` lowest set bits of ``m`` (``m`` if it has no more)."""
    if m.bit_count() <= k:
        return m
    low = m & -m
    run = (low << k) - low  # the k bits from the lowest set one: taken whole when all set (2 calls in 3)
    if m & run == run:
        return run
    if k <= 8:  # a few: peel the lowest bit
        out = 0
        for _ in range(k):
            low = m & -m
            out |= low
            m ^= low
        return out
    lo, hi = k, m.bit_length()  # the shortest prefix holding k of them, by bisection
    while lo < hi:
        mid = (lo + hi) // 2
        if (m & ((1 << mid) - 1)).bit_count() >= k:
            hi = mid
        else:
            lo = mid + 1
    return m & ((1 << lo) - 1)


def _bits_peel(m: int, k: int) -> list[int]:
    out: list[int] = []
    while m and len(out) < k:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


class TwoTier:
    """State and mechanics of the two-tier machine; the policy lives in keasy.py.

    The VM sets that Dispatch and Step 3 read are kept as bit masks over the processors, updated in O(1) big-int
    operations by the four placement/removal paths instead of rebuilt by a scan of all processors on every pass:
    ``fgm`` busy fg VMs, ``bgm`` busy bg VMs, ``hotm`` fg VMs whose process uses ≥ the threshold of
    CPU (known CPU use only); ``jm[j]`` the processors of job j; ``bg_run`` the jobs in the bg tier. From them:
    the idle fg VMs ``~fgm``; the calm ones ``~fgm & ~bgm`` (Dispatch(FG), Alg. 2 line 20, takes these first);
    the eligible bg VMs ``~bgm & ~hotm`` (Section 2.2.1 point 3; Dispatch(BG), Alg. 2 line 24); a fg job shares
    a processor with bg work iff ``bgm & jm[j]`` (eq. 3.1's loss). Per-processor job ids and CPU use stay in
    Python lists (a job holds 4 processors at the median). ``wsz`` holds the sizes of the waiting jobs J_q,
    sorted: Step 3 places nothing while the smallest exceeds the eligible count.
    """

    def __init__(self, inst, params, record: bool = True):
        n, P = len(inst), inst.processors
        self.n, self.P = n, P
        self.size = inst.size
        self.size_l = inst.size.tolist()
        self.est = inst.estimate
        self.est_l = inst.estimate.tolist()
        self.slack = (inst.estimate - inst.runtime).tolist()  # est − run: est remaining = work left + slack
        self.run_l = inst.runtime.tolist()
        self.cpu = inst.cpu.tolist()
        self.eff = inst.eff.tolist()
        self.loss = inst.loss.tolist()
        self.cpu_known = params.cpu_info == "exact"
        self.threshold = params.bg_threshold
        self.cost = params.migration_cost_s
        self.fgj = [-1] * P  # job of each fg VM, -1 idle: kept only when recording (the order stretches close in)
        self.ALL = (1 << P) - 1
        if record:  # processor lists are built only for a recorded schedule
            _grow_tables(P)
        self.fgm = self.bgm = self.hotm = 0
        self.jm = [0] * n
        self.bg_run: set[int] = set()  # jobs in the bg tier
        self.fg_run: set[int] = set()  # jobs in the fg tier
        # bg job: {fg job sharing a processor with it: that fg job's CPU use} (the values feed eq. 3.2's max)
        self.above: dict[int, dict[int, float]] = {}
        # bg job: (Σ size, max estimated termination) of above[job], REASY's background-head reservation (Alg. 3
        # lines 14–17, keasy._reservation); dropped whenever above[job] changes
        self.above_res: dict[int, tuple[int, float]] = {}
        self.idle_fg = P
        self.busy_bg = 0
        self.wsz: list[int] = []
        self.usz: list[int] = []  # the sizes of the jobs in J_q ∪ J_bg, sorted
        # Step 3 can place nothing while no job arrives and n_elig ≤ bg_left: every job still waiting is
        # larger than the eligible VMs the last pass left (the queue only shrinks between arrivals)
        self.bg_left = -1
        self.arrived = False
        # eligible bg VMs may have become more since the event loop last counted them: only a removal (of a bg job,
        # or of an fg job at ≥ the threshold) frees one; placements only take them
        self.elig_up = True
        self.tier = bytearray(n)  # WAITING / BG / FG / DONE (0: not arrived); tier_np is a numpy view of it
        self.tier_np = np.frombuffer(self.tier, dtype=np.int8)
        self.unfg = bytearray(n)  # waiting or background: the list J_q ∪ J_bg of Alg. 1
        self.size_u = np.full(n, P + 1, dtype=np.int64)  # size of a job in J_q ∪ J_bg, P + 1 otherwise
        # per-job scalars live in Python lists: element access and arithmetic on numpy scalars cost 3–5× more
        self.wl = inst.runtime.astype(float).tolist()  # work left (dedicated seconds)
        self.rate = [0.0] * n
        self.tupd = [0.0] * n
        self.version = [0] * n
        self.procs: list[list[int] | None] = [None] * n
        self.fg_key: list[tuple[float, int] | None] = [None] * n
        self.fg_sorted: list[tuple[float, int]] = []  # (estimated termination, job) of fg jobs
        self.seg_start = [0.0] * n
        self.first_start = [float("nan")] * n
        self.end = [0.0] * n
        self.heap: list[tuple[float, int, int]] = []
        self.record = record
        self.stretches = Stretches()
        self.counters = {"migrations": 0, "kills": 0, "swaps": 0, "wasted_work_s": 0.0}
        self.n_waiting = 0
        self.qh = 0  # no job below this index is waiting or in background
        self.fg_cache: tuple | None = None  # (head, shadow, N_E left) after the last Steps 1–2 (keasy.py)
        self.reservations: dict | None = None  # {head job: (first shadow time, its tier then)}, for tests
        self.choose = None  # a tier choice's ask(now, j) -> 'K' | 'M' | 'R' (keasy.checked_choice), mode 'P'
        self.bg_key, self.bg_key_l = self.est, self.est_l  # Step 3's order, smallest first: SJF, or a tier choice's

    def elig_mask(self) -> int:
        """Bg VMs that may take work now: idle, above a fg VM using < threshold CPU if the use is known."""
        return self.ALL & ~(self.bgm | self.hotm) if self.cpu_known else self.ALL & ~self.bgm

    @property
    def n_elig(self) -> int:
        return self.elig_mask().bit_count()

    # -- rates -------------------------------------------------------------------------------
    def est_remaining(self, j: int, now: float) -> float:
        return (self.wl[j] - self.rate[j] * (now - self.tupd[j])) + self.slack[j]

    def _set_rate(self, j: int, r: float, now: float, force: bool = False) -> None:
        old = self.rate[j]
        if r == old and not force:
            return
        self.wl[j] -= old * (now - self.tupd[j])
        self.tupd[j] = now
        if self.record:
            self._close(j, now)
        self.rate[j] = r
        self.version[j] += 1
        if r > 0:
            heapq.heappush(self.heap, (now + max(self.wl[j], 0.0) / r, self.version[j], j))

    def _refresh(self, jobs, now: float) -> None:
        """New rates (eqs. 3.1–3.2) for ``jobs`` after a change on their processors (eq. 3.2's slowest process and
        ``_set_rate`` inline: 1.5 jobs a job are refreshed)."""
        tier, rate, tupd, wl, version, heap = self.tier, self.rate, self.tupd, self.wl, self.version, self.heap
        record = self.record
        for j in jobs:
            if tier[j] == BG:  # eq. 3.2, the slowest process: under the busiest fg job above j
                over = self.above[j]
                if over:
                    cpu = self.cpu
                    eff = self.eff[j]
                    r = min(eff, eff * (1.0 - max(over.values())) / cpu[j])
                else:
                    r = 1.0
            else:  # eq. 3.1
                r = 1.0 if not self.bgm & self.jm[j] else 1.0 - self.loss[j]
            old = rate[j]
            if r == old:
                continue
            w = wl[j] = wl[j] - old * (now - tupd[j])  # _set_rate: settle the work at the old rate
            tupd[j] = now
            if record:
                self._close(j, now)
            rate[j] = r
            v = version[j] = version[j] + 1
            if r > 0:
                heapq.heappush(heap, (now + (0.0 if w < 0.0 else w) / r, v, j))  # max(w, 0.0), no call

    def _close(self, j: int, now: float) -> None:
        t = self.tier[j]
        if t in _TIER:
            self.stretches.add(j, self.seg_start[j], now, _TIER[t], self.rate[j], self.procs[j])
        self.seg_start[j] = now

    # -- placement ---------------------------------------------------------------------------
    def place_fg(self, j: int, m: int, pr: list[int] | None, now: float) -> None:
        """j onto the fg VMs of mask ``m`` (``pr``: the same processors in Dispatch order, when recording); j leaves
        J_q ∪ J_bg (Alg. 1 lines 10 and 30: remove j from J_q or J_bg, insert it into J_fg).

        The hot path of every Deploy: leaving the queue, starting the rate and ``leave_unfg`` are inline
        (one call per deploy instead of four)."""
        tier, s = self.tier, self.size_l[j]
        t = tier[j]
        if t == WAITING:  # leave J_q: a waiting job starts now
            self.n_waiting -= 1
            wsz = self.wsz
            del wsz[bisect.bisect_left(wsz, s)]
            self.first_start[j] = now
            self.tupd[j] = now
        elif not t:  # deployed at its arrival, never queued (keasy.arrival_pass)
            self.first_start[j] = now
            self.tupd[j] = now
        if self.unfg[j]:  # leave_unfg
            self.unfg[j] = 0
            self.size_u[j] = self.P + 1
            usz = self.usz
            del usz[bisect.bisect_left(usz, s)]
        self.jm[j] = m
        self.fgm |= m
        self.idle_fg -= s
        if self.cpu_known and self.cpu[j] >= self.threshold:  # the bg VMs above it stop being eligible
            self.hotm |= m
        self.fg_run.add(j)
        tier[j] = FG
        if self.record:
            self.procs[j] = pr
            fgj = self.fgj
            for p in pr:
                fgj[p] = j
        self.seg_start[j] = now
        wl = self.wl[j]
        key = (now + ((wl - self.rate[j] * (now - self.tupd[j])) + self.slack[j]), j)  # est_remaining
        self.fg_key[j] = key
        bisect.insort(self.fg_sorted, key)
        shared = self.bgm & m
        r = 1.0 if not shared else 1.0 - self.loss[j]  # eq. 3.1; start the rate:
        self.rate[j] = r
        v = self.version[j] + 1
        self.version[j] = v
        if r > 0:
            heapq.heappush(self.heap, (now + max(wl, 0.0) / r, v, j))
        if shared:
            jm, above, res, c = self.jm, self.above, self.above_res, self.cpu[j]
            under = [k for k in self.bg_run if jm[k] & m]
            if len(under) > 1:  # job order (the order stretches close in); ~2 bg jobs run at a time
                under.sort()
            for k in under:
                above[k][j] = c
                res.pop(k, None)
            self._refresh(under, now)

    def place_bg(self, j: int, m: int, pr: list[int] | None, now: float) -> None:
        """j onto the bg VMs of mask ``m`` (``pr``: the same processors in Dispatch order, when recording).

        Leaving the queue, eq. 3.2's rate and starting it inline."""
        if self.tier[j] == WAITING:  # leave J_q: a waiting job starts now
            self.n_waiting -= 1
            wsz = self.wsz
            del wsz[bisect.bisect_left(wsz, self.size_l[j])]
            self.first_start[j] = now
            self.tupd[j] = now
        self.jm[j] = m
        self.bgm |= m  # placed on eligible VMs only (Step 3)
        self.bg_run.add(j)
        self.busy_bg += self.size_l[j]
        self.tier[j] = BG
        if self.record:
            self.procs[j] = pr
        self.seg_start[j] = now
        over = self._over(j) if self.fgm & m else {}
        self.above[j] = over
        self.above_res.pop(j, None)
        if over:
            self._refresh(list(over), now)
            eff = self.eff[
                j
            ]  # eq. 3.2 for the slowest process (eff · CPU_idle / CPU_req is monotone in CPU_idle): under the busiest fg job above j
            r = min(eff, eff * (1.0 - max(over.values())) / self.cpu[j])
        else:
            r = 1.0
        self.rate[j] = r  # start the rate: its work was settled when it was queued
        v = self.version[j] + 1
        self.version[j] = v
        if r > 0:
            heapq.heappush(self.heap, (now + max(self.wl[j], 0.0) / r, v, j))

    def _over(self, j: int) -> dict[int, None]:
        """The fg jobs above bg job j; when recording, in first-seen order along its processors (the order their
        stretches are closed in); otherwise from the masks."""
        if self.record:
            cpu = self.cpu
            return {f: cpu[f] for f in [f for f in map(self.fgj.__getitem__, self.procs[j]) if f >= 0]}
        m, jm = self.jm[j], self.jm
        cpu = self.cpu
        return {f: cpu[f] for f in self.fg_run if jm[f] & m}

    def arrive(self, j: int) -> None:
        """j joins J_q."""
        self.tier[j] = WAITING
        self.unfg[j] = 1
        s = self.size_l[j]
        self.size_u[j] = s
        bisect.insort(self.wsz, s)
        bisect.insort(self.usz, s)
        self.n_waiting += 1
        self.arrived = True

    def remove(self, j: int, now: float, done: bool = False) -> tuple[int, list[int] | None]:
        """Take j off its VMs (its work is settled); returns its processors (mask, list when recording).

        A job that is ``done`` is never read again: its work is not settled unless its last stretch is recorded
        (its pending completion event is the one being handled, so no version bump is needed either)."""
        if not done or self.record:
            self._set_rate(j, 0.0, now, force=True)
        m = self.jm[j]
        if self.tier[j] == FG:
            self.fgm &= ~m
            if self.hotm & m:
                self.elig_up = True
            self.hotm &= ~m
            self.idle_fg += self.size_l[j]
            self.fg_run.discard(j)
            if self.record:
                fgj = self.fgj
                for p in self.procs[j]:
                    fgj[p] = -1
            del self.fg_sorted[bisect.bisect_left(self.fg_sorted, self.fg_key[j])]
            if self.bgm & m:
                jm, above = self.jm, self.above
                under = [k for k in self.bg_run if jm[k] & m]
                if len(under) > 1:  # job order (the order stretches close in); ~2 bg jobs run at a time
                    under.sort()
                res = self.above_res
                for k in under:
                    del above[k][j]
                    res.pop(k, None)
                self._refresh(under, now)
        else:
            self.bgm &= ~m
            self.elig_up = True
            self.bg_run.discard(j)
            self.busy_bg -= self.size_l[j]
            over = self.above.pop(j)
            self.above_res.pop(j, None)
            if over:
                self._refresh(self._over(j) if self.record else list(over), now)
        return m, self.procs[j]

    # -- Alg. 2 Dispatch ------------------------------------------------------------------------
    def fg_candidates(self, need: int) -> tuple[int, list[int] | None]:
        """The first ``need`` idle fg VMs, least-loaded bg first (Dispatch(FG), Alg. 2 line 20), ties by index:
        their mask, and when recording the list in that order.

        A bg VM's load is its job's CPU use, > 0, and 0 on an idle one: the calm VMs (idle fg and bg) come first
        in index order, then the idle fg VMs above each bg job, grouped by its CPU use, lowest first, each group
        in index order — a stable sort by load. Only the VMs needed are taken from the masks.
        """
        idle = self.ALL & ~self.fgm
        rec = self.record
        if not self.cpu_known:
            m = low(idle, need) if need > 1 else idle & -idle
            return m, (bits(m, need) if rec else None)
        calm = idle & ~self.bgm
        if need == 1 and calm:  # a serial job: the lowest calm VM
            m = calm & -calm
            return m, ([m.bit_length() - 1] if rec else None)
        nc = calm.bit_count()
        if nc >= need:
            m = low(calm, need)
            return m, (bits(m, need) if rec else None)
        m = calm
        out = bits(calm, nc) if rec else None
        got = nc
        bg_run = self.bg_run
        # one bg job (the common case): its idle fg VMs are the only group
        groups = [self.jm[next(iter(bg_run))] & idle] if len(bg_run) == 1 else self._by_cpu(bg_run, idle)
        for g in groups:
            g = low(g, need - got)
            m |= g
            got += g.bit_count()
            if rec:
                out += bits(g, self.P)
            if got >= need:
                break
        return m, out

    def bg_candidates(self) -> list[int]:
        """The eligible bg VMs, least-loaded fg first (Dispatch(BG), Alg. 2 line 24), ties by index: those under
        an idle fg VM (load 0) in index order, then those under each fg job grouped by its CPU use, lowest first
        (``take`` hands them out in this order)."""
        elig = self.elig_mask()
        if not self.cpu_known or not elig & self.fgm:  # no eligible VM under a busy fg VM: one group
            return [elig]
        return [elig & ~self.fgm, *self._by_cpu(self.fg_run, elig)]

    def _by_cpu(self, jobs, within: int) -> list[int]:
        """The VMs of ``jobs`` inside mask ``within``, one mask per CPU use, lowest use first."""
        groups: dict[float, int] = {}
        jm, cpu = self.jm, self.cpu
        for k in jobs:
            x = jm[k] & within
            if x:
                c = cpu[k]
                groups[c] = groups.get(c, 0) | x
        return [groups[c] for c in sorted(groups)]

    def take(self, groups: list[int], k: int) -> tuple[int, list[int] | None]:
        """The next ``k`` VMs of ``bg_candidates``' ordered groups (consumed): their mask, and when recording their
        list in that order."""
        m = got = 0
        pr: list[int] | None = [] if self.record else None
        while got < k:
            g = groups[0]
            x = low(g, k - got)
            m |= x
            got += x.bit_count()
            if pr is not None:
                pr += bits(x, k)
            if x == g:
                del groups[0]
            else:
                groups[0] = g & ~x
        return m, pr

    def leave_unfg(self, j: int) -> None:
        """j leaves J_q ∪ J_bg (deployed to the fg tier, or done)."""
        if self.unfg[j]:
            self.unfg[j] = 0
            self.size_u[j] = self.P + 1
            usz = self.usz
            del usz[bisect.bisect_left(usz, self.size_l[j])]

    def own_fg_idle(self, j: int) -> bool:
        return not self.fgm & self.jm[j]
