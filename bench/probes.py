"""The attacker probes of a shared server, measured against a real gunicorn (scripts/gunicorn.conf.py).

Starts the web server on a fresh database in a temporary directory and sends what an anonymous
visitor or an ordinary account can send, while another user loads a page every 0.25 s:

- ``body``: a 48 MB urlencoded POST of ``%2C`` to /accounts/login/ (anonymous, no CSRF token);
- ``csrf``: 30 log-in POSTs naming alice without a CSRF token, then alice logs in from that address;
- ``uploads``: 8 concurrent uploads of a 20 MB SWF by one user.

For each: the wall time, the web processes' peak RSS (sampled every 50 ms from /proc) and the other
user's worst page latency. ``python bench/probes.py [body] [csrf] [uploads]``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable


def rss_mb(pids):
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += int(re.search(r"VmRSS:\s+(\d+)", text).group(1))
    return total / 1024


def children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


class Watch:
    """Peak RSS of the web workers and the other user's worst latency while a probe runs."""

    def __init__(self, master, url, session):
        self.master, self.url, self.session = master, url, session
        self.peak, self.worst, self.stop = 0.0, 0.0, threading.Event()

    def __enter__(self):
        self.threads = [threading.Thread(target=self._rss), threading.Thread(target=self._user)]
        for t in self.threads:
            t.start()
        return self

    def _rss(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mb(children(self.master)))
            time.sleep(0.05)

    def _user(self):
        while not self.stop.is_set():
            t0 = time.monotonic()
            self.session.get(self.url + "/traces/", timeout=120)
            self.worst = max(self.worst, time.monotonic() - t0)
            time.sleep(0.25)

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def login(url, username, password="pw-long-enough-1"):
    s = requests.Session()
    s.get(url + "/accounts/login/")
    r = s.post(url + "/accounts/login/", data={"username": username, "password": password,
               "csrfmiddlewaretoken": s.cookies["csrftoken"]}, headers={"Referer": url + "/"}, allow_redirects=False)  # fmt: skip
    return s, r


def probe_body(url, watch_args):
    body = b"username=alice&password=" + b"%2C" * (16 * 2**20)
    with Watch(*watch_args) as w:
        t0 = time.monotonic()
        try:
            status = requests.post(url + "/accounts/login/", data=body,
                                   headers={"Content-Type": "application/x-www-form-urlencoded"}).status_code  # fmt: skip
        except requests.ConnectionError:  # answered and closed before the body was sent whole
            status = "connection closed by the server"
        took = time.monotonic() - t0
    return f"48 MB anonymous POST: {status} in {took:.2f} s; web RSS peak {w.peak:.0f} MB; other user worst {w.worst:.2f} s"


def probe_csrf(url, watch_args):
    with Watch(*watch_args) as w:
        codes = [requests.post(url + "/accounts/login/", data={"username": "alice", "password": "x"}).status_code
                 for _ in range(30)]  # fmt: skip
        _, r = login(url, "alice")
    ok = r.status_code == 302
    return (f"30 CSRF-less log-ins: statuses {sorted(set(codes))}; alice's own log-in then "
            f"{'succeeds (302)' if ok else r.status_code}; web RSS peak {w.peak:.0f} MB")  # fmt: skip


def probe_uploads(url, watch_args, tmp):
    trace = Path(tmp) / "big.swf"
    with trace.open("w") as f:
        for i in range(400_000):
            f.write(f"{i + 1} {i * 10} 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n")
    s, _ = login(url, "carol")
    results = []

    def upload():
        with trace.open("rb") as f:
            t0 = time.monotonic()
            r = s.post(url + "/traces/", files={"file": ("big.swf", f)}, data={"csrfmiddlewaretoken": s.cookies["csrftoken"]},
                       headers={"Referer": url + "/"}, allow_redirects=False)  # fmt: skip
            outcome = (
                "stored" if r.status_code == 302 else "refused" if "TRACE_UPLOADS_PER_USER" in r.text else r.status_code
            )
            results.append((outcome, time.monotonic() - t0))

    with Watch(*watch_args) as w:
        threads = [threading.Thread(target=upload) for _ in range(8)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - t0
    size = trace.stat().st_size / 2**20
    outcomes = {o: sum(1 for c, _ in results if c == o) for o in {c for c, _ in results}}
    return (f"8 concurrent {size:.0f} MB uploads: {outcomes} in {took:.1f} s; "
            f"web RSS peak {w.peak:.0f} MB; other user worst {w.worst:.2f} s")  # fmt: skip


def probe_traces(tmp):
    """The trace shapes that slipped past the sampled estimate, at the sizes of the attack: estimated and
    judged by this server's limits (library only: what the upload stores is the same summary)."""
    import gzip

    import schedulers
    from schedulers.core.estimate import refusal

    def lines(n, size, start=0):
        tail = f"0 3600 {size} -1 -1 {size} 3600 -1 1 1 1 1 1 -1 -1 -1\n"
        return "".join(f"{start + i + 1} {start + i} {tail}" for i in range(n))

    shapes = {
        "last gzip member one line": (gzip.compress(lines(200_000, 8).encode()) + gzip.compress(lines(1, 8).encode()), ".swf.gz"),
        "first MB of comments": ((";" + "x" * 99 + "\n") * 11_000 + lines(200_000, 8), ".swf"),
        "10,400 small then 1 M jobs of 128": (lines(10_400, 1) + lines(1_000_000, 128, 10_400), ".swf"),
        "3 MB plain, 64,198 jobs": (lines(64_198, 4), ".swf"),
    }  # fmt: skip
    out = []
    for name, (body, suffix) in shapes.items():
        path = Path(tmp) / f"shape{len(out)}{suffix}"
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
        scenario = {"family": "backfill", "seed": 1, "algorithms": ["easy", "measy"], "datacenter": {"processors": 128},
                    "workload": {"kind": "trace", "path": str(path)}}  # fmt: skip
        t0 = time.monotonic()
        est = schedulers.estimate(scenario)
        took = time.monotonic() - t0
        refused = "refused" if refusal(est, 8192, 3600) else "accepted"
        out.append(f"{name}: {est.detail['shape']}; {est.describe()} in {took:.1f} s; {refused} at 8 GB / 1 h")
    return "\n".join(out)


def main(which):
    with tempfile.TemporaryDirectory(prefix="probes-") as tmp:
        env = dict(os.environ, CLOUDSCHED_VAR_DIR=tmp, DJANGO_SETTINGS_MODULE="cloudsched_web.test_settings",
                   STATIC_ROOT=f"{tmp}/static", PORT="18765", WEB_ACCESS_LOG="", DEBUG="0")  # fmt: skip
        manage = [PY, "manage.py"]
        for args in (["migrate", "-v0"], ["createcachetable"]):
            subprocess.run([*manage, *args], cwd=ROOT, env=env, check=True)
        make = ("from django.contrib.auth.models import User\n"
                "for n in ('alice','bob','carol'): User.objects.create_user(n, password='pw-long-enough-1')")  # fmt: skip
        subprocess.run([*manage, "shell", "-c", make], cwd=ROOT, env=env, check=True)
        gun = subprocess.Popen([PY, "-m", "gunicorn", "--config", "scripts/gunicorn.conf.py", "cloudsched_web.wsgi"],
                               cwd=ROOT, env=env, stderr=subprocess.DEVNULL)  # fmt: skip
        url = "http://127.0.0.1:18765"
        try:
            for _ in range(100):
                try:
                    requests.get(url + "/accounts/login/", timeout=1)
                    break
                except requests.ConnectionError:
                    time.sleep(0.2)
            bob, _ = login(url, "bob")
            args = (gun.pid, url, bob)
            print(f"web RSS at start {rss_mb(children(gun.pid)):.0f} MB")
            for name in which:
                out = probe_uploads(url, args, tmp) if name == "uploads" else globals()[f"probe_{name}"](url, args)
                print(out, flush=True)
        finally:
            gun.terminate()
            gun.wait(30)


if __name__ == "__main__":
    which = sys.argv[1:] or ["body", "csrf", "uploads", "traces"]
    if "traces" in which:
        os.environ["CLOUDSCHED_RESTRICT_TRACE_PATHS"] = "0"
        with tempfile.TemporaryDirectory() as tmp:
            print(probe_traces(tmp))
    if set(which) - {"traces"}:
        main([w for w in which if w != "traces"])
