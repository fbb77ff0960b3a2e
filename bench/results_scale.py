"""Benchmark: storing and serving a large result through the columnar store (results.store).

    .venv/bin/python bench/results_scale.py [--jobs 200000] [--algorithms easy,keasy,reasy,measy]
                                           [--max-segments N] [--profile] [--old-blob] [--no-serve]
                                           [--profile-serve]

Schedules are recorded in full unless ``--max-segments`` states a limit. The worker's part is
timed step by step: the simulation (the library returns Columns), ``Run.store_result`` (Parquet
straight from the arrays) and ``page.summarize`` (validity checks on whole columns) — what stands
between the simulation and a succeeded run — then the chart indexes (``results.indexes``), which the
worker builds after it has marked the run succeeded, with the
process's peak RSS after each. ``--profile`` runs the store step again under cProfile and prints
where its time goes; ``--profile-serve`` prints where the serving process's cold whole-run Gantt
requests spend theirs; ``--old-blob`` also measures the old compressed JSON blob for the size
ratio (streamed through zlib a chunk of records at a time, as ``result.json`` is exported, so only its
size is ever held; it runs after the RSS figures are taken).

Targets (results at full scale): the worker stores the result in < 5 s beyond the
simulation; the Parquet files are ≤ 1/3 of the old compressed JSON blob of the same
result; the result page's HTML < 300 ms; any Gantt or series window (whole run, 1 %,
one job) < 500 ms cold and < 100 ms warm; every payload < 1 MB; the web process's RSS
grows < 200 MB while serving them (served by a fresh process). Timed as wall and CPU time (with the load);
not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from web_pages import setup_lab  # noqa: E402


def status_mb(field="VmRSS:"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Deflated:
    """A text sink deflating what it is given as the old blob was (``zlib.compress(json, 1)``), keeping only sizes."""

    def __init__(self):
        self._z, self.size, self.text_bytes = zlib.compressobj(1), 0, 0

    def write(self, text):
        data = text.encode()
        self.text_bytes += len(data)
        self.size += len(self._z.compress(data))

    def close(self):
        self.size += len(self._z.flush())
        return self.size


_CPU = {}  # label -> [cold CPU s, warm CPU s] of the serving requests (the machine is shared: CPU time is the figure)


def _timed(client, url, params=None):
    t0, c0 = time.perf_counter(), time.process_time()
    response = client.get(url, params or {})
    elapsed = time.perf_counter() - t0
    _CPU["last"] = time.process_time() - c0
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    return elapsed, len(response.content), response


def _cold_warm(client, url, params=None):
    """(cold wall s, warm wall s (median of 3), bytes, cold CPU s, warm CPU s (median of 3))."""
    cold, size, _ = _timed(client, url, params)
    cold_cpu = _CPU["last"]
    walls, cpus = [], []
    for _ in range(3):
        walls.append(_timed(client, url, params)[0])
        cpus.append(_CPU["last"])
    return cold, statistics.median(walls), size, cold_cpu, statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200_000)
    parser.add_argument("--algorithms", default="easy,keasy,reasy,measy")
    parser.add_argument("--max-segments", type=int, default=None, help="a stated limit (default: full schedules)")
    parser.add_argument("--profile", action="store_true", help="cProfile the store step")
    parser.add_argument("--old-blob", action="store_true", help="also build the old JSON blob (size ratio)")
    parser.add_argument("--no-serve", action="store_true", help="stop after storing (no page or window timings)")
    parser.add_argument("--profile-serve", action="store_true", help="cProfile the cold whole-run Gantt requests")
    parser.add_argument(
        "--scenario", help="a scenario JSON file to run instead (e.g. federated on the full Thunder log)"
    )
    parser.add_argument("--serve", nargs=3, metavar=("VAR_DIR", "RUN", "ALGORITHMS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(*args.serve, profile=args.profile_serve)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    tmp = tempfile.mkdtemp(prefix="cloudsched-bench-")
    setup_lab(tmp)
    from django.conf import settings

    # Serve static files from the finders: the bench needs no collectstatic.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    import schedulers
    from cloudsched_web.runs import page
    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    config = {"family": "backfill", "name": "scale bench", "seed": 1, "algorithms": args.algorithms.split(","),
              "datacenter": {"processors": 320},
              "workload": {"kind": "generator", "model": "feitelson", "n_jobs": args.jobs, "load": 0.7},
              "params": {"max_segments": args.max_segments}}  # fmt: skip
    if args.scenario:
        config = json.loads(Path(args.scenario).read_text())
    t0 = time.perf_counter()
    result = schedulers.run(config)
    sim = time.perf_counter() - t0
    rss_sim = peak_mb()
    segments = [len(r["schedule"]) for r in result["runs"]]
    user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
    scenario = Scenario.objects.create(owner=user, family=config["family"], name="bench", config=config)
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0,
                             started_at=timezone.now(), finished_at=timezone.now())  # fmt: skip
    t0, c0 = time.perf_counter(), time.process_time()
    run.store_result(result, "bench", indexes=False)  # as the worker: indexes after the run is released
    store_s, store_cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_store = peak_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    run.page = page.summarize(result)
    page_s, page_cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_page = peak_mb()
    run.save()
    files = [f for info in run.result_files["runs"] for f in info["files"].values()]
    from django.core.files.storage import default_storage

    parquet = sum(default_storage.size(f) for f in files)
    by_kind = {}
    for info in run.result_files["runs"]:
        for kind, name in info["files"].items():
            by_kind[kind] = by_kind.get(kind, 0) + default_storage.size(name)
    beyond = store_s + page_s
    lengths = [info.get("series_length", 0) for info in run.result_files["runs"]]
    print(f"series change points stored per run {lengths} (every one: ∫ power = energy; pages downsample)")
    print(
        f"simulated {args.jobs} jobs × {len(segments)} algorithms in {sim:.1f} s; segments per run {segments} "
        f"(total {sum(segments):,}); cut: {[r.get('extra', {}).get('schedule_cut') for r in result['runs']]}"
    )
    print(f"store_result {store_s:.2f} s + page.summarize {page_s:.2f} s = {beyond:.2f} s beyond the simulation "
          f"({'ok' if beyond < 5 else 'SLOW'}, target < 5 s) | Parquet {parquet / 1e6:.1f} MB "
          f"({', '.join(f'{k} {v / 1e6:.1f}' for k, v in by_kind.items())}; "
          f"+ header {len(run.result_blob) / 1e3:.0f} kB) | CPU time (all threads) store {store_cpu:.2f} s, "
          f"checks {page_cpu:.2f} s; load average now {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"worker peak RSS: {rss_sim:.0f} MB after the simulation, {rss_store:.0f} MB after storing, "
          f"{rss_page:.0f} MB after the checks")  # fmt: skip
    from cloudsched_web.results import indexes

    t0, c0 = time.perf_counter(), time.process_time()
    run.result_files = indexes.build(run.load_header(), run.result_files)
    run.save()
    print(
        f"chart indexes (built after the run is marked succeeded, as the worker does): "
        f"{time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s CPU; peak RSS {peak_mb():.0f} MB"
    )
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        run.store_result(result, "bench-profile")
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    if args.old_blob:
        from schedulers.core import jsonio

        t0 = time.perf_counter()
        sink = _Deflated()  # streamed: the blob of a 200k-job result never is in memory, only its size
        jsonio.dump(result, sink)
        old_size = sink.close()
        old_s = time.perf_counter() - t0
        print(f"old blob: {old_size / 1e6:.1f} MB (JSON text {sink.text_bytes / 1e6:.0f} MB) in {old_s:.2f} s | "
              f"ratio {parquet / old_size:.2f} (target ≤ 0.33)")  # fmt: skip
    del result
    if args.no_serve:
        return

    # Served by a fresh process, as by a web worker: its RSS growth is the serving's alone.
    command = [sys.executable, __file__, "--serve", tmp, str(run.pk), ",".join(config["algorithms"])]
    subprocess.run(command + (["--profile-serve"] if args.profile_serve else []), check=True)


def serve(tmp, run_pk, algorithms, profile=False):
    """Time the result page, Gantt and series windows and the API on the stored run, in this (fresh) process."""
    setup_lab(tmp)
    from django.conf import settings

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.contrib.auth import get_user_model
    from django.test import Client

    from cloudsched_web.results import queries
    from cloudsched_web.runs.models import Run

    run = Run.objects.get(pk=int(run_pk))
    user = get_user_model().objects.get(username="bench")
    algorithms = algorithms.split(",")
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # the views imported, as a web worker has them before its first request
    print(f"serving from a fresh process; RSS {status_mb():.0f} MB with the views imported")
    queries.clear_cache()
    client = Client(HTTP_ACCEPT_ENCODING="gzip")  # as a browser asks: the data endpoint gzips (bytes as sent)
    client.force_login(user)
    base = f"/runs/{run.pk}"
    rss0 = status_mb()
    rows = []
    rows.append(("result page HTML", *_cold_warm(client, f"{base}/"), 0.3))
    span = run.result_files["runs"][0]["span"]
    lo, hi = span
    one = {"t0": lo + (hi - lo) * 0.5, "t1": lo + (hi - lo) * 0.5 + 600}
    pct = {"t0": lo + (hi - lo) * 0.45, "t1": lo + (hi - lo) * 0.46}
    calls = []
    for i, alg in enumerate(algorithms):
        calls += [(f"gantt {alg} whole run", {"kind": "gantt", "run": i}),
                  (f"gantt {alg} 1 %", {"kind": "gantt", "run": i, **pct}),
                  (f"gantt {alg} 10 min", {"kind": "gantt", "run": i, **one})]  # fmt: skip
    calls += [("series whole run", {"kind": "series", "rep": 0}), ("series 1 %", {"kind": "series", "rep": 0, **pct})]
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    for label, params in calls:
        whole = label.endswith("whole run") and params["kind"] == "gantt"
        if profiler is not None and whole:
            profiler.enable()
        cold = _timed(client, f"{base}/data.json", params)  # the cold request (profiled for whole runs)
        if profiler is not None and whole:
            profiler.disable()
        c_cpu, walls, cpus = _CPU["last"], [], []
        for _ in range(3):
            walls.append(_timed(client, f"{base}/data.json", params)[0])
            cpus.append(_CPU["last"])
        rows.append((label, cold[0], statistics.median(walls), cold[1], c_cpu, statistics.median(cpus), 0.5))
    api = f"/api/v1/runs/{run.pk}/result/segments"
    params = {"run": 0, "start": pct["t0"], "end": pct["t1"], "limit": 5000}
    rows.append(("API segments 1 %", *_cold_warm(client, api, params), 0.5))
    api = f"/api/v1/runs/{run.pk}/result/series"
    for points in (1000, 5000):  # the API's default and its largest
        rows.append((f"API series {points} points", *_cold_warm(client, api, {"run": 0, "points": points}), 0.5))
    print(f"\nload average while serving: {os.getloadavg()[0]:.1f} (wall times inflate with it; CPU is this process's)")
    print(f"\n{'request':<28} {'cold s':>8} {'warm s':>8} {'cold CPU':>9} {'warm CPU':>9} {'bytes':>11}  "
          "verdict (cold target, warm < 0.1 s, < 1 MB; on CPU time)")  # fmt: skip
    for label, c, w, size, c_cpu, w_cpu, target in rows:
        ok = c_cpu < target and w_cpu < 0.1 and size < 1_000_000
        print(f"{label:<28} {c:>8.3f} {w:>8.3f} {c_cpu:>9.3f} {w_cpu:>9.3f} {size:>11,}  {'ok' if ok else 'MISS'}")
    _zoom_session(client, base, algorithms, lo, hi)
    grow = status_mb() - rss0
    peak = status_mb("VmHWM:")  # this process's own peak (ru_maxrss carries the parent's over exec)
    print(f"\nweb process RSS grew {grow:.0f} MB while serving (target < 200 MB); peak RSS {peak:.0f} MB")
    if profiler is not None:
        import pstats

        print("\ncold whole-run Gantt requests (CPU, profiled: the timings above include the profiler's cost):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def _zoom_session(client, base, algorithms, lo, hi, pixels=1400, rows=40):
    """What a person's session costs, as the pages ask (40 rows, 1,400 pixels, gzip): the whole run, then zoom
    steps of ×4 around the middle down to one job, each step a request per algorithm plus the series; the diff
    page's two sides (with each bar's status) at the whole run and at 1 %. Per step: wall and CPU s of all its
    requests, gzipped and plain bytes, bars and occupancy among the Gantts."""
    print(f"\nzoom session ({rows} rows, {pixels} pixels; a step = one Gantt per algorithm + the series; gzip):")
    print(f"{'step':<26} {'wall s':>8} {'CPU s':>8} {'gz bytes':>11} {'bytes':>11}  Gantts (bars n / occupancy)")
    mid, width, steps = (lo + hi) / 2, hi - lo, []
    while width > 60 or not steps:
        steps.append((None, None) if not steps else (mid - width / 2, mid + width / 2))
        width /= 4
    diff = [("diff whole run", None, None), ("diff 1 %", mid - (hi - lo) / 200, mid + (hi - lo) / 200)]
    for label, t0, t1 in [
        (f"window {(b - a) / (hi - lo):.2%}" if a is not None else "whole run", a, b) for a, b in steps
    ] + diff:
        win = {} if t0 is None else {"t0": t0, "t1": t1}
        if label.startswith("diff"):
            calls = [{"kind": "gantt", "side": side, "a": 0, "b": len(algorithms) - 1, **win} for side in ("a", "b")]
        else:
            calls = [{"kind": "gantt", "run": i, **win} for i in range(len(algorithms))] + [
                {"kind": "series", "rep": 0, **win}
            ]
        wall = cpu = gzb = plain = 0.0
        shown = []
        for params in calls:
            params = {**params, "rows": rows, "pixels": pixels} if params["kind"] == "gantt" else params
            t_0, c_0 = time.perf_counter(), time.process_time()
            response = client.get(f"{base}/data.json", params)
            wall += time.perf_counter() - t_0
            cpu += time.process_time() - c_0
            gzb += len(response.content)
            body = client.get(f"{base}/data.json", params, HTTP_ACCEPT_ENCODING="")  # again, plain (warm): its size
            plain += len(body.content)
            if params["kind"] == "gantt":
                g = json.loads(body.content)
                shown.append(str(g["bars"]["n"]) if g["mode"] == "bars" else "occ")
        print(f"{label:<26} {wall:>8.3f} {cpu:>8.3f} {int(gzb):>11,} {int(plain):>11,}  {' '.join(shown)}")


if __name__ == "__main__":
    main()
