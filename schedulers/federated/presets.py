"""Paper experiments of the ``federated`` family (paper 004, Section 6): Table 3, Tables 4-5, Figs. 7-10.

Section 6.1 runs the LLNL-Thunder, LLNL-Atlas and LLNL-uBGL logs separately, jobs
grouped into applications of up to 64 (Table 1), on the three data centres of Table 2,
with 20% AR applications, 1 Gbps between clouds, 4 GB/s inside, 1 TB datasets. A
preset refers to a real log by :func:`schedulers.core.traces.locate_log` (a path in
``../shared/workloads/traces/`` next to the checkout or ``$CLOUDSCHED_TRACE_DIRS``; a stored
trace on the web); when the log is not there it falls back to the
synthetic DAG generator with 64-task applications (stated in the study description).
The uBGL log is not among the shipped traces, so the presets use Thunder (and Atlas for
Figs. 7-8). Each log's applications are submitted to the cloud it was recorded on
(``homes = fixed``), our reading of running the logs "separately". Full logs are large
(Thunder: 121k jobs), so segments are not recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedulers.core.claims import (
    Check,
    Claim,
    Table,
    aggregate,
    all_of,
    at_every_point,
    less_than_at_every_point,
    monotone,
    near,
    ratio,
    reduction,
    value,
)
from schedulers.core.traces import find_trace, locate_log

__all__ = ["PRESETS", "READINGS", "SMALL", "trace_path"]

EXEC, ENERGY = "avg_app_execution_time_s", "energy_kwh"
SMALL_JOBS, SMALL_APPS = 1000, 100


def _small(scenario: dict[str, Any]) -> dict[str, Any]:
    wl = scenario["workload"]
    if wl["kind"] == "trace":
        wl["max_jobs"] = SMALL_JOBS
    else:
        wl["apps"] = min(wl.get("apps", SMALL_APPS), SMALL_APPS)
    return scenario


SMALL = {
    "note": f"the first {SMALL_JOBS:,} jobs of each log (Thunder has 121k) or {SMALL_APPS} synthetic "
    "applications; gap divisors, AR shares, α and the clouds are the paper's.",
    "shrink": _small,
}

READINGS = [
    "The uBGL log is not among the shipped traces: Table 3–5 and Figs. 9–10 use Thunder, Figs. 7–8 Thunder "
    "and Atlas; each log's applications are submitted to the cloud it was recorded on (`homes = fixed`), our "
    'reading of running the logs "separately".',
    "Jobs are grouped into applications of up to 64 in submission order (Table 1); the tight situation divides "
    "every arrival gap by 100 (Table 3's largest reduction).",
    "The feedback improvement is 1 − DCLS/CLS (and 1 − DCMMS/CMMS) of the average application execution "
    'time; "slightly hurts" is read as an improvement between −15 % and 0, and the 31 % / 40 % at 100× are '
    "checked within 10 points.",
    'Table 4–5 ranges ("0.81–0.49") are read as the normalised values at 0 % and 100 % AR, within ±15 %.',
    '"The feedback changes little" is read as the largest over smallest execution time across α ∈ {0, 0.5, 1} '
    'at most 1.05 per log and algorithm; "matters more" as above 1.05.',
    '"Reduces energy significantly" is read as at least 5 % less energy with energy-aware local mapping.',
    "The uBGL data centre has 2,048 VMs (1,024 servers × 2), as Section 6.1 lists the simulated data centres: "
    '"(3) 2048 processors BlueGene/L system". Table 2\'s 81,920 CPUs are the big uBGL ("uBGL(big)"), the source '
    "of the per-core performance: peak TFLOP/s per CPU is 5.62 G (Thunder, 23/4,096), 4.80 G (Atlas, 44.2/9,216) "
    "and 2.80 G (uBGL, 229.4/81,920), i.e. 1 : 0.85 : 0.50, and the caption says the log's small uBGL has that "
    "per-core performance (docs/federated.md).",
]


def _improvement(alg: str, base: str) -> Any:
    return reduction(EXEC, alg, base)


def _ratio_ends(alg: str, first: float, last: float) -> Check:
    q = ratio(EXEC, alg, "fcfs")
    return all_of(at_every_point(q, *near(first), [0]), at_every_point(q, *near(last), [-1]))


def _fcfs_context(t: Table) -> tuple[bool, str]:
    """Not a test (always holds): what moves the FCFS baseline as the AR share grows.

    Per point: the applications FCFS and DCLS reject (a rejected application leaves the
    average and its work leaves the cloud), and FCFS's average AR and best-effort application
    times (an AR application runs at once in the VMs the blocked best-effort queue head
    leaves idle, see docs/federated.md).
    """
    parts = []
    for p in t.points:
        rej = f"rejected FCFS {t.get(p, 'fcfs', 'rejected_apps'):.0f} / DCLS {t.get(p, 'dcls', 'rejected_apps'):.0f}"
        ar, be = t.get(p, "fcfs", "avg_ar_app_execution_time_s"), t.get(p, "fcfs", "avg_be_app_execution_time_s")
        apps = ", FCFS " + " vs ".join(f"{kind} apps {x:,.0f} s" for kind, x in (("AR", ar), ("BE", be)) if x > 0)
        parts.append(f"{t.short(p)}: {rej}{apps}")
    return True, "context: " + "; ".join(parts)


def _remote_context(t: Table) -> tuple[bool, str]:
    """Not a test (always holds): per point, the share of tasks DCLS and DCMMS run away from the home cloud."""
    parts = [
        f"{t.short(p)}: DCLS {t.get(p, 'dcls', 'remote_task_share'):.1%}, DCMMS {t.get(p, 'dcmms', 'remote_task_share'):.1%}"
        for p in t.points
    ]
    return True, "context: tasks run off the home cloud (FCFS 0 %): " + "; ".join(parts)


def _alpha_effect(small: bool) -> Check:
    checks = [
        aggregate(value(alg, EXEC), "max/min", *((None, 1.05) if small else (1.05, None)), points=trace)
        for trace in ("thunder", "atlas")
        for alg in ("dcls", "dcmms")
    ]
    return all_of(*checks)


def _el_saves(t: Table) -> tuple[bool, str]:
    without, with_el = t.points[0], t.points[1]
    ratios = {a: t.get(with_el, a, ENERGY) / t.get(without, a, ENERGY) for a in ("fcfs", "dcls", "dcmms")}
    return all(r <= 0.95 for r in ratios.values()), "energy with EL / without: " + ", ".join(
        f"{a} {r:.3f}" for a, r in ratios.items()
    )


# log file, per-core performance of the machine it was recorded on (Table 2), its cloud index
_TRACES = {
    "thunder": ("LLNL-Thunder-2007-1.1-cln.swf.gz", 1.0, 0),
    "atlas": ("LLNL-Atlas-2006-2.1-cln.swf.gz", 0.85, 1),
}


def trace_path(name: str) -> Path | None:
    """Where the named LLNL log is on this machine, if anywhere."""
    return find_trace(_TRACES[name][0])


def _workload(trace: str, **common: Any) -> tuple[dict[str, Any], str]:
    keys, where = locate_log(_TRACES[trace][0])
    if keys is not None:
        _, perf, home = _TRACES[trace]
        wl = {
            "kind": "trace",
            **keys,
            "reference_perf": perf,
            "homes": "fixed",
            "home_cloud": home,
            **common,
        }
        return wl, f"LLNL-{trace.capitalize()} log: {where}"
    wl = {
        "kind": "generator",
        "apps": 400,
        "tasks_min": 1,
        "tasks_max": 64,
        "mean_gap_s": 6000.0,
        "runtime_min_s": 10.0,
        "runtime_max_s": 3600.0,
        "vms_max": 256,
        **common,
    }
    return wl, f"synthetic fallback, 400 apps of 1-64 tasks ({where})"


def _scenario(name: str, workload: dict, algorithms: list[str], alpha: float = 0.8, el: bool = True) -> dict:
    return {
        "family": "federated",
        "name": name,
        "seed": 2012,
        "repetitions": 1,
        "workload": workload,
        "algorithms": algorithms,
        "params": {"alpha": alpha, "energy_aware": el, "record_schedule": False},
    }


def table3() -> dict[str, Any]:
    scenarios, source = [], ""
    for divisor in (1, 20, 40, 60, 80, 100):
        wl, source = _workload("thunder", gap_divisor=float(divisor))
        scenarios.append(_scenario(f"Table 3, gaps / {divisor}", wl, ["cls", "dcls", "cmms", "dcmms"], alpha=1.0))
    return {
        "name": "Table 3: feedback improvement vs arrival-gap reduction",
        "description": "CLS vs DCLS and CMMS vs DCMMS (α = 1) as arrival gaps shrink 1-100×; " + source,
        "claims": [
            Claim(
                "With the original gaps the feedback slightly hurts (−6.6% for DCLS, −8.3% for DCMMS).",
                "−6.6 % (DCLS), −8.3 % (DCMMS)",
                all_of(
                    at_every_point(_improvement("dcls", "cls"), -0.15, -0.001, [0]),
                    at_every_point(_improvement("dcmms", "cmms"), -0.15, -0.001, [0]),
                ),
                note="At small scale (about 30 applications) DCLS = CLS and DCMMS = CMMS at /1 (0.0 %): no late "
                "task changes a placement (before eq. 6's fix both were 0.2 % slower, inputs' lateness charged "
                "to the clouds, which read as 'slightly hurts'). On the first 20,000 Thunder jobs the feedback "
                "helped at /1 (+8.1 % DCLS, +8.7 % DCMMS; measured before issue #26 put the work committed to a cloud but not ready yet into its slot table): the tables then left those tasks out, so "
                "some estimates were late and eq. 7 acted.",
            ),
            Claim(
                "The improvement from feedback grows with contention: about 31% (DCLS) and 40% (DCMMS) at 100×.",
                "DCLS 7.4 → 30.7 %, DCMMS → 40 % from /20 to /100",
                all_of(
                    monotone(_improvement("dcls", "cls")),
                    monotone(_improvement("dcmms", "cmms")),
                    at_every_point(_improvement("dcls", "cls"), 0.207, 0.407, [-1]),
                    at_every_point(_improvement("dcmms", "cmms"), 0.30, 0.50, [-1]),
                ),
                note="Applications of up to 64 jobs arriving at once saturate the federation already at /20 "
                "(tight runs take 9-14× the loose ones, the paper 4×; docs/federated.md): on the first 20,000 "
                "Thunder jobs the improvement ranges over +0.5 to +18.7 % (DCLS) and +3.8 to +18.1 % (DCMMS) "
                "from /20 to /100, +3.1 % / +16.6 % at /100, without growing (before eq. 6's Δτ counted from "
                "when a task's inputs were actually there: +1.5 to +21.7 % and −3.9 to +21.7 %, +11.5 / +11.1 % "
                "at /100; all measured before issue #26 put the work committed to a cloud but not ready yet into its slot table). At small scale 0.0 % (DCLS) and 0.0 % (DCMMS) at /100 (+1.2 % "
                "and −5.5 % before issue #26: with the committed work in the tables the estimates are seldom late).",
            ),
        ],
        "small": SMALL,
        "scenarios": scenarios,
    }


# Why Tables 4-5 are not reproduced, measured on the first 20,000 LLNL-Thunder jobs (docs/federated.md).
_WHY_FCFS = (
    "The list schedulers are not what moves: FCFS gets faster as the AR share grows, by two rules of the "
    "paper. (1) An AR application (Section 3.2) starts at once in the VMs that FCFS's best-effort queue head "
    "(Section 5.1.3: served only when it fits) leaves idle{ar_vs_be}. (2) FCFS keeps all AR work on the home "
    "cloud, so more entry tasks find it reserved and are rejected (Section 5.1.3); a rejected application "
    "leaves the average and its work leaves the cloud{rejections}. The paper's reason, that AR applications "
    "delay the best-effort ones, holds only in part{be_delay}."
)
_AR_NOTES = {
    4: {
        "ends": "0 % AR: DCLS/FCFS 0.60 on 20,000 jobs (the paper 0.81; 0.59 before eq. 6's Δτ counted from when a task's inputs were actually there, 0.69 when the "
        "slot tables were the never-corrected plan), 100 %: 0.94 (the paper 0.49; 0.93 and 1.13 before those "
        "fixes); DCMMS 0.61 and 0.96 (0.58 and 0.93 before the eq. 6 fix); the 20,000-job ratios were "
        "measured before issue #26 put the work committed to a cloud but not ready yet into its slot table. At small scale (about 30 "
        "applications) DCLS 0.94 and 0.99, DCMMS 0.94 and 1.00 (0.89/0.99 and 0.90/1.00 before it). See the next claim for why the 100 % end "
        "stays high.",
        "trend": "20,000 jobs, loose: DCLS/FCFS 0.60, 0.68, 0.72, 0.95, 0.94 at 0/20/50/80/100 % AR (FCFS "
        "82,065 s → 48,897 s, DCLS 45,000-50,000 s; 0.59, 0.68, 0.71, 0.94, 0.93 before eq. 6's Δτ counted from when a task's inputs were actually there). "
        + _WHY_FCFS.format(
            ar_vs_be=": at 20 % AR, with no rejection, FCFS's AR applications take 40,143 s and its best-effort "
            "ones 81,137 s",
            rejections=": at 100 % FCFS rejects 43 of 628 applications holding 20.2 % of the work (DCLS 32), "
            "and FCFS on the all-best-effort workload without those 43 takes 47,783 s, as much as at 100 % AR "
            "(48,897 s)",
            be_delay=": FCFS's best-effort applications take 81,137 s at 20 % AR, 92,996 s at 50 % and 68,840 s "
            "at 80 % (82,065 s with none)",
        ),
        "dcmms": "20,000 jobs, loose: DCMMS/FCFS 0.61, 0.67, 0.73, 0.94, 0.96 vs DCLS 0.60, 0.68, 0.72, 0.95, "
        "0.94: DCMMS is ahead only at 20 and 80 % AR (by under 0.01) and behind at 0, 50 and 100 % "
        "(0.58, 0.66, 0.71, 0.94, 0.93 vs 0.59, 0.68, 0.71, 0.94, 0.93 before eq. 6's Δτ counted from when a task's inputs were actually there); from 50 % AR entry tasks are "
        "pinned to the home cloud (the 8,000 s dataset transfer exceeds the ≤ 30 min notice) and min-min has "
        "few choices left (20,000-job ratios measured before issue #26 put the work committed to a cloud but not ready yet into its slot table). At small scale (about 30 applications) DCMMS equals "
        "DCLS at 0 and 20 % AR and is 0.8-1.3 % behind from 50 % on.",
    },
    5: {
        "ends": "20,000 jobs, tight: DCLS/FCFS 0.47 at 0 % and 0.41 at 100 % AR (the paper 0.63 and 0.38; "
        "0.51 and 0.42 before eq. 6's Δτ counted from when a task's inputs were actually there, 0.64 and 0.57 when the slot tables were the never-corrected plan), "
        "DCMMS/FCFS 0.47 and 0.39 (the paper 0.51 and 0.27; 0.48 and 0.39, and 0.55 and 0.65, before those "
        "fixes; the 20,000-job ratios were measured before issue #26 put the work committed to a cloud but not ready yet into its slot table). At small scale DCLS/FCFS 0.61 and DCMMS/FCFS 0.55 at 0 % AR. The small scale (about 30 applications, which arrive "
        "within some 75 minutes, less than the 8,000 s dataset transfer) leaves the list schedulers few "
        "places to go: at 100 % AR every algorithm gives the same average (ratio 1).",
        "trend": "20,000 jobs, tight: DCLS/FCFS 0.47, 0.49, 0.39, 0.38, 0.41 and DCMMS/FCFS 0.47, 0.40, "
        "0.42, 0.37, 0.39 at 0/20/50/80/100 % AR (before eq. 6's Δτ counted from when a task's inputs were actually there 0.51, 0.43, 0.43, 0.38, 0.42 and 0.48, 0.44, "
        "0.44, 0.37, 0.39; before the slot-table fix 0.64, 0.68, 0.57, 0.69, 0.57 and 0.55, 0.60, 0.57, 0.66, "
        "0.65): lower at 100 % than at 0 %, as in the paper, but not at every step. "
        + _WHY_FCFS.format(
            ar_vs_be=": at 20 % AR FCFS's AR applications take 101,507 s and its best-effort ones 1,644,192 s",
            rejections=": FCFS rejects 0, 18, 87, 162, 231 of 628 applications (61.7 % of the work at 100 %), "
            "DCLS 0, 19, 88, 161, 234, so both averages cover a shrinking, lighter workload",
            be_delay=": FCFS's best-effort applications take 1,644,192 s at 20 %, 1,365,642 s at 50 % and "
            "1,075,518 s at 80 % (1,665,456 s with none), shorter because of the rejections",
        )
        + " At small scale the list schedulers have few choices (see the first claim).",
        "dcmms": "20,000 jobs, tight: DCMMS/FCFS 0.47, 0.40, 0.42, 0.37, 0.39 vs DCLS 0.47, 0.49, 0.39, 0.38, "
        "0.41 (measured before issue #26 put the work committed to a cloud but not ready yet into its slot table): ahead at 0 (0.469 vs 0.473), 20, 80 and 100 % AR, 0.03 behind at 50 % (before eq. 6's Δτ counted from when a task's inputs were actually there: ahead at 0, 80 "
        "and 100 %, 0.01 behind at 20 and 50 %). At small scale (about 30 "
        "applications) min-min's greedy order is not ahead at every share, and at 100 % AR every algorithm "
        "gives the same schedule.",
    },
}


def _ar_table(tight: bool) -> dict[str, Any]:
    divisor = 100.0 if tight else 1.0
    label = "tight" if tight else "loose"
    scenarios, source = [], ""
    for share in (0.0, 0.2, 0.5, 0.8, 1.0):
        wl, source = _workload("thunder", gap_divisor=divisor, ar_share=share)
        scenarios.append(_scenario(f"AR {int(share * 100)}% ({label})", wl, ["fcfs", "dcls", "dcmms"], alpha=0.8))
    table = 5 if tight else 4
    ends = {"dcls": (0.63, 0.38), "dcmms": (0.51, 0.27)} if tight else {"dcls": (0.81, 0.49), "dcmms": (0.77, 0.44)}
    ratios = f"DCLS {ends['dcls'][0]}-{ends['dcls'][1]}, DCMMS {ends['dcmms'][0]}-{ends['dcmms'][1]}"
    return {
        "name": f"Table {table}: AR share 0-100% in the {label} situation",
        "description": f"Average application execution time normalised to FCFS (α = 0.8); {source}",
        "claims": [
            Claim(
                f"Normalised to FCFS, as the AR share goes 0 → 100%: {ratios}.",
                ratios,
                all_of(_ratio_ends("dcls", *ends["dcls"]), _ratio_ends("dcmms", *ends["dcmms"]), _fcfs_context),
                note=_AR_NOTES[table]["ends"],
            ),
            Claim(
                "A higher share of AR applications gives DCLS and DCMMS a larger improvement over FCFS.",
                "DCLS/FCFS and DCMMS/FCFS fall as the AR share grows",
                all_of(
                    monotone(ratio(EXEC, "dcls", "fcfs"), increasing=False),
                    monotone(ratio(EXEC, "dcmms", "fcfs"), increasing=False),
                    _fcfs_context,
                ),
                note=_AR_NOTES[table]["trend"],
            ),
            Claim(
                "DCMMS beats DCLS at every AR share.",
                "DCMMS < DCLS at every share",
                less_than_at_every_point(EXEC, "dcmms", "dcls"),
                note=_AR_NOTES[table]["dcmms"],
            ),
        ],
        "small": SMALL,
        "scenarios": scenarios,
    }


# Why Figs. 7-10 are not reproduced at small scale (1,000 jobs, about 31 applications per log), measured
# after issue #26 (the slot tables hold the work committed to a cloud but not ready yet, AR tasks starting
# together choose their victims together); the task-by-task traces of docs/federated.md ("Figs. 7–8 at
# small scale: the traced causes") were made before it. Eq. numbers are the paper's (Section 5.1.4).
_FEEDBACK_CHARGE = (
    "Before the fix of eq. 6 (Planner.observe, tests/schedulers/federated/test_science_findings.py) Δτ counted "
    "from the ERAT, which includes the inputs' estimated ready time, so a task whose predecessor finished late "
    "charged its own cloud with that lateness, and eq. 7 divided it by the task's own S/b + ETM; Δτ now counts "
    "from max(ERAT, when the task's inputs were actually there)"
)
_COMMITTED_FIX = (
    "Issue #26: the slot tables rebuilt at every pull left out the tasks assigned to a cloud but not ready yet "
    "(dataset or inputs on their way), so a cloud still waiting for a dataset looked empty to every later "
    "application; they are now in the table at their estimated ready time"
)
_FIG_NOTES = {
    7: {
        "order": "Thunder: DCLS and DCMMS take 59,277 s at every α and beat FCFS's 61,485 s, but DCMMS does not "
        "beat DCLS (equal). With the work committed to Thunder in its slot table (the tasks of earlier "
        "applications whose predecessors are still running) Thunder looks busier, and both send about half of "
        "the tasks to Atlas (52.6 % and 51.7 %). Atlas: DCLS beats FCFS at every α (FCFS 113,745 s, DCLS "
        "98,569 s at α = 0 and 98,980 s at α = 0.5 and 1), DCMMS is 0.7-0.9 % behind DCLS (99,268 and 99,860 s). "
        + _COMMITTED_FIX
        + ". Before it DCLS took 56,185 s on Thunder with 1.9 % of the tasks on Atlas, DCMMS 57,022 s (CLS's "
        "critical path first sent app 1's two 1,024-VM tasks to Atlas, min-min kept them home), and on Atlas "
        "the paper's order held: DCLS 112,340 s (α = 0) and 111,946 s, DCMMS 103,824 and 104,468 s. "
        + _FEEDBACK_CHARGE
        + ". Before that, at α = 0.5 and 1 DCLS took 119,441-119,478 s and DCMMS 112,930 and 162,889 s on "
        "Atlas: factors of 14-43 for Thunder and 1.6-6.4 for Atlas in Atlas's manager, 0 for uBGL, sent 86-96 "
        "(DCLS) and 43-55 (DCMMS) tasks to uBGL, the slowest cloud, whose 2,048 VMs then queued.",
        "alpha": "Reproduced: on Thunder DCLS and DCMMS take the same time at α = 0, 0.5 and 1 (max/min 1.000); on "
        "Atlas max/min is 1.004 (DCLS) and 1.006 (DCMMS), as before issue #26's slot-table fix. "
        + _FEEDBACK_CHARGE
        + ". Before it Atlas varied (DCLS 1.064, DCMMS 1.569, Thunder 1.002): before app 16 the factors of "
        "Atlas's manager were 162.99 for Thunder (task 539, S/b + ETM 231 s, inputs 37,593 s after its ERAT) "
        "and 27.27 for Atlas, 0 for uBGL, so eq. 8 sent 36 of app 16's 43 tasks and 14 of app 18's 17 to uBGL "
        "and DCMMS took 162,889 s at α = 1 against 103,824 s at α = 0.",
    },
    8: {
        "order": "Thunder: DCLS 61,795 s and DCMMS 62,043 s (every α) beat FCFS 102,647 s; DCMMS is 0.4 % behind "
        "DCLS. Atlas: both now beat FCFS (919,728 s): DCLS 736,099, 578,897 and 574,118 s, DCMMS 721,534, "
        "401,827 and 625,904 s at α = 0, 0.5 and 1 (0.44-0.80× FCFS); DCMMS is ahead at α = 0 and 0.5, behind "
        "at 1. "
        + _COMMITTED_FIX
        + ". Before it DCLS and DCMMS took 1.20-1.28× FCFS's time on Atlas (1,101,077-1,178,419 s): the 31 "
        "applications arrive within 12,486 s and the dataset needs 8,000 s to reach Thunder, and at app 30's "
        "arrival Thunder ran one task while 496 (807,998 VM-hours) assigned to it waited for the dataset, so "
        "every application saw Thunder empty and 555-589 of the 957 tasks queued there (mean wait "
        "97,159-114,169 s). On Thunder DCMMS (78,260-82,598 s) was far behind DCLS (62,314-63,044 s), its "
        "960-1,024-VM tasks heading Thunder's FIFO queue for thousands of seconds. (Before eq. 6's Δτ counted "
        "from when a task's inputs were actually there: 1.08-1.37× FCFS on Atlas.)",
        "alpha": "Thunder is flat in α (max/min 1.000 for DCLS and DCMMS); on Atlas DCLS varies by 1.282 and "
        "DCMMS by 1.796, far more than in the loose situation (Fig. 7: 1.004 and 1.006), but the claim needs "
        "both logs. Before issue #26's slot-table fix: Thunder 1.012 (DCLS) and 1.055 (DCMMS), Atlas 1.042 and "
        "1.038; before eq. 6's Δτ counted from when a task's inputs were actually there Atlas gave 1.07 (DCLS) "
        "and 1.276 (DCMMS).",
    },
    9: {
        "energy": "With EL DCLS and DCMMS use less than FCFS (60,340 and 60,390 kWh vs 61,350), as the paper "
        "says; without EL they use more (83,320 and 82,570 vs 76,060 kWh, +9.5 % and +8.6 %). EL off is our "
        "striping reading (each VM onto the emptiest server): the 52.6 % and 51.7 % of the tasks they run on "
        "Atlas spread over its servers and keep many of them active (500 W each), while FCFS runs everything "
        "on Thunder. The paper does not say what placement 'without EL' is (docs/federated.md, Figs. 9-10). "
        "Before issue #26's slot-table fix (1.9 % and 0.2 % of the tasks on Atlas): 60,640 and 60,880 kWh "
        "with EL, 77,400 and 76,120 without; before eq. 6's Δτ counted from when a task's inputs were "
        "actually there: 77,650 and 76,340 kWh without EL, 5.6 % and 3.9 % of the tasks on Atlas.",
    },
    10: {
        "energy": "With EL DCLS and DCMMS use less than FCFS (39,140 and 39,840 kWh vs 42,860), as the paper "
        "says; without EL they use more (53,170 and 54,330 vs 50,420 kWh, +5.5 % and +7.8 %): under striping "
        "(our reading of EL off) the 62.9 % and 62.3 % of the tasks they run off Thunder keep Atlas and uBGL "
        "servers active, and on 30 applications their shorter runs save too little idle power to pay for it. "
        "Before issue #26's slot-table fix (4.5 % and 0.8 % of the tasks off Thunder): 41,180 and 40,780 kWh "
        "with EL, 55,250 and 52,580 without. On the first 20,000 jobs they used less than FCFS without EL too "
        "(docs/federated.md; measured before that fix).",
    },
}


def _fig_time(tight: bool) -> dict[str, Any]:
    divisor = 100.0 if tight else 1.0
    label = "tight" if tight else "loose"
    scenarios, sources = [], []
    for trace in ("thunder", "atlas"):
        for alpha in (0.0, 0.5, 1.0):
            wl, source = _workload(trace, gap_divisor=divisor)
            scenarios.append(_scenario(f"{trace}, α = {alpha} ({label})", wl, ["fcfs", "dcls", "dcmms"], alpha=alpha))
        sources.append(source)
    claim = (
        Claim(
            "The feedback (α) changes little: contention is light.",
            "execution time nearly flat in α",
            all_of(_alpha_effect(small=True), _remote_context),
            note=_FIG_NOTES[7]["alpha"],
        )
        if not tight
        else Claim(
            "The feedback matters more than in the loose situation: it keeps tasks from piling up on fast clouds.",
            "execution time varies with α (more than 5 %)",
            all_of(_alpha_effect(small=False), _remote_context),
            note=_FIG_NOTES[8]["alpha"],
        )
    )
    return {
        "name": f"Fig. {8 if tight else 7}: average application execution time, {label} situation",
        "description": "FCFS, DCLS, DCMMS for α in {0, 0.5, 1}; " + "; ".join(sources),
        "claims": [
            Claim(
                "DCMMS has the shortest average execution time, then DCLS, then FCFS.",
                "DCMMS < DCLS < FCFS at every point",
                all_of(
                    less_than_at_every_point(EXEC, "dcmms", "dcls"),
                    less_than_at_every_point(EXEC, "dcls", "fcfs"),
                    _remote_context,
                ),
                note=_FIG_NOTES[8 if tight else 7]["order"],
            ),
            claim,
        ],
        "small": SMALL,
        "scenarios": scenarios,
    }


def _fig_energy(tight: bool) -> dict[str, Any]:
    divisor = 100.0 if tight else 1.0
    label = "tight" if tight else "loose"
    scenarios, source = [], ""
    for el in (False, True):
        wl, source = _workload("thunder", gap_divisor=divisor)
        name = f"{label}, {'with' if el else 'without'} EL"
        scenarios.append(_scenario(name, wl, ["fcfs", "dcls", "dcmms"], alpha=0.8, el=el))
    return {
        "name": f"Fig. {10 if tight else 9}: energy consumption, {label} situation",
        "description": f"Energy with and without energy-aware local mapping (EL, Algs. 4-5); {source}",
        "claims": [
            Claim(
                "DCLS and DCMMS use less energy than FCFS.",
                "DCLS, DCMMS < FCFS, with and without EL",
                all_of(
                    less_than_at_every_point(ENERGY, "dcls", "fcfs"),
                    less_than_at_every_point(ENERGY, "dcmms", "fcfs"),
                    _remote_context,
                ),
                note=_FIG_NOTES[10 if tight else 9]["energy"],
            ),
            Claim(
                "Energy-aware local mapping reduces energy significantly for all three algorithms.",
                "EL lowers every algorithm's energy (≥ 5 %)",
                _el_saves,
            ),
        ],
        "small": SMALL,
        "scenarios": scenarios,
    }


def feedback_inputs() -> dict[str, Any]:
    """Not a figure of the paper: the inputs the feedback (eqs. 6-8) exists for, in the tight situation.

    With exact runtime estimates and no hidden contention a task finishes later than eq. 5
    said only when an AR task preempts it; runtime estimate errors (σ of a mean-one
    log-normal factor on best-effort runtimes) make finish times late, which the feedback
    learns. The first 20,000 jobs of the log keep the study short.
    """
    scenarios, source = [], ""
    for sigma in (0.0, 0.5, 1.0):
        wl, source = _workload("thunder", gap_divisor=100.0, runtime_error=sigma)
        if wl["kind"] == "trace":
            wl["max_jobs"] = 20000
        scenarios.append(_scenario(f"runtime error σ = {sigma} (tight)", wl, ["cls", "dcls", "cmms", "dcmms"], 1.0))
    return {
        "name": "Feedback inputs: runtime estimate errors (Section 5.1.4)",
        "description": "CLS vs DCLS and CMMS vs DCMMS (α = 1, gaps / 100) as estimates get worse; " + source,
        "claims": [
            Claim(
                "With exact estimates the feedback changes the average execution time by a few percent at most.",
                "no number: Section 5.1.4 says the feedback serves contention and inaccurate estimates",
                all_of(
                    at_every_point(_improvement("dcls", "cls"), -0.05, 0.05, [0]),
                    at_every_point(_improvement("dcmms", "cmms"), -0.05, 0.05, [0]),
                ),
                note="Our reading of Section 5.1.4, not a number of the paper: 'a few percent' is read as within ±5 %. "
                "At small scale 0.0 % (DCLS) and 0.0 % (DCMMS). Before issue #26 the slot tables left out tasks "
                "assigned but not ready yet, so eq. 5 was often late and eq. 7 acted: +1.2 % and −5.5 % at small "
                "scale, +13.3 % (DCLS) and +13.5 % (DCMMS) on the first 20,000 Thunder jobs "
                "(bench/federated_feedback_inputs.py; 16.9 / 21.0 % before eq. 6's Δτ counted from when a task's "
                "inputs were actually there).",
            ),
            Claim(
                "With inaccurate estimates (σ ≥ 0.5) DCLS beats CLS and DCMMS beats CMMS.",
                "no number: DCLS/DCMMS are designed to beat CLS/CMMS there (Section 5.1.4)",
                all_of(  # "beats": at least 0.1 % better (a tie is not a win)
                    at_every_point(_improvement("dcls", "cls"), 0.001, None, [1, 2]),
                    at_every_point(_improvement("dcmms", "cmms"), 0.001, None, [1, 2]),
                ),
                note="Read as an improvement of at least 0.1 %: an equal time is not a win. On the first 20,000 "
                "Thunder jobs: σ = 0.5 +13.2 % (DCLS) and −1.6 % (DCMMS), σ = 1 +13.6 % and −1.7 %; with Thunder "
                "running best-effort work 2× its ETM as well (σ = 0.5) +30.1 % and +14.9 % (docs/federated.md; "
                "before eq. 6's Δτ counted from when a task's inputs were actually there: +2.8 / +13.8, +11.0 / "
                "−2.3 and +29.8 / +18.1 %; all measured before issue #26 put the work committed to a cloud but not ready yet into its slot table). At small scale DCLS and DCMMS equal CLS and CMMS "
                "(0.0 %; before issue #26 DCLS gained 0.3 % and 1.0 %).",
            ),
        ],
        "small": SMALL,
        "scenarios": scenarios,
    }


PRESETS = {
    "table3_feedback": table3,
    "table4_ar_share_loose": lambda: _ar_table(tight=False),
    "table5_ar_share_tight": lambda: _ar_table(tight=True),
    "fig7_time_loose": lambda: _fig_time(tight=False),
    "fig8_time_tight": lambda: _fig_time(tight=True),
    "fig9_energy_loose": lambda: _fig_energy(tight=False),
    "fig10_energy_tight": lambda: _fig_energy(tight=True),
    "feedback_inputs": feedback_inputs,
}
