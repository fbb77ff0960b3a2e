"""Paper-figure experiments of paper 002, Section V: Table I, Table II and Fig. 2 (a, b).

Every study runs the 12 workloads (or the 6 of one urgency share) on 200 IBM
x3250 M3 hosts × 4 cores = 800 VMs, both algorithms, 10 repetitions, as the
paper did. Workloads are labelled (α, β) as in the paper: Weibull shape α and
scale β seconds of the inter-arrival time (see workloads.py for that reading).

Extremes are bounded the way we believe the paper's simulation did: a job whose
deadline falls after the 24-hour day is rejected before Alg. 1 runs
(``params.deadline_horizon_h = 24``), so no accepted task runs longer than a day,
and the runtime exponent is otherwise left nearly untruncated ([−20, 20], ±2.8σ).
This reproduces Table II's load-independent ≈29.6 % rejection floor (we measure
≈29 % on the light and medium workloads), which the generator's stand-alone
truncation to [−6, 8] does not: with it only ratio < 1 jobs are infeasible
(≈2 % / 4 %). The hypothesis is ours; the paper does not say why a third of the
requests are infeasible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedulers.core.claims import (
    Claim,
    Note,
    Quantity,
    aggregate,
    all_of,
    at_every_point,
    compare_points,
    difference,
    over_points,
    reduction,
    value,
)

__all__ = ["PRESETS", "READINGS", "SMALL", "TABLE1_JOBS", "TABLE2_REJECTION", "WORKLOADS"]

PAPER_VMS = 800
SMALL_FACTOR = 10


def _small(scenario: dict[str, Any]) -> dict[str, Any]:
    for ht in scenario["datacenter"]["host_types"]:
        ht["count"] = max(1, ht["count"] // SMALL_FACTOR)
    scenario["workload"]["iat_scale_s"] *= SMALL_FACTOR
    scenario["repetitions"] = 1
    return scenario


SMALL = {
    "note": f"{SMALL_FACTOR}× fewer hosts (20 hosts, 80 VMs) and a {SMALL_FACTOR}× larger inter-arrival scale β, "
    "so the load per VM and the 24-hour day are the paper's with a tenth of the jobs; 1 repetition instead "
    "of 10. Job counts are compared with Table I after scaling back to 800 VMs.",
    "shrink": _small,
}

READINGS = [
    "Workloads are labelled (α, β) as in the paper and read as Weibull shape α and scale β seconds of the "
    "inter-arrival time (the paper gives the pairs, not the law's parameterisation).",
    "A job whose deadline falls after the 24-hour day is rejected before Alg. 1 runs "
    "(`params.deadline_horizon_h = 24`) and the runtime exponent is left nearly untruncated ([−20, 20]): this "
    "reproduces Table II's load-independent ≈29.6 % rejection floor, which the paper does not explain.",
    "Rejection rates are compared with Table II within ±2 points, job counts with Table I within ±3 %.",
    '"Equal or slightly lower" rejection is read as cloud-aware minus baseline between −2 and +0.1 points '
    "on every workload.",
    '"A big impact of the workload on the saving" is read as savings that differ by at least 10 points '
    "across the six workloads of a panel.",
]

WORKLOADS = [(4.25, 15.72), (4.25, 3.93), (4.25, 7.86), (8.5, 15.72), (8.5, 3.93), (8.5, 7.86)]
URGENT = (0.2, 0.5)

# Table I: average number of jobs, keyed by (α, β, urgent share).
TABLE1_JOBS = {
    (4.25, 15.72, 0.2): 6040.9,
    (4.25, 15.72, 0.5): 6041.0,
    (8.5, 15.72, 0.2): 5818.5,
    (8.5, 15.72, 0.5): 5823.2,
    (4.25, 3.93, 0.2): 24163.2,
    (4.25, 3.93, 0.5): 24170.0,
    (8.5, 3.93, 0.2): 23285.9,
    (8.5, 3.93, 0.5): 23313.8,
    (4.25, 7.86, 0.2): 12099.4,
    (4.25, 7.86, 0.5): 12085.9,
    (8.5, 7.86, 0.2): 11636.4,
    (8.5, 7.86, 0.5): 11637.7,
}

# Table II: rejection rates (baseline, cloud-aware), keyed by (α, β, urgent share).
TABLE2_REJECTION = {
    (4.25, 15.72, 0.2): (0.296, 0.296),
    (4.25, 3.93, 0.2): (0.433, 0.432),
    (4.25, 7.86, 0.2): (0.296, 0.296),
    (8.5, 15.72, 0.2): (0.296, 0.296),
    (8.5, 3.93, 0.2): (0.417, 0.416),
    (8.5, 7.86, 0.2): (0.294, 0.294),
    (4.25, 15.72, 0.5): (0.275, 0.275),
    (4.25, 3.93, 0.5): (0.521, 0.518),
    (4.25, 7.86, 0.5): (0.330, 0.329),
    (8.5, 15.72, 0.5): (0.277, 0.277),
    (8.5, 3.93, 0.5): (0.504, 0.503),
    (8.5, 7.86, 0.5): (0.312, 0.309),
}


def scenario(alpha: float, beta: float, urgent: float, repetitions: int = 10, seed: int = 2013) -> dict[str, Any]:
    """One Section V workload on the paper's 800-VM data centre, both algorithms."""
    return {
        "family": "dvfs_bot",
        "name": _label(alpha, beta, urgent),
        "seed": seed,
        "repetitions": repetitions,
        "algorithms": ["cloud_aware", "baseline"],
        "datacenter": {"host_types": [{"name": "ibm_x3250_m3", "count": 200, "cores": 4}]},
        "workload": {
            "kind": "generator",
            "duration_h": 24.0,
            "iat_shape": alpha,
            "iat_scale_s": beta,
            "urgent_fraction": urgent,
            "runtime_log2_min": -20.0,
            "runtime_log2_max": 20.0,
        },
        "params": {"record_schedule": False, "deadline_horizon_h": 24.0},
    }


SAVING = reduction("energy_kwh", "cloud_aware", "baseline")
HEAVY_NOTE = (
    "At heavy load (β = 3.93) our jobs demand more than the paper's set-up absorbed. Swapping the task-count "
    "Weibull parameters brings the rejections to 37–40 % but pushes light-load savings to 46–48 % (paper scale, "
    "docs/dvfs_bot.md); we kept the order that matches Table I."
)
_SEEDS = "seeds 2013–2017 at small scale, docs/dvfs_bot.md"
# Why the medium-load, 50 %-urgent rows reject what they do, measured at paper scale over 10 repetitions (the
# preset's; bench/dvfs_bot.py --breakdown A,B,U), each rejected job put in one class: ratio < 1, due after the
# day, or refused for load.
MEDIUM_50_NOTE = (
    "At paper scale over the preset's 10 repetitions (bench/dvfs_bot.py --breakdown): (8.5, 7.86) 32.9 % / 33.2 % "
    "vs the paper's 31.2 / 30.9 %, (4.25, 7.86) 34.6 % / 34.7 % vs 33.0 / 32.9 %. The gap is the rejection floor "
    "(deadline ratios < 1 and deadlines after the day), not the scheduler, and no reading of the deadline-ratio "
    "uniform fits every row of Table II (docs/dvfs_bot.md, 'The medium-load, 50 %-urgent rows'); the literal "
    "reading is kept."
)


# Table II rows the small-scale run misses outside the heavy load: one repetition of ≈ 600 (β = 15.72) or
# ≈ 1160 (β = 7.86) jobs, whose rejection rate moves with the seed by more than the ±2-point tolerance.
def _measured(alpha: float, beta: float, urgent: float) -> dict[str, Any]:
    """Fields of a Table II note: this run's rejection rates at the workload, the gap to the paper, the jobs."""
    base, ca = TABLE2_REJECTION[(alpha, beta, urgent)]

    def at() -> str:
        return _label(alpha, beta, urgent)  # defined below: the label of the workload's point

    def gap(t: Any) -> str:
        d = [100 * (t.get(at(), a, "rejection_rate") - x) for a, x in (("baseline", base), ("cloud_aware", ca))]
        return " / ".join(f"{x:+.1f}" for x in d)

    return {
        "b": lambda t: t.get(at(), "baseline", "rejection_rate"),
        "c": lambda t: t.get(at(), "cloud_aware", "rejection_rate"),
        "gap": gap,
        "jobs": lambda t: t.get(at(), "cloud_aware", "jobs"),
        "reps": lambda t: int(t.config(at()).get("repetitions", 1)),
    }


_NOISE_LEAD = (
    "We measure {b:.1%} (baseline) and {c:.1%} (cloud-aware), {gap} points from the paper, over {reps} "
    "repetition(s) of ≈ {jobs:,.0f} jobs. "
)


def _noise(alpha: float, beta: float, urgent: float, rest: str) -> Note:
    return Note(_NOISE_LEAD + rest.replace("{", "{{").replace("}", "}}"), _measured(alpha, beta, urgent))


# Table II rows a one-repetition run can miss outside the heavy load: the rejection rate of ≈ 600 (β = 15.72)
# or ≈ 1160 (β = 7.86) jobs moves with the seed by more than the ±2-point tolerance.
SMALL_NOISE_NOTES = {
    (4.25, 15.72, 0.2): _noise(4.25, 15.72, 0.2, "One repetition's share of infeasible jobs moves with the seed "
                               f"(25.2–31.1 %, {_SEEDS}); one repetition at paper scale gave 28.4 % (bench/dvfs_bot.py "
                               "--paper 1), within tolerance."),
    (8.5, 15.72, 0.2): _noise(8.5, 15.72, 0.2, "One repetition's share of infeasible jobs moves with the seed "
                              f"(25.7–30.5 %, {_SEEDS}); one repetition at paper scale gave 28.8 % (bench/dvfs_bot.py "
                              "--paper 1), within tolerance."),
    (8.5, 15.72, 0.5): _noise(8.5, 15.72, 0.5, "One repetition's share of infeasible jobs moves with the seed "
                              f"(25.2–29.7 %, {_SEEDS}); one repetition at paper scale gave 28.5 % (bench/dvfs_bot.py "
                              "--paper 1), within tolerance."),
    (8.5, 7.86, 0.5): _noise(8.5, 7.86, 0.5, "One repetition's rejections move with the seed (baseline 28.1–37.0 %, "
                             f"cloud-aware 28.5–38.1 %, {_SEEDS}). " + MEDIUM_50_NOTE),
    (4.25, 7.86, 0.5): _noise(4.25, 7.86, 0.5, MEDIUM_50_NOTE),
}  # fmt: skip
PANELS_CLAIM = "With 50% urgent requests the saving is smaller than with 20%, because urgent jobs force more hosts on."


def _label(alpha: float, beta: float, urgent: float) -> str:
    return f"({alpha}, {beta}) {round(100 * urgent)}% urgent"


def _jobs_per_paper_dc(t: Any, p: str) -> float:
    """Jobs of the run scaled to the paper's 800 VMs (a small-scale run has fewer VMs and jobs)."""
    vms = sum(ht["count"] * ht["cores"] for ht in t.config(p)["datacenter"]["host_types"])
    return t.get(p, "cloud_aware", "jobs") * PAPER_VMS / vms


JOBS = Quantity("jobs (per 800 VMs)", _jobs_per_paper_dc)


def _fig2(urgent: float, panel: str) -> dict[str, Any]:
    return {
        "name": f"Fig. 2{panel}: energy of cloud-aware vs baseline, {round(100 * urgent)}% urgent requests",
        "description": "Average energy of each algorithm on the six (α, β) inter-arrival workloads, 200 hosts × 4 "
        "cores (800 VMs), 10 repetitions; the paper plots cloud-aware energy normalised by the baseline's.",
        "claims": [
            Claim(
                "The cloud-aware algorithm consumes between 2% and 29% less energy than the baseline on every "
                "workload.",
                "saving 2–29 %",
                at_every_point(SAVING, 0.02, 0.29),
                note=Note(
                    "Here the savings span {lo:.1%}–{hi:.1%}. The saving depends on the host power model (the paper says only 'IBM x3250 M3') and comes from "
                    "the baseline spreading work over suspended hosts: with `vm_order = packed` the two nearly agree.",
                    {"lo": over_points(SAVING, "min"), "hi": over_points(SAVING, "max")},
                ),
            ),
            Claim(
                "The workload (inter-arrival and number of requests) has a big impact on the saving.",
                "savings spread over 2–29 %",
                aggregate(SAVING, "spread", 0.10),
            ),
            Claim(PANELS_CLAIM, "compares panels a and b: checked by the table2 preset, which runs both"),
        ],
        "small": SMALL,
        "scenarios": [scenario(a, b, urgent) for a, b in WORKLOADS],
    }


def fig2a() -> dict[str, Any]:
    return _fig2(0.2, "a")


def fig2b() -> dict[str, Any]:
    return _fig2(0.5, "b")


def _index(alpha: float, beta: float, urgent: float) -> int:
    """The point of a workload in the Table I/II studies (scenarios ordered by urgency, then WORKLOADS)."""
    return URGENT.index(urgent) * len(WORKLOADS) + WORKLOADS.index((alpha, beta))


def table1() -> dict[str, Any]:
    claims = [
        Claim(
            f"Workload ({a}, {b}) with {round(100 * u)}% urgent requests generates {n} jobs on average.",
            f"{n} jobs",
            at_every_point(JOBS, 0.97 * n, 1.03 * n, points=[_index(a, b, u)]),
        )
        for (a, b, u), n in TABLE1_JOBS.items()
    ]
    return {
        "name": "Table I: average number of jobs of each workload",
        "description": "The 12 workloads of Section V (six inter-arrival laws × two urgency shares); the metric "
        "to compare is `jobs`.",
        "claims": claims,
        "small": SMALL,
        "scenarios": [scenario(a, b, u) for u in URGENT for a, b in WORKLOADS],
    }


def table2() -> dict[str, Any]:
    claims: list[Claim] = [
        Claim(
            f"Workload ({a}, {b}), {round(100 * u)}% urgent: rejection rate {100 * base:.1f}% (baseline) and "
            f"{100 * ca:.1f}% (cloud-aware).",
            f"{100 * base:.1f} % / {100 * ca:.1f} %",
            all_of(
                at_every_point(value("baseline", "rejection_rate"), base - 0.02, base + 0.02, [_index(a, b, u)]),
                at_every_point(value("cloud_aware", "rejection_rate"), ca - 0.02, ca + 0.02, [_index(a, b, u)]),
            ),
            note=_noise(a, b, u, HEAVY_NOTE) if b == 3.93 else SMALL_NOISE_NOTES.get((a, b, u), ""),
        )
        for (a, b, u), (base, ca) in TABLE2_REJECTION.items()
    ]
    claims.insert(
        0,
        Claim(
            "Rejection rates of the two algorithms are equal or the cloud-aware one is slightly lower.",
            "cloud-aware − baseline ≤ 0 on every workload (Table II: 0 to −0.3 points)",
            at_every_point(difference("rejection_rate", "cloud_aware", "baseline"), -0.02, 0.001),
            note=Note(
                "The two reject nearly the same share ({most:.1f} points apart at most here); the cloud-aware "
                "algorithm rejects more on {more} of the workloads, not less.",
                {
                    "most": over_points(
                        Quantity(
                            "gap",
                            lambda t, p: (
                                100
                                * abs(
                                    t.get(p, "cloud_aware", "rejection_rate") - t.get(p, "baseline", "rejection_rate")
                                )
                            ),
                        ),
                        "max",
                    ),
                    "more": lambda t: (
                        f"{sum(t.get(p, 'cloud_aware', 'rejection_rate') > t.get(p, 'baseline', 'rejection_rate') for p in t.points)} of {len(t.points)}"
                    ),
                },
            ),
        ),
    )
    claims.append(
        Claim(
            PANELS_CLAIM,
            "Fig. 2b savings < Fig. 2a savings, workload by workload",
            compare_points(
                SAVING, [_index(a, b, 0.2) for a, b in WORKLOADS], [_index(a, b, 0.5) for a, b in WORKLOADS]
            ),
            note=Note(
                "Smaller on {fewer} workloads here ({per}). At heavy load the data centre is saturated in both "
                "panels, so the urgency share barely moves the saving and one repetition decides the sign: "
                f"2.85–3.54 % with 20 % urgent vs 0.84–3.59 % with 50 % over {_SEEDS}; one repetition at paper "
                "scale gave 4.0 % vs 2.8 % (bench/dvfs_bot.py --paper 1).",
                {
                    "fewer": lambda t: (
                        f"{sum(SAVING.at(t, t.points[_index(a, b, 0.5)]) < SAVING.at(t, t.points[_index(a, b, 0.2)]) for a, b in WORKLOADS)} of {len(WORKLOADS)}"
                    ),
                    "per": lambda t: ", ".join(
                        f"({a}, {b}) {SAVING.at(t, t.points[_index(a, b, 0.2)]):.2%} vs "
                        f"{SAVING.at(t, t.points[_index(a, b, 0.5)]):.2%}"
                        for a, b in WORKLOADS
                    ),
                },
            ),
        )
    )
    return {
        "name": "Table II: request rejection rates",
        "description": "Rejection rates of both algorithms on the 12 workloads of Section V (800 VMs, 10 "
        "repetitions); the metric to compare is `rejection_rate`.",
        "claims": claims,
        "small": SMALL,
        "scenarios": [scenario(a, b, u) for u in URGENT for a, b in WORKLOADS],
    }


PRESETS: dict[str, Callable[[], dict[str, Any]]] = {
    "fig2a": fig2a,
    "fig2b": fig2b,
    "table1": table1,
    "table2": table2,
}
