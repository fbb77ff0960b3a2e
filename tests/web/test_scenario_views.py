import json
import re

import pytest

from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def test_it_requires_login(client):
    assert client.get("/").status_code == 302
    assert client.get("/scenarios/new/").url.startswith("/accounts/login/")


def test_new_form_is_prefilled_with_the_family_example(alice_client):
    page = alice_client.get("/scenarios/new/?family=toy").content.decode()
    assert "toy example" in page


def test_it_saves_a_valid_scenario_normalised(alice_client, alice):
    config = {"family": "toy", "name": "mine", "workload": {"jobs": 5}}
    response = alice_client.post("/scenarios/new/", {"family": "toy", "config": json.dumps(config)})
    scenario = Scenario.objects.get(owner=alice)
    assert response.url == f"/scenarios/{scenario.pk}/"
    assert scenario.name == "mine"
    assert scenario.config["datacenter"] == {"machines": 3}  # defaults filled in


def test_it_shows_every_bad_field_with_its_range_and_saves_nothing(alice_client):
    config = {"family": "toy", "seed": -5, "datacenter": {"machines": 10**9}}
    response = alice_client.post("/scenarios/new/", {"family": "toy", "config": json.dumps(config)})
    page = response.content.decode()
    assert response.status_code == 200
    assert "seed: must be at least 0 (allowed: ≥ 0, ≤ 9007199254740991)" in page
    assert "datacenter.machines" in page and "≤ 1000" in page
    assert Scenario.objects.count() == 0


def test_it_reports_broken_json_with_its_line(alice_client):
    response = alice_client.post("/scenarios/new/", {"family": "toy", "config": '{"family": "toy",\n  oops}'})
    assert response.status_code == 200
    assert "not valid JSON" in response.content.decode()
    assert "line 2" in response.content.decode()


def test_a_failed_edit_keeps_the_saved_scenario(alice_client, scenario):
    before = dict(scenario.config)
    alice_client.post(f"/scenarios/{scenario.pk}/edit/", {"family": "toy", "config": '{"family": "toy", "seed": "x"}'})
    scenario.refresh_from_db()
    assert scenario.config == before


def test_bob_cannot_see_edit_run_or_delete_alices_scenario(client, bob, scenario):
    client.force_login(bob)
    assert client.get(f"/scenarios/{scenario.pk}/").status_code == 404
    assert client.get(f"/scenarios/{scenario.pk}/edit/").status_code == 404
    assert client.post(f"/scenarios/{scenario.pk}/run/").status_code == 404
    assert client.post(f"/scenarios/{scenario.pk}/delete/").status_code == 404
    assert Scenario.objects.filter(pk=scenario.pk).exists()
    assert "toy example" not in client.get("/").content.decode()


def test_running_creates_a_run_and_executes_it_after_commit(alice_client, scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = alice_client.post(f"/scenarios/{scenario.pk}/run/")
    assert len(callbacks) == 1
    run = Run.objects.get(scenario=scenario)
    assert response.url == f"/runs/{run.pk}/"
    assert run.status == Run.Status.SUCCEEDED
    assert set(run.summary) == {"fcfs", "lpt"}


def test_run_needs_post(alice_client, scenario):
    assert alice_client.get(f"/scenarios/{scenario.pk}/run/").status_code == 405


def test_delete_moves_the_scenario_and_its_runs_to_the_trash(alice_client, scenario):
    Run.objects.create(scenario=scenario, config=scenario.config)
    alice_client.post(f"/scenarios/{scenario.pk}/delete/")
    assert not Scenario.objects.exists() and not Run.objects.exists()
    assert Scenario.all_objects.get().trashed_at == Run.all_objects.get().trashed_at is not None


def test_the_scenario_page_lists_every_run_and_study_a_page_at_a_time(alice_client, scenario):
    """No first-N list: 53 runs and 51 studies are counted and paged, each list with its own pager."""
    from cloudsched_web.runs.models import Study

    Run.objects.bulk_create([Run(scenario=scenario, config=scenario.config) for _ in range(53)])
    Study.objects.bulk_create([Study(scenario=scenario, name=f"study {k}") for k in range(51)])
    first = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "runs 1–50 of 53" in first and "studies 1–50 of 51" in first
    assert "?studies_page=1&amp;runs_page=2" in first and "?runs_page=1&amp;studies_page=2" in first
    last = alice_client.get(f"/scenarios/{scenario.pk}/?runs_page=2&studies_page=2").content.decode()
    assert "runs 51–53 of 53" in last and "studies 51–51 of 51" in last
    shown = set()
    for page in (first, last):
        shown |= {int(pk) for pk in re.findall(r'<td><a href="/runs/(\d+)/">', page)}
    assert shown == set(scenario.runs.values_list("pk", flat=True))
