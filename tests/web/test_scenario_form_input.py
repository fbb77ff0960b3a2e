"""Bad input on the scenario and sweep forms: a message at the field, nothing saved, never a 500."""

import json

import pytest

from cloudsched_web.runs.models import Study
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def _post(client, config, url="/scenarios/new/"):
    text = config if isinstance(config, str) else json.dumps(config)
    return client.post(url, {"family": "toy", "config": text})


def test_deeply_nested_json_is_a_message_on_the_config_field(alice_client):
    response = _post(alice_client, "[" * 100_000)
    assert response.status_code == 200
    assert "config: nested deeper than 32 levels (allowed: ≤ 32 levels)" in response.content.decode()
    assert not Scenario.objects.exists()


def test_deeply_nested_json_on_edit_keeps_the_saved_scenario(alice_client, scenario):
    before = dict(scenario.config)
    response = _post(alice_client, '{"family": "toy", "workload": ' + "[" * 5000, f"/scenarios/{scenario.pk}/edit/")
    assert response.status_code == 200 and "nested deeper than" in response.content.decode()
    scenario.refresh_from_db()
    assert scenario.config == before


def test_a_huge_integer_is_named_by_its_field(alice_client):
    response = _post(alice_client, '{"family": "toy", "seed": ' + "1" * 5000 + "}")
    assert "seed: an integer with 5000 digits (allowed: at most 4300 digits)" in response.content.decode()
    assert not Scenario.objects.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"workload": {"jobs": "100"}},
            "workload.jobs: must be a whole number, not text (allowed: a whole number)",
        ),
        ({"seed": True}, "seed: must be a whole number, not true/false (allowed: a whole number)"),
        ({"workload": {"mean_duration_s": "5"}}, "workload.mean_duration_s: must be a number, not text"),
    ],
)
def test_a_wrong_json_type_is_named_with_the_expected_type(alice_client, change, message):
    response = _post(alice_client, {"family": "toy", **change})
    assert message in response.content.decode()
    assert not Scenario.objects.exists()


def test_the_wizards_numbers_are_saved(alice_client, alice):
    # The wizard sends numbers as JSON numbers; an integer is a valid float.
    response = _post(alice_client, {"family": "toy", "workload": {"jobs": 7, "mean_duration_s": 3}})
    assert response.status_code == 302
    assert Scenario.objects.get(owner=alice).config["workload"] == {"jobs": 7, "mean_duration_s": 3.0}


def test_a_sweep_of_a_whole_number_field_with_a_fraction_names_the_values(alice_client, scenario):
    response = alice_client.post(f"/scenarios/{scenario.pk}/sweep/", {"axis1": "workload.jobs", "values1": "5, 7.5"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "points[1].workload.jobs: must be a whole number" in page and "a whole number" in page
    assert not Study.objects.exists()


def test_a_sweep_of_a_number_field_takes_whole_numbers(alice_client, scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            f"/scenarios/{scenario.pk}/sweep/", {"axis1": "workload.mean_duration_s", "values1": "5, 7.5"}
        )
    assert response.status_code == 302
    assert Study.objects.get().runs.count() == 2
