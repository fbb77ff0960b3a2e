"""vm_reservations: energy-efficient scheduling of VM reservations (paper 003, Tian et al.).

MinTEC: place interval requests [start, end, demand] on PMs of capacity g so
that the total energy α·T + β·L (eq. 11) is minimal. Algorithms: the Theorem 1
lower bound reached with migrations (OPT-Min-Migration, Alg. 2.1, a greedy
migration count; min_migration, the exact fewest migrations for small
instances), LLIF (Alg. 3.1), FFD, EST, MFFDE, and an exact MILP without
migration for small instances.
"""

from __future__ import annotations

from typing import Any

from schedulers.core.metrics import Metric
from schedulers.registry import Family, register
from schedulers.vm_reservations.model import ALGORITHMS, Scenario, check
from schedulers.vm_reservations.presets import PRESETS

__all__ = ["FAMILY", "adopt"]

SUMMARY_METRICS = (
    "energy_kwh",
    "power_on_time_min",
    "pms_used",
    "migrations",
    "lower_bound_power_on_time_min",
    "lower_bound_energy_kwh",
    "power_on_ratio_to_bound",
    "algorithm_runtime_s",
)

# Every metric of a run (output.metrics_of), its kind and unit. Power-on time is PM-minutes summed over PMs.
METRICS = {
    "energy_kwh": Metric("energy", "kWh", "energy", "P_min × power-on time + (P_max − P_min) × work"),
    "lower_bound_energy_kwh": Metric("energy", "kWh", "energy lower bound", "Theorem 5"),
    "energy_ratio_to_bound": Metric("ratio", "", "energy / bound"),
    "power_on_time_min": Metric("duration", "min", "PM power-on time", "summed over PMs"),
    "lower_bound_power_on_time_min": Metric("duration", "min", "power-on lower bound", "Theorem 5"),
    "power_on_ratio_to_bound": Metric("ratio", "", "power-on time / bound"),
    "pms_used": Metric("count", "", "PMs used"),
    "migrations": Metric("count", "", "migrations"),
    "requests": Metric("count", "", "VM requests"),
    "algorithm_runtime_s": Metric("duration", "s", "algorithm CPU time", "best of a few placements"),
    "exact_optimal": Metric("flag", "", "proved optimal", "the exact solver closed the gap (zero) in its time limit"),
    "exact_gap_power_on_min": Metric(
        "duration", "min", "power-on gap to the optimum", "power-on time minus a proven lower bound (0: optimal)"
    ),
    "exact_gap_migrations": Metric(
        "count", "", "migration gap to the minimum", "migrations minus a proven lower bound (0: optimal)"
    ),
}


def prepare(cfg: Scenario, rng: Any) -> Any:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.vm_reservations.workloads import build_instance

    return build_instance(cfg, rng)


def simulate(cfg: Scenario, inst: Any, algorithm: str, rng: Any, progress: Any) -> Any:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.vm_reservations.simulator import simulate as run

    return run(cfg, inst, algorithm, rng, progress)


def adopt(obj: Any) -> str:
    """A vm_reservations plug-in is a :class:`~schedulers.vm_reservations.policy.PmChoice` (docs/extending.md)."""
    from schedulers.vm_reservations.policy import ORDERS, PmChoice

    if not isinstance(obj, PmChoice):
        raise TypeError(f"a vm_reservations plug-in is a schedulers.vm_reservations.policy.PmChoice (@pm_choice), "
                        f"not {type(obj).__name__}")  # fmt: skip
    if not callable(obj.order) and obj.order not in ORDERS:
        raise ValueError(f"order {obj.order!r}: one of {', '.join(ORDERS)}, or a key function")
    return obj.description


def example() -> dict[str, Any]:
    return {
        "family": "vm_reservations",
        "name": "200 EC2 reservations, max duration 50 slots",
        "seed": 1,
        "repetitions": 2,
        "algorithms": ["opt_min_migration", "llif", "ffd", "est", "mffde"],
        "workload": {"kind": "generator", "n_requests": 200, "max_duration_slots": 50},
    }


FAMILY = register(
    Family(
        name="vm_reservations",
        description="Energy-efficient VM reservations (MinTEC): lower bound, OPT-Min-Migration, LLIF, FFD, EST, MFFDE",
        scenario_model=Scenario,
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
