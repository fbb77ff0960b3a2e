"""A pool process that grew past WORKER_RECYCLE_MEMORY_MB is replaced before it takes the next run."""

import time

import pytest

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario
from tests.services import worker_on_own_redis

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
THRESHOLD_MB = 700


@pytest.fixture
def worker(tmp_path):
    with worker_on_own_redis(tmp_path, WORKER_RECYCLE_MEMORY_MB=str(THRESHOLD_MB)) as w:
        yield w


def _run(alice, allocate_mb, worker):
    config = {"family": "toy", "name": "mem", "seed": 1, "algorithms": ["fcfs"], "workload": {"jobs": 5},
              "params": {"allocate_mb": allocate_mb}}  # fmt: skip
    run = submit_run(Scenario.objects.create(owner=alice, family="toy", name="mem", config=config))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            assert run.status == Run.Status.SUCCEEDED, run.error + worker.log()
            return run
        time.sleep(0.1)
    raise AssertionError("run not finished\n" + worker.log())


def _child(worker, other_than=None, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = worker.pool_children()
        if len(children) == 1 and children[0] != other_than:
            return children[0]
        time.sleep(0.1)
    raise AssertionError(f"pool children {worker.pool_children()} (was {other_than})\n" + worker.log())


def _rss_peak_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        text = f.read()
    return int(text.split("VmHWM:")[1].split()[0]) / 1024


def test_a_pool_process_that_grew_past_the_threshold_is_replaced_and_a_small_run_keeps_it(alice, worker):
    first = _child(worker)
    assert _rss_peak_mb(first) < THRESHOLD_MB  # the rule, not a bloated start, decides
    _run(alice, 0, worker)
    assert worker.pool_children() == [first]  # under the threshold: kept
    _run(alice, THRESHOLD_MB + 200, worker)  # touched pages: the child's peak RSS passes the threshold
    second = _child(worker, other_than=first)
    assert _rss_peak_mb(second) < THRESHOLD_MB
    run = _run(alice, 0, worker)
    assert run.status == Run.Status.SUCCEEDED and worker.pool_children() == [second]
