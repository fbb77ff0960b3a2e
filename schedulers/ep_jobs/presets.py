"""Paper experiments as studies: Fig. 4 (tasks sweep), Fig. 5 (servers sweep), Fig. 6 (online).

Each preset takes ``repetitions`` (the paper used 50 offline and 10 online runs per point;
the defaults are smaller so a study finishes in minutes) and records the paper's claims
next to the scenarios so a result page can show claim against measurement.
"""

from __future__ import annotations

import itertools
from statistics import mean
from typing import Any

from schedulers.core.claims import (
    Check,
    Claim,
    Note,
    Quantity,
    Reading,
    Table,
    aggregate,
    all_of,
    at_every_point,
    at_point,
    best_at_every_point,
    less_than_at_every_point,
    near,
    over_points,
    ratio,
    spread_ratio,
    value,
)

__all__ = ["PRESETS", "READINGS", "READINGS_BY_PRESET", "SMALL", "fig4", "fig5", "fig6", "fig6_loaded"]

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
    "Fig. 6's task counts are read as ⌈2·Weibull(0.8)⌉; `fig6_loaded` (Weibull scale 10) is a sensitivity study, "
    "not a reading of the paper: how busy each leaves the data centre is in its claims' notes.",
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
# baseline allocation"). Every number a note prints is a field filled from the run it is printed beside.


def _r(metric: str, num: str, den: str, point: int | str = -1) -> Any:
    return at_point(ratio(metric, num, den), point)


def _label(point: int) -> Any:
    return lambda t: t.short(t.select([point])[0])


def _reps(t: Table) -> int:
    return int(t.config(t.points[0]).get("repetitions", 1))


_NAMES = {"min_min": "Min-Min", "mm_ga": "MM-GA", "gsa": "GSA"}


def _rank(stat: str | None) -> Any:
    """The baselines ranked by their JCT over TaPRA's (at the last point, or ``stat`` over the points)."""

    def at(t: Table) -> str:
        q = {b: ratio(JCT, b, "tapra") for b in BASELINES}
        x = {b: (q[b].at(t, t.points[-1]) if stat is None else over_points(q[b], stat)(t)) for b in BASELINES}
        order = sorted(BASELINES, key=lambda b: x[b])
        text = " ≤ ".join(_NAMES[b] for b in order)
        same = order == ["gsa", "mm_ga", "min_min"]
        return f"the baselines rank {text}" + (
            ", the paper's order" if same else ", not the paper's GSA < MM-GA < Min-Min"
        )

    return at


_GA_WHY = (
    ". Under static per-server shares Min-Min's placement is a local optimum of single-task moves, so the elitist "
    "GA rarely finds better, and GSA starts from random placements that its annealing does not bring back "
    '(docs/ep_jobs.md, "Fig. 4 with static baseline allocation", measures both on one instance). The paper gives '
    "no GA operators or budgets; ours are in docs/ep_jobs.md. Under the reading *optra* (below) the baselines "
    "allocate like TaPRA."
)
GA_NOTE = Note(
    "At {last} Min-Min, MM-GA and GSA take {mm:.2f}×, {ga:.2f}× and {gsa:.2f}× TaPRA's JCT ({reps} repetition(s) "
    "per point): {rank}" + _GA_WHY,
    {
        "last": _label(-1),
        "mm": _r(JCT, "min_min", "tapra"),
        "ga": _r(JCT, "mm_ga", "tapra"),
        "gsa": _r(JCT, "gsa", "tapra"),
        "reps": _reps,
        "rank": _rank(None),
    },
)
GA_NOTE_MEAN = Note(
    "Averaged over the sizes, GSA, MM-GA and Min-Min take {gsa:.2f}×, {ga:.2f}× and {mm:.2f}× TaPRA's JCT and "
    "TaPRA-fast {fast:.3f}× ({reps} repetition(s) per point): {rank}" + _GA_WHY,
    {
        "gsa": over_points(ratio(JCT, "gsa", "tapra"), "mean"),
        "ga": over_points(ratio(JCT, "mm_ga", "tapra"), "mean"),
        "mm": over_points(ratio(JCT, "min_min", "tapra"), "mean"),
        "fast": over_points(ratio(JCT, "tapra_fast", "tapra"), "mean"),
        "reps": _reps,
        "rank": _rank("mean"),
    },
)


def _runtimes(point: int) -> dict[str, Any]:
    return {f"t_{a}": at_point(value(a, RUNTIME), point) for a in OFFLINE_ALGS} | {"at": _label(point)}


RUNTIME_NOTE = Note(
    "At {at} TaPRA takes {t_tapra:.3g} s, TaPRA-fast {t_tapra_fast:.3g} s, GSA {t_gsa:.3g} s, Min-Min "
    "{t_min_min:.3g} s and MM-GA {t_mm_ga:.3g} s of CPU here, orders of magnitude below the paper's (vectorised "
    "OptRA, column generation), so only the order is compared, and it differs for the baselines: our Min-Min is "
    "exact but lazy (a task's best server is recomputed only when it reaches the top of a heap), while GSA's time "
    "goes to annealing every offspring and to REC.",
    _runtimes(-1),
)


def _vcpu_share(lo: bool) -> Any:
    def at(t: Table) -> float:
        p = t.points[-1]
        xs = [t.get(p, a, VCPUS) / t.get(p, b, VCPUS) for a in ("tapra", "tapra_fast") for b in BASELINES]
        return min(xs) if lo else max(xs)

    return at


STATIC_NOTE = Note(
    "The baselines get fixed per-server shares (the paper's Sec. 2: their resources are 'static'); TaPRA's eq. 16 "
    "allocation gives TaPRA and TaPRA-fast {lo:.2f}-{hi:.2f}× their vCPUs at {last} instead of the paper's "
    "1.15-1.4×. The reading *optra* (below) gives the baselines eq. 16's allocation too.",
    {"lo": _vcpu_share(True), "hi": _vcpu_share(False), "last": _label(-1)},
)
FAST_NOTE = Note(
    "TaPRA-fast/TaPRA ranges over {lo:.3f}-{hi:.3f} here with {reps} repetition(s) per point; one instance can "
    "differ by more than a mean over several (the paper averages 50; reproduction.md is at 1 repetition, "
    "reproduction-paper.md at 5).",
    {
        "lo": over_points(ratio(JCT, "tapra_fast", "tapra"), "min"),
        "hi": over_points(ratio(JCT, "tapra_fast", "tapra"), "max"),
        "reps": _reps,
    },
)
VCPU_NOTE = Note(
    "At {first} TaPRA allocates {first_ratio:.2f}× the vCPUs of the best baseline, as the paper says; at {last} the "
    "largest allocation is {spread:.3f}× the smallest (paper: about the same, read as ≤ 1.1) because the "
    "baselines' static per-server shares keep them below eq. 16's allocation (see the reading *optra*).",
    {
        "first": _label(0),
        "last": _label(-1),
        "spread": at_point(spread_ratio(VCPUS, OFFLINE_ALGS), -1),
        "first_ratio": lambda t: (
            t.get(t.points[0], "tapra", VCPUS) / max(t.get(t.points[0], b, VCPUS) for b in BASELINES)
        ),
    },
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
                note=FAST_NOTE,
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
                note=VCPU_NOTE,
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
                note=GA_NOTE_MEAN,
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


# Why the Fig. 6 ratios are not reproduced: every number is a field of the run beside it.
DELTA_T_S = 10.0  # ΔT_schedule of the periodic schedulers (the model's default)


def _p(i: int) -> Any:
    return lambda t: t.points[i]


def _wait(sched: str, i: int = 0) -> Any:
    return lambda t: t.get(t.points[i], f"{sched}:{ONLINE_ALGS[i]}", "avg_wait_s")


def _util(stat: Any) -> Any:
    return lambda t: stat(
        t.get(t.points[i], f"{s}:{ONLINE_ALGS[i]}", "utilization") for i in (0, 1) for s in SCHEDULERS
    )


def _regime(t: Table) -> str:
    worst = max(t.get(t.points[i], f"{s}{d}:{ONLINE_ALGS[i]}", "avg_wait_s")
                for i in (0, 1) for s in SCHEDULERS for d in ("", "-ndrc"))  # fmt: skip
    if worst <= DELTA_T_S:
        return (f"no scheduler makes jobs wait longer than one scheduling period on average (at most {worst:.2f} s, "
                f"ΔT = {DELTA_T_S:.0f} s), so the order in which they serve waiting jobs, their only difference "
                "(Sec. 6.2.3), has almost nothing to act on")  # fmt: skip
    return (
        f"jobs wait up to {worst:,.0f} s on average, so the schedulers' order (their only difference, Sec. 6.2.3) "
        "has a queue to act on"
    )


def _mean_ratio(num: str, den: str) -> Any:
    def at(t: Table) -> float:
        return mean(t.get(t.points[i], f"{num}:{a}", ONLINE_JCT) / t.get(t.points[i], f"{den}:{a}", ONLINE_JCT)
                    for i, a in enumerate(ONLINE_ALGS[:2]))  # fmt: skip

    return at


_CONTEXT = {
    "end": lambda t: float(t.config(t.points[0])["workload"].get("arrival_end_s", 3600.0)),
    "jobs": lambda t: t.get(t.points[0], "ontapra:tapra", "jobs"),
    "ulo": _util(min),
    "uhi": _util(max),
    "wait": _wait("ontapra"),
    "fwait": _wait("fcfs"),
    "regime": _regime,
}
_SETTING = (
    "Arrivals stop at {end:,.0f} s ({jobs:.0f} jobs); with DRC the data centre is {ulo:.0%}-{uhi:.0%} busy and "
    "OnTaPRA's jobs wait {wait:.2f} s on average (FCFS, which runs at every arrival, {fwait:.2f} s): {regime}. "
)
_FIG6_NOTES = {
    "best": Note(
        _SETTING + "FCFS has no ΔT wait, which is what lets it beat OnTaPRA where it does.",
        _CONTEXT,
    ),
    "drc": Note(
        _SETTING + "With DRC SLF, FCFS and LLF take {slf:.3f}, {fcfs:.3f} and {llf:.3f}× OnTaPRA's JCT (paper 1.6, "
        "1.6, 2.7): the paper's spread is a queueing effect.",
        _CONTEXT
        | {
            "slf": _mean_ratio("slf", "ontapra"),
            "fcfs": _mean_ratio("fcfs", "ontapra"),
            "llf": _mean_ratio("llf", "ontapra"),
        },
    ),
    "ndrc": Note(
        _SETTING + "Without DRC SLF, FCFS and LLF take {slf:.3f}, {fcfs:.3f} and {llf:.3f}× OnTaPRA's JCT: these come "
        "from the capacity each job is given when it starts, which it keeps for life without DRC, not from the "
        "order. FCFS starts a job at its arrival on the capacity then left (wait {fwait_n:.2f} s), so in a busy "
        "data centre a job runs on the residual of the jobs before it; the periodic schedulers start jobs at a "
        "round, after the completions of up to ΔT.",
        _CONTEXT
        | {
            "slf": _mean_ratio("slf-ndrc", "ontapra-ndrc"),
            "fcfs": _mean_ratio("fcfs-ndrc", "ontapra-ndrc"),
            "llf": _mean_ratio("llf-ndrc", "ontapra-ndrc"),
            "fwait_n": _wait("fcfs-ndrc"),
        },
    ),
    "off": Note(
        _SETTING + "Switching DRC off multiplies the JCT of OnTaPRA, SLF, FCFS and LLF by {o:.2f}, {s:.2f}, {f:.2f} "
        "and {l:.2f} (paper 1.7, 1.15, 2.1, 2.2): each running task loses the residual capacity DRC gave it, "
        "whatever the scheduler, so the factors follow how busy the data centre is rather than the scheduler.",
        _CONTEXT | {k: _mean_ratio(f"{s}-ndrc", s) for k, s in zip("osfl", SCHEDULERS, strict=True)},
    ),
    "fast": Note(
        "OnTaPRA's JCT with TaPRA-fast is {jct:.3f}× its JCT with TaPRA on {jobs:.0f} jobs and {reps} repetition(s); "
        "offline (Figs. 4-5) TaPRA-fast is within a few percent of TaPRA, so a difference of this size on one run "
        "is within the run-to-run spread, and the paper's 5 % (averaged over 10 runs) is not resolved. The speed-up "
        "is process CPU time.",
        {
            "jct": lambda t: (
                t.get(t.points[1], "ontapra:tapra_fast", ONLINE_JCT) / t.get(t.points[0], "ontapra:tapra", ONLINE_JCT)
            ),
            "jobs": _CONTEXT["jobs"],
            "reps": _reps,
        },
    ),
}


def _fig6_claims(name: str) -> list[Claim]:
    notes = _FIG6_NOTES
    return [
        Claim(
            "OnTaPRA gives the smallest average JCT.",
            "OnTaPRA < SLF, FCFS, LLF with every per-job algorithm, DRC on and off",
            _ontapra_best,
            note=notes["best"],
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
        "default reading (scale 2, mean ≈ 2.8): a busier data centre (its utilization and waits are in the "
        "notes). Not a reading of the paper: a sensitivity study.",
        "paper_repetitions": 10,
        "claims": _fig6_claims("fig6_loaded"),
        "small": SMALL,
        "scenarios": _fig6("fig6_loaded", repetitions, {"task_count_scale": 10.0}),
    }


PRESETS = {"fig4": fig4, "fig5": fig5, "fig6": fig6, "fig6_loaded": fig6_loaded}

_BASELINE_READINGS = [
    Reading(
        "static shares",
        "The baselines (Min-Min, MM-GA, GSA) place tasks on fixed per-server shares of the capacity; only TaPRA "
        "allocates by eq. 16.",
        default=True,
        why="the paper's Sec. 2 calls the baselines' resources 'static' and presents adaptive allocation (OptRA) "
        "as TaPRA's contribution.",
    ),
    Reading(
        "optra",
        "The baselines allocate with eq. 16 (OptRA) on the servers they chose, as TaPRA does: the comparison is "
        "then of placements alone.",
        {"baseline_allocation": "optra"},
    ),
]
READINGS_BY_PRESET = {"fig4": _BASELINE_READINGS, "fig5": _BASELINE_READINGS}
