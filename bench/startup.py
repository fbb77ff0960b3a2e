"""Start-up cost of the library. Not part of the test suite.

    .venv/bin/python bench/startup.py              # median of 7 fresh processes per command
    .venv/bin/python bench/startup.py -n 15 --top 20   # more runs; the 20 costliest imports
    .venv/bin/python bench/startup.py --root /path/to/other/checkout   # the same table for another checkout

Every CLI call and every test subprocess pays ``import schedulers; schedulers.all_families()``.
Target: ≤ 0.4 s wall on a quiet machine. Each command runs in a fresh interpreter; the table shows
the median wall time and the median CPU time (user + system of the child), beside the same for an
empty interpreter, numpy alone and numpy with one pydantic model (the floor the library cannot go below), and the
machine's load at start (on a loaded machine wall time stretches; CPU time much less so).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.4
# What any library built on numpy and pydantic pays: the interpreter, numpy, pydantic's model machinery.
FLOOR = """import numpy
from pydantic import BaseModel, ConfigDict, Field
class A(BaseModel):
    model_config = ConfigDict(defer_build=True)
    x: int = Field(1, ge=0)
"""
COMMANDS = [
    ("python -c pass", ["-c", "pass"], None),
    ("import numpy", ["-c", "import numpy"], None),
    ("floor: numpy + one pydantic model", ["-c", FLOOR], None),
    ("import schedulers; all_families()", ["-c", "import schedulers; schedulers.all_families()"], TARGET_S),
    ("python -m schedulers families", ["-m", "schedulers", "families"], None),
    ("python -m schedulers example backfill", ["-m", "schedulers", "example", "backfill"], None),
]


def _once(args: list[str], root: Path = ROOT) -> tuple[float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], cwd=root, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{args} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _top(n: int, root: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import schedulers; schedulers.all_families()"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = []
    for line in out.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), m.group(4)))
    print(f"\nthe {n} costliest imports (self time, -X importtime, one run)")
    print(f"{'self ms':>8} {'cumul. ms':>10}  module")
    for self_us, cum_us, name in sorted(rows, reverse=True)[:n]:
        print(f"{self_us / 1e3:>8.1f} {cum_us / 1e3:>10.1f}  {name}")
    heavy = sorted({name.split(".")[0] for _, _, name in rows} & {"scipy", "pandas", "matplotlib", "django"})
    print("heavy packages imported at start-up:", ", ".join(heavy) or "none (scipy is imported when first used)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=7, help="fresh processes per command (median reported)")
    parser.add_argument("--top", type=int, default=12, help="list the N costliest imports (0: none)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose schedulers/ to time")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"start-up, median of {args.n} fresh processes; load at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          f" on {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; {args.root}")  # fmt: skip
    print(f"{'command':<40} {'wall s':>7} {'cpu s':>7} {'target':>7} {'ok wall/cpu':>12}")
    for label, argv, target in COMMANDS:
        _once(argv, args.root)  # warm the file cache (and write .pyc files)
        runs = [_once(argv, args.root) for _ in range(args.n)]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        ok = "" if target is None else "/".join("yes" if x <= target else "NO" for x in (wall, cpu))
        tgt = "" if target is None else f"{target:.2f}"
        print(f"{label:<40} {wall:>7.3f} {cpu:>7.3f} {tgt:>7} {ok:>12}")
    if args.top:
        _top(args.top, args.root)


if __name__ == "__main__":
    main()
