"""gunicorn settings for run.sh and the systemd unit in docs/deployment.md (read from the environment).

Two processes of four threads suit a 2-core machine that also runs a Celery worker: requests mostly
wait on the database or stream JSON, and each process keeps its own memo of parsed results (tens of
MB for a large run), so more processes would cost memory rather than add throughput.
"""

import os

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "4"))
timeout = int(os.environ.get("WEB_TIMEOUT_S", "120"))  # a cold result page parses the whole result once
graceful_timeout = 20  # on SIGTERM, requests in flight get this long to finish
accesslog = os.environ.get("WEB_ACCESS_LOG") or None
errorlog = "-"
# The master imports the application and its URLconf (every view) once, before it forks: each worker starts
# ready to serve, and a brand-new worker's first page does not pay ~0.3 s of imports (bench/web_first_page.py).
preload_app = os.environ.get("WEB_PRELOAD", "1").strip().lower() in ("1", "true", "yes", "on")
control_socket_disable = True  # its default path is per user, shared by every instance; nothing uses it


def post_worker_init(worker):
    """A worker leaves SIGINT to the master. A terminal's Ctrl-C reaches the whole process group: a gthread worker
    that stopped on its own SIGINT could be inside its thread pool's shutdown when the master's SIGQUIT re-entered
    it and blocked on the same lock (seen: 21-22 s stops, the worker SIGKILLed after graceful_timeout). The master
    stops the workers on its SIGINT anyway."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
