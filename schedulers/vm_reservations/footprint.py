"""What a vm_reservations run costs (schedulers.core.estimate): one segment per reservation, a few more
for migrations. Measured with ``bench/estimate.py`` (LLIF, FFD, EST, MFFDE; 2,000–100,000 requests),
2026-11-27: about 800 B per reservation held per run (segment, job record, per-slot series) and as
much again while the largest run is simulated; CPU below. The exact
solvers are refused above ``params.exact_max_requests`` at validation, so they are never large.
"""

from __future__ import annotations

import math

from schedulers.core.estimate import Footprint, RunSize

HELD_B, WORKING_B = 800, 800
# CPU per request and algorithm: 24 µs (9 µs on a quiet core in 2026-11-27; 20–30 µs measured on 2026-11-29 with
# the machine's two cores shared), 0.03 s a run, and for long reservations a placement that costs more the more
# reservations overlap it (C, the mean number running at once) and, less, the more there are:
# 2.5 µs × √C × (n / 10⁴)^0.2. Measured with bench/estimate.py and LLIF alone: 5,000–80,000 requests with
# durations capped at 20,000–100,000 slots ran at 0.51–0.98 of the estimate (table: docs/architecture.md).
CPU_S, RUN_S, OVERLAP_S = 24e-6, 0.03, 2.5e-6


def _overlap(w, n: int) -> float:
    """C: reservations running at once on average (the generator's mean duration ÷ its mean gap, at most n)."""
    from schedulers.vm_reservations.model import GeneratorWorkload, JobsWorkload

    if isinstance(w, JobsWorkload):
        span = max(j.end for j in w.jobs) - min(j.start for j in w.jobs)
        return sum(j.end - j.start for j in w.jobs) / max(span, 1)
    if isinstance(w, GeneratorWorkload):
        mu = w.mean_duration_slots or w.max_duration_slots / 2
        mean = mu * (1 - math.exp(-w.max_duration_slots / mu))  # E[min(Exp(mu), cap)]
        return min(mean / w.mean_interarrival_slots, n)
    return 1.0


def footprint(cfg) -> Footprint:
    from schedulers.vm_reservations.model import JobsWorkload

    w = cfg.workload
    n = len(w.jobs) if isinstance(w, JobsWorkload) else w.n_requests
    field = "workload.jobs" if isinstance(w, JobsWorkload) else "workload.n_requests"
    per = 1.0 if cfg.params.record_schedule else 0.2  # the series remain without the schedule
    per_request = CPU_S + OVERLAP_S * math.sqrt(_overlap(w, n)) * (n / 1e4) ** 0.2
    run = RunSize(n * HELD_B * per / 2**20, n * WORKING_B / 2**20, RUN_S + n * per_request)
    return Footprint(dict.fromkeys(cfg.algorithms, run), f"{n:,} reservations", field)
