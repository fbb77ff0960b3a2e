"""``ep_jobs``: energy-aware scheduling of embarrassingly parallel jobs (Shi, Zhang & Robertazzi).

Offline (one job): TaPRA, TaPRA-fast, Min-Min, MM-GA, GSA with the SJS-Relax-LP bound.
Online (arriving jobs): OnTaPRA, FCFS, SLF, LLF, each with DRC on or off and any per-job
algorithm, e.g. ``"ontapra:tapra_fast"`` or ``"fcfs-ndrc:gsa"``.

>>> import schedulers
>>> result = schedulers.run({"family": "ep_jobs"})  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from schedulers.core.metrics import Metric
from schedulers.ep_jobs.instance import Instance, Platform
from schedulers.ep_jobs.model import ALGORITHMS, EpJobsScenario, check
from schedulers.ep_jobs.presets import PRESETS
from schedulers.registry import Family, RunOutput, register

if TYPE_CHECKING:
    from schedulers.ep_jobs.workloads import OnlineJob

__all__ = ["Instance", "OnlineInstance", "Platform", "prepare", "simulate"]


@dataclass
class OnlineInstance:
    platform: Platform
    jobs: list[OnlineJob]


def prepare(cfg: EpJobsScenario, rng: np.random.Generator) -> Instance | OnlineInstance:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.ep_jobs.workloads import build_platform, offline_instance, online_jobs

    plat = build_platform(cfg.datacenter, rng)
    if cfg.workload.kind.startswith("online"):
        return OnlineInstance(plat, online_jobs(cfg.workload, plat.n_servers, rng))
    return offline_instance(cfg.workload, plat, rng)


def simulate(cfg: EpJobsScenario, instance: Any, algorithm: str, rng: np.random.Generator, progress) -> RunOutput:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.ep_jobs.offline import run_offline
    from schedulers.ep_jobs.simulator import run_online

    if isinstance(instance, OnlineInstance):
        return run_online(cfg, instance.platform, instance.jobs, algorithm, rng, progress)
    return run_offline(cfg, instance, algorithm, rng, progress)


def example() -> dict[str, Any]:
    return {
        "family": "ep_jobs",
        "name": "TaPRA vs baselines, 40 tasks on a 6-ary FatTree",
        "seed": 1,
        "datacenter": {"kind": "fattree", "pods": 6},
        "workload": {"kind": "generator", "tasks": 40},
        "algorithms": ["tapra", "tapra_fast", "min_min", "mm_ga", "gsa"],
        "params": {"ga_generations": 30},
    }


# Every metric of an offline (run_offline) or online (simulator) run, its kind and unit. Energy is
# eq. 9's Σ α·Load/λ, in J with α read as W per vCPU (docs/ep_jobs.md, "Units").
METRICS = {
    "jct_s": Metric("duration", "s", "JCT", "job completion time, max over constraints of S_k/B_k (eq. 16)"),
    "lp_bound_s": Metric("duration", "s", "LP bound on JCT", "relaxed LP (column generation)"),
    "jct_over_lp_bound": Metric("ratio", "", "JCT / LP bound"),
    "allocated_vcpus": Metric("quantity", "vCPU", "allocated vCPUs", "Σ c_i"),
    "energy": Metric("energy", "J", "energy", "eq. 9: Σ α·Load_i/λ (α in W per vCPU)"),
    "energy_limit": Metric("energy", "J", "energy limit E_MAX", "requested limit (eq. 9)"),
    "energy_limit_met": Metric("flag", "", "energy limit met", "energy ≤ the requested E_MAX"),
    "algorithm_runtime_s": Metric("duration", "s", "algorithm CPU time"),
    "task_moves": Metric("count", "", "task moves"),
    "tasks": Metric("count", "", "tasks"),
    "servers": Metric("count", "", "servers"),
    "avg_jct_s": Metric("duration", "s", "avg JCT", "arrival → completion (eq. 59)"),
    "avg_wait_s": Metric("duration", "s", "avg wait"),
    "total_scheduler_runtime_s": Metric("duration", "s", "scheduler CPU time", "summed over rounds"),
    "avg_offline_jct_s": Metric("duration", "s", "avg planned JCT", "the JCT planned at each job's start"),
    "max_jct_s": Metric("duration", "s", "max JCT"),
    "makespan_s": Metric("duration", "s", "makespan"),
    "utilization": Metric("fraction", "", "utilization"),
    "jobs": Metric("count", "", "jobs"),
    "jobs_unscheduled": Metric("count", "", "jobs unscheduled"),
    "scheduling_rounds": Metric("count", "", "scheduling rounds"),
}


def adopt(obj: Any) -> str:
    """An ep_jobs plug-in is a :class:`~schedulers.ep_jobs.policy.TaskPlacement` (docs/extending.md)."""
    from schedulers.ep_jobs.policy import TaskPlacement

    if not isinstance(obj, TaskPlacement):
        raise TypeError(f"an ep_jobs plug-in is a schedulers.ep_jobs.policy.TaskPlacement (@task_placement), "
                        f"not {type(obj).__name__}")  # fmt: skip
    return obj.description + " (offline, OptRA shares)"


register(
    Family(
        name="ep_jobs",
        description="Energy-aware scheduling of embarrassingly parallel jobs: TaPRA, TaPRA-fast, OnTaPRA (Shi et al.)",
        scenario_model=EpJobsScenario,
        algorithms=ALGORITHMS,
        example=example,
        prepare=prepare,
        simulate=simulate,
        presets=PRESETS,
        summary_metrics=(
            "jct_s",
            "allocated_vcpus",
            "energy",
            "algorithm_runtime_s",
            "lp_bound_s",
            "avg_jct_s",
            "avg_wait_s",
            "total_scheduler_runtime_s",
        ),
        metrics=METRICS,
        check=check,
        adopt=adopt,
    )
)
