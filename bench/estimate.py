"""Benchmark: calibrating ``schedulers.estimate`` — measured vs estimated.

    .venv/bin/python bench/estimate.py [--family backfill] [--quick] [--indexes]

Each point runs in a fresh child process that does what a Celery worker does with a run: the
library and what runs import lazily are imported first (``tasks.warm_imports``), then
``schedulers.run``, ``Run.store_result`` (Parquet, throwaway SQLite and media directory) and
``page.summarize`` — everything before the run is marked succeeded, which is what the limits
guard. ``--indexes`` also builds the chart indexes afterwards, as the worker does once the result
is released (reported apart: a failure there leaves the run succeeded).

Per point it prints the child's peak address space (``VmPeak``: what ``RUN_MEMORY_LIMIT_MB``
caps, an ``RLIMIT_AS``), its peak RSS, the simulation's CPU seconds (what the soft time limit,
SIGALRM around ``schedulers.run``, bounds; wall time on a loaded machine is more), and the
estimate of each. Target: the memory estimate is never below the measured ``VmPeak`` by more
than 20 %, and not far above it (a reasonable run must stay accepted). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from results_scale import _rss_mb  # noqa: E402  (a /proc/self/status field in MB)


def _backfill(n, algorithms, processors=320, reps=1):
    return {"family": "backfill", "name": "estimate bench", "seed": 1, "repetitions": reps, "algorithms": algorithms,
            "datacenter": {"processors": processors},
            "workload": {"kind": "generator", "model": "feitelson", "n_jobs": n, "load": 0.7}}  # fmt: skip


TWO_TIER = ["keasy", "reasy", "measy"]
POINTS = {
    "backfill": [
        _backfill(5_000, ["easy", *TWO_TIER]),
        _backfill(20_000, ["easy", *TWO_TIER]),
        _backfill(20_000, ["fcfs", "easy"], reps=2),
        _backfill(20_000, ["keasy"], processors=1024),
        _backfill(50_000, ["fcfs", "easy", *TWO_TIER]),
        _backfill(100_000, ["easy", "keasy"]),
    ],
    "vm_reservations": [
        {
            "family": "vm_reservations",
            "seed": 1,
            "algorithms": ["llif", "ffd", "est", "mffde"],
            "workload": {"kind": "generator", "n_requests": n},
        }
        for n in (2_000, 20_000, 100_000)
    ]
    + [
        {
            "family": "vm_reservations",
            "seed": 1,
            "algorithms": ["llif", "ffd", "mffde"],
            "workload": {"kind": "generator", "n_requests": n, "max_duration_slots": cap},
        }
        for n, cap in ((5_000, 100_000), (20_000, 20_000), (20_000, 100_000))
    ],
    "federated": [
        {
            "family": "federated",
            "seed": 7,
            "algorithms": ["fcfs", "round_robin", "cls", "cmms", "dcls", "dcmms"],
            "workload": {"kind": "generator", "apps": n},
        }
        for n in (200, 1_000, 3_000)
    ],
    "dvfs_bot": [
        {
            "family": "dvfs_bot",
            "seed": 1,
            "algorithms": ["cloud_aware", "baseline"],
            "workload": {"kind": "generator", "duration_h": h},
        }
        for h in (6, 24, 72)
    ],
    "ep_jobs": [
        *(
            {
                "family": "ep_jobs",
                "seed": 1,
                "algorithms": ["tapra", "min_min", "gsa"],
                "datacenter": {"kind": "fattree", "pods": 8},
                "workload": {"kind": "generator", "tasks": n},
            }
            for n in (200, 800, 1_500)
        ),
        *(
            {
                "family": "ep_jobs",
                "seed": 1,
                "algorithms": ["ontapra:tapra", "fcfs:min_min", "slf:tapra_fast"],
                "datacenter": {"kind": "fattree", "pods": 8},
                "workload": {"kind": "online_generator", "arrival_end_s": end},
            }
            for end in (900, 3_600, 10_800)
        ),
    ],
}
QUICK = {"backfill": POINTS["backfill"][:3], **{k: v[:2] for k, v in POINTS.items() if k != "backfill"}}


def _status_mb():
    return {key: _rss_mb(key + ":") for key in ("VmPeak", "VmHWM")}


def child(config, with_indexes, limit_mb=0):
    """One point, as the worker runs it (under an address-space limit of ``limit_mb`` if given); prints one JSON line."""
    from web_pages import _setup

    tmp = tempfile.mkdtemp(prefix="cloudsched-estimate-")
    _setup(tmp)
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    import schedulers
    from cloudsched_web.runs import page
    from cloudsched_web.runs.models import Run
    from cloudsched_web.runs.tasks import warm_imports
    from cloudsched_web.scenarios.models import Scenario

    warm_imports()
    base = _status_mb()
    if limit_mb:  # as tasks._limit_memory does at the start of a run
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, resource.RLIM_INFINITY))
    user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
    scenario = Scenario.objects.create(owner=user, family=config["family"], name="bench", config=config)
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.RUNNING, started_at=timezone.now())
    c0 = time.process_time()
    result = schedulers.run(config)
    sim_cpu = time.process_time() - c0
    after_sim = _status_mb()
    c0 = time.process_time()
    run.store_result(result, "bench", indexes=False)
    page.summarize(result)
    store_cpu = time.process_time() - c0
    out = {"base": base, "sim": after_sim, "stored": _status_mb(), "sim_cpu": sim_cpu, "store_cpu": store_cpu,
           "segments": [len(r["schedule"]) for r in result["runs"]]}  # fmt: skip
    run.save()
    del result
    if with_indexes:
        from cloudsched_web.results import indexes

        indexes.build(run.load_header(), run.result_files)
        out["indexes"] = _status_mb()
    print(json.dumps(out))


def _measure(config, with_indexes):
    command = [sys.executable, __file__, "--child", json.dumps(config)] + (["--indexes"] if with_indexes else [])
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _label(config):
    w = config["workload"]
    keys = ("n_jobs", "n_requests", "apps", "duration_h", "tasks", "arrival_end_s")
    size = next((f"{k}={w[k]:,}" for k in keys if k in w), "")
    size += f" durations ≤ {w['max_duration_slots']:,}" if "max_duration_slots" in w else ""
    procs = config.get("datacenter", {}).get("processors")
    return (f"{config['family']} {size}" + (f" on {procs}" if procs else "")
            + f" × {'+'.join(config['algorithms'])} × {config.get('repetitions', 1)}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--quick", action="store_true", help="the smaller points only")
    parser.add_argument("--indexes", action="store_true", help="also build the chart indexes (reported apart)")
    parser.add_argument("--scenario", help="a scenario JSON file to measure instead")
    parser.add_argument("--limit-mb", type=int, default=0, help="run each point under this address-space limit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(json.loads(args.child), args.indexes, args.limit_mb)
    import schedulers

    points = POINTS if not args.quick else QUICK
    configs = [json.loads(Path(args.scenario).read_text())] if args.scenario else [
        c for fam, cs in points.items() if not args.family or fam in args.family for c in cs
    ]  # fmt: skip
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        "| point | VmPeak MB (est.) | ratio | peak RSS MB | sim CPU s (est.) | ratio | store+checks CPU s | segments |"
    )
    print("|---|---|---|---|---|---|---|---|")
    worst, cpu_ratios = 0.0, []
    for config in configs:
        t0 = time.process_time()
        est = schedulers.estimate(config)
        est_ms = (time.process_time() - t0) * 1000
        m = _measure(config, args.indexes)
        peak = max(m["stored"]["VmPeak"], m["sim"]["VmPeak"])
        ratio = est.peak_memory_mb / peak
        worst = min(worst or ratio, ratio)
        cpu_ratios.append(est.cpu_s / max(m["sim_cpu"], 1e-3))
        extra = f"; indexes VmPeak {m['indexes']['VmPeak']:.0f}" if "indexes" in m else ""
        print(f"| {_label(config)} | {peak:.0f} ({est.peak_memory_mb:.0f}) | {ratio:.2f} | "
              f"{m['stored']['VmHWM']:.0f} | {m['sim_cpu']:.2f} ({est.cpu_s:.2f}) | {cpu_ratios[-1]:.2f} | "
              f"{m['store_cpu']:.1f} | {sum(m['segments']):,}{extra} (est. took {est_ms:.1f} ms) |", flush=True)  # fmt: skip
    print(f"CPU estimate/measured: lowest {min(cpu_ratios):.2f}, highest {max(cpu_ratios):.2f} (target 1–2)")
    print(f"lowest estimate/measured memory ratio: {worst:.2f} (target ≥ 0.8); load average now "
          f"{os.getloadavg()[0]:.2f}; this process's peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10} MB")  # fmt: skip


if __name__ == "__main__":
    main()
