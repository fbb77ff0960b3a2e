"""``dvfs_bot``: cloud-aware DVFS scheduling of urgent bags of tasks (Calheiros & Buyya, paper 002).

Algorithms: ``cloud_aware`` (Alg. 1) and ``baseline`` (Sec. V-A), both in
:mod:`schedulers.dvfs_bot.cloud_aware`; the simulator is
:mod:`schedulers.dvfs_bot.simulator`, the host power model
:mod:`schedulers.dvfs_bot.datacenter`, the Iosup workload
:mod:`schedulers.dvfs_bot.workloads`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from schedulers.dvfs_bot.datacenter import Datacenter, build_datacenter
from schedulers.dvfs_bot.model import ALGORITHMS, DvfsScenario, check, example
from schedulers.dvfs_bot.output import METRICS, SUMMARY_METRICS, build_output, validity_spec
from schedulers.dvfs_bot.presets import PRESETS
from schedulers.registry import Family, RunOutput, register

if TYPE_CHECKING:
    from schedulers.dvfs_bot.workloads import Workload

__all__ = ["Instance", "prepare", "simulate"]


@dataclass
class Instance:
    datacenter: Datacenter
    workload: Workload


def prepare(cfg: DvfsScenario, rng: np.random.Generator) -> Instance:
    """One repetition's data centre and workload, shared by every algorithm."""
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.dvfs_bot.workloads import build_workload

    return Instance(build_datacenter(cfg.datacenter), build_workload(cfg.workload, rng))


def simulate(cfg: DvfsScenario, instance: Instance, algorithm: str, rng: np.random.Generator, progress) -> RunOutput:
    """Run one algorithm; ``rng`` is unused (both algorithms are deterministic)."""
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.dvfs_bot.simulator import simulate_jobs

    choose = None
    if algorithm not in ("cloud_aware", "baseline"):  # a plug-in's VM choice over Alg. 1's scores (policy.py)
        from schedulers import plugins
        from schedulers.dvfs_bot.policy import checked

        plugin = plugins.lookup("dvfs_bot", algorithm)
        choose = checked(plugin, plugin.obj)
    t0 = time.process_time()  # CPU time: stable on a shared machine, unlike wall time
    horizon = cfg.params.deadline_horizon_h
    res = simulate_jobs(
        instance.datacenter,
        instance.workload,
        algorithm != "baseline",
        progress,
        None if horizon is None else horizon * 3600.0,
        choose,
    )
    res.scheduler_time_s = time.process_time() - t0
    metrics, schedule, series, jobs = build_output(
        instance.workload, res, instance.datacenter, cfg.params.series_points, cfg.params.record_schedule
    )
    progress(1.0)
    # One task at a time per VM: lets generic checkers (the result page's validity badge) verify it.
    extra = {"capacities": {f"vm{v}": 1.0 for v in range(instance.datacenter.n_vms)}} if schedule else {}
    if schedule:  # every VM of the data centre with its host, idle ones too (the Gantt's rows and groups)
        extra["resources"] = {f"vm{v}": f"h{int(h)}" for v, h in enumerate(instance.datacenter.vm_host.tolist())}
    extra["validity"] = validity_spec(instance.workload)
    return RunOutput(metrics=metrics, schedule=schedule, series=series, jobs=jobs, extra=extra)


def adopt(obj: Any) -> str:
    """A dvfs_bot plug-in is a :class:`~schedulers.dvfs_bot.policy.VmChoice` (docs/extending.md)."""
    from schedulers.dvfs_bot.policy import VmChoice

    if not isinstance(obj, VmChoice):
        raise TypeError(f"a dvfs_bot plug-in is a schedulers.dvfs_bot.policy.VmChoice (@vm_choice), "
                        f"not {type(obj).__name__}")  # fmt: skip
    return obj.description


register(
    Family(
        name="dvfs_bot",
        description="Energy-efficient DVFS scheduling of urgent bag-of-tasks jobs (Calheiros & Buyya)",
        scenario_model=DvfsScenario,
        algorithms=ALGORITHMS,
        example=example,
        prepare=prepare,
        simulate=simulate,
        presets=PRESETS,
        summary_metrics=SUMMARY_METRICS,
        metrics=METRICS,
        check=check,
        adopt=adopt,
    )
)
