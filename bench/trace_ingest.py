"""Benchmark: storing an amplified SWF upload and refusing a gzip bomb, and a 1,000-job run on it.

    .venv/bin/python bench/trace_ingest.py [--lines 9900000] [--members 9] [--bomb-gb 2]

Builds, in a temporary var directory (database, media, traces), the amplified trace — a
.swf.gz of ``--members`` gzip members holding ``--lines`` valid ~100-byte lines in all — and a
gzip bomb of ``--bomb-gb`` GB of zeros, hands each to the service the Traces page and
``POST /api/v1/traces`` use (``traces.services.store_upload``, with the upload as Django keeps it
on disk), then runs 1,000-job backfill and vm_reservations scenarios on the stored trace as the
worker does (``schedulers.run`` reading the stored file), beside the same 1,000 jobs given inline
(what the simulation itself costs). Prints time and peak RSS growth over
the RSS before each step (sampled every 5 ms from /proc/self/statm). Target: growth ≤ 100 MB
for storing and for refusing. Not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from web_pages import setup_lab  # noqa: E402

TARGET_MB = 100
PAGE = resource.getpagesize()
# A plausible record of ~100 bytes (the lines): 990 MB / 9.9 M lines.
LINE = b"123456 1234567890 12345 123456 1024 12345.67 -1 1024 172800 -1 1 1234 12 123 3 1 -1 -1      \n"


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class Peak:
    """Peak RSS growth over the RSS at entry, sampled on a thread."""

    def __enter__(self):
        self.base = self.peak = _rss()
        self.t0, self._stop = time.monotonic(), threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())
        self.seconds = time.monotonic() - self.t0
        self.growth_mb = (self.peak - self.base) / 1e6


def _write_gzip(path: Path, pieces, members: int) -> None:
    """``members`` gzip members, each the concatenation of ``pieces()``, written as they compress."""
    with path.open("wb") as out:
        for _ in range(members):
            z = zlib.compressobj(6, zlib.DEFLATED, 31)
            for piece in pieces():
                out.write(z.compress(piece))
            out.write(z.flush())


def _upload(path: Path):
    from django.core.files.uploadedfile import TemporaryUploadedFile

    up = TemporaryUploadedFile(path.name, "application/gzip", path.stat().st_size, None)
    with path.open("rb") as src:
        while block := src.read(1 << 20):
            up.write(block)
    up.seek(0)
    return up


def _step(label: str, func):
    with Peak() as p:
        try:
            outcome = func()
        except Exception as exc:  # a refusal is an outcome here
            outcome = f"{type(exc).__name__}: {str(exc).splitlines()[-1].strip()[:110]}"
    verdict = "ok" if p.growth_mb <= TARGET_MB else f"OVER {TARGET_MB} MB"
    print(f"{label:<44} {p.seconds:>7.1f} s {p.growth_mb:>8.1f} MB  {verdict}  {outcome}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=9_900_000)
    ap.add_argument("--members", type=int, default=9)
    ap.add_argument("--bomb-gb", type=float, default=2.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-trace-") as tmp:
        os.environ["SECRET_KEY"] = "bench-only"
        setup_lab(tmp)
        import schedulers
        from cloudsched_web.traces.services import local_path, store_upload

        per_member = args.lines // args.members
        amplified, bomb = Path(tmp) / "amplified.swf.gz", Path(tmp) / "bomb.swf.gz"
        block = LINE * 10_000
        t0 = time.monotonic()
        _write_gzip(amplified, lambda: [block] * (per_member // 10_000) + [LINE * (per_member % 10_000)], args.members)
        zeros = bytes(16 << 20)
        _write_gzip(bomb, lambda: [zeros] * int(args.bomb_gb * 1e9 / len(zeros)), 1)
        print(f"built in {time.monotonic() - t0:.0f} s: {amplified.name} {amplified.stat().st_size / 1e6:.1f} MB "
              f"({args.members} members, {per_member * args.members:,} lines, "
              f"{per_member * args.members * len(LINE) / 1e6:,.0f} MB of text); "
              f"{bomb.name} {bomb.stat().st_size / 1e6:.1f} MB ({args.bomb_gb:g} GB of zeros)")  # fmt: skip
        print(f"RSS at start {_rss() / 1e6:.0f} MB; target: growth ≤ {TARGET_MB} MB\n")
        print(f"{'step':<44} {'time':>9} {'RSS growth':>11}")
        stored = {}

        def store_amplified():
            trace, created = store_upload(_upload(amplified), None, "amplified")
            stored["trace"] = trace
            return f"{'201' if created else '200'}: {trace.jobs:,} jobs, {trace.text_bytes / 1e6:,.0f} MB text"

        _step("store the amplified gzip (upload service)", store_amplified)
        _step("refuse the zero bomb (upload service)", lambda: store_upload(_upload(bomb), None, "bomb"))
        if "trace" not in stored:
            return
        path = str(local_path(stored["trace"]))
        for family, workload in (("vm_reservations", {"n_requests": 1000}), ("backfill", {"max_jobs": 1000})):
            config = schedulers.example(family)
            config["workload"] = {"kind": "trace", "path": path, **workload}
            config["repetitions"] = 1
            if family == "vm_reservations":
                config["algorithms"] = [a for a in config["algorithms"] if a not in ("exact", "min_migration")]
            else:
                config["datacenter"] = {**config["datacenter"], "processors": 2048}
            os.environ.pop("CLOUDSCHED_RESTRICT_TRACE_PATHS", None)
            _step(f"1,000-job {family} run on it", lambda c=config: f"{len(schedulers.run(c)['runs'])} runs")
            # The same 1,000 jobs given inline: what the simulation itself costs, trace reading aside.
            inline = {k: v for k, v in config["workload"].items() if k != "path"}
            inline["text" if family == "vm_reservations" else "swf"] = (LINE * 1000).decode()
            config = {**config, "workload": inline}
            _step("  the same 1,000 jobs inline (baseline)", lambda c=config: f"{len(schedulers.run(c)['runs'])} runs")


if __name__ == "__main__":
    main()
