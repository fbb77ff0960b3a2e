import pytest
from django.utils import timezone

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation

pytestmark = pytest.mark.django_db


def _run(scenario, **fields):
    return Run.objects.create(scenario=scenario, config=scenario.config, **fields)


def test_it_runs_once_even_if_delivered_twice(scenario):
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    first_finish = run.finished_at
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED
    assert run.attempts == 1 and run.finished_at == first_finish
    assert run.load_result()["family"] == "toy"


def test_a_stale_running_row_is_taken_over(scenario):
    stale = timezone.now() - timezone.timedelta(hours=1)
    run = _run(scenario, status=Run.Status.RUNNING, heartbeat_at=stale, attempts=1)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 2


def test_a_live_running_row_is_left_alone(scenario):
    run = _run(scenario, status=Run.Status.RUNNING, heartbeat_at=timezone.now())
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


def test_invalid_config_fails_with_a_readable_message(scenario):
    run = _run(scenario)
    Run.objects.filter(pk=run.pk).update(config={**scenario.config, "repetitions": 0})
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "repetitions" in run.error and "≥ 1" in run.error


def test_a_cancelled_run_stays_cancelled(scenario):
    run = _run(scenario, status=Run.Status.CANCELLED)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and run.result_blob is None


def test_editing_the_scenario_does_not_change_a_submitted_run(scenario):
    run = _run(scenario)
    scenario.config = {**scenario.config, "seed": 999}
    scenario.save()
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.load_result()["seed"] == 1


def test_a_run_whose_worker_died_three_times_fails_instead_of_looping(scenario):
    run = _run(scenario, status=Run.Status.QUEUED, attempts=3)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "died 3 times" in run.error


def test_a_failure_while_storing_the_result_is_recorded(scenario, monkeypatch):
    from cloudsched_web.runs import page

    monkeypatch.setattr(page, "summarize", lambda doc: 1 / 0)
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "ZeroDivisionError" in run.error
