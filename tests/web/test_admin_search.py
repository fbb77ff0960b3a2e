"""The admin's search boxes: scenarios by name, family, owner (username or email) and description;
runs by the name of their scenario, now or when they ran."""

import pytest
from django.contrib.auth import get_user_model

from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "pw-unused-123"))
    return client


def _found(client, url, q):
    response = client.get(url, {"q": q})
    assert response.status_code == 200
    return {obj.pk for obj in response.context["cl"].result_list}


@pytest.fixture
def two_scenarios(alice, bob, toy_scenario):
    a = Scenario.objects.create(owner=alice, family="toy", name="Makespan study", config=toy_scenario,
                                description="Graham's bound on three machines")  # fmt: skip
    b = Scenario.objects.create(owner=bob, family="backfill", name="Backfill check", config=toy_scenario)
    return a, b


@pytest.mark.parametrize(
    ("q", "which"),
    [
        ("makespan", "a"),  # name
        ("backfill", "b"),  # family (and name)
        ("bob", "b"),  # owner's username
        ("alice@example", "a"),  # owner's email
        ("graham", "a"),  # description
    ],
)
def test_scenario_search_covers_name_family_owner_and_description(admin_client, two_scenarios, q, which):
    a, b = two_scenarios
    assert _found(admin_client, "/admin/scenarios/scenario/", q) == {(a if which == "a" else b).pk}


def test_scenario_search_finds_a_family_named_in_no_name(admin_client, alice, toy_scenario):
    mine = Scenario.objects.create(owner=alice, family="federated", name="clouds", config=toy_scenario)
    assert _found(admin_client, "/admin/scenarios/scenario/", "federated") == {mine.pk}


def test_run_search_finds_runs_by_the_name_they_ran_under_and_the_current_name(admin_client, two_scenarios):
    a, _ = two_scenarios
    run = Run.objects.create(scenario=a, config=a.config)
    assert run.scenario_name == "Makespan study"
    Scenario.objects.filter(pk=a.pk).update(name="Renamed since")
    assert _found(admin_client, "/admin/runs/run/", "makespan study") == {run.pk}
    assert _found(admin_client, "/admin/runs/run/", "renamed since") == {run.pk}
    assert _found(admin_client, "/admin/runs/run/", "backfill check") == set()
    page = admin_client.get("/admin/runs/run/").content.decode()
    assert "scenario (name when run)" in page.lower() and "Makespan study (now “Renamed since”)" in page
