"""Pages refuse what a worker could not run before anything is queued: the wizard, Run, sweeps, presets."""

import json

import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.services import create_preset_study, submit_sweep
from cloudsched_web.scenarios.models import Scenario
from tests.budget import AT, OVER, backfill, limit_mb

pytestmark = pytest.mark.django_db


@pytest.fixture
def tight(settings):
    settings.RUN_MEMORY_LIMIT_MB = limit_mb()
    return settings


def _post_form(client, config):
    return client.post("/scenarios/new/", {"family": "backfill", "config": json.dumps(config)})


def test_the_wizard_saves_a_scenario_at_the_limit_and_refuses_one_just_over(alice_client, alice, tight):
    assert _post_form(alice_client, backfill(AT)).status_code == 302
    response = _post_form(alice_client, backfill(OVER))
    page = response.content.decode()
    assert response.status_code == 200
    assert "workload.n_jobs: needs about" in page and "this server&#x27;s runs may use" in page
    assert Scenario.objects.filter(owner=alice).count() == 1


def test_run_refuses_a_scenario_over_a_limit_lowered_since_it_was_saved(alice_client, alice, tight):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="big", config=backfill(OVER))
    response = alice_client.post(f"/scenarios/{scenario.pk}/run/", follow=True)
    assert "needs about" in response.content.decode()
    assert Run.objects.count() == 0


def test_a_sweep_is_created_at_the_limit_and_refused_whole_just_over(alice, tight, django_capture_on_commit_callbacks):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="s", config=backfill(AT // 2))
    with pytest.raises(schedulers.ScenarioError) as refused:
        submit_sweep(scenario, {"workload.n_jobs": [AT // 2, OVER]})
    assert [e["field"] for e in refused.value.errors] == ["points[1].workload.n_jobs"]
    assert Study.objects.count() == 0 and Run.objects.count() == 0
    with django_capture_on_commit_callbacks(execute=False):  # queued, not run
        study = submit_sweep(scenario, {"workload.n_jobs": [AT // 2, AT]})
    assert study.runs.count() == 2


def test_a_preset_study_over_the_limit_saves_nothing(alice, settings):
    settings.RUN_MEMORY_LIMIT_MB = 1  # below any estimate
    with pytest.raises(schedulers.ScenarioError) as refused:
        create_preset_study(alice, "backfill", next(iter(schedulers.get_family("backfill").presets)), "small")
    assert refused.value.errors[0]["field"].startswith("points[0].")
    assert Scenario.objects.count() == 0 and Study.objects.count() == 0
