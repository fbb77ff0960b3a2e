"""SQLite gets WAL, IMMEDIATE transactions and a busy timeout; a PostgreSQL DATABASE_URL is left as it is."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINT_DATABASE = "import json, cloudsched_web.settings as s; print(json.dumps(s.DATABASES['default'], default=str))"


def _database(tmp_path, **env):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | {
        "CLOUDSCHED_VAR_DIR": str(tmp_path),
        "STATIC_ROOT": str(tmp_path / "static"),
        **env,
    }
    out = subprocess.run([sys.executable, "-c", PRINT_DATABASE], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_sqlite_waits_for_the_write_lock_at_begin_in_wal_mode(tmp_path):
    db = _database(tmp_path)
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"  # no lock upgrade inside a transaction
    assert db["OPTIONS"]["timeout"] >= 10  # busy timeout, seconds
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]


def test_a_postgresql_url_gets_none_of_the_sqlite_options(tmp_path):
    db = _database(tmp_path, DATABASE_URL="postgres://u:pw@db.example.org:5432/cloudsched")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["NAME"] == "cloudsched" and db["HOST"] == "db.example.org"
    assert "transaction_mode" not in db.get("OPTIONS", {}) and "init_command" not in db.get("OPTIONS", {})
