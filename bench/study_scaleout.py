"""Scale-out: one study fanned out as a Celery group, finished by 1 and then 2 worker processes.

    .venv/bin/python bench/study_scaleout.py [--points 8] [--jobs 20000]

Each point is a backfill EASY run; prints, with 1 and with 2 workers, the time from the first run's
claim to the last run's finish (from the Run rows) and the end-to-end time including submission,
and the speed-up of the former.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.services import redis_server  # noqa: E402

SUBMIT = """
import django, json, sys; django.setup()
import schedulers
from django.contrib.auth import get_user_model
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.runs.services import submit_sweep
user, _ = get_user_model().objects.get_or_create(username="bench")
config = schedulers.example("backfill")
config["algorithms"] = ["easy"]
config["workload"]["n_jobs"] = int(sys.argv[1])
_, cfg = schedulers.validate(config)
s = Scenario.objects.create(owner=user, family="backfill", name="scale", config=cfg.model_dump(mode="json"))
study = submit_sweep(s, {"seed": list(range(int(sys.argv[2])))})
print(study.pk)
"""
WAIT = """
import django, sys, time; django.setup()
from cloudsched_web.runs.models import Study
study = Study.objects.get(pk=int(sys.argv[1]))
while not study.is_finished:
    time.sleep(0.1)
runs = study.runs.all()
span = (max(r.finished_at for r in runs) - min(r.started_at for r in runs)).total_seconds()
print(span, study.status_counts())
"""


def trial(workers: int, points: int, jobs: int) -> float:
    tmp = Path(tempfile.mkdtemp(prefix="cloudsched-scale-"))
    with redis_server(tmp) as broker:
        env = dict(
            os.environ,
            CLOUDSCHED_VAR_DIR=str(tmp),
            CELERY_BROKER_URL=broker,
            DJANGO_SETTINGS_MODULE="cloudsched_web.settings",
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True
        )
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "cloudsched_web",
                    "worker",
                    "-c",
                    "1",
                    "-n",
                    f"w{i}@%h",
                    "-l",
                    "WARNING",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for i in range(workers)
        ]
        time.sleep(4)
        try:
            t0 = time.perf_counter()
            study = subprocess.run(
                [sys.executable, "-c", SUBMIT, str(jobs), str(points)],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            done = subprocess.run(
                [sys.executable, "-c", WAIT, study], cwd=ROOT, env=env, check=True, capture_output=True, text=True
            ).stdout.strip()
            elapsed = time.perf_counter() - t0
            span, counts = done.split(" ", 1)
            print(
                f"{workers} worker(s): {float(span):.1f} s first claim to last finish, {elapsed:.1f} s with submission  {counts}"
            )
            return float(span)
        finally:
            for p in procs:
                p.terminate()
                p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=20000)
    args = ap.parse_args()
    one = trial(1, args.points, args.jobs)
    two = trial(2, args.points, args.jobs)
    print(f"speed-up with 2 workers on {os.cpu_count()} cores: {one / two:.2f}×")


if __name__ == "__main__":
    main()
