"""Benchmark: a plug-in's decisions against the built-in equivalent in vm_reservations, federated, dvfs_bot and
ep_jobs (backfill: bench/backfill_plugins.py). Not a test.

    .venv/bin/python bench/plugins.py            # median of 3
    .venv/bin/python bench/plugins.py --quick    # one repetition, smaller instances

Target: a plug-in's decisions cost ≤ 2× the built-in equivalent. Each pair runs on the same instance, the
built-in once as the library runs it and once as the same rule written as a plug-in, called as a run calls
a plug-in: through the family's ``checked`` (the guard that names the plug-in, and the check of every
answer). The results of each pair are asserted equal. Timed: the algorithm (vm_reservations: the placement
of every pool; federated: the simulation; dvfs_bot: the simulation; ep_jobs: the per-job algorithm), as
process CPU time, BLAS single-threaded.

- vm_reservations: best fit with the FFD order, the named part ``ffd:best`` (``FITS["best"]`` through
  ``policy.pack``) against the same choice as a plug-in; and the papers' first fit (ffd.py's packer) against
  first fit as a plug-in (what writing FFD against the interface costs).
- federated: CLS (``cls_assign``) against ``argmin(task.tau)`` as a plug-in ``CloudChoice``.
- dvfs_bot: Alg. 1 against ``argmax(task.score)`` as a plug-in ``VmChoice``.
- ep_jobs: Min-Min with REC (OptRA shares) against the same placement as a plug-in ``TaskPlacement``.
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", "1")
os.environ["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS", "1")

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import schedulers
from bench.backfill_plugins import cpu_median  # CPU seconds, median of reps
from schedulers.core import rng as rngmod
from schedulers.plugins import Plugin


def _plugin(family: str, obj) -> Plugin:
    return Plugin(family, "bench", obj, "bench:obj", "bench", "0", __file__, "", "")


def _row(name: str, size: str, bt: float, pt: float) -> None:
    ratio = pt / bt
    print(f"{name:<40} {size:>22} {bt:9.3f} {pt:9.3f} {ratio:6.2f}× {'yes' if ratio <= 2 else 'NO':>6}")


def _instance(scenario: dict):
    family, cfg = schedulers.validate(scenario)
    return cfg, family.prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))


def vm_reservations(reps: int, n: int) -> None:
    from schedulers.vm_reservations.ffd import first_fit
    from schedulers.vm_reservations.policy import FITS, PmChoice, checked, order_of, pack

    _, inst = _instance({"family": "vm_reservations", "workload": {"kind": "generator", "n_requests": n,
                                                                   "max_duration_slots": 200}})  # fmt: skip
    pools = [(p.s, p.e, p.d, p.g) for p in inst.pools]
    orders = [order_of("ffd", *p) for p in pools]
    size = f"{n:,} requests"
    for fit, builtin in (("best", lambda p, o: pack(*p, o, FITS["best"])), ("first", lambda p, o: first_fit(*p, o))):
        choose, _ = checked(_plugin("vm_reservations", PmChoice(FITS[fit], fit)), PmChoice(FITS[fit], fit))
        bt, b = cpu_median(lambda bf=builtin: [bf(p, o) for p, o in zip(pools, orders, strict=True)], reps)
        pt, q = cpu_median(lambda c=choose: [pack(*p, o, c) for p, o in zip(pools, orders, strict=True)], reps)
        assert all(x.pm.tolist() == y.pm.tolist() for x, y in zip(b, q, strict=True)), fit
        _row(f"vm_reservations ffd:{fit}" + (" (ffd.py packer)" if fit == "first" else ""), size, bt, pt)


def federated(reps: int, apps: int) -> None:
    from schedulers.federated import example
    from schedulers.federated.output import build_output
    from schedulers.federated.policy import CloudChoice
    from schedulers.federated.simulator import Simulation

    scenario = example() | {"algorithms": ["cls"]}
    scenario["workload"] = scenario["workload"] | {"apps": apps}
    cfg, inst = _instance(scenario)

    def run(algorithm):
        sim = Simulation(cfg, inst, algorithm)
        sim.run()
        return build_output(sim)

    from schedulers import plugins

    plugins.discover().setdefault("federated", {})["bench-cls"] = _plugin(
        "federated", CloudChoice(lambda task: int(np.argmin(task.tau)), "CLS as a plug-in"))  # fmt: skip
    bt, b = cpu_median(lambda: run("cls"), reps)
    pt, p = cpu_median(lambda: run("bench-cls"), reps)
    assert b.schedule == p.schedule
    _row("federated CLS", f"{inst.n_tasks:,} tasks", bt, pt)


def dvfs_bot(reps: int, hours: float) -> None:
    from schedulers.dvfs_bot.policy import REJECT, VmChoice, checked
    from schedulers.dvfs_bot.simulator import simulate_jobs

    def alg1(task):
        v = int(np.argmax(task.score))
        return v if task.score[v] > 0 else REJECT

    scenario = schedulers.example("dvfs_bot") | {"algorithms": ["cloud_aware"]}
    scenario["workload"] = scenario["workload"] | {"duration_h": hours}
    _, inst = _instance(scenario)
    dc, wl = inst.datacenter, inst.workload
    choose = checked(_plugin("dvfs_bot", VmChoice(alg1)), VmChoice(alg1))
    bt, b = cpu_median(lambda: simulate_jobs(dc, wl, True), reps)
    pt, p = cpu_median(lambda: simulate_jobs(dc, wl, True, choose=choose), reps)
    assert b.task_vm.tolist() == p.task_vm.tolist() and b.seg_level.tolist() == p.seg_level.tolist()
    _row("dvfs_bot Alg. 1", f"{int(wl.ntasks.sum()):,} tasks", bt, pt)


def ep_jobs(reps: int, tasks: int) -> None:
    from schedulers.ep_jobs.minmin import min_min, min_min_placement
    from schedulers.ep_jobs.policy import TaskPlacement, checked
    from schedulers.ep_jobs.tapra import finish, rec

    _, inst = _instance({"family": "ep_jobs", "datacenter": {"kind": "fattree", "pods": 8},
                         "workload": {"kind": "generator", "tasks": tasks}, "algorithms": ["min_min"]})  # fmt: skip
    rule = TaskPlacement(lambda job: rec(job, min_min_placement(job))[0])
    place = checked(_plugin("ep_jobs", rule), rule)
    bt, b = cpu_median(lambda: min_min(inst), reps)
    pt, p = cpu_median(lambda: finish(inst, place(inst)), reps)
    assert b.server.tolist() == p.server.tolist()
    _row("ep_jobs Min-Min + REC", f"{tasks:,} tasks", bt, pt)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 1 if args.quick else 3
    print(f"CPU s, median of {reps}; load average at start {os.getloadavg()[0]:.2f}")
    print(f"{'pair':<40} {'size':>22} {'built-in':>9} {'plug-in':>9} {'ratio':>7} {'≤ 2×':>6}")
    vm_reservations(reps, 20_000 if args.quick else 100_000)
    federated(reps, 200 if args.quick else 1000)
    dvfs_bot(reps, 12.0 if args.quick else 48.0)
    ep_jobs(reps, 300 if args.quick else 1000)


if __name__ == "__main__":
    main()
