"""Real gunicorn (2 × 4 threads) and a real Celery worker on one SQLite file: concurrent writers get no 500.

The stack is bench/web_concurrency.py's, as run.sh starts it, everything in a temporary directory.
"""

import shutil
import sqlite3

import pytest

from bench.web_concurrency import run_bench

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server"),
]


def test_concurrent_writers_on_sqlite_never_get_database_is_locked(tmp_path):
    m = run_bench(rounds=3, uploads=4, upload_mb=1, writers=12, pages=12, deadline_s=400, tmp=tmp_path)
    assert m["requests"]["api clone"]["count"] == m["requests"]["run submit"]["count"] == 36
    assert m["requests"]["trace upload"]["count"] == 12
    assert m["5xx"] == 0, m["unexpected"]
    assert m["unexpected"] == []  # every upload, create and submit also did what it was asked
    assert m["locked_in_web_log"] == m["locked_in_worker_log"] == m["tracebacks_in_web_log"] == 0
    assert m["runs"] == {"succeeded": 2 + 36}, m["runs"]  # the prepared runs and the submitted ones
    with sqlite3.connect(tmp_path / "var" / "cloudsched.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
