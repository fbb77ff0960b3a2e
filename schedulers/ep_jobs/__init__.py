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

from schedulers.ep_jobs.model import Instance, Platform
from schedulers.ep_jobs.presets import PRESETS
from schedulers.ep_jobs.scenario import ALGORITHMS, EpJobsScenario, check
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
        check=check,
    )
)
