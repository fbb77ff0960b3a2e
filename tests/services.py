"""Real services for integration and browser tests: a redis-server and a Celery worker process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Debian's Chromium, headless, with no background traffic (this machine has no internet).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]  # fmt: skip

# The worker registers the test-only toy family before it starts consuming.
WORKER_CODE = (
    "from tests import toy_family; toy_family.install(); "
    "from cloudsched_web.celery import app; "
    "app.worker_main(['worker', '--loglevel', 'INFO', '--concurrency', '1', '--pool', 'prefork', '--without-heartbeat', '--without-gossip', '--without-mingle'])"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def redis_server(tmp_dir: Path, port: int | None = None):
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed; ./test.sh installs it")
    port = port or free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("redis-server did not start")
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


class Worker:
    def __init__(self, broker_url: str, db_path: str, log_path: Path, **extra_env: str):
        env = dict(os.environ, **extra_env)
        env.update(
            CELERY_BROKER_URL=broker_url,
            DATABASE_URL=db_path if "://" in str(db_path) else f"sqlite:///{db_path}",
            DJANGO_SETTINGS_MODULE="cloudsched_web.test_settings",
            PYTHONPATH=os.pathsep.join(filter(None, (extra_env.get("PYTHONPATH"), str(ROOT)))),  # plug-in sites first
        )
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER_CODE], cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "ready." in self.log():
                return
            if self.proc.poll() is not None:
                raise RuntimeError("worker exited:\n" + self.log())
            time.sleep(0.2)
        raise RuntimeError("worker not ready:\n" + self.log())

    def pool_children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def _pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed; ./test.sh installs Debian's postgresql")
    return str(found[-1])


@contextmanager
def postgres_server():
    """A throwaway PostgreSQL cluster on a free loopback port; yields its DATABASE_URL.

    Debian's server binaries refuse to run as root, so when the tests run as root the cluster
    belongs to the ``postgres`` user (``runuser``); its data lives in a fresh directory in /tmp.
    """
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="cloudsched-pg-"))
    data, port = root / "data", free_port()
    as_owner: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        as_owner = ["runuser", "-u", "postgres", "--"]
    run = lambda *cmd: subprocess.run([*as_owner, *cmd], check=True, capture_output=True, text=True)  # noqa: E731
    run(_pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "cloudsched", "--no-sync")
    opts = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(_pg_bin("pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "server.log"), "-w", "start")
    try:
        run(_pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "cloudsched", "cloudsched")
        yield f"postgres://cloudsched@127.0.0.1:{port}/cloudsched"
    finally:
        subprocess.run([*as_owner, _pg_bin("pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def launch_chromium(playwright):
    """Debian's Chromium through Playwright (Playwright's own browser download does not work here)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def point_broker(url: str) -> None:
    """Send this process's Celery messages to ``url`` (fresh connection and producer pools)."""
    from kombu import pools as kombu_pools

    from cloudsched_web.celery import app

    app.conf.broker_url = url
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu_pools.reset()  # kombu keeps producer pools per broker URL, and the URL may be the same


@contextmanager
def worker_on_own_redis(tmp_dir: Path, **extra_env: str):
    """A Redis of its own, a Celery worker on it, and this process's messages pointed at it; yields the Worker."""
    from django.db import connection

    with redis_server(tmp_dir) as url:
        point_broker(url)
        worker = Worker(url, connection.settings_dict["NAME"], tmp_dir / "worker.log", **extra_env)
        try:
            worker.wait_ready()
            yield worker
        finally:
            worker.stop()
