"""Benchmark: the result page and its data endpoints for a 200,000-job backfill run.

Targets: each response < 1 s on this machine; the chart data a page loads
(the inline payload plus the data-endpoint calls of its first render) ≤ 2 MB.

    .venv/bin/python bench/web_pages.py [--jobs 200000] [--max-segments 50000] [--algorithms easy,fcfs]

It runs the scenario through the library once (tens of seconds), stores it as a Run in a
throwaway SQLite database, then times Django's test client against the real views.
"cold" is the first request after a process start (decompressing and parsing the stored
result, cached afterwards by results.queries); "warm" is the median of the next five.
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
TARGET_S = 1.0
TARGET_BYTES = 2 * 1024 * 1024


def setup_lab(tmp):
    os.environ.update({"CLOUDSCHED_VAR_DIR": tmp, "DJANGO_SETTINGS_MODULE": "cloudsched_web.settings",
                       "ALLOWED_HOSTS": "testserver", "SECURE_HTTPS": "0", "DEBUG": "0", "LOG_LEVEL": "WARNING"})  # fmt: skip
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def store_run(result, config):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
    scenario = Scenario.objects.create(owner=user, family="backfill", name="bench", config=config)
    run = Run(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
              started_at=timezone.now(), finished_at=timezone.now())  # fmt: skip
    run.store_result(result)
    from cloudsched_web.runs import page

    run.page = page.summarize(result)  # as the Celery task does when a run finishes
    run.save()
    return user, run


def _timed(client, url, params=None):
    t0 = time.perf_counter()
    response = client.get(url, params or {})
    elapsed = time.perf_counter() - t0
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return elapsed, response


def _payload_bytes(html):
    start = html.index('id="run-payload"')
    return len(html[html.index(">", start) + 1 : html.index("</script>", start)].encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200_000)
    parser.add_argument(
        "--max-segments",
        type=int,
        default=50_000,
        help="a stated segment limit for this bench (the families record full schedules by default)",
    )
    parser.add_argument("--algorithms", default="easy,fcfs")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="cloudsched-bench-")
    setup_lab(tmp)
    import schedulers
    from cloudsched_web.results import queries

    config = {"family": "backfill", "name": "web bench", "seed": 1, "algorithms": args.algorithms.split(","),
              "workload": {"kind": "generator", "model": "feitelson", "n_jobs": args.jobs, "load": 0.7},
              "params": {"max_segments": args.max_segments}}  # fmt: skip
    t0 = time.perf_counter()
    result = schedulers.run(config)
    sim = time.perf_counter() - t0
    segments = [len(r["schedule"]) for r in result["runs"]]
    jobs = [len(r.get("jobs", [])) for r in result["runs"]]
    user, run = store_run(result, config)
    print(f"simulated {args.jobs} jobs × {len(segments)} algorithms in {sim:.1f} s; stored blob "
          f"{len(run.result_blob) / 1e6:.1f} MB compressed; segments per run {segments}; job records {jobs}")  # fmt: skip
    del result

    from django.test import Client

    client = Client()
    client.force_login(user)
    base = f"/runs/{run.pk}"
    queries.clear_cache()
    rows = []
    cold, page = _timed(client, f"{base}/")
    html = page.content.decode()
    warm = statistics.median(_timed(client, f"{base}/")[0] for _ in range(5))
    rows.append(("result page", cold, warm, _payload_bytes(html)))
    first_render = _payload_bytes(html)
    span = None
    calls = [("series, whole run", {"kind": "series", "rep": 0})]
    calls += [(f"gantt {a}, whole run", {"kind": "gantt", "run": i}) for i, a in enumerate(config["algorithms"])]
    for label, params in calls:
        c, resp = _timed(client, f"{base}/data.json", params)
        w = statistics.median(_timed(client, f"{base}/data.json", params)[0] for _ in range(5))
        rows.append((label, c, w, len(resp.content)))
        first_render += len(resp.content)
        span = span or resp.json().get("span")
    lo, hi = span
    zoom = {"t0": lo + (hi - lo) * 0.45, "t1": lo + (hi - lo) * 0.46}
    for label, params in (("gantt easy, 1% window", {"kind": "gantt", "run": 0, **zoom}),
                          ("series, 1% window", {"kind": "series", "rep": 0, **zoom}),
                          ("diff easy vs fcfs", {"kind": "diff", "a": 0, "b": 1})):  # fmt: skip
        if params.get("kind") == "diff" and len(config["algorithms"]) < 2:
            continue
        c, resp = _timed(client, f"{base}/data.json", params)
        w = statistics.median(_timed(client, f"{base}/data.json", params)[0] for _ in range(5))
        rows.append((label, c, w, len(resp.content)))
    print(f"\n{'request':<26} {'cold s':>8} {'warm s':>8} {'bytes':>10}  target < {TARGET_S} s")
    for label, c, w, size in rows:
        print(f"{label:<26} {c:>8.3f} {w:>8.3f} {size:>10,}  {'ok' if w < TARGET_S else 'SLOW'}")
    print(f"\nchart data of the first render (payload + series + one Gantt per algorithm): {first_render:,} bytes "
          f"({'ok' if first_render <= TARGET_BYTES else 'OVER'} ≤ {TARGET_BYTES:,})")  # fmt: skip


if __name__ == "__main__":
    main()
