"""What a backfill run costs (schedulers.core.estimate): segments, job records and series per algorithm.

A job on p processors is p segments per stretch it runs in: one stretch on one tier (FCFS, EASY),
about 3.4–3.6 on two tiers (KEASY, REASY, MEASY move jobs between the tiers: kills, migrations,
swaps). So a run's segments are jobs × mean job size × stretches per job, and its memory and
CPU follow the segments. Measured with ``bench/estimate.py`` (Feitelson, load 0.7, 5,000–100,000
jobs on 320 and 1,024 processors), 2026-11-27:

- stretches per job-processor: EASY/FCFS 1.00 exactly; KEASY 3.35–3.42, REASY 3.45–3.62, MEASY 3.36–3.43
  (taken a little above: more load, more moves);
- a result holds 66 B per segment (Columns: codes, floats, ``task_k``; taken at 70 B, which puts the
  largest point, 200,000 jobs × four algorithms, at 1.08× its measured peak) and ~450 B per job (its
  record and about two series points per job, kept as Python lists); simulating the largest run
  needs 60 B per segment more while its segments are built;
- CPU: 0.5 µs per segment plus 5 µs per job (0.47–0.54 µs per segment at 50,000–100,000 jobs on
  a quiet core; bench/results_scale.py's 200,000-job run took 0.67 µs under load).

Re-measured on a real Celery worker, 2026-11-29 (``bench/estimate.py``, 5,000–200,000 jobs): memory
1.06–1.65× and CPU 1.06–1.88× the measurement (``tests/schedulers/test_estimate_calibration.py``).
"""

from __future__ import annotations

import numpy as np

from schedulers.backfill.model import BackfillScenario, GeneratorWorkload, JobsWorkload
from schedulers.core.estimate import Footprint, RunSize, first_jobs, trace_summary

STRETCHES = {"fcfs": 1.0, "easy": 1.0, "keasy": 3.5, "reasy": 3.7, "measy": 3.5}


def pieces_per_job_processor(alg: str) -> float:
    """Segments per job and processor: EASY's with a queue order (``easy:sjf``…) run EASY's one-tier loop;
    a plug-in's unknown to the calibration is counted as the heaviest two-tier algorithm (conservative)."""
    if alg in STRETCHES:
        return STRETCHES[alg]
    return STRETCHES["easy"] if alg.startswith("easy:") else max(STRETCHES.values())


SEGMENT_B, JOB_B, WORKING_SEGMENT_B = 70, 450, 60
CPU_PER_SEGMENT_S, CPU_PER_JOB_S = 0.5e-6, 5e-6
PILOT_JOBS = 1000  # Jann and Lublin sizes: the mean of a fixed-seed draw of this many jobs (a few ms)


def _feitelson_mean(prm, machine: int) -> float:
    """The mean job size of FWload, exactly (its weights as generators.feitelson builds them)."""
    top = prm.max_size or machine
    sizes = np.arange(1, top + 1, dtype=float)
    weights = sizes**-prm.size_exponent
    pow2 = (np.arange(1, top + 1) & np.arange(0, top)) == 0
    weights[pow2 & (sizes > 1)] *= prm.pow2_boost
    weights[0] *= prm.serial_factor
    return float(sizes @ weights / weights.sum())


def _jobs_and_mean_size(cfg: BackfillScenario) -> tuple[int, float, str]:
    w, machine = cfg.workload, cfg.datacenter.processors
    if isinstance(w, GeneratorWorkload):
        if w.model == "feitelson":
            return w.n_jobs, _feitelson_mean(w.feitelson, machine), "workload.n_jobs"
        from schedulers.backfill import generators

        pilot = getattr(generators, w.model)(min(w.n_jobs, PILOT_JOBS), machine, getattr(w, w.model),
                                             np.random.default_rng(0))  # fmt: skip
        return w.n_jobs, float(np.mean(pilot[1])), "workload.n_jobs"
    if isinstance(w, JobsWorkload):
        return len(w.jobs), float(np.mean([j.processors for j in w.jobs])), "workload.jobs"
    found = trace_summary(w.path.strip(), w.swf, w.trace or "")
    jobs, processors = first_jobs(found, w.max_jobs)
    return jobs, processors / jobs if jobs else 1.0, "workload.max_jobs"


def footprint(cfg: BackfillScenario) -> Footprint:
    jobs, mean_size, size_field = _jobs_and_mean_size(cfg)
    p = cfg.params
    runs = {}
    for alg in cfg.algorithms:
        pieces = jobs * mean_size * pieces_per_job_processor(alg)
        recorded = 0.0 if not p.record_schedule else min(pieces, p.max_segments) if p.max_segments else pieces
        held = recorded * SEGMENT_B + jobs * JOB_B
        runs[alg] = RunSize(held / 2**20, recorded * WORKING_SEGMENT_B / 2**20,
                            pieces * CPU_PER_SEGMENT_S + jobs * CPU_PER_JOB_S)  # fmt: skip
    size = f"{jobs:,} jobs" + (f" of {mean_size:.0f} processors on average" if mean_size >= 2 else "")
    return Footprint(runs, size, size_field)
