"""Load test of the production set-up on loopback: gunicorn + whitenoise + Redis + one Celery worker.

Concurrent users log in, browse the result page of a finished run, poll run status, and submit new
runs. Prints requests/s, p50/p95 latency per request kind and the error count.

    .venv/bin/python bench/web_load.py [--users 16] [--seconds 30] [--gunicorn-workers 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.services import free_port, redis_server  # noqa: E402

PASSWORD = "load-test-password-1"


def _manage(env, *args):
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True)


def _prepare(env):
    _manage(env, "migrate", "--noinput")
    _manage(env, "createcachetable")
    code = f"""
import django; django.setup()
from django.contrib.auth import get_user_model
import schedulers
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.runs.models import Run
U = get_user_model()
U.objects.create_user("user0", "", "{PASSWORD}")
owner = U.objects.get(username="user0")
config = schedulers.example("backfill")
config["workload"] = {{**config.get("workload", {{}}), "jobs": 2000}} if "jobs" in config.get("workload", {{}}) else config.get("workload")
_, cfg = schedulers.validate(config)
s = Scenario.objects.create(owner=owner, family="backfill", name="load", config=cfg.model_dump(mode="json"))
result = schedulers.run(s.config)
run = Run(scenario=s, config=s.config, status="succeeded", progress=1.0)
run.store_result(result)
run.summary = {{a: {{k: v["mean"] for k, v in m.items()}} for a, m in result["summary"].items()}}
run.save()
print(run.pk, s.pk)
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    run_id, scenario_id = out.stdout.split()
    return int(run_id), int(scenario_id)


class User:
    def __init__(self, port, name):
        self.port = port
        self.cookies = {}
        self._login(name)

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        hdrs = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), **(headers or {})}
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read()
        for header, value in resp.getheaders():
            if header.lower() == "set-cookie":
                k, v = value.split(";", 1)[0].split("=", 1)
                self.cookies[k] = v
        conn.close()
        return resp.status, data

    def _csrf_post(self, path, fields, form_page=None):
        _, page = self.request("GET", form_page or path)
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
        body = urlencode({"csrfmiddlewaretoken": token, **fields})
        hdrs = {"Content-Type": "application/x-www-form-urlencoded", "Referer": f"http://127.0.0.1:{self.port}{path}"}
        return self.request("POST", path, body, hdrs)

    def _login(self, name):
        status, _ = self._csrf_post("/accounts/login/", {"username": name, "password": PASSWORD})
        assert status == 302, f"login failed: {status}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--gunicorn-workers", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cloudsched-load-"))
    with redis_server(tmp) as broker:
        env = dict(os.environ, CLOUDSCHED_VAR_DIR=str(tmp), DEBUG="0", SECURE_HTTPS="0", CELERY_BROKER_URL=broker,
                   LOGIN_FAILURES_PER_IP="100000", ALLOWED_HOSTS="127.0.0.1",
                   DJANGO_SETTINGS_MODULE="cloudsched_web.settings")  # fmt: skip
        run_id, scenario_id = _prepare(env)
        _manage(env, "collectstatic", "--noinput")
        port = free_port()
        web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "cloudsched_web.wsgi", "-b", f"127.0.0.1:{port}",
             "-w", str(args.gunicorn_workers), "-k", "gthread", "--threads", "4"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "cloudsched_web", "worker", "-c", "1", "-l", "WARNING"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(3)
        try:
            latencies: dict[str, list[float]] = {}
            errors: list[str] = []
            lock = threading.Lock()
            stop = time.monotonic() + args.seconds

            def user_loop(i):
                user = User(port, "user0")  # everyone reads user0's run; submitters use it too
                k = 0
                while time.monotonic() < stop:
                    kind, path = [("result page", f"/runs/{run_id}/"), ("status json", f"/runs/{run_id}/status.json"),
                                  ("scenario list", "/"), ("static js", "/static/js/run.js")][k % 4]  # fmt: skip
                    t0 = time.perf_counter()
                    try:
                        if i % 8 == 0 and k % 10 == 9:  # a few users submit runs now and then
                            kind = "submit run"
                            status, _ = user._csrf_post(
                                f"/scenarios/{scenario_id}/run/", {}, f"/scenarios/{scenario_id}/"
                            )
                        else:
                            status, _ = user.request("GET", path)
                    except Exception as exc:
                        status = f"{type(exc).__name__}"
                    dt = time.perf_counter() - t0
                    with lock:
                        latencies.setdefault(kind, []).append(dt)
                        if status not in (200, 302):
                            errors.append(f"{kind}: {status}")
                    k += 1

            threads = [threading.Thread(target=user_loop, args=(i,)) for i in range(args.users)]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - t0
            total = sum(len(v) for v in latencies.values())
            print(
                f"{args.users} users, {elapsed:.1f} s, gunicorn {args.gunicorn_workers}×4 threads, 2 cores shared with the worker"
            )
            print(f"{'request':<15} {'count':>7} {'p50 ms':>8} {'p95 ms':>8}")
            for kind, values in sorted(latencies.items()):
                values.sort()
                p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
                print(f"{kind:<15} {len(values):>7} {1000 * statistics.median(values):>8.1f} {1000 * p95:>8.1f}")
            print(f"total {total} requests, {total / elapsed:.1f} req/s, errors {len(errors)}")
            if errors:
                print("first errors:", json.dumps(errors[:5]))
        finally:
            web.terminate()
            worker.terminate()
            web.wait()
            worker.wait()


if __name__ == "__main__":
    main()
