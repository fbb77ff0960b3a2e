"""Family ``backfill``: EASY, KEASY, REASY and MEASY on a two-tier (fg/bg VM) machine.

Paper 001: X. Liu, B. Chen, X. Qiu, Y. Cai, K. Huang, "Scheduling parallel jobs
using migration and consolidation in the cloud", Mathematical Problems in
Engineering, 2012. FCFS and EASY run on a one-tier machine (easy.py); KEASY,
REASY and MEASY on the two-tier machine with the progress model of Section 3.2
(simulator.py, keasy.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from schedulers.backfill.model import ALGORITHMS, TWO_TIER, BackfillScenario, check
from schedulers.backfill.output import METRICS, SUMMARY_METRICS, Stretches, assemble
from schedulers.backfill.presets import PRESETS
from schedulers.registry import Family, Progress, RunOutput, register

if TYPE_CHECKING:
    from schedulers.backfill.workloads import Instance

__all__ = ["RUNNERS", "adopt", "example", "prepare", "simulate"]


def example() -> dict[str, Any]:
    """A small two-tier comparison on a Feitelson workload (< 2 s)."""
    return {
        "family": "backfill",
        "name": "EASY vs KEASY/REASY/MEASY, 200 Feitelson jobs on 64 processors",
        "seed": 1,
        "repetitions": 1,
        "algorithms": ["fcfs", "easy", "keasy", "reasy", "measy"],
        "datacenter": {"processors": 64},
        "workload": {
            "kind": "generator",
            "model": "feitelson",
            "n_jobs": 200,
            "load": 0.8,
            "feitelson": {"max_size": 64},
        },
        "params": {"migration_cost_s": 20.0},
    }


def prepare(cfg: BackfillScenario, rng: np.random.Generator) -> Instance:
    # imported on first use (start-up time: bench/startup.py)
    from schedulers.backfill.workloads import build_instance

    return build_instance(cfg, rng)


def simulate(
    cfg: BackfillScenario, inst: Instance, algorithm: str, rng: np.random.Generator, progress: Progress
) -> RunOutput:
    """Run one algorithm; the simulators are deterministic given the instance (``rng`` is unused)."""
    run = RUNNERS.get(algorithm)
    if run is None:  # a plug-in: a tier choice runs the two-tier passes, a queue order or backfill rule EASY's loop
        from schedulers.backfill.policy import TierChoice

        run = _two_tier if isinstance(_plugin(algorithm).obj, TierChoice) else _ordered
    return run(cfg, inst, algorithm, progress)


def _one_tier(cfg: BackfillScenario, inst: Instance, algorithm: str, progress: Progress) -> RunOutput:
    """FCFS or EASY on one tier (easy.py): the papers' loop."""
    from schedulers.backfill.easy import simulate_one_tier  # on first use (start-up time: bench/startup.py)

    res = simulate_one_tier(inst, backfill=algorithm == "easy", progress=progress,
                            processors=cfg.params.record_schedule)  # fmt: skip
    return _one_tier_output(cfg, inst, res)


def _ordered(cfg: BackfillScenario, inst: Instance, algorithm: str, progress: Progress) -> RunOutput:
    """EASY with a named queue order (``easy:<order>``) or a plug-in's order or backfill rule (ordered.py)."""
    return _one_tier_output(cfg, inst, _simulate_ordered(inst, algorithm, progress, cfg.params.record_schedule))


def _one_tier_output(cfg: BackfillScenario, inst: Instance, res: Any) -> RunOutput:
    st = Stretches()
    if cfg.params.record_schedule:
        for j, (s, e) in enumerate(zip(res.start.tolist(), res.end.tolist(), strict=True)):
            st.add(j, s, e, "fg", 1.0, res.alloc[j])
    series = {"busy_fg": res.series_busy, "busy_bg": [0] * len(res.series_t), "queue_length": res.series_queue}
    return assemble(cfg, inst, res.start, res.end, st, res.series_t, series, {})


def _two_tier(cfg: BackfillScenario, inst: Instance, algorithm: str, progress: Progress) -> RunOutput:
    """KEASY, REASY, MEASY (Algs. 1–3), or a plug-in's tier choice, on the two-tier machine (keasy.py)."""
    from schedulers.backfill.keasy import checked_choice, simulate_two_tier

    choice = background = None
    if algorithm not in TWO_TIER:
        plugin = _plugin(algorithm)
        choice = checked_choice(plugin, plugin.obj)
        background = _background_keys(inst, plugin)
    res = simulate_two_tier(inst, algorithm, cfg.params, progress=progress, choice=choice, background=background)
    series = {"busy_fg": res.series_fg, "busy_bg": res.series_bg, "queue_length": res.series_queue}
    return assemble(cfg, inst, res.first_start, res.end, res.stretches, res.series_t, series, res.counters)


# Every built-in algorithm's runner, with the family's one signature ``(cfg, instance, algorithm, progress)``.
RUNNERS = {
    "fcfs": _one_tier,
    "easy": _one_tier,
    **dict.fromkeys(TWO_TIER, _two_tier),
    **{name: _ordered for name in ALGORITHMS if name.startswith("easy:")},
}


def _simulate_ordered(inst: Instance, algorithm: str, progress: Progress, processors: bool):
    from schedulers.backfill.ordered import checked, checked_admit, simulate_ordered
    from schedulers.backfill.policy import ORDERS, Backfill

    admit = None
    if algorithm.startswith("easy:") and algorithm[5:] in ORDERS:
        order = ORDERS[algorithm[5:]]
        ask = order.key
    else:
        plugin = _plugin(algorithm)
        order = plugin.obj
        if isinstance(order, Backfill):  # a backfill rule, in a named order or its own
            admit = checked_admit(plugin, order)
            order = ORDERS[order.order] if isinstance(order.order, str) else order.order
        ask = order.key if any(order is o for o in ORDERS.values()) else checked(plugin, order)
    return simulate_ordered(inst, ask, order.dynamic, order.backfill, progress=progress, processors=processors,
                            admit=admit)  # fmt: skip


def _background_keys(inst: Instance, plugin) -> Any:
    """A tier choice's Step 3 keys, one per job (static: asked once); None for the papers' SJF (the estimates)."""
    from schedulers.backfill.ordered import checked, jobs_view
    from schedulers.backfill.policy import ORDERS

    order = plugin.obj.background
    if order == "sjf":
        return None
    ask = ORDERS[order].key if isinstance(order, str) else checked(plugin, order)
    return ask(float("nan"), jobs_view(inst, np.arange(len(inst))))


def _plugin(algorithm: str):
    from schedulers import plugins

    return plugins.lookup("backfill", algorithm)


def adopt(obj: Any) -> str:
    """A backfill plug-in is a :class:`~schedulers.backfill.policy.QueueOrder` or a
    :class:`~schedulers.backfill.policy.Backfill` rule for EASY, or a :class:`~schedulers.backfill.policy.TierChoice`
    for the two-tier passes (docs/extending.md)."""
    from schedulers.backfill.policy import ORDERS, Backfill, QueueOrder, TierChoice

    if not isinstance(obj, (QueueOrder, Backfill, TierChoice)):
        raise TypeError(f"a backfill plug-in is a schedulers.backfill.policy.QueueOrder (@queue_order), Backfill "
                        f"(@backfill_rule) or TierChoice (@tier_choice), not {type(obj).__name__}")  # fmt: skip
    if isinstance(obj, Backfill) and not isinstance(obj.order, QueueOrder) and obj.order not in ORDERS:
        raise ValueError(f"order {obj.order!r}: one of {', '.join(ORDERS)}, or a QueueOrder")
    if isinstance(obj, TierChoice):
        bg = obj.background
        static = [n for n, o in ORDERS.items() if not o.dynamic]
        if bg.dynamic if isinstance(bg, QueueOrder) else bg not in static:
            raise ValueError(f"background order {getattr(bg, 'description', bg)!r}: one of {', '.join(static)}, or "
                             "a static QueueOrder (dynamic=False): Step 3's keys are computed once per run")  # fmt: skip
    return obj.description


# Params drawn per job by workloads.build_instance (eqs. 3.1-3.2): the instance depends on them.
WORKLOAD_PARAMS = ("fg_loss_min", "fg_loss_max", "eff_single_min", "eff_single_max",
                   "eff_multi_mean", "eff_multi_std", "eff_multi_min", "eff_multi_max")  # fmt: skip

register(
    Family(
        name="backfill",
        description="Parallel-job backfilling with migration and consolidation on fg/bg VMs (Liu et al. 2012)",
        scenario_model=BackfillScenario,
        algorithms=ALGORITHMS,
        example=example,
        prepare=prepare,
        simulate=simulate,
        presets=PRESETS,
        summary_metrics=SUMMARY_METRICS,
        metrics=METRICS,
        check=check,
        workload_params=WORKLOAD_PARAMS,
        adopt=adopt,
    )
)
