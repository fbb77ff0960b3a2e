"""Paper-figure experiments (Section 5, Figs. 5.4–5.9) as studies of scenarios.

Figs. 5.4–5.6 sweep the maximum duration of synthetic requests (50…800 slots of
5 min, 1000 VMs, 10 runs each). Figs. 5.7–5.9 replay a Parallel Workloads
Archive log with 1 min slots and 1000…7000 VMs. The paper names no log beyond
"a large Linux cluster" observed for months; we use LLNL-Atlas (a Linux cluster,
8 months). The paper gives five migration counts for "1000 to 7000" VMs, so we
read the sweep as 1000, 2500, 4000, 5500, 7000. A user's machine may not have
the log: it is looked up by :func:`schedulers.core.traces.locate_log` (``$CLOUDSCHED_TRACE_DIRS``
or ``../shared/workloads/traces`` beside the checkout; the stored traces on the web), and when absent the study falls back to the
synthetic generator with the same request counts (said in its description).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedulers.core.claims import (
    Check,
    Claim,
    aggregate,
    all_of,
    at_every_point,
    less_than_at_every_point,
    ratio,
    reduction,
    value,
)
from schedulers.core.traces import find_trace, locate_log

__all__ = ["PRESETS", "READINGS", "SMALL", "trace_path"]

TRACE_NAME = "LLNL-Atlas-2006-2.1-cln.swf.gz"
MAX_DURATIONS = (50, 100, 200, 400, 800)
VM_COUNTS = (1000, 2500, 4000, 5500, 7000)
ALGS = ["opt_min_migration", "llif", "ffd", "est", "mffde"]

OPT, ENERGY, RUNTIME = "opt_min_migration", "energy_kwh", "algorithm_runtime_s"
SMALL_REPETITIONS = 2


def _small(scenario: dict[str, Any]) -> dict[str, Any]:
    scenario["repetitions"] = min(scenario["repetitions"], SMALL_REPETITIONS)
    return scenario


SMALL = {
    "note": f"{SMALL_REPETITIONS} runs per point instead of 10 (the log replays are already single runs).",
    "shrink": _small,
}

READINGS = [
    'The paper names no log beyond "a large Linux cluster" observed for months: we replay LLNL-Atlas '
    "(a Linux cluster, 8 months) with 1 min slots; processor counts map to the nearest EC2 VM type of Table 1.",
    '"1000 to 7000" VMs with five migration counts is read as 1000, 2500, 4000, 5500, 7000.',
    'OPT in the comparisons is OPT-Min-Migration\'s schedule; "LLIF below twice OPT" is checked on energy.',
    '"About 5–15 % / 2–10 % more energy-saving than FFD on the average" is read as the mean saving over a '
    "figure's points.",
    "The paper's migration counts (2…27, 12…158) come from its own random instances: ours are checked within "
    "a factor of two, point by point.",
    '"Close to each other" running times are read as EST within 0.8–1.25× FFD\'s.',
]


def _order(metric: str) -> Check:
    """EST ≥ FFD > LLIF > OPT at every point."""
    return all_of(
        at_every_point(ratio(metric, "est", "ffd"), 1.0),
        less_than_at_every_point(metric, "llif", "ffd"),
        less_than_at_every_point(metric, OPT, "llif"),
    )


def _order_claim(what: str, metric: str, note: str) -> Claim:
    return Claim(ORDER_CLAIM.format(what=what), "EST ≥ FFD > LLIF > OPT at every point", _order(metric), note=note)


_LLIF_FFD = (
    " Not a coding slip: our LLIF and FFD place every request exactly as slot-by-slot transcriptions of Alg. 3.1 "
    "(lines 2–11) and of Section 5.2's FFD do (tests/schedulers/vm_reservations/test_references.py). Where and "
    "why FFD wins, and how little room FFD leaves, is in the note on the 5–15 % claim."
)
ORDER_NOTES = {
    "fig5_4": "EST ≥ FFD and LLIF > OPT hold at every point; only FFD > LLIF fails, at max duration 50 "
    "(LLIF 371.2 vs FFD 369.5 kWh, +0.5 %), while LLIF is lower from 100 slots on." + _LLIF_FFD,
    "fig5_5": "EST ≥ FFD and LLIF > OPT hold at every point; only FFD > LLIF fails, at max duration 50 and 100 "
    "(LLIF 58,040 vs FFD 57,800 min, 92,220 vs 92,040: +0.4 %, +0.2 %); at paper scale (10 runs) at "
    "50 and 200 instead, by 0.2 % and under 0.1 %." + _LLIF_FFD,
    "fig5_7": "EST ≥ FFD and LLIF > OPT hold at every point; FFD > LLIF fails at every VM count: on the log LLIF "
    "uses 0.3–1.8 % more energy than FFD (503.5 vs 502 kWh at 1000 VMs, 973.4 vs 956.2 at 2500)." + _LLIF_FFD,
    "fig5_8": "EST ≥ FFD and LLIF > OPT hold at every point; FFD > LLIF fails at every VM count: on the log LLIF "
    "keeps PMs on 0.4–2.4 % longer than FFD (106,000 vs 103,500 min at 2500 VMs)." + _LLIF_FFD,
}


ORDER_CLAIM = "EST ≥ FFD > LLIF > OPT in {what} in every case."

# Measured with bench/vm_reservations_llif_vs_ffd.py (small scale: the generator's 2 runs per point; the log
# replays are single runs, the same at both scales). tests/schedulers/vm_reservations/test_claim_notes.py
# checks that every "A vs B" and every migration count quoted in a note is what the claims report prints
# beside it at small scale.
_SAVING_GENERATOR = (
    "Small scale, generator: mean energy reduction vs FFD 0.1 % for LLIF and −1.6 % for MFFDE (MFFDE uses 1.1–2.4 % "
    "more energy than FFD at every point); per point LLIF's saving runs from −0.45 % (371.2 vs 369.5 kWh at max "
    "duration 50) to +0.37 % (3635 vs 3648 at 800). FFD leaves little room: even OPT with migrations is only 3.1, "
    "7.3, 9.8, 10.9, 11.4 % below FFD (max duration 50…800, mean 8.5 %), and at max duration 50 no placement "
    "without migration saves more than 1.61 % (exact MILP per time-connected component, the 2 it could not prove "
    "in 10 s counted at their Theorem 1 bound; the placements found save 1.51 %; at 100 slots 2.86 %). "
    "LLIF and FFD tie on most components with ≥ 2 "
    "requests (319 of 358 at 50 slots, 100 of 156 at 100); of the rest LLIF wins 17 and loses 22 (50 slots), wins "
    "22 and loses 34 (100 slots). At 400 and 800 slots each pool is one component and the pools split (800 slots: "
    "LLIF +1.3 % power-on in the 16-ECU pool, −1.5 % in the 52-ECU pool). Our LLIF follows the paper's pseudocode "
    "line by line, so either the paper's FFD or its instances leave more room than ours, or its LLIF does "
    "something Alg. 3.1 does not say."
)
_SAVING_LOG = (
    "LLNL-Atlas replay: mean energy reduction vs FFD −1.0 % for LLIF and −5.2 % for MFFDE (LLIF uses 0.3–1.8 % "
    "more energy than FFD at every VM count, MFFDE 2.5–7.1 % more). 5 % is out of reach over our FFD for any "
    "algorithm here: OPT with migrations is only 4.0, 2.9, 3.1, 3.4, 3.3 % below FFD (1000…7000 VMs). LLIF and "
    "FFD tie on most time-connected components (140 of 151 with ≥ 2 requests at 2500 VMs); the gap comes from one "
    "component of 541 requests (slots 13031–25720, the 52-ECU pool, 94 % half-PM VMs): its 8.7-day VM starts one "
    "slot inside the first run LLIF takes there (13257–14184, 4 PMs), so the six requests that started before the "
    "run go first (ETF, line 8) and fill PMs 1–3 (four of them end within 1232 min of the run's start), and the "
    "long VM opens a fourth PM that stays on; FFD takes it first and pairs it with the next-longest (5430 min) on "
    "PM 1. That component costs LLIF +2811 PM-min (19.7 kWh), more than the whole gap (973.4 vs 956.2 kWh at 2500 "
    "VMs). Against the start-ordered first fits LLIF does save energy on the log: 2.5–5.3 % vs EST, 2.2–4.9 % vs "
    "MFFDE. Without line 8's ETF/STF split (longest first within the run, not the paper's text) LLIF saves "
    "0.13–0.26 % over FFD on the log (bench --line8)."
)


def _common_claims(saving_note: str) -> list[Claim]:
    return [
        Claim(
            "LLIF stays below twice OPT (Theorem 4 / Observation 5).",
            "LLIF/OPT < 2",
            at_every_point(ratio(ENERGY, "llif", OPT), None, 2.0),
        ),
        Claim(
            "LLIF is about 5–15% more energy-saving than FFD, MFFDE about 2–10% (Section 5.4).",
            "LLIF saves 5–15 %, MFFDE 2–10 % vs FFD (average)",
            all_of(
                aggregate(reduction(ENERGY, "llif", "ffd"), "mean", 0.05, 0.15),
                aggregate(reduction(ENERGY, "mffde", "ffd"), "mean", 0.02, 0.10),
            ),
            note=saving_note,
        ),
    ]


RUNNING_TIME_CLAIMS = [
    Claim(
        "LLIF runs slightly longer than EST and FFD, which are close to each other.",
        "LLIF > EST, FFD; EST ≈ FFD",
        all_of(
            less_than_at_every_point(RUNTIME, "est", "llif"),
            less_than_at_every_point(RUNTIME, "ffd", "llif"),
            at_every_point(ratio(RUNTIME, "est", "ffd"), 0.8, 1.25),
        ),
        note="Timed as process CPU time, the best of up to 7 identical placements (algorithm_runtime_s, "
        "vm_reservations.simulator.timed_place). A single wall-clock reading of one placement (milliseconds) on "
        "a shared 2-core machine flipped this verdict from run to run before.",
    ),
    Claim(
        "Finding the (theoretical) OPT costs much less time than EST, FFD and LLIF (Section 5).",
        "OPT fastest",
        all_of(*(less_than_at_every_point(RUNTIME, OPT, a) for a in ("est", "ffd", "llif"))),
        note="The paper times only the computation of OPT's value (linear in the total load); our "
        "OPT-Min-Migration builds the whole schedule with its migrations.",
    ),
]


def _migrations(text: str, paper: tuple[int, ...], note: str) -> Claim:
    q = value(OPT, "migrations")
    return Claim(
        text,
        ", ".join(map(str, paper)),
        all_of(*(at_every_point(q, n / 2, 2 * n, [i]) for i, n in enumerate(paper))),
        note=note,
    )


_MIGRATION_CAUSE = (
    " Keeping exactly ⌈L_i/g⌉ PMs on in every slot with mixed demands forces a move whenever that count drops, "
    "and OPT-Min-Migration was found not to reach the minimum number of migrations on small divisible instances "
    "(min_migration); the paper does not say how it got so few."
)
MIGRATIONS_SMALL = {
    # OPT-Min-Migration's migrations at small scale, as the claims report prints them
    "fig5_6": (62, 142.5, 244, 421, 689.5),  # mean of 2 runs per max duration 50…800
    "fig5_9": (48, 140, 232, 342, 402),  # single replay per VM count 1000…7000 (also the paper-scale values)
}


def _counts(preset: str) -> str:
    return ", ".join(f"{n:g}" for n in MIGRATIONS_SMALL[preset])


MIGRATION_NOTES = {
    "fig5_6": f"Small scale (mean of 2 runs per point): {_counts('fig5_6')} migrations for max duration 50…800, "
    "25–41 times the paper's counts (paper scale, 10 runs: 67.1, 150.9, 259.5, 432.2, 711.9)." + _MIGRATION_CAUSE,
    "fig5_9": f"LLNL-Atlas replay (one run per point, the same at both scales): {_counts('fig5_9')} migrations for "
    "1000…7000 VMs, 2.5–6.8 times the paper's counts." + _MIGRATION_CAUSE,
}


def trace_path() -> Path | None:
    """The LLNL-Atlas log, if this machine has it (see schedulers.core.traces)."""
    return find_trace(TRACE_NAME)


def _duration_sweep(name: str, what: str, claims: list[Claim]) -> dict[str, Any]:
    scenarios = [
        {
            "family": "vm_reservations",
            "name": f"{name} max duration {m} slots",
            "seed": 2017,
            "repetitions": 10,
            "algorithms": ALGS,
            "datacenter": {"slot_minutes": 5},
            "workload": {
                "kind": "generator",
                "n_requests": 1000,
                "mean_interarrival_slots": 5,
                "max_duration_slots": m,
            },
        }
        for m in MAX_DURATIONS
    ]
    return {
        "name": f"{_figure(name)}: {what} vs the maximum VM duration",
        "description": f"{what} when the maximum VM duration grows from 50 to 800 slots of 5 min "
        "(1000 VMs, Poisson arrivals with mean 5 slots, exponential durations; 10 runs each).",
        "claims": [*claims, *_common_claims(_SAVING_GENERATOR)],
        "small": SMALL,
        "scenarios": scenarios,
    }


def _figure(preset: str) -> str:
    """The thesis's figure of a preset: ``fig5_4`` → "Fig. 5.4"."""
    return "Fig. " + preset.removeprefix("fig").replace("_", ".")


def _vm_sweep(name: str, what: str, claims: list[Claim]) -> dict[str, Any]:
    keys, where = locate_log(TRACE_NAME)
    scenarios = []
    for n in VM_COUNTS:
        if keys is not None:
            workload = {"kind": "trace", **keys, "n_requests": n, "proc_mapping": "nearest_cpu"}
        else:
            workload = {"kind": "generator", "n_requests": n, "max_duration_slots": 800}
        scenarios.append(
            {
                "family": "vm_reservations",
                "name": f"{name} {n} VMs",
                "seed": 2017,
                "repetitions": 1 if keys is not None else 10,
                "algorithms": ALGS,
                "datacenter": {"slot_minutes": 1 if keys is not None else 5},
                "workload": workload,
            }
        )
    source = f"the log {where} (1 min slots)" if keys else f"the synthetic generator ({where})"
    return {
        "name": f"{_figure(name)}: {what} vs the number of VMs",
        "description": f"{what} when the number of VMs grows from 1000 to 7000, replaying {source}; "
        "processor counts map to the nearest EC2 VM type of Table 1.",
        "claims": [*claims, *_common_claims(_SAVING_LOG if keys is not None else "")],
        "small": SMALL,
        "scenarios": scenarios,
    }


ENERGY_WHAT, POWER_WHAT = "total energy consumption (kWh)", "total power-on time (minutes)"


def fig5_4() -> dict[str, Any]:
    return _duration_sweep("fig5_4", ENERGY_WHAT, [_order_claim(ENERGY_WHAT, ENERGY, ORDER_NOTES["fig5_4"])])


def fig5_5() -> dict[str, Any]:
    return _duration_sweep("fig5_5", POWER_WHAT, [_order_claim(POWER_WHAT, "power_on_time_min", ORDER_NOTES["fig5_5"])])


def fig5_6() -> dict[str, Any]:
    return _duration_sweep(
        "fig5_6",
        "algorithm running time",
        [
            *RUNNING_TIME_CLAIMS,
            _migrations(
                "OPT needs 2, 4, 6, 15, 27 migrations as the maximum duration goes 50…800.",
                (2, 4, 6, 15, 27),
                MIGRATION_NOTES["fig5_6"],
            ),
        ],
    )


def fig5_7() -> dict[str, Any]:
    return _vm_sweep("fig5_7", ENERGY_WHAT, [_order_claim(ENERGY_WHAT, ENERGY, ORDER_NOTES["fig5_7"])])


def fig5_8() -> dict[str, Any]:
    return _vm_sweep("fig5_8", POWER_WHAT, [_order_claim(POWER_WHAT, "power_on_time_min", ORDER_NOTES["fig5_8"])])


def fig5_9() -> dict[str, Any]:
    return _vm_sweep(
        "fig5_9",
        "algorithm running time",
        [
            *RUNNING_TIME_CLAIMS,
            _migrations(
                "OPT needs 12, 23, 34, 87, 158 migrations as the VM count grows from 1000 to 7000.",
                (12, 23, 34, 87, 158),
                MIGRATION_NOTES["fig5_9"] if locate_log(TRACE_NAME)[0] is not None else "",
            ),
        ],
    )


PRESETS = {f.__name__: f for f in (fig5_4, fig5_5, fig5_6, fig5_7, fig5_8, fig5_9)}
