"""Benchmarks of the ep_jobs family against its targets (median of N runs).

    .venv/bin/python bench/ep_jobs.py [--runs 5] [--skip-online]

Offline cases use Section 6.1.1 instances (FatTree, capacities U(0, 10], loads U(0, 3600],
λ U[0.1, 1], E_MAX U[L, 1.1 L]); the online case is the Fig. 6 preset with TaPRA-fast.
Prints measured vs target, jobs (or tasks) per second and peak memory.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import schedulers
from schedulers.ep_jobs.instance import Instance, fattree_platform
from schedulers.ep_jobs.lp import solve_relax_lp
from schedulers.ep_jobs.minmin import min_min
from schedulers.ep_jobs.tapra import tapra, tapra_fast


def instance(n: int, pods: int, seed: int) -> Instance:
    rng = np.random.default_rng(seed)
    m = pods**3 // 4
    plat = fattree_platform(pods, 10 - 10 * rng.random(m))
    loads = 3600 - 3600 * rng.random(n)
    total = loads.sum()
    return Instance(plat, loads, rng.uniform(0.1, 1, (n, m)), 1.0, rng.uniform(total, 1.1 * total))


def timed(fn, runs: int) -> tuple[float, float]:
    """Median wall time over ``runs`` and peak traced memory (MB) of the first run."""
    times = []
    peak = 0.0
    for k in range(runs):
        if k == 0:
            tracemalloc.start()
        t0 = time.perf_counter()
        fn(k)
        times.append(time.perf_counter() - t0)
        if k == 0:
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
    return statistics.median(times), peak


def offline_cases(runs: int):
    cases = [
        ("TaPRA 100 tasks × 128 servers", tapra, 100, 8, 0.5),
        ("TaPRA-fast 100 × 128", tapra_fast, 100, 8, 0.05),
        ("TaPRA 200 × 432", tapra, 200, 12, 3.0),
        ("Min-Min 100 × 128", min_min, 100, 8, 1.0),
        ("TaPRA 100 × 432 (paper: 33 s)", tapra, 100, 12, None),
        ("TaPRA-fast 100 × 432 (paper: 15 s)", tapra_fast, 100, 12, None),
        ("SJS-Relax-LP colgen 200 × 432", lambda i: solve_relax_lp(i, "colgen"), 200, 12, None),
        ("SJS-Relax-LP reduced 200 × 432", lambda i: solve_relax_lp(i, "reduced"), 200, 12, None),
    ]
    for label, fn, n, pods, target in cases:
        insts = [instance(n, pods, seed) for seed in range(runs)]
        med, peak = timed(lambda k, fn=fn, insts=insts: fn(insts[k]), runs)
        yield label, med, target, n / med, "tasks/s", peak


def online_case(runs: int, scenario_name: str):
    study = schedulers.preset("ep_jobs", scenario_name)
    base = next(s for s in study["scenarios"] if s["name"].endswith("tapra_fast"))
    for sched in ("ontapra", "slf", "fcfs", "llf"):
        sc = {**base, "repetitions": 1, "algorithms": [f"{sched}:tapra_fast"], "params": {"record_schedule": False}}
        out = {}

        def one(k, sc=sc, out=out):
            out["r"] = schedulers.run({**sc, "seed": 600 + k})

        med, peak = timed(one, runs)
        jobs = out["r"]["runs"][0]["metrics"]["jobs"]
        yield f"{scenario_name} {sched}+TaPRA-fast (whole run)", med, 60.0, jobs / med, "jobs/s", peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--online-runs", type=int, default=3)
    ap.add_argument("--skip-online", action="store_true")
    args = ap.parse_args()
    rows = list(offline_cases(args.runs))
    if not args.skip_online:
        for name in ("fig6", "fig6_loaded"):
            rows += list(online_case(args.online_runs, name))
    print(f"{'case':<52} {'median s':>9} {'target s':>9} {'ok':>4} {'rate':>14} {'peak MB':>8}")
    for label, med, target, rate, unit, peak in rows:
        ok = "" if target is None else ("yes" if med <= target else "NO")
        tgt = "-" if target is None else f"{target:.2f}"
        print(f"{label:<52} {med:9.3f} {tgt:>9} {ok:>4} {rate:10.1f} {unit:<4} {peak:8.1f}")
    print(f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
