"""What a vm_reservations run costs (schedulers.core.estimate): one segment per reservation, a few more
for migrations. Measured with ``bench/estimate.py`` (LLIF, FFD, EST, MFFDE; 2,000–100,000 requests),
2026-11-27: about 800 B per reservation held per run (segment, job record, per-slot series) and as
much again while the largest run is simulated; 9 µs CPU per reservation per algorithm. The exact
solvers are refused above ``params.exact_max_requests`` at validation, so they are never large.
"""

from __future__ import annotations

from schedulers.core.estimate import Footprint, RunSize

HELD_B, WORKING_B, CPU_S = 800, 800, 10e-6


def footprint(cfg) -> Footprint:
    from schedulers.vm_reservations.model import JobsWorkload

    w = cfg.workload
    n = len(w.jobs) if isinstance(w, JobsWorkload) else w.n_requests
    field = "workload.jobs" if isinstance(w, JobsWorkload) else "workload.n_requests"
    per = 1.0 if cfg.params.record_schedule else 0.2  # the series remain without the schedule
    run = RunSize(n * HELD_B * per / 2**20, n * WORKING_B / 2**20, n * CPU_S)
    return Footprint(dict.fromkeys(cfg.algorithms, run), f"{n:,} reservations", field)
