"""A real redis-server and a real Celery worker process run scenarios end to end."""

import os
import signal
import time

import pytest
from django.db import connection

from cloudsched_web.celery import app
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import requeue_abandoned, requeue_stale, submit_run
from cloudsched_web.scenarios.models import Scenario
from tests.services import Worker, free_port, point_broker, redis_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def broker(tmp_path):
    with redis_server(tmp_path) as url:
        point_broker(url)
        yield url


@pytest.fixture
def worker(broker, tmp_path):
    w = Worker(broker, connection.settings_dict["NAME"], tmp_path / "worker.log")
    w.wait_ready()
    yield w
    w.stop()


def _wait(run, until, timeout=60, worker=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if until(run):
            return run
        time.sleep(0.2)
    log = worker.log() if worker else ""
    raise AssertionError(f"run stuck in {run.status} ({run.progress}): {run.error}\n{log}")


def _scenario(alice, **params):
    config = {
        "family": "toy",
        "name": "it",
        "seed": 3,
        "algorithms": ["fcfs", "lpt"],
        "workload": {"jobs": 40},
        "params": params,
    }
    return Scenario.objects.create(owner=alice, family="toy", name="it", config=config)


def test_a_run_goes_through_redis_and_a_worker_process(alice, worker):
    run = submit_run(_scenario(alice))  # autocommit: on_commit sends at once
    run = _wait(run, lambda r: r.is_finished, worker=worker)
    assert run.status == Run.Status.SUCCEEDED, run.error + worker.log()
    assert run.load_result()["runs"][0]["metrics"]["jobs"] == 40
    assert run.attempts == 1 and run.progress == 1.0
    assert run.worker.startswith("celery@")  # the reproducibility stamp names the worker host


def test_progress_is_reported_while_running(alice, worker):
    run = submit_run(_scenario(alice, sleep_s=0.05))
    seen = set()
    _wait(run, lambda r: seen.add(round(r.progress, 1)) or r.is_finished)
    assert len(seen - {0.0, 1.0}) >= 1  # intermediate progress was visible to the web side


def test_a_run_survives_its_worker_process_dying(alice, worker):
    run = submit_run(_scenario(alice, sleep_s=0.1))
    _wait(run, lambda r: r.status == Run.Status.RUNNING and r.progress > 0)
    for pid in worker.pool_children():
        os.kill(pid, signal.SIGKILL)  # the pool child dies mid-run: WorkerLostError, message rejected + requeued
    run = _wait(run, lambda r: r.is_finished, timeout=120)
    assert run.status == Run.Status.SUCCEEDED, run.error + worker.log()
    assert run.attempts == 2


def test_a_run_submitted_while_redis_is_stopped_waits_and_is_dispatched_when_it_is_back(alice, tmp_path, settings):
    settings.RUN_DISPATCH_PER_OWNER = 0  # the first run's message, lost with Redis, must not hold the second back
    port = free_port()
    with redis_server(tmp_path, port) as url:
        point_broker(url)
        submit_run(_scenario(alice))  # a warm connection pool, as on a running server
    # redis-server is stopped now.
    app.conf.task_publish_retry = False
    try:
        run = submit_run(_scenario(alice))
    finally:
        app.conf.task_publish_retry = True
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.waiting_for_broker  # what the run page shows
    with redis_server(tmp_path, port):  # the same Redis comes back, empty (nothing was persisted)
        point_broker(url)
        assert run.pk in requeue_stale()  # what the periodic sweeper does
        run.refresh_from_db()
        assert not run.waiting_for_broker
        assert requeue_stale() == []  # dispatched once, not again
        # A worker started now runs it. (A worker that lived through the outage may stop consuming
        # after the reconnect: Celery/Kombu issues #8030, #10205; supervise and restart workers.)
        w = Worker(url, connection.settings_dict["NAME"], tmp_path / "w.log")
        try:
            w.wait_ready()
            run = _wait(run, lambda r: r.is_finished, timeout=120, worker=w)
        finally:
            w.stop()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 1


def test_time_and_memory_limits_fail_the_run_readably_and_the_worker_survives(alice, broker, tmp_path):
    w = Worker(
        broker,
        connection.settings_dict["NAME"],
        tmp_path / "w.log",
        RUN_SOFT_TIME_LIMIT_S="2",
        RUN_MEMORY_LIMIT_MB="1024",
    )
    try:
        w.wait_ready()
        slow = _wait(submit_run(_scenario(alice, sleep_s=1.0)), lambda r: r.is_finished, worker=w)
        assert slow.status == Run.Status.FAILED and "time limit of 2 s" in slow.error
        greedy = _wait(submit_run(_scenario(alice, allocate_mb=4096)), lambda r: r.is_finished)
        assert greedy.status == Run.Status.FAILED and "memory limit of 1024 MB" in greedy.error
        fine = _wait(submit_run(_scenario(alice)), lambda r: r.is_finished)
        assert fine.status == Run.Status.SUCCEEDED, w.log()
    finally:
        w.stop()


def test_a_run_whose_whole_worker_is_killed_is_requeued_by_the_sweeper_and_finishes_once(alice, broker, tmp_path):
    first = Worker(broker, connection.settings_dict["NAME"], tmp_path / "w1.log")
    first.wait_ready()
    run = submit_run(_scenario(alice, sleep_s=0.1))
    _wait(run, lambda r: r.status == Run.Status.RUNNING and r.progress > 0, worker=first)
    for pid in [*first.pool_children(), first.proc.pid]:
        os.kill(pid, signal.SIGKILL)  # the whole worker dies; its message stays unacknowledged in Redis
    first.stop()
    time.sleep(2.5)
    assert requeue_abandoned(stale_after_s=2) == 1  # no heartbeat for 2 s: back to the queue
    assert requeue_stale() == [run.pk]
    second = Worker(broker, connection.settings_dict["NAME"], tmp_path / "w2.log")
    try:
        second.wait_ready()
        run = _wait(run, lambda r: r.is_finished, timeout=120, worker=second)
    finally:
        second.stop()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 2
    assert run.load_result()["runs"][0]["metrics"]["jobs"] == 40
