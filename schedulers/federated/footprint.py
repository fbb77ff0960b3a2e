"""What a federated run costs (schedulers.core.estimate): segments per task, memory and CPU per segment.

Measured with ``bench/estimate.py`` (generator, 200–3,000 applications of 4–16 tasks, ``vms_max`` 32;
all six algorithms), 2026-11-27: 31–35 segments per application, i.e. about 3.3 per task (taken as
3.6 × (log2 vms_max + 1) / 6 for other ``vms_max``: a reading, measured at 32 only); 215 B per segment
held and as much again while the largest run is simulated; 13 µs CPU per segment (taken at 16.5 µs: on a
real Celery worker, 2026-11-29, 200–3,000 applications ran at 15 µs, a loaded machine's; with the largest
trace preset point, memory 1.26–1.62× the measurement, CPU 1.11–1.85×). A trace job is
about 13 segments (the full LLNL-Thunder log, docs/results.md: 1.1–1.6 M segments per algorithm).
"""

from __future__ import annotations

import math

from schedulers.core.estimate import Footprint, RunSize, first_jobs, trace_summary

SEGMENT_B, CPU_PER_SEGMENT_S, TRACE_JOB_SEGMENTS = 220, 16.5e-6, 13
# A trace job's CPU, measured apart (2026-11-29, the LLNL-Thunder presets, 118,791 jobs × CLS, DCLS, CMMS,
# DCMMS): 38 µs a job and algorithm with the log's gaps, 51 µs with them ÷ 100 — far below 13 segments × the
# generator's 16.5 µs (5.7× over on the real worker); taken at 70 µs.
TRACE_JOB_CPU_S = 70e-6


def footprint(cfg) -> Footprint:
    from schedulers.federated.model import GeneratorWorkload, InlineWorkload

    w = cfg.workload
    if isinstance(w, GeneratorWorkload):
        per_task = 3.6 * (math.log2(w.vms_max) + 1) / 6
        segments, size, field = (
            w.apps * (w.tasks_min + w.tasks_max) / 2 * per_task,
            f"{w.apps:,} applications",
            "workload.apps",
        )
        cpu = segments * CPU_PER_SEGMENT_S
    elif isinstance(w, InlineWorkload):
        tasks = sum(len(a.tasks) for a in w.jobs)
        segments, size, field = tasks * 3.6, f"{tasks:,} tasks", "workload.jobs"
        cpu = segments * CPU_PER_SEGMENT_S
    else:
        jobs = first_jobs(trace_summary(w.path or "", w.swf or "", w.trace or ""), w.max_jobs)[0]
        segments, size, field = jobs * TRACE_JOB_SEGMENTS, f"{jobs:,} trace jobs", "workload.max_jobs"
        cpu = jobs * TRACE_JOB_CPU_S
    recorded = segments if cfg.params.record_schedule else 0.0
    if cfg.params.max_segments is not None:
        recorded = min(recorded, cfg.params.max_segments)
    run = RunSize(recorded * SEGMENT_B / 2**20, recorded * SEGMENT_B / 2**20, cpu)
    return Footprint(dict.fromkeys(cfg.algorithms, run), size, field)
