"""Benchmark: a plug-in queue order's decisions against the built-in equivalent. Not a test.

    .venv/bin/python bench/backfill_plugins.py            # 200,000 Feitelson jobs on 320 processors, median of 3
    .venv/bin/python bench/backfill_plugins.py --quick    # one repetition
    .venv/bin/python bench/backfill_plugins.py --jobs 50000

Target: a plug-in's decisions cost ≤ 2× the built-in equivalent on 200k jobs. Each pair runs the same
loop (backfill/ordered.py) on the same instance, once with a named order of policy.py and once with the
same key written as a plug-in (`@queue_order` in this file) and called as a run calls a plug-in: through
``ordered.checked`` (the guard that names the plug-in, and the check of every answer). The schedules of
each pair are asserted equal. Also printed: the generic loop with the ``fcfs`` order against easy.py's
specialised EASY loop (what writing EASY against the interface would cost; the registry keeps easy.py).
The two-tier pairs: KEASY, REASY and MEASY built in (a constant Deploy mode) against the same algorithm as a
tier choice (policy.TIERS) called as a run calls a plug-in: through ``keasy.checked_choice``, with the
arrival pass's extra test of ``keasy._choice_moved``; schedules asserted equal (first starts and ends).
``--two-tier`` runs only those.
Timed: the event loop only (no metrics, no schedule), as process CPU time; BLAS single-threaded as in
bench/backfill.py.
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", "1")
os.environ["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS", "1")

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schedulers.backfill import prepare
from schedulers.backfill.easy import simulate_one_tier
from schedulers.backfill.keasy import checked_choice, simulate_two_tier
from schedulers.backfill.model import BackfillScenario
from schedulers.backfill.ordered import checked, checked_admit, simulate_ordered
from schedulers.backfill.policy import ORDERS, TIERS, Backfill, easy_admit, queue_order
from schedulers.core import rng as rngmod
from schedulers.plugins import Plugin


@queue_order("arrival order, as a plug-in")
def fcfs(now, jobs):
    return jobs.index


@queue_order("shortest estimate first, as a plug-in")
def sjf(now, jobs):
    return jobs.estimate


@queue_order("WFP3, as a plug-in", dynamic=True)
def wfp3(now, jobs):
    wait = now - jobs.submit
    return -((wait / jobs.estimate) ** 3) * jobs.size


PLUGINS = {"fcfs": fcfs, "sjf": sjf, "wfp3": wfp3}


def _plugin(name: str) -> Plugin:
    return Plugin("backfill", f"bench-{name}", PLUGINS[name], f"bench:{name}", "bench", "0", __file__, "", "")


def cpu_median(fn, reps: int):
    times, out = [], None
    for _ in range(reps):
        c0 = time.process_time()
        out = fn()
        times.append(time.process_time() - c0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=200_000)
    ap.add_argument("--load", type=float, default=0.7)
    ap.add_argument("--two-tier", action="store_true", help="only the tier-choice pairs")
    args = ap.parse_args()
    reps = 1 if args.quick else 3
    cfg = BackfillScenario.model_validate({"family": "backfill", "datacenter": {"processors": 320},
                                           "params": {"record_schedule": False},
                                           "workload": {"model": "feitelson", "n_jobs": args.jobs, "load": args.load}})  # fmt: skip
    inst = prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))
    print(f"{len(inst)} Feitelson jobs, 320 processors, load {args.load}; CPU s, median of {reps}; "
          f"load average at start {os.getloadavg()[0]:.2f}")  # fmt: skip
    if not args.two_tier:
        one_tier(inst, reps)
    print(f"{'two-tier':<10} {'built-in':>9} {'plug-in':>9} {'ratio':>7} {'target':>7} {'kills + migrations':>19}")
    for alg, choice in TIERS.items():  # Deploy's mode: a constant against a tier choice asked per job
        plugin = Plugin("backfill", f"bench-{alg}", choice, f"bench:{alg}", "bench", "0", __file__, "", "")
        bt, b = cpu_median(lambda a=alg: simulate_two_tier(inst, a, cfg.params), reps)
        ask = checked_choice(plugin, choice)
        pt, p = cpu_median(lambda a=alg, c=ask: simulate_two_tier(inst, a, cfg.params, choice=c), reps)
        assert p.first_start.tolist() == b.first_start.tolist() and p.end.tolist() == b.end.tolist(), alg
        assert p.counters == b.counters, alg
        ratio = pt / bt
        moves = b.counters["kills"] + b.counters["migrations"]
        print(f"{alg:<10} {bt:9.2f} {pt:9.2f} {ratio:6.2f}× {'yes' if ratio <= 2 else 'NO':>7} {moves:19d}")


def one_tier(inst, reps: int) -> None:
    easy_t, easy = cpu_median(lambda: simulate_one_tier(inst, processors=False), reps)
    print(f"{'easy.py (specialised EASY)':<44} {easy_t:7.2f}")
    print(f"{'order':<10} {'built-in':>9} {'plug-in':>9} {'ratio':>7} {'target':>7} {'mean response (s)':>18}")
    for name, plug in PLUGINS.items():
        order = ORDERS[name]
        bt, b = cpu_median(lambda o=order: simulate_ordered(inst, o.key, o.dynamic, processors=False), reps)
        pt, p = cpu_median(lambda pl=plug, n=name: simulate_ordered(inst, checked(_plugin(n), pl), pl.dynamic,
                                                             processors=False), reps)  # fmt: skip
        assert p.start.tolist() == b.start.tolist(), f"{name}: the plug-in's schedule differs"
        ratio = pt / bt
        resp = float(np.mean(b.end - inst.submit))
        print(f"{name:<10} {bt:9.2f} {pt:9.2f} {ratio:6.2f}× {'yes' if ratio <= 2 else 'NO':>7} {resp:18.0f}")
        if name == "fcfs":
            assert b.start.tolist() == easy.start.tolist()
            print(f"{'  generic loop with fcfs / easy.py':<44} {bt / easy_t:6.2f}× (same schedule)")
    # the backfill decision: EASY's test as a plug-in rule (called per candidate, every pass) against the loop's own
    fcfs = ORDERS["fcfs"]
    rule = _plugin("fcfs")
    admit = checked_admit(rule, Backfill(easy_admit, "EASY's test, as a plug-in"))
    bt, b = cpu_median(lambda: simulate_ordered(inst, fcfs.key, False, processors=False), reps)
    pt, p = cpu_median(lambda: simulate_ordered(inst, fcfs.key, False, processors=False, admit=admit), reps)
    assert p.start.tolist() == b.start.tolist(), "the backfill rule's schedule differs"
    ratio = pt / bt
    print(f"{'admit':<10} {bt:9.2f} {pt:9.2f} {ratio:6.2f}× {'yes' if ratio <= 2 else 'NO':>7}   (backfill rule)")


if __name__ == "__main__":
    main()
