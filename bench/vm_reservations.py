"""Benchmark of the vm_reservations family against the issue-5 targets.

Targets (median of 5): each heuristic (LLIF, FFD, EST, MFFDE) and the Theorem 1
bound on 10,000 requests ≤ 1 s, on 100,000 requests ≤ 10 s. Also reports
OPT-Min-Migration, the growth from 1,000 to 100,000 requests, requests/s and
peak memory. Workload: the Section 5.3 generator (Table 1 catalogue, three PM
pools), mean inter-arrival 5 slots, maximum duration given by --max-duration.

    .venv/bin/python bench/vm_reservations.py [--sizes 1000 10000 100000] [--reps 5] [--max-duration 800]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from schedulers.core.rng import stream
from schedulers.vm_reservations.bound import lower_bound_slots
from schedulers.vm_reservations.model import Scenario
from schedulers.vm_reservations.simulator import place
from schedulers.vm_reservations.workloads import build_instance

TARGETS = {10_000: 1.0, 100_000: 10.0}
ALGS = ["bound", "llif", "ffd", "est", "mffde", "opt_min_migration"]


def _instance(n: int, max_duration: int):
    cfg = Scenario.model_validate(
        {
            "family": "vm_reservations",
            "workload": {"kind": "generator", "n_requests": n, "max_duration_slots": max_duration},
            "params": {"record_schedule": False},
        }
    )
    return cfg, build_instance(cfg, stream(2017, 0, "workload"))


def _once(cfg, inst, alg: str) -> float:
    t0 = time.perf_counter()
    for pool in inst.pools:
        if alg == "bound":
            lower_bound_slots(pool.s, pool.e, pool.d, pool.g)
        else:
            place(cfg, pool, alg, None)
    return time.perf_counter() - t0


def _peak_mb(cfg, inst, alg: str) -> float:
    tracemalloc.start()
    _once(cfg, inst, alg)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-duration", type=int, default=800)
    args = ap.parse_args()
    print(f"max duration {args.max_duration} slots, median of {args.reps}")
    print(f"{'requests':>9} {'algorithm':>18} {'median s':>9} {'target s':>9} {'ok':>4} {'req/s':>10} {'peak MB':>8}")
    for n in args.sizes:
        cfg, inst = _instance(n, args.max_duration)
        for alg in ALGS:
            times = [_once(cfg, inst, alg) for _ in range(args.reps)]
            med = statistics.median(times)
            target = TARGETS.get(n)
            ok = "" if target is None or alg == "opt_min_migration" else ("yes" if med <= target else "NO")
            shown = f"{target:.1f}" if target is not None and alg != "opt_min_migration" else "-"
            peak = _peak_mb(cfg, inst, alg)
            print(f"{n:>9} {alg:>18} {med:>9.3f} {shown:>9} {ok:>4} {n / med:>10.0f} {peak:>8.1f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
