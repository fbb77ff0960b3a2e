"""What a dvfs_bot run costs (schedulers.core.estimate): jobs from the arrival law, a segment per task.

Measured with ``bench/estimate.py`` (Iosup BoTs, 6–72 h, both algorithms), 2026-11-27: about 500 jobs
an hour with the default Weibull inter-arrivals, 4.6 segments per job; 320 B per segment held and as
much again while the largest run is simulated. CPU follows the simulated time more than the jobs
(2026-11-29: twice the arrivals over the same 12 h cost 10 % more, 2.36 → 2.6 s for both algorithms):
0.088 s per simulated hour and 20 µs per job an algorithm, taken at 0.11 s and 25 µs. On a real Celery
worker, 2026-11-29 (6–72 h, and the largest preset point, 24 h of twice the arrivals × 10 repetitions):
memory 1.64–1.77× (the results are small: the worker's base and storing's threads,
``schedulers.core.estimate``), CPU 1.25–1.77×. A list of jobs is counted at 0.25 ms a job (not measured).
"""

from __future__ import annotations

import math

import numpy as np

from schedulers.core.estimate import Footprint, RunSize

SEGMENT_B, CPU_PER_JOB_S, CPU_PER_HOUR_S, CPU_PER_LISTED_JOB_S = 330, 25e-6, 0.11, 0.25e-3


def _mean_tasks(w) -> float:
    """E[min(round(2^x), max_tasks)], x ~ Weibull(shape, scale): a fixed quantile grid (no draw)."""
    q = (np.arange(4096) + 0.5) / 4096
    x = w.tasks_scale * (-np.log1p(-q)) ** (1 / w.tasks_shape)
    raw = np.exp2(x)
    n = np.ceil(raw - 1e-9) if w.tasks_rounding == "ceil" else np.floor(raw + 0.5)
    return float(np.clip(n, 1, w.max_tasks).mean())


def footprint(cfg) -> Footprint:
    from schedulers.dvfs_bot.model import JobsWorkload

    w = cfg.workload
    if isinstance(w, JobsWorkload):
        jobs, tasks, field = len(w.jobs), sum(j.tasks for j in w.jobs), "workload.jobs"
        cpu = jobs * CPU_PER_LISTED_JOB_S
    else:
        mean_iat = w.iat_scale_s * math.gamma(1 + 1 / w.iat_shape)
        jobs = min(math.ceil(w.duration_h * 3600 / mean_iat), w.max_jobs)
        tasks, field = jobs * _mean_tasks(w), "workload.duration_h"
        cpu = w.duration_h * CPU_PER_HOUR_S + jobs * CPU_PER_JOB_S
    recorded = tasks * 1.1 if cfg.params.record_schedule else 0.0
    run = RunSize(recorded * SEGMENT_B / 2**20, recorded * SEGMENT_B / 2**20, cpu)
    return Footprint(dict.fromkeys(cfg.algorithms, run), f"{jobs:,} jobs", field)
