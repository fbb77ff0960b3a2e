"""The admin's scenario change form saves what it says it saved."""

import json

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw-unused-123"))
    return client


def _form(scenario, **changes):
    data = {
        "owner": scenario.owner_id,
        "family": scenario.family,
        "name": scenario.name,
        "config": json.dumps(scenario.config),
    }
    data.update(changes)
    return data


def test_a_name_edit_in_the_admin_is_saved_in_the_row_and_the_configuration(admin_client, scenario):
    url = f"/admin/scenarios/scenario/{scenario.pk}/change/"
    response = admin_client.post(url, _form(scenario, name="renamed by the admin"), follow=True)
    assert "was changed successfully" in response.content.decode()
    scenario.refresh_from_db()
    assert scenario.name == "renamed by the admin"
    assert scenario.config["name"] == "renamed by the admin"  # what a run of it will carry


def test_a_name_edited_inside_the_configuration_is_kept_too(admin_client, scenario):
    config = {**scenario.config, "name": "renamed in the JSON"}
    admin_client.post(f"/admin/scenarios/scenario/{scenario.pk}/change/", _form(scenario, config=json.dumps(config)))
    scenario.refresh_from_db()
    assert scenario.name == scenario.config["name"] == "renamed in the JSON"


def test_the_family_is_shown_read_only_and_a_posted_family_changes_nothing(admin_client, scenario):
    url = f"/admin/scenarios/scenario/{scenario.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="family"' not in page  # no input that would look editable
    assert "comes from the configuration" in page
    admin_client.post(url, _form(scenario, family="backfill"))
    scenario.refresh_from_db()
    assert scenario.family == scenario.config["family"] == "toy"


def test_an_invalid_configuration_is_refused_with_the_field_named(admin_client, scenario):
    before = scenario.config
    config = {**before, "workload": {"jobs": 0}}
    url = f"/admin/scenarios/scenario/{scenario.pk}/change/"
    response = admin_client.post(url, _form(scenario, config=json.dumps(config)))
    assert response.status_code == 200 and "workload.jobs" in response.content.decode()
    scenario.refresh_from_db()
    assert scenario.config == before


def _backfill(alice, **workload):
    from cloudsched_web.scenarios.models import Scenario

    config = {"family": "backfill", "name": "bf", "workload": {"n_jobs": 50, **workload}}
    return Scenario.objects.create(owner=alice, family="backfill", name="bf", config=config)


def test_the_admin_accepts_a_scenario_as_the_wizard_and_the_api_do(admin_client, alice, settings):
    """One accepting path: the admin refuses what would not fit the run limits and a trace its owner may not use,
    naming the field, and stores nothing for it (it once validated the fields only)."""
    scenario = _backfill(alice)
    url = f"/admin/scenarios/scenario/{scenario.pk}/change/"
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 1  # the budget of a small server
    huge = {**scenario.config, "workload": {"n_jobs": 200_000}}
    page = admin_client.post(url, _form(scenario, config=json.dumps(huge))).content.decode()
    assert "workload.n_jobs" in page and "stops a run after 1 s" in page
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 3600
    foreign = {**scenario.config, "workload": {"kind": "trace", "trace": "sha256:" + "0" * 64}}
    page = admin_client.post(url, _form(scenario, config=json.dumps(foreign))).content.decode()
    assert "workload.trace" in page
    scenario.refresh_from_db()
    assert scenario.config["workload"] == {**scenario.config["workload"], "n_jobs": 50}
    fine = {**scenario.config, "workload": {**scenario.config["workload"], "n_jobs": 60}}
    response = admin_client.post(url, _form(scenario, config=json.dumps(fine)), follow=True)
    assert "was changed successfully" in response.content.decode()
    scenario.refresh_from_db()
    assert scenario.config["workload"]["n_jobs"] == 60 and scenario.family == "backfill"
