"""Benchmark: the result page's downloads and per-job views on a large stored backfill result.

    .venv/bin/python bench/exports_scale.py [--jobs 20000] [--algorithms easy,keasy] [--all-csv] [--old]
    .venv/bin/python bench/exports_scale.py --reuse VAR_DIR RUN [...]   # serve a result stored by an earlier call

Builds the result (simulation, ``Run.store_result`` without chart indexes, ``page.summarize``), then serves,
from a fresh process as a web worker would: the run page (with the download sizes), every table export of
every run (schedule, jobs and series as CSV and Parquet; ``--all-csv`` also the one CSV of every run's
schedule), the per-job table and the distributions. Each response is read chunk by chunk and thrown away,
as a client downloading it. Prints per request the wall and CPU time, the bytes, and the serving process's
RSS growth over its start after the request and at its peak (VmHWM).

``--old`` ends with the Parquet export as it was before streaming (the whole table read, written to memory).

Targets: web process RSS growth ≤ 200 MB after each export, < 100 MB for the streaming exports of
the 200,000-job run; every chart's data ≤ 2 s warm. Not a test.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from results_scale import status_mb  # noqa: E402  (a /proc/self/status field in MB)
from web_pages import setup_lab  # noqa: E402


def _reset_peak():
    """Reset VmHWM to the current RSS (Linux ≥ 4.0: write 5 to clear_refs), so each request's peak is its own."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def build(args):
    tmp = tempfile.mkdtemp(prefix="cloudsched-exports-")
    setup_lab(tmp)
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    import schedulers
    from cloudsched_web.runs import page
    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    config = {"family": "backfill", "name": "exports bench", "seed": 1, "algorithms": args.algorithms.split(","),
              "datacenter": {"processors": 320},
              "workload": {"kind": "generator", "model": "feitelson", "n_jobs": args.jobs, "load": 0.7}}  # fmt: skip
    t0 = time.perf_counter()
    result = schedulers.run(config)
    print(f"simulated {args.jobs} jobs × {len(result['runs'])} runs in {time.perf_counter() - t0:.1f} s; segments "
          f"{[len(r['schedule']) for r in result['runs']]}")  # fmt: skip
    user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
    scenario = Scenario.objects.create(owner=user, family="backfill", name="bench", config=config)
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
                             started_at=timezone.now(), finished_at=timezone.now())  # fmt: skip
    run.store_result(result, "bench", indexes=False)
    run.page = page.summarize(result)
    run.save()
    del result
    print(f"stored in {tmp} as run {run.pk} (reuse: --reuse {tmp} {run.pk})")
    return tmp, run.pk


def serve(tmp, run_pk, all_csv=False, old=False):
    setup_lab(tmp)
    from django.conf import settings

    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # fmt: skip
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import get_resolver

    from cloudsched_web.runs.models import Run

    _ = get_resolver().url_patterns
    run = Run.objects.get(pk=int(run_pk))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    runs = run.result_files["runs"]
    base = f"/runs/{run.pk}"
    rss0 = status_mb("VmRSS:")
    print(f"serving from a fresh process: RSS {rss0:.0f} MB; load average {os.getloadavg()[0]:.1f}")
    peaks = _reset_peak()
    print(f"\n{'request':<34} {'wall s':>8} {'CPU s':>7} {'bytes':>15} {'RSS +MB after':>14} {'peak +MB':>9}")

    def get(label, url, params=None, estimate=None):
        _reset_peak()
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.get(url, params or {})
        if response.status_code != 200:
            print(f"{label:<34} HTTP {response.status_code}: {response.content[:120]!r}")
            return response
        size = 0
        if response.streaming:
            for chunk in response.streaming_content:
                size += len(chunk)
        else:
            size = len(response.content)
        if hasattr(response, "close"):
            response.close()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        after, peak = status_mb("VmRSS:") - rss0, status_mb("VmHWM:") - rss0
        shown = "" if estimate is None else f"  page: {'' if estimate['exact'] else 'about '}{estimate['bytes']:,}"
        print(f"{label:<34} {wall:>8.2f} {cpu:>7.2f} {size:>15,} {after:>14.0f} {peak if peaks else float('nan'):>9.0f}"
              f"{shown}")  # fmt: skip
        return response

    get("run page HTML (download sizes)", f"{base}/")
    get("run page HTML, warm", f"{base}/")
    from cloudsched_web.results import exports, queries

    sizes = exports.download_sizes(queries.get_result(run))  # what the page showed (memoised by its request)
    for i in range(len(runs)):
        for kind in ("schedule", "jobs", "series"):
            f = sizes["runs"][i]["files"].get(kind, {})
            get(f"r{i} {kind}.parquet", f"{base}/export/{kind}.parquet/", {"run": i}, f.get("parquet"))
            get(f"r{i} {kind} CSV", f"{base}/export/{kind}/", {"run": i}, f.get("csv"))
    if all_csv:
        get("every run's schedule, one CSV", f"{base}/export/schedule/", {"run": "all"}, sizes["all_csv"]["schedule"])
    for label, params in _job_requests(runs):
        get(label, f"{base}/data.json", params)
    print(f"\nRSS grew {status_mb('VmRSS:') - rss0:.0f} MB over all requests; peak RSS {status_mb('VmHWM:'):.0f} MB")
    if old:
        import pyarrow.parquet as pq

        parsed = queries.get_result(run)
        _reset_peak()
        t0, c0 = time.perf_counter(), time.process_time()
        buf = io.BytesIO()
        pq.write_table(parsed.stored(len(runs) - 1).table("segments"), buf, compression="zstd")
        print(f"before streaming (whole table in memory), last run's schedule.parquet: "
              f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU, {buf.tell():,} bytes, "
              f"peak +{status_mb('VmHWM:') - rss0:.0f} MB")  # fmt: skip


def _job_requests(runs):
    """The per-job table and distribution requests (data.json kinds ``jobs`` and ``dist``) once they exist."""
    out = [("jobs table, all runs, by response_s", {"kind": "jobs", "order": "-response_s", "limit": 50}),
           ("jobs table, page 2, warm", {"kind": "jobs", "order": "-response_s", "limit": 50, "offset": 50}),
           ("jobs table, run 0, by job", {"kind": "jobs", "run": 0, "order": "job", "limit": 50})]  # fmt: skip
    for measure in ("response_s", "bounded_slowdown"):
        out += [(f"distributions {measure}", {"kind": "dist", "measure": measure}),
                (f"distributions {measure}, warm", {"kind": "dist", "measure": measure})]  # fmt: skip
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--algorithms", default="easy,keasy")
    parser.add_argument("--all-csv", action="store_true", help="also the one CSV of every run's schedule")
    parser.add_argument("--old", action="store_true", help="also the Parquet export as it was (in memory)")
    parser.add_argument("--reuse", nargs=2, metavar=("VAR_DIR", "RUN"), help="serve a result stored before")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(*args.serve, all_csv=args.all_csv, old=args.old)
    tmp, pk = args.reuse if args.reuse else build(args)
    extra = (["--all-csv"] if args.all_csv else []) + (["--old"] if args.old else [])
    subprocess.run([sys.executable, __file__, "--serve", tmp, str(pk), *extra], check=True)


if __name__ == "__main__":
    main()
