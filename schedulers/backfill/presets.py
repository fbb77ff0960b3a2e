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
    Quantity,
    aggregate,
    all_of,
    at_every_point,
    best_at_every_point,
    compare_points,
    less_than_at_every_point,
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


# Notes beside the main claims, per figure: what the small scale (10,000 jobs) measured with the preset
# seed 2012 and with seed 2013 (docs/backfill.md, "Small scale").
MAIN_NOTES = {
    "feitelson": {
        "best": "MEASY has the lowest response time at every load with both seeds tried (2012, 2013); KEASY's "
        "bounded slowdown is lower at one low load (seed 2012: 3.09 vs 3.28 at 0.4; seed 2013: 1.50 vs 1.55 at "
        "0.3), where few jobs wait at all.",
        "rt": "The gain grows with load (20,000 jobs: 15 % at load 0.3 to 46 % at 0.7); the loads are our reading "
        "(the figures were lost). Seed 2013: mean 25.1 %, max 34.7 %.",
        "bsld": "Seed 2013: mean 66.5 %, max 73.8 %.",
        "reasy": "Reproduced with both seeds tried; REASY still beats EASY here (next claim).",
    },
    "jann": {
        "best": "Seed 2012: KEASY's bounded slowdown is lower at load 0.7 (6.07 vs 6.86); seed 2013 reproduces "
        "the claim at every load. MEASY's response-time edge over KEASY on JWload is only 0.4–3.6 % (seed 2012).",
        "rt": "The gain grows with load (20,000 jobs: 4 % at load 0.3 to 27 % at 0.7); seed 2013 gives a mean of "
        "12.2 % (max 22.2 %), just outside the ±10-point band: the verdict depends on the seed at this size.",
        "bsld": "Seed 2013: mean 69.0 %, max 78.6 %.",
        "reasy": "Reproduced with both seeds tried, by a wide margin at loads 0.5 and 0.7 (see the next claim).",
    },
}


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
            note="Reproduced with both seeds tried (at 2,000 jobs seed 2013 failed it).",
        ),
    ]
    return _load_sweep("feitelson", 6, "EASY, KEASY, REASY, MEASY", ["easy", "keasy", "reasy", "measy"], claims)


REASY_JW_NOTE = (
    "Seed 2012: REASY is 42 % and 41 % worse than EASY at loads 0.5 and 0.7 and 4–14 % better at 0.3, 0.4 and "
    "0.6; seed 2013: worse at every load (by 1–48 %). Its JWload response jumps between loads (seed 2012: "
    "11,240, 11,760, 19,040, 12,700, 26,540 s), a few long pinned episodes dominate it. The loss is not where the "
    "paper puts it: at load 0.5 REASY's serial jobs do better than under EASY (response − runtime 695 vs 1,779 s, "
    "seed 2013 526 vs 964 s) and its parallel jobs far worse (14,349 vs 3,370 s; 7,605 vs 2,499 s); on FWload "
    "REASY's parallel jobs gain (4,244 vs 5,694 s). A parallel job pinned in the background (Alg. 3, Deploy 'R') "
    "waits for every fg job above it to end, and JWload's jobs are 4.3× longer than FWload's."
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
                note="High load holds with both seeds tried (seed 2013: 0.115 vs 0.070 per job). At load 0.3 "
                "MEASY migrates about 1 job in 100 in both workloads (~110 migrations per 10,000 jobs), so the "
                "two counts lie within each other's noise: seed 2012 gives JWload 6 % more, seed 2013 26 % fewer "
                "(0.0075 vs 0.0102); 20,000 jobs, seed 0 gave 11 % fewer (228 vs 257).",
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


COST_NOTES = {
    "feitelson": "10,000 jobs, load 0.5: MEASY/KEASY is 0.93–0.98 at 900 s, 0.94–0.99 at 1,500 s and 1.00–1.03 at "
    "2,400 s with both seeds tried (2012, 2013), so it crosses 1 at 1,500–2,400 s, above the paper's 900–1,500 s "
    "(20,000 jobs, seed 0: 480–900 s). MEASY's edge at 20 s is 5–10 %; KEASY's kills lose 1,200–1,570 s of work "
    "each.",
    "jann": "10,000 jobs, load 0.5: MEASY/KEASY is 0.989–0.995 at 900 s, 0.993–0.999 at 1,500 s and 1.004–1.008 at "
    "2,400 s with both seeds tried, so it crosses 1 at 1,500–2,400 s (paper: 480–900 s), where FWload crosses "
    "too. Not a longer-job artefact: our JWload has the paper's statistics (mean runtime 10,900 vs 11,267 s, "
    "41.7 vs 40.8 % serial, mean size 10.0 vs 10.5). Nor does the paper's cause (more JWload migrations) move "
    "it: MEASY migrates where KEASY kills (JWload 404 migrations vs 402 kills, FWload 302 vs 303, seed 2012), so "
    "a larger count scales the cost and the saving alike. The crossing is MEASY's edge at 20 s over the response "
    "time each second of cost adds: 214 s / 0.097 ≈ 2,200 s (seed 2012); on JWload the edge is small (1.0–1.8 % "
    "vs FWload's 5–10 %) but so is the slope (4 % of jobs migrate), and its kills lose 1,700–3,800 s of work each.",
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
