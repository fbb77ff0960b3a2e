import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from cloudsched_web.runs.models import Run

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_admin_is_staff_only(alice_client):
    assert alice_client.get("/admin/").status_code == 302


def test_admin_lists_filters_and_searches_runs(client, scenario):
    admin = get_user_model().objects.create_superuser("root", "", "pw-unused-123")
    client.force_login(admin)
    run = Run.objects.create(scenario=scenario, config=scenario.config, summary={"fcfs": {"makespan_s": 12.5}})
    assert client.get("/admin/runs/run/?status__exact=queued&scenario__family=toy&q=toy").status_code == 200
    page = client.get(f"/admin/runs/run/{run.pk}/change/").content.decode()
    assert "makespan_s" in page
    assert client.get("/admin/scenarios/scenario/?family=toy&q=toy").status_code == 200


def test_check_deploy_is_clean_with_debug_off(tmp_path):
    env = {
        "DEBUG": "0",
        "SECRET_KEY": "k3Y-" + "abcdefghij" * 6,
        "PATH": "/usr/bin:/bin",
        "CLOUDSCHED_VAR_DIR": str(tmp_path),
        "STATIC_ROOT": str(tmp_path / "static"),  # nothing written into the checkout
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_a_missing_secret_key_is_generated_once_and_kept(tmp_path):
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    env = {
        "PATH": "/usr/bin:/bin",
        "CLOUDSCHED_VAR_DIR": str(tmp_path),
        "STATIC_ROOT": str(tmp_path / "static"),
        "DJANGO_SETTINGS_MODULE": "cloudsched_web.settings",
    }
    keys = {
        subprocess.run(
            [sys.executable, "-c", "import django; django.setup(); " + code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for _ in range(2)
    }
    assert len(keys) == 1 and len(keys.pop().strip()) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
