"""Scale-out: one study fanned out as a Celery group, finished by 1 and then 2 worker processes.

    .venv/bin/python bench/study_scaleout.py [--points 8] [--jobs 20000] [--trials 1] [--timeline]

Each point is a backfill EASY run. With 1 and with 2 workers (``-c 1`` each, real Redis, the
project's SQLite database) it prints: the time from the first run's claim to the last run's finish
(from the Run rows) and the end-to-end time including submission; the CPU seconds of the worker
processes (main + pool child, from /proc) and of the library alone for one such run (measured in this
process), so the per-run overhead is their difference; the SQL statements and Redis commands the
workers issued (SQLite statements counted by a wrapper the workers load with
``CLOUDSCHED_COUNT_QUERIES``; Redis from ``INFO commandstats``); and the speed-up of the span. The
machine's load average is printed beside each trial: on a shared machine the wall-clock ratio is
distorted by the other processes, the CPU and round-trip counts are not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.services import redis_server  # noqa: E402

# Submits the study and waits for it in one process, set up (Django, the library) before it submits:
# starting a second interpreter while the first runs are being claimed took CPU from the workers.
SUBMIT_AND_WAIT = """
import django, json, sys, time; django.setup()
import schedulers
from django.contrib.auth import get_user_model
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.runs.models import Study
from cloudsched_web.runs.services import submit_sweep
user, _ = get_user_model().objects.get_or_create(username="bench")
config = schedulers.example("backfill")
config["algorithms"] = ["easy"]
config["workload"]["n_jobs"] = int(sys.argv[1])
_, cfg = schedulers.validate(config)
s = Scenario.objects.create(owner=user, family="backfill", name="scale", config=cfg.model_dump(mode="json"))
t0 = time.perf_counter()
study = submit_sweep(s, {"seed": list(range(int(sys.argv[2])))})
while not study.is_finished:
    time.sleep(0.25)  # the span comes from the rows; polling less leaves the CPU to the workers
elapsed = time.perf_counter() - t0
runs = list(study.runs.order_by("started_at"))
first = min(r.started_at for r in runs)
rows = [(r.worker, (r.started_at - first).total_seconds(), (r.finished_at - first).total_seconds()) for r in runs]
print(json.dumps({"rows": rows, "counts": study.status_counts(), "elapsed": elapsed}))
"""
# A worker as `celery -A cloudsched_web worker`, plus a record of its SQL statements (the wall time of each,
# a line in the file $CLOUDSCHED_COUNT_QUERIES: waiting on another worker's SQLite lock would show there;
# the pool child inherits the receiver when it forks).
WORKER = """
import os, sys, time
from django.db.backends.signals import connection_created

def count(execute, sql, params, many, context):
    started = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        with open(os.environ["CLOUDSCHED_COUNT_QUERIES"], "a") as f:
            f.write(f"{time.perf_counter() - started:.6f}\\n")

def install(sender, connection, **kwargs):
    if count not in connection.execute_wrappers:
        connection.execute_wrappers.append(count)

connection_created.connect(install)
from cloudsched_web.celery import app
app.worker_main(["worker", *sys.argv[1:]])
"""
LIBRARY = """
import sys, time
import schedulers
config = schedulers.example("backfill")
config["algorithms"] = ["easy"]
config["workload"]["n_jobs"] = int(sys.argv[1])
schedulers.run(config)
c = time.process_time()
for seed in range(3):
    config["seed"] = seed
    schedulers.run(config)
print((time.process_time() - c) / 3)
"""


def _cpu_of_tree(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its live descendants, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(entry.name)
        children.setdefault(int(fields[1]), []).append(child)
        stats[child] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats.get(p, 0.0)
        todo.extend(children.get(p, []))
    return total


def _redis_calls(url: str) -> int:
    import redis

    stats = redis.Redis.from_url(url).info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if not k.endswith(("info", "config")))


def trial(workers: int, points: int, jobs: int, timeline: bool, own_sessions: bool) -> tuple[float, float, int]:
    tmp = Path(tempfile.mkdtemp(prefix="cloudsched-scale-"))
    with redis_server(tmp) as broker:
        env = dict(
            os.environ,
            CLOUDSCHED_VAR_DIR=str(tmp),
            CELERY_BROKER_URL=broker,
            DJANGO_SETTINGS_MODULE="cloudsched_web.settings",
            CLOUDSCHED_COUNT_QUERIES=str(tmp / "queries"),
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True
        )
        args = ["-c", "1", "-l", "WARNING"]
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER, *args, "-n", f"w{i}@%h"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=own_sessions,
            )
            for i in range(workers)
        ]
        _wait_ready(broker, workers)
        idle_cpu = sum(_cpu_of_tree(p.pid) for p in procs)
        redis0 = _redis_calls(broker)
        load = os.getloadavg()[0]
        try:
            done = json.loads(
                subprocess.run(
                    [sys.executable, "-c", SUBMIT_AND_WAIT, str(jobs), str(points)],
                    cwd=ROOT,
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            )
            elapsed = done["elapsed"]
            cpu = sum(_cpu_of_tree(p.pid) for p in procs) - idle_cpu
            redis_calls = _redis_calls(broker) - redis0
            rows = done["rows"]
            span = max(f for _, _, f in rows)
            sql = [float(x) for x in (tmp / "queries").read_text().split()] if (tmp / "queries").exists() else []
            queries = len(sql)
            print(
                f"{workers} worker(s): {span:.1f} s first claim to last finish, {elapsed:.1f} s with submission; "
                f"worker CPU {cpu:.2f} s ({cpu / points:.3f} s/run); {queries / points:.1f} SQL statements/run "
                f"({1000 * sum(sql) / points:.1f} ms/run in them, longest {1000 * max(sql, default=0):.1f} ms), "
                f"{redis_calls / points:.1f} Redis commands/run; load {load:.1f}→{os.getloadavg()[0]:.1f}  "
                f"{done['counts']}"
            )
            if timeline:
                for worker, start, end in rows:
                    print(f"    {worker:<28} {start:6.2f} → {end:6.2f}  ({end - start:.2f} s)")
            return span, cpu, queries
        finally:
            for p in procs:
                p.terminate()
                p.wait()


def _wait_ready(broker: str, workers: int, timeout: float = 120.0) -> None:
    """Until every worker answers a ping (a fixed sleep was too short at load 15: a late second worker)."""
    from celery import Celery

    app = Celery(broker=broker)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=1.0) or []
        if len(replies) >= workers:
            return
    raise RuntimeError(f"only {len(replies)} of {workers} workers answered within {timeout:.0f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--trials", type=int, default=1, help="alternate 1 and 2 workers this many times")
    ap.add_argument("--timeline", action="store_true", help="print each run's worker, claim and finish")
    ap.add_argument(
        "--same-session",
        action="store_true",
        help="start the workers in this shell's session (with the kernel's autogroup scheduling, the whole "
        "session then shares one CPU share, so a second worker only splits it; the default gives each worker "
        "its own session, as a service manager does)",
    )
    args = ap.parse_args()
    lib = float(
        subprocess.run(
            [sys.executable, "-c", LIBRARY, str(args.jobs)], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
    )
    print(f"library alone (schedulers.run, in one process): {lib:.3f} CPU-s per run; load {os.getloadavg()[0]:.1f}")
    ratios = []
    for _ in range(args.trials):
        one, cpu1, _ = trial(1, args.points, args.jobs, args.timeline, not args.same_session)
        two, cpu2, _ = trial(2, args.points, args.jobs, args.timeline, not args.same_session)
        ratios.append(one / two)
        print(f"  per-run overhead (worker CPU − library): 1 worker {cpu1 / args.points - lib:.3f} s, "
              f"2 workers {cpu2 / args.points - lib:.3f} s")  # fmt: skip
    print(f"speed-up with 2 workers on {os.cpu_count()} cores: " + ", ".join(f"{r:.2f}×" for r in ratios))


if __name__ == "__main__":
    main()
