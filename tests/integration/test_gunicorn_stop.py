"""A terminal's Ctrl-C (SIGINT to the whole process group) stops gunicorn quickly, every time: the workers
leave SIGINT to the master (scripts/gunicorn.conf.py), so no worker is caught between its own shutdown and the
master's SIGQUIT (which hung stops for 20 s until the worker was SIGKILLed)."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.services import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
STOPS, LIMIT_S = 10, 10.0


def _env(tmp_path, port):
    env = {**os.environ, "PORT": str(port), "CLOUDSCHED_VAR_DIR": str(tmp_path), "STATIC_ROOT": str(tmp_path / "st"),
           "DJANGO_SETTINGS_MODULE": "cloudsched_web.settings", "DEBUG": "0", "SECURE_HTTPS": "0",
           "WEB_WORKERS": "2", "WEB_THREADS": "4"}  # fmt: skip
    env.pop("DATABASE_URL", None)
    return env


def _serve(env, port):
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "scripts/gunicorn.conf.py",
                             "cloudsched_web.wsgi"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        try:  # a few requests, so both workers' thread pools hold threads
            for _ in range(6):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as r:
                    assert r.status == 200
            return proc
        except OSError:
            time.sleep(0.3)
    pytest.fail("gunicorn did not serve")


def _children(pid):
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _ignores_sigint(pid):
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("SigIgn:"))
    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def _workers_ignore_sigint(master):
    """The mechanism, read off the kernel: each worker ignores SIGINT once it has booted, the master does not."""
    deadline = time.monotonic() + 30
    while True:
        workers = _children(master)
        if len(workers) == 2 and all(_ignores_sigint(pid) for pid in workers):
            break
        assert time.monotonic() < deadline, f"workers {workers} would act on a terminal's Ctrl-C themselves"
        time.sleep(0.2)
    assert not _ignores_sigint(master)


def test_a_group_ctrl_c_stops_gunicorn_within_seconds_every_time(tmp_path):
    port = free_port()
    env = _env(tmp_path, port)
    for step in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):  # the page's CSS
        subprocess.run([sys.executable, "manage.py", *step], cwd=ROOT, env=env, check=True)
    times = []
    for _ in range(STOPS):
        proc = _serve(env, port)
        try:
            _workers_ignore_sigint(proc.pid)
            started = time.monotonic()
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the master and every worker
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        times.append(time.monotonic() - started)
        err = proc.stderr.read().decode()
        assert "SIGKILL" not in err and "was sent SIGKILL" not in err, err[-2000:]
    assert len(times) == STOPS
    assert max(times) <= LIMIT_S, f"stops took {', '.join(f'{t:.1f}' for t in times)} s"
