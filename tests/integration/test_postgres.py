"""The stack on PostgreSQL: a web side and a worker that share only DATABASE_URL, the broker and
the storage directory. The run's result lands in the database (header) and in the storage
directory (Parquet columns), and the web side reads windows of it back."""

import json
import os
import subprocess
import sys

import pytest

from tests.services import ROOT, Worker, postgres_server, redis_server

pytestmark = pytest.mark.slow

DRIVER = r"""
import json, time, django
django.setup()
from django.contrib.auth import get_user_model
import schedulers
from cloudsched_web.results import gantt, queries
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario
from django.db import connection
config = schedulers.example("backfill")
config["workload"]["n_jobs"] = 300
user = get_user_model().objects.create_user("pg-user", "", "pw-123-456-789")
scenario = Scenario.objects.create(owner=user, family="backfill", name="on postgres", config=config)
run = submit_run(scenario)  # sent to the broker when the (autocommit) transaction commits
deadline = time.monotonic() + 240
while time.monotonic() < deadline:
    run.refresh_from_db()
    if run.status in ("succeeded", "failed"):
        break
    time.sleep(0.5)
parsed = queries.get_result(run)
g = gantt.gantt(parsed, 0) if parsed else None
seg = queries.segments(parsed, 0, limit=10) if parsed else None
print(json.dumps({"vendor": connection.vendor, "status": run.status, "error": run.error, "worker": run.worker,
                  "files": [f for info in run.result_files.get("runs", []) for f in info["files"].values()],
                  "gantt_mode": g and g["mode"], "gantt_rows": g and len(g["resources"]),
                  "segments_total": seg and seg["total"], "segments": seg and len(seg["segments"])}))
"""


def test_a_run_on_postgresql_through_a_worker_sharing_only_url_broker_and_storage(tmp_path):
    media = tmp_path / "media"
    with postgres_server() as db_url, redis_server(tmp_path) as broker:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MEDIA_ROOT")}
        env.update(DATABASE_URL=db_url, CELERY_BROKER_URL=broker, MEDIA_ROOT=str(media),
                   DJANGO_SETTINGS_MODULE="cloudsched_web.test_settings", PYTHONPATH=str(ROOT))  # fmt: skip
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
        worker = Worker(broker, db_url, tmp_path / "worker.log", MEDIA_ROOT=str(media))
        try:
            worker.wait_ready()
            out = subprocess.run([sys.executable, "-c", DRIVER], cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=300)  # fmt: skip
        finally:
            worker.stop()
        assert out.returncode == 0, out.stderr[-3000:]
        report = json.loads(out.stdout.strip().splitlines()[-1])
        assert report["vendor"] == "postgresql"
        assert report["status"] == "succeeded", (report["error"], worker.log()[-3000:])
        assert report["worker"]  # claimed by the worker process, not run in the driver
        assert report["files"] and all((media / f).is_file() for f in report["files"])
        assert report["gantt_rows"] > 0 and report["segments"] == min(10, report["segments_total"]) > 0
