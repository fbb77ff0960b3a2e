"""Paper experiments as studies: Fig. 4 (tasks sweep), Fig. 5 (servers sweep), Fig. 6 (online).

Each preset takes ``repetitions`` (the paper used 50 offline and 10 online runs per point;
the defaults are smaller so a study finishes in minutes) and records the paper's claims
next to the scenarios so a result page can show claim against measurement.
"""

from __future__ import annotations

import itertools
from typing import Any

from schedulers.core.claims import (
    Check,
    Claim,
    Quantity,
    Table,
    aggregate,
    all_of,
    at_every_point,
    best_at_every_point,
    less_than_at_every_point,
    near,
    ratio,
    spread_ratio,
)

__all__ = ["PRESETS", "READINGS", "SMALL", "fig4", "fig5", "fig6", "fig6_loaded"]

OFFLINE_ALGS = ["tapra", "tapra_fast", "min_min", "mm_ga", "gsa"]
BASELINES = ["min_min", "mm_ga", "gsa"]
ONLINE_ALGS = ["tapra", "tapra_fast", "mm_ga", "gsa"]
SCHEDULERS = ["ontapra", "slf", "fcfs", "llf"]
JCT, VCPUS, RUNTIME = "jct_s", "allocated_vcpus", "algorithm_runtime_s"
ONLINE_JCT = "avg_jct_s"
SMALL_ARRIVAL_END_S = 200.0


def _small(scenario: dict[str, Any]) -> dict[str, Any]:
    scenario["repetitions"] = 1
    if scenario["workload"]["kind"] == "online_generator":
        scenario["workload"]["arrival_end_s"] = SMALL_ARRIVAL_END_S
        if scenario.get("params"):
            scenario["params"].update({"ga_population": 10, "ga_generations": 10, "sa_steps": 2})
    return scenario


SMALL = {
    "note": "1 repetition per point; online studies stop arrivals after "
    f"{SMALL_ARRIVAL_END_S:.0f} s instead of 3600 s and run MM-GA/GSA with population 10, 10 generations, "
    "2 annealing steps.",
    "shrink": _small,
}

READINGS = [
    'Numbers read off the figures ("100 % smaller", "1.3–2×") are checked within ±15 % of the ratio they '
    "state; \"X % smaller than B\" is read as B's JCT = (1 + X) × TaPRA's, as the paper's 100 % and 430 % "
    "only make sense that way.",
    "Running times depend on the machine (the paper's was a 2.5 GHz CPU): the claims about them are checked "
    "as an order (TaPRA and TaPRA-fast faster than GSA, GSA faster than Min-Min and MM-GA), not as seconds.",
    '"TaPRA gives the smallest JCT" compares TaPRA with the three baselines (Min-Min, MM-GA, GSA); '
    'TaPRA-fast is TaPRA\'s own variant and has its own claim ("almost the same", within 5 %).',
    '"About the same" allocation is read as the largest allocation at most 10 % above the smallest.',
    "Online (Fig. 6) ratios are averaged over the studies with TaPRA and TaPRA-fast as the per-job algorithm; "
    "the paper does not say which per-job algorithm its without-DRC and DRC-off numbers use.",
    "Fig. 6's default reading (task counts ⌈2·Weibull(0.8)⌉) leaves the data centre ~40 % busy; `fig6_loaded` "
    "(Weibull scale 10) is a sensitivity study, not a reading of the paper.",
]


def _ratios_near(metric: str, over: str, paper: dict[str, float], points: Any, stat: str | None = None) -> Check:
    """Each ``alg``'s metric over ``over``'s is within 15 % of ``paper[alg]`` (at every point, or its ``stat``)."""
    checks = []
    for alg, x in paper.items():
        lo, hi = near(x)
        q = ratio(metric, alg, over)
        checks.append(at_every_point(q, lo, hi, points) if stat is None else aggregate(q, stat, lo, hi, points))
    return all_of(*checks)


def _faster(order: list[str], points: Any) -> Check:
    return all_of(*(less_than_at_every_point(RUNTIME, a, b, points) for a, b in itertools.pairwise(order)))


def _offline(name: str, tasks: int, pods: int, repetitions: int, seed: int) -> dict[str, Any]:
    return {
        "family": "ep_jobs",
        "name": name,
        "seed": seed,
        "repetitions": repetitions,
        "datacenter": {"kind": "fattree", "pods": pods},
        "workload": {"kind": "generator", "tasks": tasks},
        "algorithms": list(OFFLINE_ALGS),
    }


# Why the baselines' factors differ from the paper's (evidence in docs/ep_jobs.md, "Fig. 4 with static
# baseline allocation"); printed beside the verdicts, so every number here must match what the runs show.
GA_NOTE = (
    "TaPRA leads at every point, but the baselines' order is not the paper's. MM-GA ends where Min-Min does: "
    "under static per-server shares Min-Min's placement is a local optimum of single-task moves (80 tasks, seed "
    "480: the best move cuts its JCT by 0.4 %, and REC restores the same schedule), so the elitist GA rarely finds "
    "better. GSA starts from random placements (median JCT 3× Min-Min's there) and its annealing does not close the "
    "gap: 1.8× Min-Min's JCT even with population 50 × 100 generations × 10 steps. The paper gives no GA operators "
    "or budgets; ours are in docs/ep_jobs.md."
)
RUNTIME_NOTE = (
    "Our running times are 3-4 orders of magnitude below the paper's (vectorised OptRA, column generation), so "
    "only their order is compared, and it differs for the baselines: our Min-Min is exact but lazy (a task's best "
    "server is recomputed only when it reaches the top of a heap), a few hundred milliseconds instead of the "
    "paper's 4500 s, while GSA's time goes to annealing every offspring and to REC; so GSA runs longer than "
    "Min-Min and MM-GA here."
)
STATIC_NOTE = (
    "The baselines get fixed per-server shares (the paper's Sec. 2: their resources are 'static'); TaPRA's eq. 16 "
    "allocation gives it 2.6-3.9× their vCPUs at 432 servers instead of the paper's 1.15-1.4×. With "
    "params.baseline_allocation = 'optra' the baselines allocate like TaPRA and the JCT gap nearly closes."
)


def fig4(repetitions: int = 5) -> dict[str, Any]:
    """Fig. 4: 40–200 tasks on an 8-ary FatTree (128 servers)."""
    return {
        "name": "Fig. 4: JCT, vCPUs and running time vs the number of tasks",
        "description": "JCT, allocated vCPUs and running time vs. number of tasks (40–200), 8-ary FatTree, "
        "128 servers (Sec. 6.1.4, Fig. 4). The paper averages 50 runs per point.",
        "paper_repetitions": 50,
        "claims": [
            Claim(
                "TaPRA gives the smallest JCT at every job size.",
                "TaPRA < Min-Min, MM-GA, GSA at every size",
                best_at_every_point(JCT, "tapra", BASELINES),
            ),
            Claim(
                "At 200 tasks TaPRA's JCT is 100% smaller than Min-Min's, 50% smaller than MM-GA's and 30% smaller "
                "than GSA's (i.e. the baselines' JCT is 1.3–2× TaPRA's).",
                "Min-Min 2×, MM-GA 1.5×, GSA 1.3× TaPRA's JCT",
                _ratios_near(JCT, "tapra", {"min_min": 2.0, "mm_ga": 1.5, "gsa": 1.3}, [-1]),
                note=GA_NOTE,
            ),
            Claim(
                "TaPRA-fast gives almost the same JCT as TaPRA.",
                "TaPRA-fast ≈ TaPRA",
                at_every_point(ratio(JCT, "tapra_fast", "tapra"), 0.95, 1.05),
                note="Reproduced with the paper's setting of several repetitions per point (5: 1.007-1.048); "
                "with one repetition (small scale) a single instance can reach 1.10.",
            ),
            Claim(
                "With few tasks TaPRA and TaPRA-fast allocate the most vCPUs; with many tasks all algorithms "
                "allocate about the same.",
                "most vCPUs at 40 tasks; max/min ≤ 1.1 at 200",
                all_of(
                    best_at_every_point(VCPUS, "tapra", BASELINES, [0], lower=False),
                    best_at_every_point(VCPUS, "tapra_fast", BASELINES, [0], lower=False),
                    at_every_point(spread_ratio(VCPUS, OFFLINE_ALGS), None, 1.1, [-1]),
                ),
                note="At 40 tasks TaPRA allocates about 2× the vCPUs of the best baseline, as the paper says; at 200 "
                "tasks the spread is 1.16-1.19 instead of ≤ 1.1 because the baselines' static per-server shares "
                "keep them a little below eq. 16's allocation.",
            ),
            Claim(
                "At 100 tasks TaPRA and TaPRA-fast run in about 6 s, GSA in 180 s, Min-Min and MM-GA in about 4500 s "
                "(2.5 GHz CPU).",
                "order TaPRA(-fast) < GSA < Min-Min, MM-GA",
                all_of(_faster(["tapra", "gsa", "min_min"], None), _faster(["tapra_fast", "gsa", "mm_ga"], None)),
                note=RUNTIME_NOTE,
            ),
        ],
        "small": SMALL,
        "scenarios": [_offline(f"fig4 tasks={n}", n, 8, repetitions, 400 + n) for n in (40, 80, 120, 160, 200)],
    }


def fig5(repetitions: int = 5) -> dict[str, Any]:
    """Fig. 5: 100 tasks on 6- to 12-ary FatTrees (54–432 servers)."""
    return {
        "name": "Fig. 5: JCT, vCPUs and running time vs the data-centre size",
        "description": "JCT, allocated vCPUs and running time vs. data-centre size (6–12 pods, 54–432 servers), "
        "100 tasks (Sec. 6.1.4, Fig. 5). The paper averages 50 runs per point.",
        "paper_repetitions": 50,
        "claims": [
            Claim(
                "TaPRA's JCT is similar to TaPRA-fast's, 80% smaller than GSA's, 260% smaller than MM-GA's and 430% "
                "smaller than Min-Min's.",
                "TaPRA-fast 1×, GSA 1.8×, MM-GA 3.6×, Min-Min 5.3× TaPRA's JCT (mean over sizes)",
                all_of(
                    aggregate(ratio(JCT, "tapra_fast", "tapra"), "mean", 0.95, 1.05),
                    _ratios_near(JCT, "tapra", {"gsa": 1.8, "mm_ga": 3.6, "min_min": 5.3}, None, "mean"),
                ),
                note=GA_NOTE,
            ),
            Claim(
                "At 432 servers TaPRA and TaPRA-fast allocate about 15% more vCPUs than GSA and 40% more than "
                "Min-Min and MM-GA.",
                "1.15× GSA's, 1.4× Min-Min's and MM-GA's vCPUs",
                all_of(
                    _ratios_near(VCPUS, "gsa", {"tapra": 1.15, "tapra_fast": 1.15}, [-1], None),
                    _ratios_near(VCPUS, "min_min", {"tapra": 1.4, "tapra_fast": 1.4}, [-1], None),
                    _ratios_near(VCPUS, "mm_ga", {"tapra": 1.4, "tapra_fast": 1.4}, [-1], None),
                ),
                note=STATIC_NOTE,
            ),
            Claim(
                "At 432 servers TaPRA runs in 33 s, TaPRA-fast 15 s, GSA 1000 s, Min-Min 4700 s, MM-GA 4800 s.",
                "order TaPRA-fast < TaPRA < GSA < Min-Min < MM-GA",
                _faster(["tapra_fast", "tapra", "gsa", "min_min", "mm_ga"], [-1]),
                note=RUNTIME_NOTE,
            ),
        ],
        "small": SMALL,
        "scenarios": [_offline(f"fig5 pods={y}", 100, y, repetitions, 500 + y) for y in (6, 8, 10, 12)],
    }


def _fig6(name: str, repetitions: int, workload: dict[str, Any]) -> list[dict[str, Any]]:
    scenarios = []
    for alg in ONLINE_ALGS:
        heavy = alg in ("mm_ga", "gsa")
        scenarios.append(
            {
                "family": "ep_jobs",
                "name": f"{name} {alg}",
                "seed": 600,
                "repetitions": repetitions,
                "datacenter": {"kind": "fattree", "pods": 6, "capacity_low": 10.0, "capacity_high": 10.0},
                "workload": {"kind": "online_generator", **workload},
                "algorithms": [f"{s}{d}:{alg}" for s in SCHEDULERS for d in ("", "-ndrc")],
                "params": {"ga_population": 20, "ga_generations": 20, "sa_steps": 5} if heavy else {},
            }
        )
    return scenarios


def _online_ratios(paper: dict[tuple[str, str], float]) -> Check:
    """Mean over the TaPRA and TaPRA-fast points of ``num:alg / den:alg`` within 15 % of the paper's ratio."""
    checks = []
    for (num, den), x in paper.items():
        lo, hi = near(x)

        def at(t: Table, p: str, num: str = num, den: str = den) -> float:
            alg = ONLINE_ALGS[t.points.index(p)]
            return t.get(p, f"{num}:{alg}", ONLINE_JCT) / t.get(p, f"{den}:{alg}", ONLINE_JCT)

        checks.append(aggregate(Quantity(f"{num}/{den} {ONLINE_JCT}", at), "mean", lo, hi, [0, 1]))
    return all_of(*checks)


def _ontapra_best(t: Table) -> tuple[bool, str]:
    checks = [
        best_at_every_point(ONLINE_JCT, f"ontapra{d}:{alg}", [f"{s}{d}:{alg}" for s in SCHEDULERS[1:]], [i])
        for i, alg in enumerate(ONLINE_ALGS)
        for d in ("", "-ndrc")
    ]
    return all_of(*checks)(t)


def _fast_vs_tapra(t: Table) -> tuple[bool, str]:
    tapra, fast = t.points[0], t.points[1]
    jct = t.get(fast, "ontapra:tapra_fast", ONLINE_JCT) / t.get(tapra, "ontapra:tapra", ONLINE_JCT)
    speed = t.get(tapra, "ontapra:tapra", "total_scheduler_runtime_s") / max(
        t.get(fast, "ontapra:tapra_fast", "total_scheduler_runtime_s"), 1e-9
    )
    ok = 1.0 <= jct <= 1.10 and 5.0 <= speed <= 20.0
    return ok, f"OnTaPRA JCT with TaPRA-fast / with TaPRA = {jct:.3f}; scheduler time TaPRA / TaPRA-fast = {speed:.2f}×"


def _queue_context(t: Table) -> tuple[bool, str]:
    """Not a test (always holds): whether jobs queue at the TaPRA and TaPRA-fast points.

    The four schedulers differ only in the order they serve waiting jobs (Sec. 6.2.3), so
    their JCTs can differ by the paper's 60-280 % only when jobs wait.
    """
    parts = []
    for p, alg in zip(t.points[:2], ONLINE_ALGS[:2], strict=False):
        waits = ", ".join(
            f"{s} {t.get(p, f'{s}:{alg}', 'avg_wait_s'):.2f}/{t.get(p, f'{s}-ndrc:{alg}', 'avg_wait_s'):.2f} s"
            for s in SCHEDULERS
        )
        util = [t.get(p, f"{s}:{alg}", "utilization") for s in SCHEDULERS]
        parts.append(
            f"{alg}: {t.get(p, f'ontapra:{alg}', 'jobs'):.0f} jobs, average wait with/without DRC {waits}, "
            f"utilization {min(util):.2f}-{max(util):.2f}"
        )
    return True, "context: " + "; ".join(parts)


# Why the Fig. 6 ratios are not reproduced, per preset, at small scale (arrivals stop at 200 s: 39 jobs).
_NO_QUEUE = (
    "At small scale arrivals stop at 200 s (39 jobs) and no job queues: every job is placed at the first "
    "scheduling round after it arrives (average wait 4.77 s for the periodic schedulers, DRC on or off, about half of "
    "ΔT = 10 s; 0 for FCFS){busy}. The schedulers differ only in the order they serve waiting jobs, so "
)
_FIG6_NOTES = {
    "fig6": {
        "drc": _NO_QUEUE.format(busy=", utilization 0.23-0.27")
        + "with DRC they tie: SLF, FCFS and LLF over OnTaPRA 0.979, 0.944 and 0.999 (FCFS best: no ΔT wait). At "
        "the full 3,600 s the default task counts leave the data centre ~40 % busy and they tie too (OnTaPRA "
        "91.4 s, FCFS 86.4 s, one repetition with TaPRA-fast; docs/ep_jobs.md).",
        "ndrc": _NO_QUEUE.format(busy="")
        + "the without-DRC ratios (SLF 1.059, FCFS 1.176, LLF 1.151) come from where jobs land, not from the "
        "order: SLF's 1.05 is met, FCFS's 1.8 and LLF's 3.34 need jobs waiting behind larger ones.",
        "off": _NO_QUEUE.format(busy=", utilization 0.23-0.27 with DRC")
        + "switching DRC off slows every scheduler alike, by DRC's own effect: each running task loses the "
        "large residual of a mostly idle data centre (×2.056, ×2.218, ×2.574, ×2.372 for OnTaPRA, SLF, FCFS, "
        "LLF). The paper's spread (SLF +15 %, LLF +120 %) is a queueing effect.",
        "fast": "TaPRA-fast is 0.9 % better than TaPRA here (0.991). The speed-up is now process CPU time "
        "(as wall time on a shared machine it varied from run to run: 18× and 51× in two runs). "
        "Jobs of about 2.8 tasks give TaPRA little to gain over TaPRA-fast (offline Figs. 4-5: within ~2 %, "
        "docs/ep_jobs.md); a 1 % difference either way on one repetition of 39 jobs is noise, and the "
        "paper's 5 % is not seen.",
    },
    "fig6_loaded": {
        "drc": _NO_QUEUE.format(busy=", utilization 0.48-0.60")
        + "with DRC they tie: SLF, FCFS and LLF over OnTaPRA 1.008, 1.017 and 1.008. At the full 3,600 s "
        "(~90 % busy, one repetition with TaPRA-fast; docs/ep_jobs.md) jobs wait and the paper's order "
        "appears: SLF, FCFS, LLF 18 %, 59 % and 143 % above OnTaPRA (paper 60 %, 60 %, 170 %).",
        "ndrc": _NO_QUEUE.format(busy="")
        + "the without-DRC ratios (SLF 1.165, FCFS 0.890, LLF 1.09) come from where jobs land, not from the "
        "order; OnTaPRA without DRC is beaten by FCFS with TaPRA.",
        "off": _NO_QUEUE.format(busy=", utilization 0.48-0.60 with DRC")
        + "switching DRC off slows every scheduler alike, by DRC's own effect on the running tasks (×3.712, "
        "×4.286, ×3.192, ×4.008 for OnTaPRA, SLF, FCFS, LLF). At the full 3,600 s it is ×1.94, ×3.56, ×2.44, "
        "×5.27 (docs/ep_jobs.md; paper ×1.7, ×1.15, ×2.1, ×2.2): jobs about 4× larger than the default make DRC matter more "
        "than in the paper.",
        "fast": "TaPRA-fast is 1.4 % better than TaPRA here (0.986). The speed-up is now process CPU time "
        "(as wall time on a shared machine it varied from run to run: 9.6× and 11.9× in two runs). "
        "A 1-2 % difference either way on one repetition of 39 jobs is noise (offline Figs. 4-5: TaPRA-fast "
        "within ~2 % of TaPRA, docs/ep_jobs.md); the paper's 5 % is not seen.",
    },
}


def _fig6_claims(name: str) -> list[Claim]:
    notes = _FIG6_NOTES[name]
    return [
        Claim(
            "OnTaPRA gives the smallest average JCT.",
            "OnTaPRA < SLF, FCFS, LLF with every per-job algorithm, DRC on and off",
            _ontapra_best,
            note="With the default task-count reading the data centre is ~40 % busy, jobs hardly wait and the "
            "schedulers tie (FCFS slightly best: it has no ΔT wait); `fig6_loaded` (~90 % busy) is where the "
            "paper's ordering can show.",
        ),
        Claim(
            "With DRC and TaPRA/TaPRA-fast, OnTaPRA's average JCT is about 60% smaller than SLF's and FCFS's and "
            "170% smaller than LLF's.",
            "SLF 1.6×, FCFS 1.6×, LLF 2.7× OnTaPRA's JCT",
            all_of(
                _online_ratios({("slf", "ontapra"): 1.6, ("fcfs", "ontapra"): 1.6, ("llf", "ontapra"): 2.7}),
                _queue_context,
            ),
            note=notes["drc"],
        ),
        Claim(
            "Without DRC, OnTaPRA's average JCT is 5%, 80% and 234% smaller than SLF's, FCFS's and LLF's.",
            "SLF 1.05×, FCFS 1.8×, LLF 3.34× OnTaPRA's JCT (no DRC)",
            all_of(
                _online_ratios(
                    {
                        ("slf-ndrc", "ontapra-ndrc"): 1.05,
                        ("fcfs-ndrc", "ontapra-ndrc"): 1.8,
                        ("llf-ndrc", "ontapra-ndrc"): 3.34,
                    }
                ),
                _queue_context,
            ),
            note=notes["ndrc"],
        ),
        Claim(
            "Disabling DRC raises the average JCT of OnTaPRA, SLF, FCFS and LLF by 70%, 15%, 110% and 120%.",
            "×1.7, ×1.15, ×2.1, ×2.2",
            all_of(
                _online_ratios({(f"{s}-ndrc", s): x for s, x in zip(SCHEDULERS, (1.7, 1.15, 2.1, 2.2), strict=True)}),
                _queue_context,
            ),
            note=notes["off"],
        ),
        Claim(
            "TaPRA is about 5% better than TaPRA-fast, and TaPRA-fast makes the scheduler about 10× faster.",
            "JCT ratio ≈ 1.05 (1–1.10), scheduler ≈ 10× faster (5–20×)",
            _fast_vs_tapra,
            note=notes["fast"],
        ),
    ]


def fig6(repetitions: int = 2) -> dict[str, Any]:
    """Fig. 6: online, every scheduler × per-job algorithm × DRC on/off on a 6-ary FatTree."""
    return {
        "name": "Fig. 6: online schedulers × per-job algorithms, DRC on and off",
        "description": "Online: OnTaPRA, SLF, FCFS, LLF × TaPRA, TaPRA-fast, MM-GA, GSA × DRC on/off on a 6-ary "
        "FatTree of 10-vCPU servers, Poisson arrivals μ = 0.15/s for 3600 s (Sec. 6.2, Fig. 6). The paper "
        "averages 10 runs; MM-GA/GSA use a reduced GA (population 20, 20 generations) to stay tractable.",
        "paper_repetitions": 10,
        "claims": _fig6_claims("fig6"),
        "small": SMALL,
        "scenarios": _fig6("fig6", repetitions, {}),
    }


def fig6_loaded(repetitions: int = 2) -> dict[str, Any]:
    """Fig. 6 with ~4× larger jobs (Weibull scale 10): a loaded data centre where jobs queue."""
    return {
        "name": "Fig. 6, loaded: task counts ⌈10·Weibull(0.8)⌉",
        "description": "Fig. 6 as above but with task counts ⌈10·Weibull(0.8)⌉ (mean ≈ 11 tasks) instead of the "
        "default reading (scale 2, mean ≈ 2.8). With the default reading the data centre is ~40% busy, jobs "
        "rarely wait and the schedulers barely differ; this variant (≈90% busy) is the regime where the "
        "paper's differences between schedulers can show. Not a reading of the paper: a sensitivity study.",
        "paper_repetitions": 10,
        "claims": _fig6_claims("fig6_loaded"),
        "small": SMALL,
        "scenarios": _fig6("fig6_loaded", repetitions, {"task_count_scale": 10.0}),
    }


PRESETS = {"fig4": fig4, "fig5": fig5, "fig6": fig6, "fig6_loaded": fig6_loaded}
