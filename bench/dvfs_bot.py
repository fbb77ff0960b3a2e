"""Benchmark of the dvfs_bot family (issue 4) and the Section V comparison of paper 002.

    .venv/bin/python bench/dvfs_bot.py            # performance target: (4.25, 7.86) day on 800 VMs, median of 3
    .venv/bin/python bench/dvfs_bot.py --paper 1  # the 12 workloads of Table II / Fig. 2, N repetitions each

Target (issue 4): one 24-hour (4.25, 7.86) workload on 800 VMs in ≤ 60 s per algorithm; jobs/s reported.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from schedulers.core import rng as rngmod
from schedulers.dvfs_bot import prepare, simulate
from schedulers.dvfs_bot.model import DvfsScenario, check
from schedulers.dvfs_bot.presets import TABLE2_REJECTION, WORKLOADS, scenario

TARGET_S = 60.0


def _run(sc: dict, algorithm: str, rep: int) -> tuple[float, dict]:
    cfg = DvfsScenario.model_validate(sc)
    check(cfg)
    inst = prepare(cfg, rngmod.stream(cfg.seed, rep, "workload"))
    t0 = time.perf_counter()
    out = simulate(cfg, inst, algorithm, rngmod.stream(cfg.seed, rep, "algorithm:" + algorithm), lambda *a: None)
    return time.perf_counter() - t0, out.metrics


def performance() -> None:
    preset = scenario(4.25, 7.86, 0.2, repetitions=1)
    plain = {**preset, "workload": {"iat_shape": 4.25, "iat_scale_s": 7.86}, "params": {"record_schedule": False}}
    print("dvfs_bot: one 24 h (4.25, 7.86) workload, 20% urgent, 200 hosts x 4 cores = 800 VMs, median of 3")
    print(f"{'workload':<38} {'algorithm':<12} {'measured s':>10} {'target s':>9} {'jobs':>6} {'jobs/s':>8} "
          f"{'tasks/s':>8}  ok")  # fmt: skip
    for label, sc in (("preset (24 h horizon, x in [-20,20])", preset), ("generator default (x in [-6,8])", plain)):
        for alg in ("cloud_aware", "baseline"):
            times, metrics = [], {}
            for _ in range(3):
                t, metrics = _run(sc, alg, 0)
                times.append(t)
            med = statistics.median(times)
            jobs, tasks = metrics["jobs"], metrics["tasks_run"]
            print(
                f"{label:<38} {alg:<12} {med:>10.2f} {TARGET_S:>9.0f} {jobs:>6} {jobs / med:>8.0f} {tasks / med:>8.0f}"
                f"  {'yes' if med <= TARGET_S else 'NO'}"
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB (tasks/s counts accepted tasks)")


def paper(reps: int) -> None:
    print(f"Section V workloads, {reps} repetition(s): energy (kWh), rejection rate; paper's Table II in brackets")
    print(
        f"{'workload':<16} {'urg':>4} {'E cloud':>9} {'E base':>9} {'saving':>7} "
        f"{'rej cloud':>10} {'rej base':>9} {'paper rej (b/c)':>16} {'viol':>5} {'s/run':>6}"
    )
    for urgent in (0.2, 0.5):
        for a, b in WORKLOADS:
            sc = scenario(a, b, urgent, repetitions=reps)
            res: dict[str, list[dict]] = {"cloud_aware": [], "baseline": []}
            wall = []
            for rep in range(reps):
                for alg in res:
                    t, m = _run(sc, alg, rep)
                    res[alg].append(m)
                    wall.append(t)

            def mean(alg: str, key: str, res=res) -> float:
                return float(np.mean([m[key] for m in res[alg]]))

            e_c, e_b = mean("cloud_aware", "energy_kwh"), mean("baseline", "energy_kwh")
            base_p, ca_p = TABLE2_REJECTION[(a, b, urgent)]
            viol = max(mean(alg, "deadline_violation_rate") for alg in res)
            print(
                f"({a}, {b}){'':<{16 - len(f'({a}, {b})')}} {round(100 * urgent):>3}% {e_c:>9.1f} {e_b:>9.1f} "
                f"{100 * (1 - e_c / e_b):>6.1f}% {100 * mean('cloud_aware', 'rejection_rate'):>9.1f}% "
                f"{100 * mean('baseline', 'rejection_rate'):>8.1f}% {f'{100 * base_p:.1f}/{100 * ca_p:.1f}%':>16} "
                f"{viol:>5.2f} {statistics.mean(wall):>6.1f}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", type=int, default=0, metavar="REPS", help="run the 12 Section V workloads")
    args = parser.parse_args()
    if args.paper:
        paper(args.paper)
    else:
        performance()
