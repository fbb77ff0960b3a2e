"""Benchmark: calibrating ``schedulers.estimate`` — measured vs estimated.

    .venv/bin/python bench/estimate.py [--family backfill] [--quick] [--scenario FILE] [--json OUT]
    .venv/bin/python bench/estimate.py --table OUT.json...   # the docs' table, estimates as the code gives now

Each point is a Run sent to a real Celery worker started as run.sh starts one (production settings,
``--concurrency 1``, its own Redis and a throwaway database; ``RUN_MEMORY_LIMIT_MB`` and the fan-out
as configured), with ``--max-tasks-per-child 1`` so that every point runs in a pool process freshly
forked from the warm main process. A hook in the worker records the pool process's ``VmPeak`` (what
``RUN_MEMORY_LIMIT_MB`` caps, an ``RLIMIT_AS``; it never decreases, so the task's end holds the run's
peak, result stored and indexes built), its peak RSS, its threads, and the CPU seconds spent in
``schedulers.run`` / ``run_unit`` (what the soft time limit bounds; wall time on a loaded machine is
more). ``--in-process`` instead runs each point in a child that imitates the worker: it misses the
Celery worker's ~100 MB and runs Arrow's CPU pool with one thread (``OMP_NUM_THREADS=1``), so its
``VmPeak`` is lower than the worker's — kept for ``--indexes`` and ``--limit-mb``.

Target (``tests/schedulers/test_estimate_calibration.py`` holds the table as data): every estimate
at least its measurement and at most twice it, memory and CPU. Not a test; the test never runs it.
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

from results_scale import status_mb  # noqa: E402  (a /proc/self/status field in MB)

# The real worker (``--worker``): run.sh's flags, one task per pool process so each point starts from a
# freshly forked child of the warm main process (as the first run after a recycle does), and a hook that
# records the pool process's /proc/self/status when its task starts and ends (VmPeak never decreases).
WORKER_CODE = """
import json, os, resource
from celery import signals
def _status():
    out = {}
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        if key in ("VmPeak", "VmSize", "VmHWM", "Threads"):
            out[key] = int(value.split()[0]) / (1 if key == "Threads" else 1024)
    out["threads"] = sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
    if os.environ.get("BENCH_MAPS"):
        out["maps"] = open("/proc/self/maps").read()
    u = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu"] = u.ru_utime + u.ru_stime
    out["sim_cpu"] = _sim[0]
    return out
def _hook(when):
    def record(sender=None, task_id=None, task=None, args=None, **kw):
        with open(os.environ["BENCH_STATUS_FILE"], "a") as f:
            f.write(json.dumps({"when": when, "task": task.name, "args": list(args or ()), **_status()}) + "\\n")
    return record
import time, schedulers
_sim = [0.0]
def _timed(fn):
    def timed(*a, **k):
        c0 = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            _sim[0] += time.process_time() - c0
    return timed
schedulers.run, schedulers.run_unit = _timed(schedulers.run), _timed(schedulers.run_unit)
signals.task_prerun.connect(_hook("start"), weak=False)
signals.task_postrun.connect(_hook("end"), weak=False)
from cloudsched_web.celery import app
app.worker_main(["worker", "--loglevel", "INFO", "--concurrency", "1", "--max-tasks-per-child", "1"])
"""


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
        _backfill(200_000, ["easy", *TWO_TIER]),
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
    return {key: status_mb(key + ":") for key in ("VmPeak", "VmHWM")}


def child(config, with_indexes, limit_mb=0):
    """One point, as the worker runs it (under an address-space limit of ``limit_mb`` if given); prints one JSON line."""
    from web_pages import setup_lab

    tmp = tempfile.mkdtemp(prefix="cloudsched-estimate-")
    setup_lab(tmp)
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


def table(files):
    """The docs' table (docs/architecture.md) from ``--json`` files, estimates as the code gives them now; a point
    measured more than once shows every measurement (``a / b``) and the ratio's range."""
    import schedulers

    points = {}
    for row in (r for f in files for r in json.loads(Path(f).read_text())):
        if row.get("env"):
            continue  # measured before the worker set Arrow's pool sizes itself: a set-up that no longer exists
        points.setdefault(row["label"], []).append(row)
    print("| point | VmPeak MB measured | estimated | ratio | sim CPU s measured | estimated | ratio |")
    print("|---|---|---|---|---|---|---|")
    for label, rows in points.items():
        est = schedulers.estimate(rows[0]["config"])

        def cells(key, estimated, fmt, rows=rows):
            values = [r[key] for r in rows]
            ratios = sorted(estimated / max(v, 1e-3) for v in values)
            spread = f"{ratios[0]:.2f}" + (f"–{ratios[-1]:.2f}" if len(ratios) > 1 else "")
            return f"{' / '.join(format(v, fmt) for v in values)} | {estimated:{fmt}} | {spread}"

        print(
            f"| {label} | {cells('vmpeak_mb', est.peak_memory_mb, ',.0f')} | {cells('sim_cpu_s', est.cpu_s, ',.2f')} |"
        )


def _measure(config, with_indexes):
    command = [sys.executable, __file__, "--child", json.dumps(config)] + (["--indexes"] if with_indexes else [])
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


class RealWorker:
    """A Redis, a Celery worker as run.sh starts one (production settings, ``RUN_MEMORY_LIMIT_MB`` as set) and a
    throwaway database: each point is a Run sent to it, its pool process's status read by the hook."""

    def __init__(self, tmp):
        from tests.services import redis_server

        self.tmp = Path(tmp)
        self._redis = redis_server(self.tmp)
        url = self._redis.__enter__()
        os.environ["CELERY_BROKER_URL"] = url
        from web_pages import setup_lab

        setup_lab(str(self.tmp))
        from django.contrib.auth import get_user_model

        self.user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
        self.status_file = self.tmp / "status.jsonl"
        env = {**os.environ, "BENCH_STATUS_FILE": str(self.status_file), "LOG_LEVEL": "INFO"}
        self.log = open(self.tmp / "worker.log", "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER_CODE], cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)  # fmt: skip
        deadline = time.monotonic() + 120
        while b"ready." not in (self.tmp / "worker.log").read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("worker did not start:\n" + (self.tmp / "worker.log").read_text())
            time.sleep(0.2)

    def measure(self, config, timeout=1800):
        from cloudsched_web.runs.models import Run
        from cloudsched_web.runs.services import send
        from cloudsched_web.scenarios.models import Scenario

        scenario = Scenario.objects.create(owner=self.user, family=config["family"], name="bench", config=config)
        run = Run.objects.create(scenario=scenario, config=config, scenario_name="bench")
        send([run.id])  # the budget is not asked: a refused point is measured too
        deadline = time.monotonic() + timeout
        while True:
            rows = [json.loads(line) for line in self.status_file.read_text().splitlines()] \
                if self.status_file.exists() else []  # fmt: skip
            ends = [
                r for r in rows if r["when"] == "end" and r["task"].endswith("run_simulation") and r["args"] == [run.id]
            ]
            if ends:
                break
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"run {run.id} not done:\n" + (self.tmp / "worker.log").read_text()[-3000:])
            time.sleep(0.2)
        run.refresh_from_db()
        start = next(r for r in rows if r["when"] == "start" and r["args"] == [run.id])
        return {"status": run.status, "error": run.error, "start": start, "end": ends[0],
                "task_cpu": ends[0]["cpu"] - start["cpu"]}  # fmt: skip

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        self._redis.__exit__(None, None, None)


def _label(config):
    w = config["workload"]
    keys = ("n_jobs", "n_requests", "apps", "duration_h", "tasks", "arrival_end_s")
    size = next((f"{k}={w[k]:,}" for k in keys if k in w), "")
    size += f" durations ≤ {w['max_duration_slots']:,}" if "max_duration_slots" in w else ""
    size += f" trace {Path(w['path']).name}" if w.get("path") else ""
    name = config.get("name", "")
    size = f"preset point {name!r} {size}" if name and name not in ("estimate bench", "bench") else size
    procs = config.get("datacenter", {}).get("processors")
    return (f"{config['family']} {size.strip()}" + (f" on {procs}" if procs else "")
            + f" × {'+'.join(config['algorithms'])} × {config.get('repetitions', 1)}").replace("  ", " ")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--quick", action="store_true", help="the smaller points only")
    parser.add_argument("--indexes", action="store_true", help="(--in-process) also build the chart indexes")
    parser.add_argument("--scenario", help="a scenario JSON file to measure instead")
    parser.add_argument("--limit-mb", type=int, default=0, help="(--in-process) run under this address-space limit")
    parser.add_argument("--in-process", action="store_true", help="a child process that imitates the worker")
    parser.add_argument("--json", help="also write every point's measurement and estimate to this file")
    parser.add_argument("--table", nargs="+", help="print the docs' table from these --json files and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.table:
        return table(args.table)
    if args.child:
        return child(json.loads(args.child), args.indexes, args.limit_mb)
    import schedulers

    points = POINTS if not args.quick else QUICK
    configs = [json.loads(Path(args.scenario).read_text())] if args.scenario else [
        c for fam, cs in points.items() if not args.family or fam in args.family for c in cs
    ]  # fmt: skip
    worker = None if args.in_process else RealWorker(tempfile.mkdtemp(prefix="cloudsched-estimate-"))
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{'a child imitating the worker' if worker is None else 'a real Celery worker'}")  # fmt: skip
    print("| point | VmPeak MB (est.) | ratio | peak RSS MB | sim CPU s (est.) | ratio | task CPU s |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    try:
        for config in configs:
            t0 = time.process_time()
            est = schedulers.estimate(config)
            est_ms = (time.process_time() - t0) * 1000
            if worker is None:
                m = _measure(config, args.indexes)
                peak, rss, sim, task = (max(m["stored"]["VmPeak"], m["sim"]["VmPeak"]), m["stored"]["VmHWM"],
                                        m["sim_cpu"], m["sim_cpu"] + m["store_cpu"])  # fmt: skip
            else:
                m = worker.measure(config)
                if m["status"] != "succeeded":
                    print(f"| {_label(config)} | {m['status']}: {m['error'][:200]} |", flush=True)
                    continue
                peak, rss, sim, task = m["end"]["VmPeak"], m["end"]["VmHWM"], m["end"]["sim_cpu"], m["task_cpu"]
            rows.append({"label": _label(config), "config": config, "vmpeak_mb": round(peak), "rss_mb": round(rss),
                         "sim_cpu_s": round(sim, 2), "est_mb": round(est.peak_memory_mb),
                         "est_cpu_s": round(est.cpu_s, 2), "cores": os.cpu_count(),
                         "load": round(os.getloadavg()[0], 1)})  # fmt: skip
            print(f"| {_label(config)} | {peak:.0f} ({est.peak_memory_mb:.0f}) | {est.peak_memory_mb / peak:.2f} | "
                  f"{rss:.0f} | {sim:.2f} ({est.cpu_s:.2f}) | {est.cpu_s / max(sim, 1e-3):.2f} | {task:.1f} |"
                  f" <!-- est. {est_ms:.1f} ms -->", flush=True)  # fmt: skip
    finally:
        if worker is not None:
            worker.close()
    if not rows:
        return
    mem = [r["est_mb"] / r["vmpeak_mb"] for r in rows]
    cpu = [r["est_cpu_s"] / max(r["sim_cpu_s"], 1e-3) for r in rows]
    print(f"memory estimate/measured: {min(mem):.2f}–{max(mem):.2f}; CPU {min(cpu):.2f}–{max(cpu):.2f} "
          f"(target 1–2); load average now {os.getloadavg()[0]:.2f}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
