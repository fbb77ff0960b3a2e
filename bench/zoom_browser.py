"""Benchmark: what a person waits for in Chromium when zooming a large result, served as run.sh serves it.

    .venv/bin/python bench/zoom_browser.py VAR_DIR RUN [--user bench --password bench-pass-123] [--steps 8]

VAR_DIR holds a stored result (e.g. the one ``bench/results_scale.py --no-serve`` leaves in
``/tmp/cloudsched-bench-*``: the 200,000-job × 4 backfill run is run 1, user ``bench``). Starts gunicorn with
the project's config (``scripts/gunicorn.conf.py``: 2 processes × 4 threads by default) on a collected static
directory, opens the result page in Debian's Chromium (Playwright) cold and again (warm: the server's
caches hold the whole run), and times, from the moment the window
changes until every chart of the page has drawn it (``body[data-timeline-loaded]``): the whole run, zoom steps
of ×4 around the middle down to a minute, the way back out (cached windows), and the diff page's first
and last algorithms at the whole run. Targets: the warm page with all its charts ≤ 2 s, every
zoom step ≤ 1 s. Also prints each gunicorn
process's resident memory at boot and at the end. Not a test.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.services import launch_chromium  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _wait_up(port: int, timeout: float = 60.0) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def _timed(page, action, n):
    """Seconds from ``action`` until the page's ``n``-th chart load has drawn."""
    t0 = time.perf_counter()
    page.evaluate(action)
    page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded || 0) >= {n}", timeout=120_000)
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("var_dir")
    parser.add_argument("run", type=int)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--password", default="bench-pass-123")
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    static = tempfile.mkdtemp(prefix="cloudsched-static-")
    port = _free_port()
    env = {**os.environ, "CLOUDSCHED_VAR_DIR": args.var_dir, "STATIC_ROOT": static, "ALLOWED_HOSTS": "127.0.0.1",
           "DEBUG": "0", "SECURE_HTTPS": "0", "PORT": str(port), "WEB_ACCESS_LOG": ""}  # fmt: skip
    subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT,
                   env=env, check=True)  # fmt: skip
    proc = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "--config", "scripts/gunicorn.conf.py",
                             "cloudsched_web.wsgi"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    from playwright.sync_api import sync_playwright

    try:
        _wait_up(port)
        time.sleep(2)
        kids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        booted = {int(k): _rss_mb(int(k)) for k in kids}
        base = f"http://127.0.0.1:{port}"
        print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(base + "/")
            page.fill("#id_username", args.user)
            page.fill("#id_password", args.password)
            page.click("button[type=submit]")
            page.wait_for_load_state()
            t0 = time.perf_counter()
            page.goto(f"{base}/runs/{args.run}/", timeout=120_000)
            page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1", timeout=120_000)
            print(f"{'step':<28} {'s':>7}  (from the window change until every chart drew it)")
            print(f"{'page + whole run (cold)':<28} {time.perf_counter() - t0:>7.2f}")
            t0 = time.perf_counter()
            page.reload(timeout=120_000)
            page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1", timeout=120_000)
            print(f"{'page + whole run (warm)':<28} {time.perf_counter() - t0:>7.2f}")
            lo, hi = page.evaluate("() => Object.values(window.cloudsched.gantt)[0].$g.window")
            mid, width, n, windows = (lo + hi) / 2, hi - lo, 1, []
            for _ in range(args.steps):
                width /= 4
                if width < 60:
                    break
                windows.append((mid - width / 2, mid + width / 2))
            worst = 0.0
            for a, b in windows + windows[-2::-1]:  # in, then back out (those windows were drawn before)
                n += 1
                s = _timed(page, f"() => window.cloudsched.link.set({a}, {b})", n)
                worst = max(worst, s)
                print(f"{'window ' + format((b - a) / (hi - lo), '.4%'):<28} {s:>7.2f}")
            n += 1
            s = _timed(page, "() => window.cloudsched.link.reset ? window.cloudsched.link.reset() : "
                             f"window.cloudsched.link.set({lo}, {hi})", n)  # fmt: skip
            print(f"{'back to the whole run':<28} {s:>7.2f}")
            runs = page.evaluate("() => Object.keys(window.cloudsched.gantt).length")
            t0 = time.perf_counter()
            page.goto(f"{base}/runs/{args.run}/diff/?a=0&b={runs - 1}", timeout=120_000)
            page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1", timeout=120_000)
            print(f"{'diff page, whole run':<28} {time.perf_counter() - t0:>7.2f}")
            coloured = page.evaluate("""() => Object.values(window.cloudsched.gantt).map((ch) => {
              const g = ch.$g; return g.mode === 'occupancy' ? Object.entries(ch.$painted.byColour || {}) : 'bars'; })""")
            print(f"diff blocks painted per colour (A, B): {coloured}")
            browser.close()
        print(f"worst zoom step {worst:.2f} s (target ≤ 1 s); load average now {os.getloadavg()[0]:.2f}")
        kids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        print(
            "gunicorn worker RSS (MB), at boot → now (growth): "
            + ", ".join(
                f"{booted.get(int(k), 0):.0f} → {_rss_mb(int(k)):.0f} (+{_rss_mb(int(k)) - booted.get(int(k), 0):.0f})"
                for k in kids
            )
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
