"""Benchmark of the SWF reader (issue: speed where users wait). Not part of the test suite.

    .venv/bin/python bench/swf.py            # every log found in the trace directories, median of 3

Target: ``read_swf`` at ≥ 1,000,000 SWF lines per CPU-second, and faster than a plain
Python reader of the same text (split each line, ``float`` each field). Both are timed on
the decompressed text, as process CPU time (the primary figure on a shared machine) and as
wall time; the machine's load at start is printed.

Then the whole path a repetition takes, from the ``.gz`` file to the family's instance:
``family.prepare`` of a backfill, federated and vm_reservations scenario whose workload names
the log by path (read, gunzip, parse, the family's conversion; federated and vm_reservations
keep the parsed log per process, so the first repetition pays the read and later ones do not),
against the plain reader of the same file (gunzip + the line reader).
"""

from __future__ import annotations

import gzip
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from schedulers.core import rng as rngmod
from schedulers.core.swf import read_swf
from schedulers.core.traces import trace_dirs

TARGET_LINES_PER_S = 1_000_000


def plain_reader(data: bytes) -> np.ndarray:
    """The reference a user would write: one line at a time, ``float`` each field."""
    rows = [
        [float(x) for x in line.split()]
        for line in data.split(b"\n")
        if line.strip() and not line.lstrip().startswith(b";")
    ]
    return np.array(rows, dtype=float)


def timed(fn, arg, reps: int = 3) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(reps):
        w, c = time.perf_counter(), time.process_time()
        fn(arg)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    logs = sorted({p for d in trace_dirs() for p in d.glob("*.swf*")})
    if not logs:
        print("no SWF logs in the trace directories (set CLOUDSCHED_TRACE_DIRS)")
        return
    print(f"{'log':<36} {'lines':>8} {'read_swf cpu':>12} {'wall':>6} {'lines/s':>10} {'plain cpu':>10} "
          f"{'speed-up':>8} {'target':>9}")  # fmt: skip
    for path in logs:
        raw = path.read_bytes()
        data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        lines = data.count(b"\n")
        wall, cpu = timed(read_swf, data)
        _, plain = timed(plain_reader, data, reps=1)
        rate = lines / cpu
        ok = "yes" if rate >= TARGET_LINES_PER_S and cpu < plain else "NO"
        print(f"{path.name:<36} {lines:>8} {cpu:>12.3f} {wall:>6.3f} {rate:>10,.0f} {plain:>10.3f} "
              f"{plain / cpu:>7.1f}× {ok:>9}")  # fmt: skip
        gz_wall, gz_cpu = timed(read_swf, path)
        print(f"{'  … from the .gz file':<36} {'':>8} {gz_cpu:>12.3f} {gz_wall:>6.3f}")
    whole_path(logs)


def _scenario(family: str, path: Path):
    from schedulers.registry import get_family

    fam = get_family(family)
    workload = {"kind": "trace", "path": str(path)}
    if family == "backfill":
        body = {"datacenter": {"processors": 10_000}, "params": {"record_schedule": False, "record_jobs": False}}
    else:
        body = fam.example()
    return fam, fam.scenario_model.model_validate({**body, "family": family, "workload": workload})


def _forget_parsed_logs() -> None:
    """Empty the per-process cache of the jobs taken from logs: a cold first repetition."""
    from schedulers.core import trace_jobs

    trace_jobs._scan_file.cache_clear()


def whole_path(logs: list[Path]) -> None:
    print(f"\nfile → instance (family.prepare), CPU s, median of 3; load now {os.getloadavg()[0]:.2f}")
    print(f"{'log':<36} {'plain(file)':>11} {'backfill':>9} {'federated':>9} {'(cached)':>8} {'vm_res':>7} "
          f"{'(cached)':>8}")  # fmt: skip
    for path in logs:
        _, plain = timed(lambda p: plain_reader(gzip.decompress(p.read_bytes())), path, reps=1)
        row = [f"{path.name:<36} {plain:>11.3f}"]
        for family in ("backfill", "federated", "vm_reservations"):
            fam, cfg = _scenario(family, path)

            def cold(cfg, fam=fam):
                _forget_parsed_logs()
                return fam.prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))

            _, cpu = timed(cold, cfg)
            row.append(f"{cpu:>9.3f}")
            if family != "backfill":
                _, warm = timed(lambda c, fam=fam: fam.prepare(c, rngmod.stream(c.seed, 1, "workload")), cfg)
                row.append(f"{warm:>8.3f}")
        print(" ".join(row))


if __name__ == "__main__":
    main()
