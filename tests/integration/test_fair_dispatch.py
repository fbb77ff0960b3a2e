"""Two users share one worker: bob's single run starts soon after a worker is free, whatever alice queued."""

import time

import pytest
from django.utils import timezone

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run, submit_study
from cloudsched_web.scenarios.models import Scenario
from tests.services import worker_on_own_redis

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
RUN_S = 0.5  # each of alice's runs: 5 jobs × 0.1 s


def _config(name, sleep_s):
    return {"family": "toy", "name": name, "seed": 1, "algorithms": ["fcfs"], "workload": {"jobs": 5},
            "params": {"sleep_s": sleep_s}}  # fmt: skip


@pytest.fixture
def worker(tmp_path):
    with worker_on_own_redis(tmp_path) as w:
        yield w


def _wait(run, until, timeout, worker):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if until(run):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run.pk} still {run.status}\n{worker.log()[-3000:]}")


def test_bobs_run_starts_within_a_few_seconds_behind_alices_200_point_study(alice, bob, worker, settings):
    assert settings.RUN_DISPATCH_PER_OWNER == 1
    study_scenario = Scenario.objects.create(owner=alice, family="toy", name="study", config=_config("s", 0.1))
    study = submit_study(study_scenario, [_config(f"p{i}", 0.1) for i in range(200)])
    first = study.runs.order_by("id").first()
    _wait(first, lambda r: r.status != Run.Status.QUEUED, 60, worker)
    at_broker = Run.objects.filter(study=study, status=Run.Status.QUEUED, dispatched_at__isnull=False).count()
    assert at_broker <= 1  # the rest of the study is held in the database
    submitted = timezone.now()
    bob_run = submit_run(Scenario.objects.create(owner=bob, family="toy", name="bob", config=_config("b", 0.0)))
    bob_run = _wait(bob_run, lambda r: r.started_at is not None, 60, worker)
    waited = (bob_run.started_at - submitted).total_seconds()
    print(f"bob waited {waited:.2f} s behind alice's study")
    # At most alice's running run and the one of hers waiting ahead of his: two runs, plus overheads.
    assert waited < 2 * RUN_S + 3, waited
    done = Run.objects.filter(study=study, status=Run.Status.SUCCEEDED).count()
    assert done < 20  # without fairness bob's run would have waited for all 200 (≥ 100 s)
    # alice's study keeps flowing after bob's run: nothing of hers is stranded by the holding.
    later = study.runs.order_by("id")[5]
    _wait(later, lambda r: r.status == Run.Status.SUCCEEDED, 60, worker)
