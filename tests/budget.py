"""Scenarios just within and just over a memory limit, for the run-budget tests (cloudsched_web.runs.budget)."""

import math

import schedulers


def backfill(n_jobs, repetitions=1):
    return {"family": "backfill", "name": f"{n_jobs} jobs", "seed": 1, "repetitions": repetitions,
            "algorithms": ["keasy"], "datacenter": {"processors": 320},
            "workload": {"kind": "generator", "model": "feitelson", "n_jobs": n_jobs, "load": 0.7}}  # fmt: skip


AT, OVER = 20_000, 21_000


def limit_mb():
    """A memory limit that ``backfill(AT)`` meets exactly and ``backfill(OVER)`` exceeds."""
    limit = math.ceil(schedulers.estimate(backfill(AT)).peak_memory_mb)
    assert schedulers.estimate(backfill(OVER)).peak_memory_mb > limit
    return limit
