"""Plug-ins in a real worker process: one that raises, one that answers wrongly, one that calls sys.exit and one
that sleeps past the time limit each fail their own run with a message naming the plug-in (the time limit as the
run's limit); beside a paper's algorithm a failing plug-in fails only its own units; the worker carries on."""

import time

import pytest
from django.db import connection

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario
from tests.plugin_pkg import installed
from tests.services import Worker, point_broker, redis_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _finished(run, worker, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run stuck in {run.status}: {run.error}\n{worker.log()}")


def _submit(alice, algorithm):
    config = {"family": "backfill", "name": algorithm, "algorithms": [algorithm], "datacenter": {"processors": 32},
              "workload": {"n_jobs": 60, "feitelson": {"max_size": 32}}}  # fmt: skip
    return submit_run(Scenario.objects.create(owner=alice, family="backfill", name=algorithm, config=config))


def test_failing_plugins_fail_their_runs_by_name_and_the_worker_carries_on(alice, tmp_path):
    site = tmp_path / "site"
    with redis_server(tmp_path) as url, installed(site):
        point_broker(url)
        w = Worker(url, connection.settings_dict["NAME"], tmp_path / "w.log", RUN_SOFT_TIME_LIMIT_S="2",
                   PYTHONPATH=str(site))  # fmt: skip
        try:
            w.wait_ready()
            raising = _finished(_submit(alice, "raising"), w)
            assert raising.status == Run.Status.FAILED
            assert "backfill.raising (cloudsched-test-orders 0.3.1) failed in its queue order" in raising.error
            assert "ZeroDivisionError" in raising.error
            short = _finished(_submit(alice, "short"), w)
            assert short.status == Run.Status.FAILED and "invalid decision" in short.error
            sleepy = _finished(_submit(alice, "sleepy"), w)
            assert sleepy.status == Run.Status.FAILED and "time limit of 2 s" in sleepy.error
            assert "interrupted plug-in backfill.sleepy (cloudsched-test-orders 0.3.1)" in sleepy.error
            vm = {"family": "vm_reservations", "name": "pm-zero", "algorithms": ["ffd", "pm-zero"],
                  "workload": {"kind": "generator", "n_requests": 50}}  # fmt: skip
            overfull = _finished(submit_run(Scenario.objects.create(owner=alice, family="vm_reservations",
                                                                    name="pm-zero", config=vm)), w)  # fmt: skip
            assert (overfull.status, overfull.outcome) == (Run.Status.SUCCEEDED, "partly failed")  # ffd's kept
            assert "vm_reservations.pm-zero (cloudsched-test-orders 0.3.1) failed in its PM choice" in overfull.error
            assert "would over-fill it" in overfull.error
            assert set(overfull.summary) == {"ffd"}
            exits = _finished(_submit(alice, "exits"), w)  # sys.exit in a plug-in: its own failure, the worker lives
            assert exits.status == Run.Status.FAILED and exits.attempts == 1
            assert "backfill.exits (cloudsched-test-orders 0.3.1) failed in its queue order: called sys.exit(3)" in (
                exits.error
            )
            fine = _finished(_submit(alice, "widest"), w)
            assert fine.status == Run.Status.SUCCEEDED, fine.error + w.log()
            assert fine.load_header()["plugins"]["widest"]["version"] == "0.3.1"
        finally:
            w.stop()
