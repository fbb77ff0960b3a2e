"""Benchmark: the schedule diff request (``/runs/<pk>/data.json?kind=diff``) on a large backfill result.

    .venv/bin/python bench/diff_scale.py [--jobs 200000] [--algorithms easy,keasy] [--before COMMIT]

Simulates one backfill result (full schedules), stores it as the worker does (``Run.store_result``,
then the chart indexes with the per-job index, ``results.jobindex``; the job index's own build is timed
apart) and keeps a second run row on the same files without any index (a result stored before the
indexes: the web process builds the job tables on the fly). Each diff is then served by a fresh
process (as a web worker), cold and warm (median of 3), with its CPU time, RSS growth and payload
size. ``--before COMMIT`` also serves the same files with that commit's code (``git archive``
into a temporary directory; the diff before the job index) and checks its payload equals this
code's once both have their ties (rows of equal −|Δend| − |Δstart|) in job id order.

Targets: < 0.5 CPU s cold, < 0.1 CPU s warm, payload < 1 MB, web RSS growth < 200 MB.
CPU time is this process's (the machine is shared: the load is printed beside it). Not a test.

Measured 2026-11-26, 200,000 jobs, EASY (4.8 M segments) vs KEASY (16.5 M), load 3.8-4.1 on 2 cores
(CPU s cold / warm, RSS growth of the fresh process, payload):

    after, job index                    0.167 / 0.035   +71 MB   124,571 B   ok
    after, stored without index         1.531 / 0.032   +72 MB (peak +285)   (built on the fly, once)
    after, indexed A vs other's B plain 0.983 / 0.034   +76 MB
    before (d1d465b)                   16.134 / 0.992 +2233 MB   same payload but for the order of ties

The worker builds the two job indexes in 0.34 + 0.64 CPU s (3.7 MB each); all chart indexes 20.1 CPU s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("DIFF_BENCH_ROOT") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from results_scale import peak_mb, status_mb  # noqa: E402
from web_pages import setup_lab  # noqa: E402


def _request(client, url, params):
    c0, t0 = time.process_time(), time.perf_counter()
    response = client.get(url, params)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    assert response.status_code == 200, (url, params, response.status_code, response.content[:300])
    return cpu, wall, response.content


def serve(tmp, pk, label, out, other_pk=""):
    """Serve the diff of run 0 and run 1 of run ``pk`` (run 1 of ``other_pk`` when given) in this fresh process."""
    setup_lab(tmp)
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # the views imported, as a web worker has them before its first request
    import cloudsched_web

    assert Path(cloudsched_web.__file__).resolve().parents[1] == ROOT.resolve(), (cloudsched_web.__file__, ROOT)
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    params = {"kind": "diff", "a": 0, "b": 1, **({"with": other_pk} if other_pk else {})}
    rss0 = status_mb()
    cold, cold_wall, body = _request(client, f"/runs/{pk}/data.json", params)
    grow = status_mb() - rss0
    warm = statistics.median(_request(client, f"/runs/{pk}/data.json", params)[0] for _ in range(3))
    ok = cold < 0.5 and warm < 0.1 and len(body) < 1_000_000 and grow < 200
    print(f"{label:<34} {cold:>8.3f} {warm:>8.3f} {cold_wall:>8.3f} {grow:>7.0f} {status_mb('VmHWM:'):>7.0f} "
          f"{len(body):>9,} {os.getloadavg()[0]:>5.1f}  {'ok' if ok else 'MISS'}")  # fmt: skip
    payloads = {"sent": json.loads(body)}
    if label.startswith("before"):  # the old diff's full rows, to put its ties in job id order
        from cloudsched_web.runs.models import Run

        try:
            from cloudsched_web.results import queries
            from cloudsched_web.results.jobdiff import diff
        except ImportError:  # a commit from before the result engine left runs/ (the diff was timeline.diff)
            from cloudsched_web.runs import queries, timeline

            diff = timeline.diff

        parsed = queries.get_result(Run.objects.get(pk=int(pk)))
        payloads["full"] = diff(parsed, 0, 1, limit=10**9)  # an older commit's diff: no bound on its rows
    Path(out).write_text(json.dumps(payloads))


def _ordered(payload, limit=100):
    """An older diff payload as today's first page: its ties in job id order (from the full rows), ``offset`` 0,
    no status map (the Gantts ask each window's statuses since; the map held at most 5,000 jobs of each kind)."""
    rows = sorted(payload["rows"], key=lambda r: (-abs(r["delta_end"]) - abs(r["delta_start"]), r["job"]))
    return {**{k: v for k, v in payload.items() if k != "status"}, "offset": 0, "rows": rows[:limit]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200_000)
    parser.add_argument("--algorithms", default="easy,keasy")
    parser.add_argument("--before", help="also serve with this commit's code (the diff before the job index)")
    parser.add_argument("--serve", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(*args.serve)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    tmp = tempfile.mkdtemp(prefix="cloudsched-diffbench-")
    setup_lab(tmp)
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    import schedulers
    from cloudsched_web.results import indexes, jobindex, queries
    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    config = {"family": "backfill", "name": "diff bench", "seed": 1, "algorithms": args.algorithms.split(","),
              "datacenter": {"processors": 320},
              "workload": {"kind": "generator", "model": "feitelson", "n_jobs": args.jobs, "load": 0.7},
              "params": {"max_segments": None}}  # fmt: skip
    t0 = time.perf_counter()
    result = schedulers.run(config)
    segments = [len(r["schedule"]) for r in result["runs"]]
    print(f"simulated {args.jobs:,} jobs × {config['algorithms']} in {time.perf_counter() - t0:.1f} s; "
          f"segments per run {segments}")  # fmt: skip
    user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
    scenario = Scenario.objects.create(owner=user, family="backfill", name="bench", config=config)
    now = timezone.now()
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
                             started_at=now, finished_at=now)  # fmt: skip
    run.store_result(result, "bench", indexes=False)
    del result
    run.save()
    plain = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
                               started_at=now, finished_at=now, result_files=run.result_files,
                               result_blob=run.result_blob, workload_digest=run.workload_digest)  # fmt: skip
    parsed = queries.ParsedResult(run.load_header(), run.result_files)
    for i in range(len(segments)):
        c0, r0 = time.process_time(), status_mb()
        table = jobindex.table_of(parsed.stored(i))
        print(f"worker: job index of run {i} ({table.num_rows:,} jobs) built in {time.process_time() - c0:.2f} CPU s, "
              f"RSS +{status_mb() - r0:.0f} MB (peak {peak_mb():.0f} MB)")  # fmt: skip
    c0 = time.process_time()
    run.result_files = indexes.build(run.load_header(), run.result_files)
    run.save()
    print(f"worker: all chart indexes (with the job index) {time.process_time() - c0:.2f} CPU s")
    sizes = [os.path.getsize(Path(tmp) / "media" / info["index"]["jobs"]) for info in run.result_files["runs"]]
    print(f"job index files: {[f'{s / 1e6:.2f} MB' for s in sizes]}")

    print(f"\n{'code, result (fresh process each)':<34} {'cold CPU':>8} {'warm CPU':>8} {'cold s':>8} {'RSS +MB':>7} "
          f"{'peak MB':>7} {'bytes':>9} {'load':>5}")  # fmt: skip
    variants = [("after, job index", run.pk, ""), ("after, stored without index", plain.pk, ""),
                ("after, indexed A vs other's B plain", run.pk, str(plain.pk))]  # fmt: skip
    roots = {}
    if args.before:
        roots["before"] = tempfile.mkdtemp(prefix="cloudsched-before-")
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", roots["before"]], input=archive.stdout, check=True)
        variants.append((f"before ({args.before[:7]})", plain.pk, ""))
    outs = {}
    for n, (label, pk, other) in enumerate(variants):
        outs[label] = Path(tmp) / f"diff-{n}.json"
        env = {**os.environ, "DIFF_BENCH_ROOT": roots.get(label.split()[0], "")}
        command = [sys.executable, __file__, "--serve", tmp, str(pk), label, str(outs[label]), other]
        subprocess.run(command, check=True, env=env)
    got = [json.loads(outs[label].read_text()) for label, _, _ in variants]
    sent = [json.dumps(g["sent"]) for g in got]
    cross = {**got[2]["sent"], "b": got[0]["sent"]["b"]}  # the same B run, another row: only its label may differ
    print(f"\npayloads with the job index and without it identical as sent: {sent[0] == sent[1]}; "
          f"across results: {json.dumps(cross) == sent[0]}")  # fmt: skip
    if args.before:
        old, new = got[3], got[0]["sent"]
        counted = [k for k in new if k not in ("rows", "offset")]
        print(f"before vs after: counts equal {all(old['sent'][k] == new[k] for k in counted)}; "
              f"first page identical once the old ties are in job id order {_ordered(old['full']) == new}")  # fmt: skip
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
