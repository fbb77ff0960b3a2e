"""Benchmark: the first result page a brand-new gunicorn web process serves.

    .venv/bin/python bench/web_first_page.py [--jobs 2000] [--repeat 3]

Stores one backfill result (EASY and KEASY) in a temporary var directory, shares it, then starts
gunicorn with the project's config (``scripts/gunicorn.conf.py``, one worker) as run.sh does and
times the shared result page's first and second requests: wall time seen by the client and the
CPU time the serving process spent (from /proc), once with ``WEB_PRELOAD=0`` (every worker imports
the application when it boots and the URLconf, with every view, on its first request) and once
with ``WEB_PRELOAD=1`` (the master imports the application and the URLconf before it forks).
Target (results at full scale): the result page's HTML in under 300 ms. Not a test.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from web_pages import setup_lab, store_run  # noqa: E402

TARGET_S = 0.3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _serve_once(env: dict, url_path: str) -> tuple[float, float, float, float, float]:
    """(boot s, first wall s, first CPU s, second wall s, second CPU s) of one fresh gunicorn."""
    port = _free_port()
    env = {**env, "PORT": str(port), "WEB_WORKERS": "1", "WEB_ACCESS_LOG": ""}
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "--config", "scripts/gunicorn.conf.py",
                             "cloudsched_web.wsgi"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        worker = None
        while worker is None:  # the worker is up once it exists and its CPU time stops growing
            time.sleep(0.1)
            kids = _children(proc.pid)
            if kids:
                worker = kids[0]
        last = -1.0
        while (now := _cpu_s(worker)) != last:
            last = now
            time.sleep(0.3)
        boot = time.perf_counter() - t0
        out = [boot]
        for _ in range(2):
            c0, w0 = _cpu_s(worker), time.perf_counter()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{url_path}", timeout=60) as response:
                response.read()
            wall = time.perf_counter() - w0
            time.sleep(0.05)  # let the process's counters settle
            out += [wall, _cpu_s(worker) - c0]
        return tuple(out)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="cloudsched-bench-")
    setup_lab(tmp)
    import schedulers

    config = {"family": "backfill", "name": "first page bench", "seed": 1, "algorithms": ["easy", "keasy"],
              "workload": {"kind": "generator", "model": "feitelson", "n_jobs": args.jobs, "load": 0.7}}  # fmt: skip
    _, run = store_run(schedulers.run(config), config)
    run.share()
    env = {**os.environ, "CLOUDSCHED_VAR_DIR": tmp, "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "0", "SECURE_HTTPS": "0"}
    load = os.getloadavg()[0]
    print(f"load at start {load:.2f}; shared result page of {args.jobs} jobs × EASY, KEASY; "
          f"median of {args.repeat} fresh gunicorn processes")  # fmt: skip
    print(f"{'WEB_PRELOAD':<12} {'boot s':>7} {'1st wall':>9} {'1st CPU':>8} {'2nd wall':>9} {'2nd CPU':>8}  "
          f"target 1st < {TARGET_S} s")  # fmt: skip
    for preload in ("0", "1"):
        rows = [_serve_once({**env, "WEB_PRELOAD": preload}, f"/share/{run.share_token}/") for _ in range(args.repeat)]
        med = [statistics.median(col) for col in zip(*rows, strict=True)]
        verdict = "ok" if med[1] < TARGET_S else "SLOW"
        print(f"{preload:<12} {med[0]:>7.2f} {med[1]:>9.3f} {med[2]:>8.3f} {med[3]:>9.3f} {med[4]:>8.3f}  {verdict}")


if __name__ == "__main__":
    main()
