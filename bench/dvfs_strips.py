"""Benchmark: bytes of the DVFS strips and series a result page loads, whole run and zoomed.

    .venv/bin/python bench/dvfs_strips.py                 # the dvfs_bot demo (example: 10 hosts, 2 h)
    .venv/bin/python bench/dvfs_strips.py --preset        # a 24 h (4.25, 7.86) workload on 200 hosts × 4 cores

Runs the scenario through the library, stores it as a Run in a throwaway SQLite database and asks the data
endpoint, as the page does at a plot width of ``--points`` pixels, for the series and the strips of the whole
run and of windows zoomed 4×, 16×, 64× and 256× around the middle. Prints each response's bytes as sent
(JSON) and gzipped (the page gets them through ``gzip_page``), whether the strips came exact (then the page
draws every zoom inside that window from them and asks for no more strips: ``static/js/run.js``) and how
long each took. Before the strips were split from the series (commit 4c2a595), the demo's whole-run series
response carried them as columns: 121,072 B at 600 px, 227,315 B at 1,221 px, again at every zoom.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", action="store_true", help="the 24 h workload on 800 VMs instead of the demo")
    parser.add_argument("--points", type=int, default=1221, help="plot width in pixels (1221 at a 1400 px window)")
    args = parser.parse_args()
    import web_pages

    web_pages.setup_lab(tempfile.mkdtemp(prefix="cloudsched-bench-"))
    import schedulers

    if args.preset:
        from schedulers.dvfs_bot.presets import scenario

        config = scenario(4.25, 7.86, 0.2, repetitions=1)
        config["params"] = {**config.get("params", {}), "record_schedule": True}  # the presets leave it out
    else:
        config = schedulers.example("dvfs_bot")
    t0 = time.perf_counter()
    result = schedulers.run(config)
    segments = [len(r["schedule"]) for r in result["runs"]]
    print(
        f"{config.get('name', 'dvfs_bot')}: simulated in {time.perf_counter() - t0:.1f} s; segments per run {segments}"
    )
    user, run = web_pages.store_run(result, config)
    del result
    from django.test import Client

    client = Client()
    client.force_login(user)
    url = f"/runs/{run.pk}/data.json"
    span = client.get(url, {"kind": "series", "rep": 0, "points": args.points}).json()["span"]
    lo, hi = span
    print(f"\n{'window':<14} {'series B':>10} {'gzip':>8} {'strips B':>10} {'gzip':>8} {'exact':>6} {'strips s':>9}")
    totals = [0, 0]
    for zoom in (1, 4, 16, 64, 256):
        half = (hi - lo) / zoom / 2
        win = {} if zoom == 1 else {"t0": (lo + hi) / 2 - half, "t1": (lo + hi) / 2 + half}
        series = client.get(url, {"kind": "series", "rep": 0, "points": args.points, **win}).content
        t0 = time.perf_counter()
        response = client.get(url, {"kind": "strips", "rep": 0, "points": args.points, **win})
        took = time.perf_counter() - t0
        strips = response.content
        exact = response.json()["exact"]
        totals[0] += len(series)
        totals[1] += len(strips)
        print(f"{'whole run' if zoom == 1 else f'{zoom}× zoom':<14} {len(series):>10,} {len(gzip.compress(series)):>8,} "
              f"{len(strips):>10,} {len(gzip.compress(strips)):>8,} {exact!s:>6} {took:>9.3f}")  # fmt: skip
    print(f"\nfive windows: series {totals[0]:,} B, strips {totals[1]:,} B as sent (the page asks for strips again "
          f"only where the last answer was not exact or was coarser than the pixels)")  # fmt: skip


if __name__ == "__main__":
    main()
