"""Concurrent writers and readers on SQLite, as ./run.sh serves them .

gunicorn with scripts/gunicorn.conf.py (2 processes × 4 threads) and one Celery worker, on loopback,
with a fresh SQLite database, MEDIA_ROOT, static root and secret key in a temporary directory. Two
users log in through the form; then, all at once, trace uploads of a few MB (the Traces page form),
scenario creates (the scenario form), run submits (which the worker then runs, writing progress) and
API scenario clones (a transaction that reads, then writes) and page loads (home, scenario, run, traces
and studies pages, run status). Prints each request kind's
count, statuses and latency, the 5xx count, "database is locked" lines in the server and worker
logs, and the peak summed RSS of the gunicorn processes (master and workers, sampled every 0.1 s).

Target: 8 concurrent 3.4 MB uploads plus 50 concurrent page loads on SQLite: no 5xx, web RSS ≤ 1 GB
in all. Exit status 0 when met, 1 when not.

    .venv/bin/python bench/web_concurrency.py [--rounds 3] [--uploads 8] [--upload-mb 3.4] [--pages 50] [--amplified]

Bounded: a fixed number of requests per round (uploads + 3 × writers + pages), 120 s per request,
--deadline-s for the whole run; everything binds to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import Counter
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.services import free_port, redis_server  # noqa: E402

PASSWORD = "concurrency-bench-password-1"
USERS = ("alice", "bob")
RSS_TARGET_MB = 1024
# run.sh's production settings, with static files served from the finders into a temporary root, so
# nothing is collected into the checkout (the pages' markup and queries are the same).
SETTINGS_MODULE = """
from cloudsched_web.settings import *  # noqa: F403
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
STATIC_ROOT = VAR_DIR / "static"
"""
PREPARE = """
import django; django.setup()
import json, sys
from django.contrib.auth import get_user_model
import schedulers
from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
ids = {}
for name in sys.argv[1].split(","):
    user = get_user_model().objects.create_user(name, "", sys.argv[2])
    config = schedulers.example("backfill")
    s = Scenario.objects.create(owner=user, family="backfill", name=f"{name}'s", config=config)
    result = schedulers.run(s.config)
    run = Run(scenario=s, config=s.config, status="succeeded", progress=1.0)
    run.store_result(result)
    run.summary = {a: {k: v["mean"] for k, v in m.items()} for a, m in result["summary"].items()}
    run.save()
    ids[name] = {"scenario": s.pk, "run": run.pk, "token": ApiToken.issue(user, "bench")[1]}
print(json.dumps(ids))
"""


def make_swf(n_bytes: int, seed: int) -> bytes:
    """A valid SWF text of about ``n_bytes`` (distinct per seed, so every upload is stored anew)."""
    lines = [f"; synthetic trace {seed} for bench/web_concurrency.py", "; MaxProcs: 128"]
    size, job, submit = sum(len(x) + 1 for x in lines), 0, 0
    while size < n_bytes:
        job += 1
        submit += (job * 7919 + seed) % 97
        run, procs = 60 + (job * 104729 + seed) % 7200, 1 + (job * 31 + seed) % 64
        line = f"{job} {submit} 0 {run} {procs} -1 -1 {procs} {run * 2} -1 1 {1 + job % 20} 1 -1 1 -1 -1 -1"
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


@functools.cache
def _amplified_body() -> bytes:
    """The issue's amplified trace: 9 gzip members of 1.1 M valid lines each (9.9 M lines, ~990 MB of text)."""
    line = b"1 0 0 3600 8 -1 -1 8 7200 -1 1 1 1 -1 1 -1 -1 -1" + b" " * 50 + b"\n"  # 100 bytes
    block = line * 10_000
    out = bytearray()
    for _ in range(9):
        z = zlib.compressobj(6, zlib.DEFLATED, 31)
        out += b"".join(z.compress(block) for _ in range(110))
        out += z.flush()
    return bytes(out)


def make_amplified(seed: int) -> bytes:
    """The amplified trace behind a distinct first member (a comment), so each upload is stored anew."""
    head = zlib.compressobj(6, zlib.DEFLATED, 31)
    return head.compress(f"; amplified trace {seed}\n; MaxProcs: 128\n".encode()) + head.flush() + _amplified_body()


def _manage(env, *args):
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True)


def site_env(tmp: Path, broker: str) -> dict[str, str]:
    (tmp / "bench_settings.py").write_text(SETTINGS_MODULE)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    return env | {
        "CLOUDSCHED_VAR_DIR": str(tmp / "var"), "MEDIA_ROOT": str(tmp / "var" / "media"), "DEBUG": "0",
        "SECURE_HTTPS": "0", "ALLOWED_HOSTS": "127.0.0.1", "CELERY_BROKER_URL": broker,
        "DJANGO_SETTINGS_MODULE": "bench_settings", "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}",
        "CLOUDSCHED_TRACE_DIRS": str(tmp / "var" / "traces"), "LOG_LEVEL": "WARNING",
    }  # fmt: skip


def prepare(env) -> dict:
    """Migrate, create the cache tables, and give each user a scenario and a finished run; their ids."""
    _manage(env, "migrate", "--noinput")
    _manage(env, "createcachetable")
    cmd = [sys.executable, "-c", PREPARE, ",".join(USERS), PASSWORD]
    return json.loads(subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout)


class Site:
    """gunicorn with scripts/gunicorn.conf.py, as run.sh starts it; its log in ``tmp/gunicorn.log``."""

    def __init__(self, tmp: Path, env: dict, workers: int = 2, threads: int = 4):
        self.port, self.log_path = free_port(), tmp / "gunicorn.log"
        env = env | {"BIND": f"127.0.0.1:{self.port}", "WEB_WORKERS": str(workers), "WEB_THREADS": str(threads)}
        cmd = [sys.executable, "-m", "gunicorn", "--config", "scripts/gunicorn.conf.py", "cloudsched_web.wsgi"]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log()[-3000:]}")
            try:
                if Client(self.port).request("GET", "/accounts/login/")[0] == 200:
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"gunicorn did not serve:\n{self.log()[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pids(self) -> list[int]:
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [self.proc.pid, *map(int, children.read_text().split())]
        except OSError:
            return []

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextmanager
def celery_worker(tmp: Path, env: dict):
    log = tmp / "celery.log"
    cmd = [sys.executable, "-m", "celery", "-A", "cloudsched_web", "worker", "-c", "1", "-l", "INFO",
           "--without-heartbeat", "--without-gossip", "--without-mingle", "--logfile", str(log)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while "ready." not in (log.read_text(errors="replace") if log.exists() else ""):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Celery worker did not start:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(0.3)
        yield log
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Client:
    """One user's browser: a cookie jar, CSRF from the form it posts, one connection per request."""

    def __init__(self, port: int):
        self.port, self.cookies = port, {}

    def request(self, method, path, body=None, headers=None, timeout=120):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        hdrs = {"Cookie": "; ".join(f"{k}={v}" for k, v in dict(self.cookies).items()), **(headers or {})}
        try:
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        for header, value in resp.getheaders():
            if header.lower() == "set-cookie":
                k, v = value.split(";", 1)[0].split("=", 1)
                self.cookies[k] = v
        return resp.status, data

    def csrf_token(self, form_page):
        status, page = self.request("GET", form_page)
        found = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if found is None:
            raise RuntimeError(f"no CSRF token on {form_page} ({status})")
        return found.group(1).decode()

    def post_form(self, path, fields, form_page=None, files=None, token=None, headers=None):
        fields = {"csrfmiddlewaretoken": token or self.csrf_token(form_page or path), **fields}
        hdrs = {"Referer": f"http://127.0.0.1:{self.port}{form_page or path}", **(headers or {})}
        if files:
            boundary = uuid.uuid4().hex
            parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                     for k, v in fields.items()]  # fmt: skip
            for name, (filename, data) in files.items():
                head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                parts.append(head.encode() + b"Content-Type: application/octet-stream\r\n\r\n" + data + b"\r\n")
            body = b"".join(parts) + f"--{boundary}--\r\n".encode()
            hdrs["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        else:
            body = urlencode(fields)
            hdrs["Content-Type"] = "application/x-www-form-urlencoded"
        return self.request("POST", path, body, hdrs)

    def login(self, username, password=PASSWORD, headers=None):
        status, _ = self.post_form("/accounts/login/", {"username": username, "password": password}, headers=headers)
        if status != 302:
            raise RuntimeError(f"{username} could not log in ({status})")
        return self


class RssSampler(threading.Thread):
    """The summed resident memory of a gunicorn master and its workers, sampled every 0.1 s."""

    def __init__(self, site: Site):
        super().__init__(daemon=True)
        self.site, self.peak_kb, self.peak_each_kb, self._halt = site, 0, {}, threading.Event()

    def run(self):
        while not self._halt.is_set():
            total = 0
            for pid in self.site.pids():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                kb = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
                self.peak_each_kb[pid] = max(kb, self.peak_each_kb.get(pid, 0))
                total += kb
            self.peak_kb = max(self.peak_kb, total)
            self._halt.wait(0.1)

    def stop(self):
        self._halt.set()
        self.join()


def fire(tasks, timeout_s: float = 300) -> list[dict]:
    """Run every ``(kind, callable, expected statuses)`` in its own thread, all released at once."""
    barrier, results, lock = threading.Barrier(len(tasks)), [], threading.Lock()

    def one(kind, call, expected):
        barrier.wait()
        t0 = time.perf_counter()
        try:
            status, body = call()
            note = "" if status in expected else body[:300].decode(errors="replace")
        except Exception as exc:  # a refused or timed-out connection counts, with what it was
            status, note = type(exc).__name__, str(exc)[:300]
        with lock:
            results.append({"kind": kind, "status": status, "s": time.perf_counter() - t0,
                            "ok": status in expected, "note": note})  # fmt: skip

    threads = [threading.Thread(target=one, args=task, daemon=True) for task in tasks]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout_s
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in threads):
        raise RuntimeError(f"requests still running after {timeout_s} s")
    return results


def round_tasks(clients, ids, uploads, upload_bytes, writers, pages, round_no, amplified=False):
    """One round: ``uploads`` trace uploads; ``writers`` scenario creates, run submits and API clones
    (a transaction that reads, then writes); ``pages`` page loads."""
    import schedulers

    users = list(clients)
    tokens = {u: clients[u].csrf_token("/traces/") for u in users}  # one per session serves every form
    tasks = []
    for i in range(uploads):
        c, t, name = clients[users[i % len(users)]], tokens[users[i % len(users)]], f"r{round_no}u{i}"
        seed = 1000 * round_no + i
        files = ({"file": (f"{name}.swf.gz", make_amplified(seed))} if amplified
                 else {"file": (f"{name}.swf", make_swf(upload_bytes, seed=seed))})  # fmt: skip
        tasks.append(("trace upload", partial(c.post_form, "/traces/", {"name": name}, files=files, token=t), {302}))
    config = schedulers.example("backfill")
    for i in range(writers):
        user = users[i % len(users)]
        c, t, pk = clients[user], tokens[user], ids[user]["scenario"]
        fields = {"family": "backfill", "config": json.dumps({**config, "name": f"bench {round_no}.{i}"})}
        bearer = {"Authorization": f"Bearer {ids[user]['token']}", "Content-Type": "application/json"}
        tasks += [
            ("scenario create", partial(c.post_form, "/scenarios/new/", fields, token=t), {302}),
            ("run submit", partial(c.post_form, f"/scenarios/{pk}/run/", {}, token=t), {302}),
            ("api clone", partial(c.request, "POST", f"/api/v1/scenarios/{pk}/clone", b"{}", bearer), {201}),
        ]
    for i in range(pages):
        user = users[i % len(users)]
        s, r = ids[user]["scenario"], ids[user]["run"]
        path = ["/", f"/scenarios/{s}/", f"/runs/{r}/", "/traces/", "/studies/", f"/runs/{r}/status.json"][i % 6]
        tasks.append(("page load", partial(clients[user].request, "GET", path), {200}))
    return tasks


def summarise(results: list[dict]) -> dict:
    out = {}
    for kind in sorted({r["kind"] for r in results}):
        rows = [r for r in results if r["kind"] == kind]
        times = sorted(r["s"] for r in rows)
        out[kind] = {
            "count": len(rows), "statuses": dict(Counter(str(r["status"]) for r in rows)),
            "unexpected": sum(not r["ok"] for r in rows), "p50_s": round(statistics.median(times), 3),
            "max_s": round(times[-1], 3),
        }  # fmt: skip
    return out


def wait_runs(env, deadline_s: float) -> dict:
    """Statuses of every run once none is queued or running (or at the deadline)."""
    code = ("import django, json; django.setup(); from collections import Counter; "
            "from cloudsched_web.runs.models import Run; "
            "print(json.dumps(Counter(Run.objects.values_list('status', flat=True))))")  # fmt: skip
    end = time.monotonic() + deadline_s
    while True:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
        counts = json.loads(out.stdout) if out.returncode == 0 else {"(query failed)": out.stderr[-300:]}
        if not (counts.get("queued") or counts.get("running")) or time.monotonic() > end:
            return counts
        time.sleep(2)


def run_bench(
    rounds=3, uploads=8, upload_mb=3.4, writers=8, pages=50, worker=True, deadline_s=600, tmp=None, amplified=False
):
    """Start the stack, fire the rounds, stop everything; a dict of what was measured."""
    own_tmp = tmp is None
    tmp = Path(tmp or tempfile.mkdtemp(prefix="cloudsched-concurrency-"))
    started = time.monotonic()
    try:
        with redis_server(tmp) as broker:
            env = site_env(tmp, broker)
            ids = prepare(env)
            with celery_worker(tmp, env) if worker else nullcontext() as worker_log:
                site = Site(tmp, env)
                sampler = RssSampler(site)
                sampler.start()
                try:
                    clients = {u: Client(site.port).login(u) for u in USERS}
                    results = []
                    for n in range(rounds):
                        left = deadline_s - (time.monotonic() - started)
                        if left < 30:
                            break
                        tasks = round_tasks(clients, ids, uploads, int(upload_mb * 2**20), writers, pages, n, amplified)
                        results += fire(tasks, timeout_s=left)
                    runs = wait_runs(env, max(10.0, deadline_s - (time.monotonic() - started))) if worker else {}
                finally:
                    sampler.stop()
                    site.stop()
                web_log = site.log()
                worker_text = worker_log.read_text(errors="replace") if worker_log else ""
        return {
            "rounds": rounds, "requests": summarise(results),
            "5xx": sum(isinstance(r["status"], int) and r["status"] >= 500 for r in results),
            "unexpected": [f"{r['kind']}: {r['status']} {r['note'][:120]!r}" for r in results if not r["ok"]][:10],
            "locked_in_web_log": web_log.count("database is locked"),
            "locked_in_worker_log": worker_text.count("database is locked"),
            "tracebacks_in_web_log": web_log.count("Traceback"),
            "runs": runs, "peak_web_rss_mb": round(sampler.peak_kb / 1024, 1),
            "peak_rss_mb_per_process": sorted(round(kb / 1024, 1) for kb in sampler.peak_each_kb.values()),
            "seconds": round(time.monotonic() - started, 1),
        }  # fmt: skip
    finally:
        if own_tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, choices=range(1, 21), metavar="1..20")
    ap.add_argument("--uploads", type=int, default=8, choices=range(0, 33), metavar="0..32")
    ap.add_argument("--upload-mb", type=float, default=3.4)
    ap.add_argument("--writers", type=int, default=8, choices=range(0, 33), metavar="0..32",
                    help="scenario creates, and as many run submits and API clones, per round")  # fmt: skip
    ap.add_argument("--pages", type=int, default=50, choices=range(0, 201), metavar="0..200")
    ap.add_argument("--no-worker", action="store_true", help="no Celery worker (submitted runs stay queued)")
    ap.add_argument("--deadline-s", type=float, default=600)
    ap.add_argument(
        "--amplified",
        action="store_true",
        help="each upload is the issue's amplified .swf.gz (9 gzip members, 9.9 M lines in ~3.4 MB)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not 0 < args.upload_mb <= 64:
        ap.error(f"--upload-mb: {args.upload_mb} is out of range; allowed: more than 0, at most 64")
    m = run_bench(args.rounds, args.uploads, args.upload_mb, args.writers, args.pages, not args.no_worker,
                  args.deadline_s, amplified=args.amplified)  # fmt: skip
    met = m["5xx"] == 0 and m["peak_web_rss_mb"] <= RSS_TARGET_MB
    if args.json:
        print(json.dumps(m | {"target_met": met}))
    else:
        print(f"SQLite, gunicorn 2×4 threads{' + 1 Celery worker' if not args.no_worker else ''}, "
              f"{m['rounds']} round(s), {m['seconds']} s")  # fmt: skip
        print(f"{'request':<16} {'count':>5} {'unexpected':>10} {'p50 s':>7} {'max s':>7}  statuses")
        for kind, r in m["requests"].items():
            print(f"{kind:<16} {r['count']:>5} {r['unexpected']:>10} {r['p50_s']:>7} {r['max_s']:>7}  {r['statuses']}")
        print(f"5xx: {m['5xx']}; 'database is locked' in web log: {m['locked_in_web_log']}, in worker log: "
              f"{m['locked_in_worker_log']}; tracebacks in web log: {m['tracebacks_in_web_log']}")  # fmt: skip
        print(f"runs: {m['runs']}")
        print(f"peak web RSS (master + workers, summed): {m['peak_web_rss_mb']} MB "
              f"(per process {m['peak_rss_mb_per_process']}); target ≤ {RSS_TARGET_MB} MB")  # fmt: skip
        for line in m["unexpected"]:
            print("  unexpected:", line)
        print("target met" if met else "TARGET NOT MET")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
