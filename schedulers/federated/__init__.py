"""Family ``federated``: preemptable DAG tasks on federated IaaS clouds.

Li, Qiu, Ming, Quan, Qin, Gu, "Online optimization for scheduling preemptable tasks on
IaaS cloud systems", JPDC 72 (2012). Clouds with manager servers, DAG applications with
advance-reservation (AR) and best-effort tasks, preemption of best-effort tasks by AR
tasks, CLS (Algs. 1-2), CMMS (Alg. 3), DCLS/DCMMS with the feedback factor (eqs. 5-8),
energy-aware local mapping (Algs. 4-5), FCFS and round-robin baselines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from schedulers.federated.checks import check
from schedulers.federated.model import ALGORITHMS, FederatedScenario
from schedulers.federated.output import METRICS, SUMMARY_METRICS, build_output
from schedulers.federated.presets import PRESETS
from schedulers.registry import Family, RunOutput, register

if TYPE_CHECKING:
    from schedulers.federated.workloads import Instance

__all__ = ["FAMILY", "adopt", "example", "prepare", "simulate"]


def example() -> dict[str, Any]:
    """Three small clouds, twelve applications of up to eight tasks, 25% AR."""
    return {
        "family": "federated",
        "name": "federated example",
        "seed": 7,
        "datacenter": {
            "clouds": [
                {"name": "thunder", "servers": 16, "server_capacity": 4, "perf": 1.0},
                {"name": "atlas", "servers": 8, "server_capacity": 8, "perf": 0.85},
                {"name": "ubgl", "servers": 32, "server_capacity": 2, "perf": 0.5},
            ]
        },
        "workload": {
            "kind": "generator",
            "apps": 12,
            "tasks_min": 3,
            "tasks_max": 8,
            "mean_gap_s": 300.0,
            "vms_max": 16,
            "ar_share": 0.25,
            "dataset_size_gb": 50.0,
        },
        "algorithms": ["fcfs", "round_robin", "cls", "cmms", "dcls", "dcmms"],
    }


def prepare(cfg: FederatedScenario, rng: np.random.Generator) -> Instance:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.federated.workloads import build_instance

    return build_instance(cfg, rng)


def simulate(cfg: FederatedScenario, inst: Instance, algorithm: str, rng: np.random.Generator, progress) -> RunOutput:
    """Run ``algorithm`` on ``inst``; every algorithm here is deterministic given the instance."""
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.federated.simulator import Simulation

    sim = Simulation(cfg, inst, algorithm, progress)
    sim.run()
    out = build_output(sim)
    progress(1.0)
    return out


def adopt(obj: Any) -> str:
    """A federated plug-in is a :class:`~schedulers.federated.policy.CloudChoice` (docs/extending.md)."""
    from schedulers.federated.policy import CloudChoice

    if not isinstance(obj, CloudChoice):
        raise TypeError(f"a federated plug-in is a schedulers.federated.policy.CloudChoice (@cloud_choice), "
                        f"not {type(obj).__name__}")  # fmt: skip
    return obj.description


FAMILY = register(
    Family(
        name="federated",
        description="Preemptable DAG tasks on federated IaaS clouds (Li et al. 2012: CLS, CMMS, DCLS, DCMMS)",
        scenario_model=FederatedScenario,
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
