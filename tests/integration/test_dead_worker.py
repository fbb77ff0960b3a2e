"""A whole worker killed mid-run: the run page says so, and the sweeper's limit follows the heartbeat."""

import os
import signal
import time

import pytest
from django.db import connection

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run
from cloudsched_web.runs.tasks import sweep_queued_runs
from tests.integration.test_celery_worker import _scenario, _wait
from tests.services import Worker, point_broker, redis_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
BEAT_S = "1"  # the workers beat every second, so three missed beats are 3 s


@pytest.fixture
def broker(tmp_path):
    with redis_server(tmp_path) as url:
        point_broker(url)
        yield url


def _poll(client, run, until, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(f"/runs/{run.pk}/status.json").json()
        if until(status):
            return status
        time.sleep(0.2)
    raise AssertionError(f"status never changed: {status}")


def test_a_killed_worker_is_shown_as_silent_and_its_run_is_retried_after_three_missed_beats(
    client, alice, broker, tmp_path, settings
):
    settings.RUN_HEARTBEAT_EVERY_S = int(BEAT_S)  # the web side reads the same heartbeat setting
    client.force_login(alice)
    db = connection.settings_dict["NAME"]
    first = Worker(broker, db, tmp_path / "w1.log", RUN_HEARTBEAT_EVERY_S=BEAT_S)
    first.wait_ready()
    run = submit_run(_scenario(alice, sleep_s=0.1))
    _wait(run, lambda r: r.status == Run.Status.RUNNING and r.progress > 0, worker=first)
    for pid in [*first.pool_children(), first.proc.pid]:
        os.kill(pid, signal.SIGKILL)  # the whole worker dies: no more heartbeats, no more progress
    first.stop()

    status = _poll(client, run, lambda s: s["stalled"] is not None)
    run.refresh_from_db()
    assert status["status"] == "running" and status["progress"] > 0  # the frozen bar, now explained
    assert status["stalled"]["since"] == run.heartbeat_at.isoformat()
    assert "stopped answering at" in status["stalled"]["text"]
    assert "stopped answering at" in client.get(f"/runs/{run.pk}/").content.decode()

    # The sweeper runs in a fresh worker whose only setting is the heartbeat: its stale limit
    # (3 beats = 3 s, not the old fixed 300 s) requeues the run, and that worker runs it.
    second = Worker(broker, db, tmp_path / "w2.log", RUN_HEARTBEAT_EVERY_S=BEAT_S)
    try:
        second.wait_ready()
        deadline = time.monotonic() + 60
        while run.status == Run.Status.RUNNING and time.monotonic() < deadline:
            sweep_queued_runs.delay()
            time.sleep(2)
            run.refresh_from_db()
        run = _wait(run, lambda r: r.is_finished, timeout=120, worker=second)
    finally:
        second.stop()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 2
    assert client.get(f"/runs/{run.pk}/status.json").json()["stalled"] is None
