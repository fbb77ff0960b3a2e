"""Online simulation (Section 5 and 6.2): OnTaPRA (Alg. 3) with SJF (Alg. 4) and DRC (Alg. 5),
and the FCFS, SLF and LLF schedulers, each with DRC on or off ("NDRC").

Jobs arrive, wait in Q_wait, are scheduled by a per-job algorithm (TaPRA, TaPRA-fast, Min-Min,
MM-GA or GSA) against the capacity then available, and their tasks run on their servers at
the allocated rate (vCPUs); a task's remaining work is its equivalent load ``Load/λ``.

Readings where the paper is silent:

* A job is scheduled against the *available* capacity ``C_sj − Σ base allocations``; its
  availability constraints are regenerated then (Sec. 6.2.1): every constraint keeps its
  fraction β of the capacity below it (β = 1 for the server itself). Servers with no
  available capacity are left out of the job's instance.
* "A job cannot be scheduled" (FCFS/SLF/LLF) uses the same MAR test as SJF (eq. 56): when
  the available capacity is ``≤ Max_Percent`` of the data centre, the round stops; a job also
  waits if its algorithm finds no server. Without such a test every job would start at once
  on vanishing residual capacity.
* FCFS runs on every arrival and, while jobs wait, on every task completion (after arrivals
  stop, waiting jobs would otherwise never start). OnTaPRA, SLF and LLF run every
  ``ΔT_schedule`` seconds (default 10 s), at multiples of it, after the arrivals and
  completions of the same instant.
* DRC (Alg. 5) shares a server's residual capacity among its tasks in proportion to their
  equivalent loads ``L_ti = Load_i/λ_ij`` (eq. 15). Recollecting the last DRC call and
  redistributing (Alg. 3 lines 9–11) and the incremental update on a task completion (line 6)
  both give ``extra_i = (C_sj − Σ base)·L_ti/Σ L`` on each server (shown in the note), which
  is what we compute. Each change of a task's rate starts a new schedule segment
  (``kind`` = "drc" while it holds extra capacity).
* SJF breaks JCT ties by waiting time (longest first), SLF/LLF by arrival.
* ``total_scheduler_runtime_s`` is the process CPU time spent in scheduling rounds and DRC (CPU time,
  not wall time: the verdicts comparing it must not depend on what else the machine runs).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from schedulers.core.columns import Columns, coded, task_of
from schedulers.core.series import exact_series, step_series
from schedulers.core.sim import EventQueue
from schedulers.core.validity import spec
from schedulers.ep_jobs.instance import Instance, Platform
from schedulers.ep_jobs.offline import power_series, solve
from schedulers.ep_jobs.workloads import OnlineJob
from schedulers.registry import RunOutput

__all__ = ["OnlineSim", "run_online"]

_ARRIVE, _FINISH, _TICK = 0, 1, 2
_EPS = 1e-9


class _Task:
    __slots__ = ("base", "event", "idx", "job", "last", "leq", "rate", "remaining", "seg_start", "server")

    def __init__(self, job: int, idx: int, server: int, base: float, leq: float, now: float):
        self.job, self.idx, self.server, self.base, self.leq = job, idx, server, base, leq
        self.rate = base
        self.remaining = leq
        self.last = now
        self.seg_start = now
        self.event = None


class OnlineSim:
    """Event-driven simulation of one scheduler + per-job algorithm on one job stream."""

    def __init__(self, plat: Platform, jobs: list[OnlineJob], policy: str, algorithm: str, drc: bool, prm, wl, rng):
        self.plat, self.jobs, self.policy, self.algorithm, self.drc = plat, jobs, policy, algorithm, drc
        self.prm, self.alpha, self.rng = prm, wl.alpha, rng
        self.cap = plat.capacity
        self.base_used = np.zeros(plat.n_servers)
        self.on_server: list[list[_Task]] = [[] for _ in range(plat.n_servers)]
        self.queue: list[int] = []
        self.left = np.array([j.loads.size for j in jobs])
        self.start = np.full(len(jobs), np.nan)
        self.finish = np.full(len(jobs), np.nan)
        self.planned = np.full(len(jobs), np.nan)
        self.cap_list = [float(c) for c in self.cap]
        # segments: (job, task index, server, start, end, share, base), made columns at the end
        self.segments: list[tuple[int, int, int, float, float, float, float]] = []
        self.runtime = 0.0
        self.energy = 0.0
        self.rounds = 0
        self.events = EventQueue()
        self.pending_arrivals = len(jobs)

    # --- capacity bookkeeping -------------------------------------------------------------
    def _available(self) -> np.ndarray:
        return np.maximum(self.cap - self.base_used, 0.0)

    def _mar_ok(self, avail: np.ndarray) -> bool:
        """MAR test, eq. 56: fails when C_avai ≤ Max_Percent · C_DC."""
        return avail.sum() > self.prm.max_percent * self.cap.sum() + _EPS

    def _job_instance(self, job: OnlineJob, sub: Platform, keep: np.ndarray) -> Instance:
        e_max = job.e_factor * self.alpha * job.total_load
        return Instance(sub, job.loads, job.lam[:, keep], self.alpha, e_max, job=str(job.id))

    def _sub_platform(self, avail: np.ndarray) -> tuple[Platform, np.ndarray] | None:
        keep = np.flatnonzero(avail > _EPS * np.maximum(self.cap, 1.0))
        if keep.size == 0:
            return None
        bounds = self.plat.fraction * (self.plat.A @ avail)
        return self.plat.subset(keep, bounds), keep

    # --- task rates and segments -----------------------------------------------------------
    def _set_rate(self, task: _Task, rate: float, now: float) -> None:
        task.remaining = max(task.remaining - task.rate * (now - task.last), 0.0)
        task.last = now
        if abs(rate - task.rate) <= 1e-12 * max(rate, 1.0) and task.event is not None:
            return
        if now > task.seg_start:
            self.segments.append((task.job, task.idx, task.server, task.seg_start, now, task.rate, task.base))
        task.seg_start = now
        task.rate = rate
        if task.event is not None:
            self.events.cancel(task.event)
        task.event = self.events.schedule(now + task.remaining / rate, "finish", task, _FINISH)

    def _segment(self, task: _Task, now: float) -> None:
        self.segments.append((task.job, task.idx, task.server, task.seg_start, now, task.rate, task.base))

    def _drc(self, servers, now: float) -> None:
        """Alg. 5 on ``servers`` (or, when DRC is off, base rates only).

        Python floats throughout (``cap_list``): the same IEEE doubles as numpy's scalars, at a
        fraction of their cost (this runs at every task completion, for every task of the server)."""
        set_rate = self._set_rate
        for j in servers:
            tasks = self.on_server[j]
            if not tasks:
                continue
            residual = max(self.cap_list[j] - sum(t.base for t in tasks), 0.0) if self.drc else 0.0
            total = sum(t.leq for t in tasks)
            for t in tasks:
                set_rate(t, t.base + residual * t.leq / total, now)

    def _start_job(self, k: int, inst: Instance, sched, keep: np.ndarray, now: float) -> set[int]:
        self.start[k] = now
        self.planned[k] = sched.jct
        self.energy += sched.energy  # eq. 9; DRC changes rates, not α·Load/λ
        touched = set()
        for i, (js, c) in enumerate(zip(sched.server, sched.c, strict=True)):
            j = int(keep[js])
            task = _Task(k, i, j, float(c), float(inst.leq[i, js]), now)
            self.on_server[j].append(task)
            self.base_used[j] += c
            touched.add(j)
        return touched

    # --- scheduling ----------------------------------------------------------------------
    def _try(self, k: int, view) -> tuple[Instance, Any] | None:
        sub, keep = view
        inst = self._job_instance(self.jobs[k], sub, keep)
        try:
            return inst, solve(inst, self.algorithm, self.prm, self.rng)
        except RuntimeError:  # the LP found no solution: the job waits
            return None

    def _round(self, now: float) -> None:
        if not self.queue:
            return
        t0 = time.process_time()
        self.rounds += 1
        touched: set[int] = set()
        if self.policy == "ontapra":
            waiting = list(self.queue)  # arrival order = decreasing waiting time
            remain: list[int] = []
            while waiting:
                avail = self._available()
                view = self._sub_platform(avail) if self._mar_ok(avail) else None
                if view is None:
                    remain += waiting
                    break
                tried = {k: self._try(k, view) for k in waiting}
                remain += [k for k in waiting if tried[k] is None]
                waiting = [k for k in waiting if tried[k] is not None]
                if not waiting:
                    break
                best = min(waiting, key=lambda k: tried[k][1].jct)
                touched |= self._start_job(best, tried[best][0], tried[best][1], view[1], now)
                waiting.remove(best)
            self.queue = sorted(remain)
        else:
            order = list(self.queue)
            if self.policy in ("slf", "llf"):
                sign = 1.0 if self.policy == "slf" else -1.0
                order.sort(key=lambda k: (sign * self.jobs[k].total_load, k))
            started = set()
            view = None
            for k in order:
                if view is None:  # availability changed (or first job): rebuild the job's view
                    avail = self._available()
                    view = self._sub_platform(avail) if self._mar_ok(avail) else None
                    if view is None:
                        break
                got = self._try(k, view)
                if got is not None:
                    touched |= self._start_job(k, got[0], got[1], view[1], now)
                    started.add(k)
                    view = None
            self.queue = [k for k in self.queue if k not in started]
        self._drc(sorted(touched), now)  # untouched servers keep the same DRC shares
        self.runtime += time.process_time() - t0

    # --- event loop ----------------------------------------------------------------------
    def run(self, progress) -> None:
        ev = self.events
        for job in self.jobs:
            ev.schedule(job.arrival, "arrive", job.id, _ARRIVE)
        periodic = self.policy != "fcfs"
        period = self.prm.schedule_period_s
        if periodic and self.jobs:
            ev.schedule(np.ceil(self.jobs[0].arrival / period) * period, "tick", None, _TICK)
        done, total, step = 0, len(self.jobs), max(1, len(self.jobs) // 100)
        while len(ev):
            e = ev.pop()
            now = e.time
            if e.kind == "arrive":
                self.queue.append(e.data)
                self.pending_arrivals -= 1
                if not periodic:
                    self._round(now)
            elif e.kind == "finish":
                done += self._complete(e.data, now)
                if done % step == 0:
                    progress(0.95 * done / max(total, 1))
            else:
                self._round(now)
                nxt = self._next_tick(now, period)
                if nxt is not None:
                    ev.schedule(nxt, "tick", None, _TICK)

    def _next_tick(self, now: float, period: float) -> float | None:
        """Next multiple of ΔT worth visiting; None when nothing can change any more."""
        k = round(now / period)
        if self.queue and (self._busy() or self.pending_arrivals):
            return (k + 1) * period
        if self.pending_arrivals:
            arrival = self.jobs[len(self.jobs) - self.pending_arrivals].arrival
            return max(k + 1, int(np.ceil(arrival / period))) * period
        return None  # queue empty (or stuck with an idle data centre)

    def _busy(self) -> bool:
        return bool(self.base_used.sum() > _EPS)

    def _complete(self, task: _Task, now: float) -> int:
        task.remaining = 0.0
        self._segment(task, now)
        j = task.server
        self.on_server[j].remove(task)
        self.base_used[j] = max(self.base_used[j] - task.base, 0.0) if self.on_server[j] else 0.0
        t0 = time.process_time()
        self._drc([j], now)
        self.runtime += time.process_time() - t0
        self.left[task.job] -= 1
        finished = 0
        if self.left[task.job] == 0:
            self.finish[task.job] = now
            finished = 1
        if self.policy == "fcfs" and self.queue:
            self._round(now)
        return finished

    # --- output --------------------------------------------------------------------------
    def output(self) -> RunOutput:
        arrival = np.array([j.arrival for j in self.jobs])
        ok = ~np.isnan(self.finish)
        jct = self.finish[ok] - arrival[ok]
        wait = self.start[ok] - arrival[ok]
        ints = np.array([t[:3] for t in self.segments], dtype=np.int64).reshape(-1, 3)
        seg = np.array([t[3:] for t in self.segments], dtype=np.float64).reshape(-1, 4)
        series = power_series(seg[:, 0], seg[:, 1], seg[:, 2], self.alpha)
        t_run, running = step_series(self.start[ok], self.finish[ok], 1.0)
        end = float(self.finish[ok].max()) if ok.any() else 0.0
        busy = float(np.sum((seg[:, 1] - seg[:, 0]) * seg[:, 2]))
        metrics = {
            "avg_jct_s": float(jct.mean()) if jct.size else 0.0,
            "avg_wait_s": float(wait.mean()) if wait.size else 0.0,
            "total_scheduler_runtime_s": float(self.runtime),
            "avg_offline_jct_s": float(np.mean(self.planned[ok])) if ok.any() else 0.0,
            "max_jct_s": float(jct.max()) if jct.size else 0.0,
            "makespan_s": end,
            "utilization": float(busy / (self.cap.sum() * end)) if end > 0 else 0.0,
            "energy": float(self.energy),
            "jobs": len(self.jobs),
            "jobs_unscheduled": int((~ok).sum()),
            "scheduling_rounds": self.rounds,
        }
        names = self.plat.servers
        schedule = Columns()
        if self.prm.record_schedule:
            job_ids, job = np.unique(ints[:, 0], return_inverse=True)
            schedule = Columns(
                {
                    "job": coded(job.reshape(-1), [str(j) for j in job_ids.tolist()]),
                    "task": task_of(ints[:, 1]),
                    "resource": coded(ints[:, 2], names),
                    "start": seg[:, 0].copy(),
                    "end": seg[:, 1].copy(),
                    "share": seg[:, 2].copy(),
                    "kind": coded(np.where(seg[:, 2] > seg[:, 3] * (1 + 1e-9), 0, 1), ["drc", "task"]),
                    "base_share": seg[:, 3].copy(),
                }
            )
        jobs = [
            {
                "job": str(j.id),
                "arrival": j.arrival,
                "start": _num(self.start[k]),
                "finish": _num(self.finish[k]),
                "tasks": int(j.loads.size),
                "total_load": j.total_load,
                "planned_jct_s": _num(self.planned[k]),
                **({"status": "finished"} if ok[k] else {"status": "unfinished", "reason": UNFINISHED}),
            }
            for k, j in enumerate(self.jobs)
        ]
        caps = dict(zip(self.plat.servers, np.asarray(self.cap, dtype=float).tolist(), strict=True))
        return RunOutput(
            metrics=metrics,
            schedule=schedule,
            series=series,
            jobs=jobs,
            extra={
                "running_jobs": exact_series(t_run, {"running_jobs": running}),
                **({"resources": list(self.plat.servers), "capacities": caps} if self.prm.record_schedule else {}),
                "validity": spec(len(self.jobs), ["arrival"]),
            },  # every server (the Gantt's rows)
        )


UNFINISHED = "still queued when the simulation ended: no round found room for it"


def _num(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def run_online(cfg, plat: Platform, jobs: list[OnlineJob], algorithm: str, rng, progress) -> RunOutput:
    policy, alg = algorithm.split(":")
    drc = not policy.endswith("-ndrc")
    sim = OnlineSim(plat, jobs, policy.removesuffix("-ndrc"), alg, drc, cfg.params, cfg.workload, rng)
    sim.run(progress)
    return sim.output()
