"""Offline runs (Section 6.1): one job, one algorithm, metrics of Section 6.1.2.

``solve(inst, name, params, rng)`` is the single front door to the five per-job algorithms,
used by the offline runs and by the online schedulers alike.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from schedulers.core.columns import Columns, coded, task_of
from schedulers.core.series import exact_series, step_series
from schedulers.core.validity import spec
from schedulers.ep_jobs.genetic import GaParams, gsa, mm_ga
from schedulers.ep_jobs.instance import RTOL, Instance, static_view
from schedulers.ep_jobs.lp import solve_relax_lp
from schedulers.ep_jobs.minmin import min_min
from schedulers.ep_jobs.tapra import Schedule, finish, tapra, tapra_fast
from schedulers.registry import RunOutput

__all__ = ["ga_params", "power_series", "run_offline", "solve"]


def ga_params(prm) -> GaParams:
    return GaParams(
        population=prm.ga_population,
        generations=prm.ga_generations,
        crossover_rate=prm.ga_crossover_rate,
        mutation_rate=prm.ga_mutation_rate,
        elite=prm.ga_elite,
        sa_steps=prm.sa_steps,
        sa_t0=prm.sa_t0,
        sa_cooling=prm.sa_cooling,
    )


BASELINES = ("min_min", "mm_ga", "gsa")


def solve(inst: Instance, name: str, prm, rng: np.random.Generator, progress=None) -> Schedule:
    """Run per-job algorithm ``name`` (a key of :data:`.scenario.OFFLINE`) on ``inst``.

    The baselines place tasks for, and are scored with, the allocation of
    ``params.baseline_allocation``: static per-server shares (default, see
    :func:`.model.static_view`) or OptRA's eq. 16 like TaPRA.
    """
    moves = prm.max_moves or None
    if name == "tapra":
        return tapra(inst, prm.lp_form, moves)
    if name == "tapra_fast":
        return tapra_fast(inst, moves)
    if name in BASELINES and prm.baseline_allocation == "static":
        inst = static_view(inst)
    if name == "min_min":
        return min_min(inst)
    if name == "mm_ga":
        return mm_ga(inst, rng, ga_params(prm), progress)
    if name == "gsa":
        return gsa(inst, rng, ga_params(prm), progress)
    from schedulers import plugins  # a plug-in's placement with OptRA's shares (policy.py)
    from schedulers.ep_jobs.policy import checked

    try:
        plugin = plugins.lookup("ep_jobs", name)
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}") from None
    return finish(inst, checked(plugin, plugin.obj)(inst))


def power_series(start, end, vcpus, alpha) -> dict[str, list[float]]:
    """Allocated vCPUs, power (W) and cumulative energy (J) of tasks holding ``vcpus[i]`` on ``[start[i], end[i])``.

    Eq. 7: a VM given c vCPUs draws ``P = α·c`` (α in W per vCPU), so a task's energy
    ``α·c·et`` is eq. 8's ``α·Load/λ`` and ∫ power dt over the run is the ``energy``
    metric (eq. 9; in J). Every change point is kept (``core.series.exact_series``).
    """
    vcpus = np.asarray(vcpus, dtype=float)
    watts = np.broadcast_to(np.asarray(alpha, dtype=float), vcpus.shape) * vcpus
    t, allocated = step_series(start, end, vcpus)
    _, power = step_series(start, end, watts)
    return exact_series(t, {"allocated_vcpus": allocated, "power_w": power}, power="power_w")


def _lp_bound(inst: Instance, sched: Schedule, prm) -> float | None:
    if sched.lp is not None:
        return sched.lp.t
    if not prm.compute_lp_bound:
        return None
    cached = getattr(inst, "_lp_bound", None)
    if cached is None:
        cached = solve_relax_lp(inst, prm.lp_form).t
        inst._lp_bound = cached
    return cached


_WARM: set[str] = set()  # the algorithms already run once in this process
WARM_UP = ("tapra", "tapra_fast", "min_min")  # milliseconds each: a first call's start-up cost would dominate


def run_offline(cfg, inst: Instance, algorithm: str, rng: np.random.Generator, progress) -> RunOutput:
    prm = cfg.params
    if algorithm in WARM_UP and algorithm not in _WARM:
        # The first call in a process pays for lazy imports and first allocations (TaPRA's first unit once
        # timed 78 ms against 5 ms after): run it once untimed, on a copy of the stream so the result is the same.
        solve(inst, algorithm, prm, copy.deepcopy(rng), lambda *a: None)
        _WARM.add(algorithm)
    t0 = time.process_time()  # CPU time: stable on a shared machine, unlike wall time
    sched = solve(inst, algorithm, prm, rng, progress)
    runtime = time.process_time() - t0
    progress(0.9)
    metrics: dict[str, Any] = {
        "jct_s": float(sched.jct),
        "allocated_vcpus": float(sched.c.sum()),
        "energy": float(sched.energy),
        "energy_limit": float(inst.e_max),
        "energy_limit_met": float(sched.energy <= inst.e_max * (1 + RTOL)),
        "algorithm_runtime_s": float(runtime),
        "task_moves": int(sched.moves),
        "tasks": inst.n_tasks,
        "servers": inst.platform.n_servers,
    }
    bound = _lp_bound(inst, sched, prm)
    if bound is not None:
        metrics["lp_bound_s"] = float(bound)
        metrics["jct_over_lp_bound"] = float(sched.jct / bound) if bound > 0 else 1.0
    names = inst.platform.servers
    schedule = Columns()
    if prm.record_schedule:
        n = inst.n_tasks
        schedule = Columns(
            {
                "job": coded(np.zeros(n, dtype=np.int32), [inst.job]),
                "task": task_of(np.arange(n)),
                "resource": coded(np.asarray(sched.server), names),
                "start": np.zeros(n),
                "end": np.asarray(sched.et, dtype=float),
                "share": np.asarray(sched.c, dtype=float),
                "kind": coded(np.zeros(n, dtype=np.int32), ["task"]),
                "load": np.asarray(inst.loads, dtype=float),
            }
        )
    series = power_series(np.zeros(inst.n_tasks), sched.et, sched.c, inst.alpha)
    jobs = [{"job": inst.job, "tasks": inst.n_tasks, "jct_s": float(sched.jct), "energy": float(sched.energy),
             "arrival": 0.0, "status": "finished"}]  # fmt: skip
    extra = {"resources": list(names)} if prm.record_schedule else {}  # every server, idle ones too (the Gantt's rows)
    # one job, all its tasks at once from t = 0, each server within its capacity C_sj (vCPUs)
    if prm.record_schedule:
        extra["capacities"] = dict(zip(names, np.asarray(inst.platform.capacity, dtype=float).tolist(), strict=True))
    extra["validity"] = spec(1, ["arrival"])
    return RunOutput(metrics=metrics, schedule=schedule, series=series, jobs=jobs, extra=extra)
