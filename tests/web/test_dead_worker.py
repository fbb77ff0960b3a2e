"""A run whose worker stopped beating says so (since when, retried when), from real heartbeat timestamps."""

import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from cloudsched_web.runs.models import Run, mark_sweep, stale_after_s
from cloudsched_web.runs.services import requeue_abandoned
from cloudsched_web.runs.tasks import sweep_queued_runs

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


@pytest.fixture
def beat(settings):
    settings.RUN_HEARTBEAT_EVERY_S = 10
    settings.RUN_STALE_AFTER_S = 0  # the default: derived from the heartbeat
    mark_sweep()  # a worker with the beat is up (the tests below without one say so)
    return 10


def _running(scenario, silent_s, attempts=1):
    now = timezone.now()
    return Run.objects.create(
        scenario=scenario, config=scenario.config, status=Run.Status.RUNNING, progress=0.45, attempts=attempts,
        started_at=now - timedelta(seconds=600), heartbeat_at=now - timedelta(seconds=silent_s), task_id="t-1",
    )  # fmt: skip


def test_the_stale_limit_is_three_missed_heartbeats(beat):
    assert stale_after_s() == 3 * beat


def test_the_stale_limit_setting_still_wins_when_set(beat, settings):
    settings.RUN_STALE_AFTER_S = 45
    assert stale_after_s() == 45


def test_the_settings_default_follows_the_heartbeat_environment_variable():
    code = "import django; django.setup(); from cloudsched_web.runs.models import stale_after_s; print(stale_after_s())"
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "cloudsched_web.test_settings",
        "RUN_HEARTBEAT_EVERY_S": "7",
    }
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "21"


def test_a_fresh_heartbeat_is_not_reported(alice_client, scenario, beat):
    run = _running(scenario, silent_s=beat)  # one beat late: still answering
    assert alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"] is None
    assert "stopped answering" not in alice_client.get(f"/runs/{run.pk}/").content.decode()


def test_a_silent_worker_is_reported_with_when_it_stopped_and_when_the_run_is_retried(alice_client, scenario, beat):
    run = _running(scenario, silent_s=2.5 * beat)
    stalled = alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"]
    since = datetime.fromisoformat(stalled["since"])
    assert since == run.heartbeat_at
    assert datetime.fromisoformat(stalled["retry_at"]) == since + timedelta(seconds=3 * beat)
    assert "stopped answering at " + run.heartbeat_at.strftime("%H:%M:%S") in stalled["text"]
    assert "requeued at about " + (since + timedelta(seconds=3 * beat)).strftime("%H:%M:%S") in stalled["text"]
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="run-stalled"' in page and "stopped answering at" in page
    api = alice_client.get(f"/api/v1/runs/{run.pk}/status")  # the API answers the same shape (session auth)
    assert api.status_code == 200
    assert abs(datetime.fromisoformat(api.json()["stalled"]["since"]) - since) < timedelta(milliseconds=1)


def test_past_the_limit_the_page_says_the_next_sweep_and_the_sweeper_requeues_it(alice_client, scenario, beat):
    run = _running(scenario, silent_s=3 * beat + 1)
    assert "at the next sweep" in alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"]["text"]
    assert requeue_abandoned(stale_after_s()) == 1
    status = alice_client.get(f"/runs/{run.pk}/status.json").json()
    assert status["status"] == "queued" and status["progress"] == 0.0 and status["stalled"] is None
    assert "worker stopped answering" in status["message"]


def test_a_run_out_of_attempts_is_reported_as_not_retried(alice_client, scenario, beat):
    run = _running(scenario, silent_s=2.5 * beat, attempts=Run.MAX_ATTEMPTS)
    stalled = alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"]
    assert stalled["retry_at"] is None and "not retried" in stalled["text"]


def test_a_heartbeat_younger_than_the_limit_is_not_requeued(scenario, beat):
    _running(scenario, silent_s=3 * beat - 5)
    assert requeue_abandoned(stale_after_s()) == 0


def test_without_a_sweeper_the_page_promises_no_requeue(alice_client, scenario, beat):
    from django.core.cache import cache

    cache.clear()  # the beat's mark is gone: no worker with the sweeper has run lately
    run = _running(scenario, silent_s=2.5 * beat)
    stalled = alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"]
    assert stalled["retry_at"] is None
    assert "No sweeper has run" in stalled["text"] and "requeued at" not in stalled["text"]
    sweep_queued_runs()  # the real sweep task marks itself, and the promise comes back
    stalled = alice_client.get(f"/runs/{run.pk}/status.json").json()["stalled"]
    assert stalled["retry_at"] is not None and "requeued at about" in stalled["text"]


def test_the_time_left_of_a_silent_worker_counts_down_and_never_grows(scenario, beat):
    run = _running(scenario, silent_s=0)  # 600 s in, 45 %: about 733 s left at its last report
    at = run.heartbeat_at
    seen = [run.remaining_s(at + timedelta(seconds=s)) for s in (0, 5, 10, 15, 60, 600, 3600)]
    assert seen[0] == pytest.approx(600 * 0.55 / 0.45)
    assert seen == sorted(seen, reverse=True) and seen[-1] == 0.0
    assert seen[1] == pytest.approx(seen[0] - 5)
