"""The API refuses a scenario a worker could not run (memory or time), naming the field and the limit."""

import pytest

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.budget import AT, OVER, backfill, limit_mb

pytestmark = pytest.mark.django_db


@pytest.fixture
def tight(settings):
    settings.RUN_MEMORY_LIMIT_MB = limit_mb()
    return settings


def test_it_saves_a_scenario_at_the_limit_and_refuses_one_just_over(api, tight):
    assert api.post("/scenarios", backfill(AT)).status_code == 201
    response = api.post("/scenarios", backfill(OVER))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "workload.n_jobs"
    assert "needs about" in error["message"] and "21,000 jobs" in error["message"]
    assert "RUN_MEMORY_LIMIT_MB" in error["allowed"]
    assert Scenario.objects.count() == 1


def test_it_refuses_to_run_a_saved_scenario_over_a_limit_lowered_since(api, alice, tight):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="big", config=backfill(AT, 2))
    response = api.post(f"/scenarios/{scenario.pk}/runs")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "repetitions"  # one repetition would fit
    assert Run.objects.count() == 0


def test_a_sweep_with_one_point_over_the_limit_creates_nothing(api, alice, tight):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="s", config=backfill(AT))
    response = api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {"workload.n_jobs": [AT, OVER]}})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "points[1].workload.n_jobs"
    assert Study.objects.count() == 0 and Run.objects.count() == 0


def test_a_limit_of_zero_means_none(api, settings):
    settings.RUN_MEMORY_LIMIT_MB = 0
    assert api.post("/scenarios", backfill(OVER, 3)).status_code == 201


def test_it_refuses_a_scenario_over_the_time_limit(api, settings):
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 1  # the limit is whole seconds: a scenario estimated above 1 s
    response = api.post("/scenarios", backfill(OVER, repetitions=2))
    assert response.status_code == 400
    error = response.json()["error"]
    assert "computing" in error["message"] and "RUN_SOFT_TIME_LIMIT_S" in error["allowed"]
