"""Bad scenario bodies on the API: a 400 naming the field (or the body) and what is allowed, never a 500."""

import pytest

from cloudsched_web.runs.models import Study
from cloudsched_web.scenarios.models import Scenario

DEEP = "[" * 100_000


def _invalid(response, field):
    assert response.status_code == 400, response.content
    body = response.json()["error"]
    assert body["code"] == "invalid"
    assert body["field"] == field, body
    assert body["allowed"]
    return body


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_deeply_nested_json_is_a_400_naming_the_body(api, scenario, method):
    path = "/scenarios" if method == "POST" else f"/scenarios/{scenario.pk}"
    body = _invalid(api.send(method, path, raw=DEEP), "(body)")
    assert "nested deeper than 32 levels" in body["message"] and body["allowed"] == "≤ 32 levels"


def test_deeply_nested_json_to_a_schema_endpoint_is_a_400(api, scenario):
    response = api.send("POST", f"/scenarios/{scenario.pk}/studies", raw=DEEP)
    assert response.status_code == 400 and response.json()["error"]["code"] != "server_error"
    assert not Study.objects.exists()


def test_a_5000_digit_integer_names_its_field(api, toy_scenario):
    raw = '{"family": "toy", "workload": {"jobs": ' + "7" * 5000 + "}}"
    body = _invalid(api.post("/scenarios", raw=raw), "workload.jobs")
    assert "5000 digits" in body["message"]


@pytest.mark.parametrize(
    ("change", "field", "allowed"),
    [
        ({"seed": True}, "seed", "a whole number"),
        ({"workload": {"jobs": "100"}}, "workload.jobs", "a whole number"),
        ({"workload": {"mean_duration_s": "10"}}, "workload.mean_duration_s", "a number"),
        ({"datacenter": {"machines": 2.5}}, "datacenter.machines", "a whole number"),
    ],
)
def test_a_wrong_json_type_is_a_400_naming_the_field_and_type(api, toy_scenario, change, field, allowed):
    body = _invalid(api.post("/scenarios", {**toy_scenario, **change}), field)
    assert body["allowed"] == allowed
    assert not Scenario.objects.exists()


def test_patch_is_typed_too(api, scenario):
    before = dict(scenario.config)
    body = _invalid(api.patch(f"/scenarios/{scenario.pk}", {"workload": {"jobs": True}}), "workload.jobs")
    assert "not true/false" in body["message"]
    scenario.refresh_from_db()
    assert scenario.config == before


def test_an_integer_is_accepted_for_a_number(api, toy_scenario):
    response = api.post("/scenarios", {**toy_scenario, "workload": {"mean_duration_s": 10}})
    assert response.status_code == 201, response.content
    assert response.json()["config"]["workload"]["mean_duration_s"] == 10.0


def test_sweep_values_are_typed(api, scenario):
    response = api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {"workload.jobs": [5, "10"]}})
    body = _invalid(response, "points[1].workload.jobs")
    assert body["allowed"] == "a whole number"
    assert not Study.objects.exists()
