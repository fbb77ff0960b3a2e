"""What a vm_reservations run costs (schedulers.core.estimate): one segment per reservation, a few more
for migrations. Measured with ``bench/estimate.py`` on a real Celery worker, 2026-11-29 (LLIF, FFD, EST,
MFFDE; 2,000–100,000 requests; LLIF + FFD at 500,000 and 1,000,000; LLIF alone at 100,000–500,000 long ones):
memory and CPU below, every point at 1.15–1.90× its measurement. The exact solvers are refused above
``params.exact_max_requests`` at validation, so they are never large.

1,000,000 long reservations (durations ≤ 100,000 slots) are extrapolated, not measured: estimated at 684 s
and 8,141 MB an algorithm (just under the default 8 GB), where the measured trend (414–442 µs and 5.7 KB a
request) gives ~430 s and ~6.3 GB.
"""

from __future__ import annotations

import math

from schedulers.core.estimate import Footprint, RunSize

# Memory: a result holds 800 B a reservation (segment, job record, per-slot series); simulating needs 800 B more,
# plus 60 B × √C a reservation, C the reservations running at once (at most n): long ones grew resident memory by
# 5.6–5.7 KB a request from 100,000 to 250,000 to 500,000 requests (C ≈ 8,600), 2.5 KB at C ≈ 1,700.
HELD_B, WORKING_B, WORKING_OVERLAP_B = 800, 800, 60
# CPU per request and algorithm: 33 µs up to 20,000 requests, less beyond (÷ (1 + 0.25 ln(n / 20,000)): the four
# heuristics took 27–37 µs a request at 20,000, 20–23 at 100,000 and 10–14 at 500,000 short ones), 0.03 s a run,
# and for long reservations a placement that costs more the more reservations overlap it — D, the mean duration
# ÷ the mean gap between arrivals, i.e. how many run at once in the steady state — and, slowly, the more there
# are: 0.18 µs × D^0.78 × (1 + 0.55 ln(n / 20,000)) (n ≥ 20,000). Measured with bench/estimate.py on a real
# worker, 2026-11-29 (table: docs/architecture.md): D^0.78 from 20,000 requests at durations ≤ 20,000 and
# ≤ 100,000 slots (D ≈ 1,700 and 8,600: 53 and 186 µs above the base); 5,000 requests cost as much a request as
# 20,000 (the steady state's D, not the n-capped count); LLIF alone at 100,000, 250,000 and 500,000 long
# requests: 368, 442 and 414 µs a request, a growth that flattens (the log).
CPU_S, SHRINK, RUN_S, OVERLAP_S, OVERLAP_EXP, GROWTH = 33e-6, 0.25, 0.03, 0.18e-6, 0.78, 0.55


def _overlap(w, n: int) -> float:
    """Reservations running at once on average: the generator's mean duration ÷ its mean gap (the steady
    state's, whatever n), a list's Σ durations ÷ its span."""
    from schedulers.vm_reservations.model import GeneratorWorkload, JobsWorkload

    if isinstance(w, JobsWorkload):
        span = max(j.end for j in w.jobs) - min(j.start for j in w.jobs)
        return sum(j.end - j.start for j in w.jobs) / max(span, 1)
    if isinstance(w, GeneratorWorkload):
        mu = w.mean_duration_slots or w.max_duration_slots / 2
        mean = mu * (1 - math.exp(-w.max_duration_slots / mu))  # E[min(Exp(mu), cap)]
        return mean / w.mean_interarrival_slots
    return 1.0


def footprint(cfg) -> Footprint:
    from schedulers.vm_reservations.model import JobsWorkload

    w = cfg.workload
    n = len(w.jobs) if isinstance(w, JobsWorkload) else w.n_requests
    field = "workload.jobs" if isinstance(w, JobsWorkload) else "workload.n_requests"
    per = 1.0 if cfg.params.record_schedule else 0.2  # the series remain without the schedule
    overlap = _overlap(w, n)
    beyond = math.log(max(n / 2e4, 1.0))
    per_request = CPU_S / (1 + SHRINK * beyond) + OVERLAP_S * overlap**OVERLAP_EXP * (1 + GROWTH * beyond)
    working = n * (WORKING_B + WORKING_OVERLAP_B * math.sqrt(min(overlap, n)))
    run = RunSize(n * HELD_B * per / 2**20, working / 2**20, RUN_S + n * per_request)
    return Footprint(dict.fromkeys(cfg.algorithms, run), f"{n:,} reservations", field)
