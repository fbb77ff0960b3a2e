"""Shared checks for the backfill tests: schedule validity from the emitted segments."""

from __future__ import annotations

import itertools
from collections import defaultdict

from schedulers.backfill.model import BackfillScenario
from schedulers.core import rng as rngmod

EPS = 1e-6


def config(**scenario) -> BackfillScenario:
    return BackfillScenario.model_validate({"family": "backfill", **scenario})


def instance(cfg: BackfillScenario, rep: int = 0):
    import schedulers.backfill as bf

    return bf.prepare(cfg, rngmod.stream(cfg.seed, rep, "workload"))


def jobs_workload(rows, **extra) -> dict:
    """rows: (submit, processors, runtime[, estimate[, cpu]])."""
    jobs = []
    for r in rows:
        job = {"submit_s": r[0], "processors": r[1], "runtime_s": r[2]}
        if len(r) > 3 and r[3] is not None:
            job["estimate_s"] = r[3]
        if len(r) > 4:
            job["cpu_usage"] = r[4]
        jobs.append(job)
    return {"kind": "jobs", "jobs": jobs, **extra}


def assert_no_overlap(segments, processors: int) -> None:
    """No VM (processor × tier) ever hosts two processes; resources exist."""
    by_vm = defaultdict(list)
    for s in segments:
        assert s["end"] > s["start"]
        p = int(s["resource"][1:])
        assert 0 <= p < processors
        by_vm[(p, s["tier"])].append((s["start"], s["end"], s["job"]))
    for vm, iv in by_vm.items():
        iv.sort()
        for (_, e1, j1), (s2, _, j2) in itertools.pairwise(iv):
            assert s2 >= e1 - EPS, f"{vm}: job {j2} starts at {s2} before job {j1} ends at {e1}"


def assert_jobs_complete(result_run, inst) -> None:
    """Every job finishes exactly once, after it started, and starts after its submission."""
    jobs = result_run["jobs"]
    assert len(jobs) == len(inst)
    assert len({j["job"] for j in jobs}) == len(jobs)
    for j in jobs:
        assert j["start_s"] >= j["submit_s"] - EPS
        assert j["end_s"] >= j["start_s"] + j["runtime_s"] * 0.0 - EPS
        assert j["end_s"] >= j["submit_s"] + j["runtime_s"] - EPS
