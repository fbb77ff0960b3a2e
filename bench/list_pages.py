"""Benchmark: list pages with 1,000 runs of any size (results at full scale).

Target: home, studies, and the admin's run, study and scenario lists each answer in under
150 ms with 1,000 runs, with one query per page (plus the session's and user's) and no
result read, whatever the results hold.

    .venv/bin/python bench/list_pages.py [--runs 1000] [--per-scenario 5] [--heavy-mb 20]

Runs are stored in a throwaway SQLite database; ``--heavy-mb`` puts that many megabytes of
result blob and page into every tenth run (what a list page must never read). Times are
Django's test client against the real views: "cold" is the first request, "warm" the median
of the next five; wall time, printed with the machine's load. Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from web_pages import setup_lab  # noqa: E402

TARGET_S = 0.150
PAGES = ["/", "/studies/", "/admin/runs/run/", "/admin/runs/study/", "/admin/scenarios/scenario/"]


def _populate(n_runs: int, per_scenario: int, heavy_mb: float):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from cloudsched_web.runs.models import Run, Study
    from cloudsched_web.scenarios.models import Scenario
    from schedulers.registry import get_family

    user = get_user_model().objects.create_superuser("bench", "", "bench-pass-123")
    config = get_family("backfill").example()
    heavy = os.urandom(int(heavy_mb * 1024 * 1024))
    now = timezone.now()
    runs = []
    for i in range(0, n_runs, per_scenario):
        sc = Scenario.objects.create(owner=user, family="backfill", name=f"scenario {i // per_scenario}", config=config)
        study = Study.objects.create(scenario=sc, name=f"study {i // per_scenario}")
        for k in range(min(per_scenario, n_runs - i)):
            big = (i + k) % 10 == 0
            runs.append(Run(scenario=sc, study=study, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
                            started_at=now, finished_at=now, result_blob=heavy if big else b"x" * 1000,
                            page={"header": {}, "pad": "x" * (1_000_000 if big else 10)}))  # fmt: skip
    Run.objects.bulk_create(runs, batch_size=200)
    return user


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--per-scenario", type=int, default=5)
    parser.add_argument("--heavy-mb", type=float, default=20.0)
    args = parser.parse_args()
    setup_lab(tempfile.mkdtemp(prefix="cloudsched-bench-"))
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from cloudsched_web.runs.models import Run

    user = _populate(args.runs, args.per_scenario, args.heavy_mb)
    client = Client()
    client.force_login(user)
    print(f"{Run.objects.count()} runs; load at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'page':<30} {'cold ms':>8} {'warm ms':>8} {'queries':>8} {'bytes':>9}  target {TARGET_S * 1000:.0f} ms")
    for url in PAGES:
        times = []
        for _ in range(6):
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get(url)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200, (url, response.status_code)
        warm = statistics.median(times[1:])
        ok = "ok" if warm < TARGET_S else "NO"
        print(f"{url:<30} {times[0] * 1000:>8.1f} {warm * 1000:>8.1f} {len(ctx.captured_queries):>8} "
              f"{len(response.content):>9}  {ok}")  # fmt: skip


if __name__ == "__main__":
    main()
