"""Presets for the experiments of Section 3 (Figs. 6–14), each with the paper's claims.

Fig. 8 (migration counts) reads the ``migrations`` metric of MEASY runs; its preset repeats the
MEASY part of Figs. 6–7.

The figures themselves did not survive in our copy of the paper, so the x-axis
values are OUR READING: loads 0.3–0.7 in steps of 0.1 and, for Figs. 13–14, migration
costs from 20 s to 7,200 s at load 0.5. The range is chosen on evidence (docs/backfill.md):
over 0.3–0.7 MEASY's mean/max response-time gain over EASY is 22.4 % / 46.1 % and its
bounded-slowdown gain 70.8 % / 82.2 % (paper: 23.1 / 41.1 / 69.3 / 82.9 %), while 0.5–0.9 gives
36.5 % mean; at load 0.5 FWload's MEASY/KEASY crossing lies between 480 and 900 s as the
paper says. Workload sizes are the paper's (FWload 200,000 jobs, JWload 100,000
jobs, 320 processors, Tsafrir estimates). Per-job records are off and the
schedule is capped so that a study's results stay a manageable size; the
batch-means CIs are in the metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedulers.core.claims import (
    Check,
    Claim,
    Note,
    Quantity,
    Table,
    aggregate,
    all_of,
    at_every_point,
    best_at_every_point,
    compare_points,
    less_than_at_every_point,
    number,
    over_points,
    ratio,
    reduction,
)

__all__ = ["PRESETS", "READINGS", "SMALL"]

LOADS = (0.3, 0.4, 0.5, 0.6, 0.7)
COST_LOAD = 0.5  # Figs. 13-14
COSTS = (20, 240, 480, 900, 1500, 2400, 3600, 4800, 7200)
N_JOBS = {"feitelson": 200_000, "jann": 100_000}
NAME = {"feitelson": "FWload", "jann": "JWload"}
RT, BSLD = "avg_response_time_s", "avg_bounded_slowdown"
# 10,000 jobs: at 2,000 the verdicts of 9 of the 25 claims flipped between seeds 2012 and 2013, at 10,000
# 4 (all JWload, whose heavy runtime tail - median 530 s, mean 10,900 s - keeps its averages noisy);
# the family's claims cost 113-118 s of CPU instead of 32-33 s (docs/backfill.md, "Small scale").
SMALL_JOBS = 10_000
# A stated limit for the paper-size workloads only: their full schedules run to ~54 million segments
# per scenario at load 0.7 (200,000 FWload jobs × 4 algorithms; bench/results_scale.py: ~3 GB of
# columns, worker peak RSS 4.8 GB, 104 MB of Parquet), against a worker address-space limit of 8 GB
# (RUN_MEMORY_LIMIT_MB) and 25 scenarios per study. The claims need the metrics, which a cut never
# touches; the result page states each cut. The small variant records full schedules.
PAPER_MAX_SEGMENTS = 2_000_000


def _small(scenario: dict) -> dict:
    scenario["workload"]["n_jobs"] = min(scenario["workload"]["n_jobs"], SMALL_JOBS)
    scenario["params"].pop("max_segments", None)
    return scenario


SMALL = {
    "note": f"{SMALL_JOBS:,} jobs per workload instead of 200,000 (FWload) / 100,000 (JWload); same model, "
    "load, estimates, 320 processors and migration costs.",
    "shrink": _small,
}

READINGS = [
    "The figures did not survive in our copy of the paper: loads 0.3–0.7 in steps of 0.1 and, for Figs. 13–14, "
    "migration costs 20–7,200 s at load 0.5. We first swept 0.5–0.9 (the usual range of the backfilling "
    "literature the paper follows) and moved to 0.3–0.7: the paper's averages fit that range (docs/backfill.md).",
    '"Over the experiments" (the 41.1 % / 23.1 % and 82.9 % / 69.3 % figures) is read per figure: the mean '
    "reduction over a figure's loads must lie within 10 points of the paper's average, and its largest "
    "reduction may exceed the paper's maximum by at most 5 points.",
    '"Performs best / worst" is read on the average response time and the average bounded slowdown at every '
    "load of the figure.",
    'Fig. 8\'s "average number of migrations" is read per job (FWload has 200,000 jobs and JWload 100,000, so '
    'totals would compare workload sizes); "high load" is 0.7 and "low load" 0.3.',
    '"Only comparable to (a little worse than) KEASY" above a migration cost is read as MEASY\'s response time '
    "within 0.95–1.2× KEASY's at every cost above the threshold.",
    "Workloads: Tsafrir's estimate model; the Feitelson model for FWload and Jann's for JWload; 320 processors.",
]


def _rt_reduction(up_to: float, average: float, metric: str = RT) -> Check:
    q = reduction(metric, "measy", "easy")
    return all_of(aggregate(q, "mean", average - 0.10, average + 0.10), aggregate(q, "max", 0.0, up_to + 0.05))


# Notes beside the main claims: the numbers are fields of the run they are printed beside; what other seeds
# and 20,000-job runs measured is in docs/backfill.md ("Small scale"), named as such.
ALGS = ("easy", "keasy", "reasy", "measy")


def _beaten(alg: str, metric: str, rivals: tuple[str, ...] = ("keasy", "reasy")) -> Callable[[Table], str]:
    """Where ``alg`` is not the lowest on ``metric``: ``at load 0.4 (keasy 3.09 vs 3.28)``, or at every load."""

    def at(t: Table) -> str:
        bad = []
        for p in t.points:
            mine = t.get(p, alg, metric)
            others = {o: t.get(p, o, metric) for o in rivals if (p, o, metric) in t.values}
            best = min(others.items(), key=lambda kv: kv[1]) if others else None
            if best is not None and best[1] < mine:
                bad.append(f"{t.short(p)} ({best[0]} {number(best[1])} vs {number(mine)})")
        return "lowest at every load" if not bad else "beaten at " + ", ".join(bad)

    return at


def _reductions(metric: str) -> Callable[[Table], str]:
    q = reduction(metric, "measy", "easy")
    return lambda t: ", ".join(f"{q.at(t, p):.1%}" for p in t.points)


def _best_note(extra: str = "") -> Note:
    return Note(
        "MEASY's response time is {rt}; its bounded slowdown is {bsld}." + extra,
        {"rt": _beaten("measy", RT), "bsld": _beaten("measy", BSLD), "edge_lo": _edge(min), "edge_hi": _edge(max)},
    )


def _edge(stat: Callable[..., float]) -> Callable[[Table], float]:
    return lambda t: stat(1 - t.get(p, "measy", RT) / t.get(p, "keasy", RT) for p in t.points)


def _gain_note(metric: str, extra: str) -> Note:
    q = reduction(metric, "measy", "easy")
    return Note(
        "MEASY's reduction over EASY at loads 0.3–0.7: {per} (mean {mean:.1%}, max {max:.1%})." + extra,
        {"per": _reductions(metric), "mean": over_points(q, "mean"), "max": over_points(q, "max")},
    )


MAIN_NOTES = {
    "feitelson": {
        "best": _best_note(" With seed 2013 KEASY's bounded slowdown was lower at one low load, where few jobs wait "
                           "at all (docs/backfill.md)."),
        "rt": _gain_note(RT, " The loads are our reading (the figures were lost); other seeds and 20,000-job runs "
                         "are in docs/backfill.md."),
        "bsld": _gain_note(BSLD, " Other seeds: docs/backfill.md."),
        "reasy": Note("REASY's response time is the highest of the three two-tier algorithms: {worst}.",
                      {"worst": lambda t: _highest(t, "reasy")}),
    },
    "jann": {
        "best": _best_note(" MEASY's response-time edge over KEASY on JWload is {edge_lo:.1%}–{edge_hi:.1%} here; "
                           "with seed 2013 the claim held at every load (docs/backfill.md)."),
        "rt": _gain_note(RT, " With seed 2013 the mean fell just outside the ±10-point band (docs/backfill.md): "
                         "the verdict depends on the seed at this size."),
        "bsld": _gain_note(BSLD, " Other seeds: docs/backfill.md."),
        "reasy": Note("REASY's response time is the highest of the three two-tier algorithms: {worst}.",
                      {"worst": lambda t: _highest(t, "reasy")}),
    },
}  # fmt: skip


def _highest(t: Table, alg: str) -> str:
    bad = [t.short(p) for p in t.points if t.get(p, alg, RT) < max(t.get(p, o, RT) for o in ("keasy", "measy"))]
    return "at every load" if not bad else "not at " + ", ".join(bad)


def _main_claims(model: str) -> list[Claim]:
    notes = MAIN_NOTES[model]
    return [
        Claim(
            "MEASY gives the best performance of the algorithms (Section 3.4, observation 2).",
            "lowest response time and bounded slowdown at every load",
            all_of(
                best_at_every_point(RT, "measy", ["easy", "keasy", "reasy"]),
                best_at_every_point(BSLD, "measy", ["easy", "keasy", "reasy"]),
            ),
            note=notes["best"],
        ),
        Claim(
            "Over the experiments, MEASY lowers the average response time of EASY by up to 41.1% and by 23.1% on "
            "average.",
            "up to 41.1 %, 23.1 % on average",
            _rt_reduction(0.411, 0.231),
            note=notes["rt"],
        ),
        Claim(
            "Over the experiments, MEASY lowers the average bounded slowdown of EASY by up to 82.9% and by 69.3% "
            "on average.",
            "up to 82.9 %, 69.3 % on average",
            _rt_reduction(0.829, 0.693, BSLD),
            note=notes["bsld"],
        ),
        Claim(
            "REASY performs worst of the three two-tier algorithms (Section 3.4, observation 1).",
            "REASY's response time highest of KEASY, REASY, MEASY at every load",
            best_at_every_point(RT, "reasy", ["keasy", "measy"], lower=False),
            note=notes["reasy"],
        ),
    ]


def _scenario(model: str, name: str, algorithms: list[str], load: float, workload=None, params=None) -> dict:
    return {
        "family": "backfill",
        "name": name,
        "seed": 2012,
        "repetitions": 1,
        "algorithms": algorithms,
        "datacenter": {"processors": 320},
        "workload": {
            "kind": "generator",
            "model": model,
            "n_jobs": N_JOBS[model],
            "load": load,
            "estimates": "tsafrir",
            **(workload or {}),
        },
        "params": {"record_jobs": False, "max_segments": PAPER_MAX_SEGMENTS, **(params or {})},
    }


def _load_sweep(model: str, fig: int, title: str, algorithms: list[str], claims: list[str], **kw) -> dict:
    return {
        "name": f"Fig. {fig}: {title} for {NAME[model]}",
        "description": f"Fig. {fig}: {title} for {NAME[model]} ({N_JOBS[model]:,} jobs, 320 processors), "
        f"load {LOADS[0]}–{LOADS[-1]}.",
        "claims": claims,
        "small": SMALL,
        "scenarios": [_scenario(model, f"Fig. {fig} {NAME[model]} load {x}", algorithms, x, **kw) for x in LOADS],
    }


def fig6() -> dict:
    claims = [
        *_main_claims("feitelson"),
        Claim(
            "For FWload (< 18% serial jobs) REASY still improves on EASY.",
            "REASY response time < EASY's",
            less_than_at_every_point(RT, "reasy", "easy"),
            note="Seed 2013 at 2,000 jobs failed it (docs/backfill.md).",
        ),
    ]
    return _load_sweep("feitelson", 6, "EASY, KEASY, REASY, MEASY", ["easy", "keasy", "reasy", "measy"], claims)


REASY_JW_NOTE = Note(
    "REASY over EASY's response time at loads 0.3–0.7: {per}. Its JWload response jumps between loads ({rt} s): a "
    "few long pinned episodes dominate it. The loss is not where the paper puts it: at load 0.5 REASY's serial jobs "
    "do better than under EASY and its parallel jobs far worse, while on FWload REASY's parallel jobs gain "
    "(docs/backfill.md measures both with two seeds). A parallel job pinned in the background (Alg. 3, Deploy 'R') "
    "waits for every fg job above it to end, and JWload's jobs are 4.3× longer than FWload's (docs/backfill.md).",
    {
        "per": lambda t: ", ".join(f"{ratio(RT, 'reasy', 'easy').at(t, p):.2f}" for p in t.points),
        "rt": lambda t: ", ".join(f"{t.get(p, 'reasy', RT):,.0f}" for p in t.points),
    },
)


def fig7() -> dict:
    claims = [
        *_main_claims("jann"),
        Claim(
            "For JWload (40.8% serial jobs) REASY is even worse than EASY (Section 3.4, observation 1).",
            "REASY response time > EASY's",
            less_than_at_every_point(RT, "easy", "reasy"),
            note=REASY_JW_NOTE,
        ),
    ]
    return _load_sweep("jann", 7, "EASY, KEASY, REASY, MEASY", ["easy", "keasy", "reasy", "measy"], claims)


def fig8() -> dict:
    return {
        "name": "Fig. 8: MEASY migrations for FWload and JWload",
        "description": "Fig. 8: average number of MEASY migrations for FWload and JWload, load 0.3–0.7.",
        "claims": [
            Claim(
                "At high load JWload needs more migrations than FWload; at low load it needs fewer "
                "(Section 3.4, observation 3).",
                "JWload > FWload at high load, < at low load (migrations per job)",
                all_of(
                    compare_points(MIGRATIONS_PER_JOB, f"JWload load {LOADS[-1]}", f"FWload load {LOADS[-1]}"),
                    compare_points(MIGRATIONS_PER_JOB, f"FWload load {LOADS[0]}", f"JWload load {LOADS[0]}"),
                ),
                note=Note(
                    "MEASY migrations per job here: JWload {jh:.4f} vs FWload {fh:.4f} at load 0.7, FWload {fl:.4f} "
                    "vs JWload {jl:.4f} at 0.3. At load 0.3 MEASY migrates about 1 job in {one_in:.0f} in both "
                    "workloads, so the two counts lie within each other's noise: seed 2013 and a 20,000-job run gave JWload fewer "
                    "(docs/backfill.md).",
                    {
                        k: (lambda t, w=w, x=x: MIGRATIONS_PER_JOB.at(t, t.select(f"{w} load {x}")[0]))
                        for k, w, x in (
                            ("jh", "JWload", LOADS[-1]),
                            ("fh", "FWload", LOADS[-1]),
                            ("fl", "FWload", LOADS[0]),
                            ("jl", "JWload", LOADS[0]),
                        )
                    }
                    | {"one_in": lambda t: 1 / MIGRATIONS_PER_JOB.at(t, t.select(f"FWload load {LOADS[0]}")[0])},
                ),
            )
        ],
        "small": SMALL,
        "scenarios": [
            _scenario(model, f"Fig. 8 {NAME[model]} load {x}", ["measy"], x)
            for model in ("feitelson", "jann")
            for x in LOADS
        ],
    }


MIGRATIONS_PER_JOB = Quantity(
    "MEASY migrations per job", lambda t, p: t.get(p, "measy", "migrations") / max(t.get(p, "measy", "jobs"), 1.0)
)


def _both_beat_easy(text: str) -> Claim:
    return Claim(
        text,
        "MEASY and KEASY response time < EASY's at every load",
        all_of(less_than_at_every_point(RT, "measy", "easy"), less_than_at_every_point(RT, "keasy", "easy")),
    )


def _measy_beats_keasy(text: str) -> Claim:
    return Claim(text, "MEASY response time < KEASY's at every load", less_than_at_every_point(RT, "measy", "keasy"))


def _no_cpu_info(model: str, fig: int) -> dict:
    claims = [
        _both_beat_easy("Without any CPU-usage information both MEASY and KEASY outperform EASY (Section 3.5.1)."),
        _measy_beats_keasy("Without CPU-usage information MEASY is always better than KEASY."),
    ]
    return _load_sweep(model, fig, "no CPU-usage information (no 96% threshold, no pairing)",
                       ["easy", "keasy", "measy"], claims, params={"cpu_info": "none"})  # fmt: skip


def _full_cpu(model: str, fig: int) -> dict:
    claims = [
        _both_beat_easy(
            "With the average CPU usage of multi-process jobs at 100%, KEASY and MEASY still perform better than "
            "EASY (Section 3.5.2)."
        ),
        _measy_beats_keasy("With 100% CPU usage MEASY is always better than KEASY."),
    ]
    return _load_sweep(model, fig, "average CPU usage forced to 100%", ["easy", "keasy", "measy"], claims,
                       workload={"cpu_usage_min": 1.0, "cpu_usage_max": 1.0})  # fmt: skip


def _cost_ratios(t: Table) -> str:
    return ", ".join(f"{t.short(p)} {ratio(RT, 'measy', 'keasy').at(t, p):.3f}" for p in t.points)


def _crossing(t: Table) -> str:
    q = ratio(RT, "measy", "keasy")
    for prev, p in zip(t.points, t.points[1:], strict=False):
        if q.at(t, prev) < 1 <= q.at(t, p):
            return f"between {t.short(prev)} and {t.short(p)}"
    return "nowhere in the sweep" if q.at(t, t.points[-1]) < 1 else "before the first cost"


_COST_LEAD = "MEASY/KEASY response time at load 0.5: {ratios}; it crosses 1 {cross}. "
COST_NOTES = {
    "feitelson": Note(
        _COST_LEAD + "Paper: between 900 and 1,500 s (a 20,000-job run with seed 0 crossed at 480–900 s, "
        "docs/backfill.md). KEASY's kills lose 1,200–1,570 s of work each (docs/backfill.md).",
        {"ratios": _cost_ratios, "cross": _crossing},
    ),
    "jann": Note(
        _COST_LEAD + "Paper: between 480 and 900 s. Not a longer-job artefact: our JWload has the paper's "
        "statistics (docs/backfill.md: mean runtime 10,900 vs 11,267 s, 41.7 vs 40.8 % serial). Nor does the "
        "paper's cause (more JWload migrations) move it: MEASY migrates where KEASY kills, so a larger count scales "
        "the cost and the saving alike; the crossing is MEASY's edge at 20 s over the response time each second of "
        "cost adds, and on JWload both are small (docs/backfill.md).",
        {"ratios": _cost_ratios, "cross": _crossing},
    ),
}


def _cost_sweep(model: str, fig: int, better: int, worse: int) -> dict:
    below = [i for i, c in enumerate(COSTS) if c < better]
    above = [i for i, c in enumerate(COSTS) if c > worse]
    claims = [
        Claim(
            f"For {NAME[model]}, MEASY is better than KEASY whenever the migration cost is below {better} s "
            "(Section 3.5.3).",
            f"MEASY < KEASY below {better} s",
            less_than_at_every_point(RT, "measy", "keasy", points=below),
        ),
        Claim(
            f"For {NAME[model]}, above {worse} s MEASY is only comparable to (a little worse than) KEASY.",
            f"MEASY/KEASY ≈ 1 (a little above) beyond {worse} s",
            at_every_point(ratio(RT, "measy", "keasy"), 0.95, 1.2, points=above),
            note=COST_NOTES[model],
        ),
        Claim(
            "MEASY stays better than EASY even with a high migration cost.",
            "MEASY < EASY at every cost",
            less_than_at_every_point(RT, "measy", "easy"),
        ),
    ]
    return {
        "name": f"Fig. {fig}: MEASY vs KEASY and EASY for {NAME[model]} as the migration cost grows",
        "description": f"Fig. {fig}: MEASY vs KEASY and EASY for {NAME[model]} at load {COST_LOAD}, migration cost "
        f"{COSTS[0]}–{COSTS[-1]} s.",
        "claims": claims,
        "small": SMALL,
        "scenarios": [
            _scenario(
                model,
                f"Fig. {fig} {NAME[model]} migration cost {c} s",
                ["easy", "keasy", "measy"],
                COST_LOAD,
                params={"migration_cost_s": float(c)},
            )
            for c in COSTS
        ],
    }


PRESETS: dict[str, Callable[[], dict[str, Any]]] = {
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "fig9": lambda: _no_cpu_info("feitelson", 9),
    "fig10": lambda: _no_cpu_info("jann", 10),
    "fig11": lambda: _full_cpu("feitelson", 11),
    "fig12": lambda: _full_cpu("jann", 12),
    "fig13": lambda: _cost_sweep("feitelson", 13, 900, 1500),
    "fig14": lambda: _cost_sweep("jann", 14, 480, 900),
}
