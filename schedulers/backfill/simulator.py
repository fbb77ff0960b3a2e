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
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from schedulers.backfill.output import Stretches

__all__ = ["TwoTier", "TwoTierResult", "simulate_two_tier"]

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


def _count(jobs: np.ndarray) -> dict[int, int]:
    """{job: processes} of a small job-id array, in first-seen order (deterministic)."""
    return Counter(jobs.tolist())


class TwoTier:
    """State and mechanics of the two-tier machine; the policy lives in keasy.py."""

    def __init__(self, inst, params, record: bool = True):
        n, P = len(inst), inst.processors
        self.n, self.P = n, P
        self.size = inst.size
        self.size_l = inst.size.tolist()
        self.est = inst.estimate
        self.slack_np = inst.estimate - inst.runtime
        self.slack = self.slack_np.tolist()  # est − run: est remaining = work left + slack
        self.run_l = inst.runtime.tolist()
        self.cpu = inst.cpu.tolist()
        self.eff = inst.eff.tolist()
        self.loss = inst.loss.tolist()
        self.cpu_known = params.cpu_info == "exact"
        self.threshold = params.bg_threshold
        self.cost = params.migration_cost_s
        self.fg = np.full(P, -1, dtype=np.int64)
        self.bg = np.full(P, -1, dtype=np.int64)
        self.fg_cpu = np.zeros(P)  # actual CPU usage of the fg process (0 = idle)
        self.bg_cpu = np.zeros(P)
        self.idle_fg = P
        self.busy_bg = 0
        self.n_elig = P  # bg VMs that may take work now: idle, above a fg VM using < threshold CPU (if known)
        # Step 3 can place nothing while no job arrives and n_elig ≤ bg_left: every job still waiting is
        # larger than the eligible VMs the last pass left (the queue only shrinks between arrivals)
        self.bg_left = -1
        self.arrived = False
        self.tier = np.zeros(n, dtype=np.int8)
        self.unfg = bytearray(n)  # waiting or background: the list J_q ∪ J_bg of Alg. 1
        self.size_u = np.full(n, P + 1, dtype=np.int64)  # size of a job in J_q ∪ J_bg, P + 1 otherwise
        # per-job scalars live in Python lists: element access and arithmetic on numpy scalars cost 3–5× more
        self.wl = inst.runtime.astype(float).tolist()  # work left (dedicated seconds)
        self.rate = [0.0] * n
        self.tupd = [0.0] * n
        self.version = [0] * n
        self.nbusy = [0] * n  # fg job: how many of its processors have a busy bg VM
        self.procs: list[np.ndarray | None] = [None] * n
        self.fg_key: list[tuple[float, int] | None] = [None] * n
        self.fg_sorted: list[tuple[float, int]] = []  # (estimated termination, job) of fg jobs
        self.seg_start = [0.0] * n
        self.first_start = np.full(n, np.nan)
        self.end = np.zeros(n)
        self.heap: list[tuple[float, int, int]] = []
        self.record = record
        self.stretches = Stretches()
        self.counters = {"migrations": 0, "kills": 0, "swaps": 0, "wasted_work_s": 0.0}
        self.n_waiting = 0
        self.qh = 0  # no job below this index is waiting or in background
        self.fg_cache: tuple | None = None  # (head, shadow, N_E left) after the last Steps 1–2 (keasy.py)
        self.reservations: dict | None = None  # {head job: (first shadow time, its tier then)}, for tests

    # -- rates -------------------------------------------------------------------------------
    def est_remaining(self, j: int, now: float) -> float:
        return (self.wl[j] - self.rate[j] * (now - self.tupd[j])) + self.slack[j]

    def _bg_rate(self, j: int) -> float:
        """Eq. 3.2 for the slowest process: the busiest fg VM above j (fg_cpu is 0 exactly on an idle fg VM
        and > 0 on a busy one; eff · CPU_idle / CPU_req is monotone in CPU_idle, also in floating point)."""
        m = float(self.fg_cpu[self.procs[j]].max())
        if m == 0.0:
            return 1.0
        eff = self.eff[j]
        return min(eff, eff * (1.0 - m) / self.cpu[j])

    def _set_rate(self, j: int, r: float, now: float, force: bool = False) -> None:
        old = self.rate[j]
        if r == old and not force:
            return
        self.wl[j] -= old * (now - self.tupd[j])
        self.tupd[j] = now
        self._close(j, now)
        self.rate[j] = r
        self.version[j] += 1
        if r > 0:
            heapq.heappush(self.heap, (now + max(self.wl[j], 0.0) / r, self.version[j], j))

    def _refresh(self, jobs, now: float) -> None:
        for j in jobs:
            if self.tier[j] == BG:
                self._set_rate(j, self._bg_rate(j), now)
            else:
                self._set_rate(j, 1.0 if self.nbusy[j] == 0 else 1.0 - self.loss[j], now)

    def _close(self, j: int, now: float) -> None:
        if self.record and self.tier[j] in _TIER:
            self.stretches.add(j, self.seg_start[j], now, _TIER[self.tier[j]], self.rate[j], self.procs[j])
        self.seg_start[j] = now

    # -- placement ---------------------------------------------------------------------------
    def place_fg(self, j: int, pr: np.ndarray, now: float) -> None:
        self._leave_queue(j, now)
        self.fg[pr] = j
        self.fg_cpu[pr] = self.cpu[j]
        self.idle_fg -= pr.size
        b = self.bg[pr]
        b = b[b >= 0]
        self.nbusy[j] = int(b.size)
        if self.cpu_known and self.cpu[j] >= self.threshold:
            self.n_elig -= pr.size - b.size
        self.tier[j], self.procs[j] = FG, pr
        self.seg_start[j] = now
        key = (now + self.est_remaining(j, now), j)
        self.fg_key[j] = key
        bisect.insort(self.fg_sorted, key)
        self._set_rate(j, 1.0 if b.size == 0 else 1.0 - self.loss[j], now, force=True)
        if b.size:
            self._refresh(sorted(set(b.tolist())), now)

    def place_bg(self, j: int, pr: np.ndarray, now: float) -> None:
        self._leave_queue(j, now)
        self.bg[pr] = j
        self.bg_cpu[pr] = self.cpu[j]
        self.busy_bg += pr.size
        self.n_elig -= pr.size  # placed on eligible VMs only (Step 3)
        self.tier[j], self.procs[j] = BG, pr
        self.seg_start[j] = now
        f = self.fg[pr]
        f = f[f >= 0]
        if f.size:
            counts = _count(f)
            for k, c in counts.items():
                self.nbusy[k] += c
            self._refresh(counts, now)
        self._set_rate(j, self._bg_rate(j), now, force=True)

    def _leave_queue(self, j: int, now: float) -> None:
        if self.tier[j] == WAITING:
            self.n_waiting -= 1
            self.first_start[j] = now
            self.tupd[j] = now

    def remove(self, j: int, now: float) -> np.ndarray:
        """Take j off its VMs (its work is settled); returns its processors."""
        self._set_rate(j, 0.0, now, force=True)
        pr = self.procs[j]
        if self.tier[j] == FG:
            self.fg[pr] = -1
            self.fg_cpu[pr] = 0.0
            self.idle_fg += pr.size
            del self.fg_sorted[bisect.bisect_left(self.fg_sorted, self.fg_key[j])]
            b = self.bg[pr]
            b = b[b >= 0]
            if self.cpu_known and self.cpu[j] >= self.threshold:
                self.n_elig += pr.size - b.size
            if b.size:
                self._refresh(sorted(set(b.tolist())), now)
        else:
            self.bg[pr] = -1
            self.bg_cpu[pr] = 0.0
            self.busy_bg -= pr.size
            self.n_elig += int(np.count_nonzero(self.fg_cpu[pr] < self.threshold)) if self.cpu_known else pr.size
            f = self.fg[pr]
            f = f[f >= 0]
            if f.size:
                counts = _count(f)
                for k, c in counts.items():
                    self.nbusy[k] -= c
                self._refresh(counts, now)
        return pr

    # -- Alg. 2 Dispatch ------------------------------------------------------------------------
    def fg_candidates(self, need: int) -> np.ndarray:
        """The first ``need`` idle fg VMs, least-loaded bg first (Dispatch(FG), Alg. 2 line 20), ties by index.

        bg_cpu is 0 exactly on an idle bg VM and > 0 on a busy one, so when enough idle fg VMs have an idle bg
        VM they are the first ``need`` of those in index order — what the stable sort would give, without it.
        """
        idle = (self.fg < 0).nonzero()[0]
        if not self.cpu_known:
            return idle[:need]
        load = self.bg_cpu[idle]
        calm = idle[load == 0.0]
        if calm.size >= need:
            return calm[:need]
        return idle[np.argsort(load, kind="stable")[:need]]

    def bg_eligible(self) -> np.ndarray:
        """Mask of idle bg VMs that may host work (fg CPU use below the threshold, Section 2.2.1 point 3)."""
        if not self.cpu_known:
            return self.bg < 0
        return (self.bg < 0) & (self.fg_cpu < self.threshold)

    def bg_candidates(self, eligible: np.ndarray) -> np.ndarray:
        """The eligible bg VMs, least-loaded fg first (Dispatch(BG), Alg. 2 line 24)."""
        ok = eligible.nonzero()[0]
        return ok[np.argsort(self.fg_cpu[ok], kind="stable")] if self.cpu_known else ok

    def join_unfg(self, j: int) -> None:
        self.unfg[j] = 1
        self.size_u[j] = self.size_l[j]

    def leave_unfg(self, j: int) -> None:
        self.unfg[j] = 0
        self.size_u[j] = self.P + 1

    def own_fg_idle(self, j: int) -> bool:
        return not (self.fg[self.procs[j]] >= 0).any()


def simulate_two_tier(inst, algorithm: str, params, progress=None, reservations: dict | None = None) -> TwoTierResult:
    """Run KEASY, REASY or MEASY (Algs. 1–3) on ``inst``.

    ``reservations``, if given, receives {head job: (first shadow time computed for it, its tier then)} (for tests).
    """
    from schedulers.backfill.keasy import arrival_pass, background_pass, foreground_pass

    mode = {"keasy": "K", "reasy": "R", "measy": "M"}[algorithm]
    sim = TwoTier(inst, params, record=params.record_schedule)
    sim.reservations = reservations
    n = sim.n
    submit = inst.submit.tolist()
    heap = sim.heap
    ts: list[float] = []
    s_fg: list[int] = []
    s_bg: list[int] = []
    s_q: list[int] = []
    na = done = 0
    step = max(1, n // 100)
    inf = float("inf")
    while done < n:
        while heap and heap[0][1] != sim.version[heap[0][2]]:
            heapq.heappop(heap)
        t_done = heap[0][0] if heap else inf
        t_arr = submit[na] if na < n else inf
        now = min(t_done, t_arr)
        if now == inf:  # nothing running, nothing to come: only a pass can restart the machine
            now = ts[-1] if ts else 0.0
            foreground_pass(sim, now, na, mode)
            background_pass(sim, now, na)
            if not heap:
                raise RuntimeError(f"{algorithm}: {n - done} jobs can never start (simulation stalled)")
            continue
        full = False  # an fg job left: full Steps 1–2; arrivals alone: the incremental pass
        na0 = na
        while heap and heap[0][0] <= now:
            _, ver, j = heapq.heappop(heap)
            if ver != sim.version[j]:
                continue
            full = full or sim.tier[j] == FG
            sim.remove(j, now)
            sim.wl[j] = 0.0
            sim.tier[j] = DONE
            sim.leave_unfg(j)
            sim.end[j] = now
            done += 1
            if progress is not None and done % step == 0:
                progress(done / n)
        while na < n and submit[na] <= now:
            sim.tier[na] = WAITING
            sim.join_unfg(na)
            sim.n_waiting += 1
            sim.arrived = True
            na += 1
        if full:
            foreground_pass(sim, now, na, mode)
        elif na > na0:
            arrival_pass(sim, now, na0, na, mode)
        background_pass(sim, now, na)
        ts.append(now)
        s_fg.append(sim.P - sim.idle_fg)
        s_bg.append(sim.busy_bg)
        s_q.append(sim.n_waiting)
    return TwoTierResult(sim.first_start, sim.end, sim.stretches, sim.counters, ts, s_fg, s_bg, s_q)
