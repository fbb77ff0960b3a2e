import pytest

from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def test_it_creates_a_validated_normalised_scenario(api, alice, toy_scenario):
    response = api.post("/scenarios", toy_scenario)
    assert response.status_code == 201
    data = response.json()
    scenario = Scenario.objects.get(pk=data["id"])
    assert scenario.owner == alice and scenario.family == "toy"
    assert data["config"]["datacenter"] == {"machines": 3}  # defaults filled in by the library
    assert data["url"].endswith(f"/scenarios/{scenario.pk}/")


def test_it_rejects_an_invalid_scenario_naming_every_field_and_saves_nothing(api, toy_scenario):
    bad = {**toy_scenario, "datacenter": {"machines": 0}, "repetitions": 1000}
    response = api.post("/scenarios", bad)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert {d["field"] for d in error["details"]} == {"datacenter.machines", "repetitions"}
    assert error["field"] in {"datacenter.machines", "repetitions"} and error["allowed"]
    assert not Scenario.objects.exists()


def test_unknown_family_lists_the_families(api):
    error = api.post("/scenarios", {"family": "nope"}).json()["error"]
    assert error["field"] == "family" and "toy" in error["allowed"]


def test_list_read_replace_patch_delete(api, scenario, toy_scenario):
    page = api.get("/scenarios", family="toy").json()
    assert page["count"] == 1 and page["items"][0]["id"] == scenario.pk
    assert api.get("/scenarios", family="backfill").json()["count"] == 0
    assert api.get(f"/scenarios/{scenario.pk}").json()["name"] == "toy example"
    replaced = api.put(f"/scenarios/{scenario.pk}", {**toy_scenario, "name": "renamed"}).json()
    assert replaced["name"] == "renamed"
    patched = api.patch(f"/scenarios/{scenario.pk}", {"datacenter": {"machines": 7}}).json()
    assert patched["config"]["datacenter"]["machines"] == 7 and patched["name"] == "renamed"
    assert api.patch(f"/scenarios/{scenario.pk}", {"seed": -1}).json()["error"]["field"] == "seed"
    assert api.delete(f"/scenarios/{scenario.pk}").status_code == 204
    assert api.get(f"/scenarios/{scenario.pk}").status_code == 404


def test_clone_copies_under_a_new_name(api, scenario):
    response = api.post(f"/scenarios/{scenario.pk}/clone", {"name": "copy"})
    assert response.status_code == 201
    data = response.json()
    assert data["id"] != scenario.pk and data["name"] == "copy"
    assert data["config"]["seed"] == scenario.config["seed"]
    assert api.post(f"/scenarios/{scenario.pk}/clone").json()["name"] == "toy example (copy)"


def test_another_users_scenario_is_404_everywhere(bob_api, scenario, toy_scenario):
    pk = scenario.pk
    assert bob_api.get("/scenarios").json()["count"] == 0
    for response in (
        bob_api.get(f"/scenarios/{pk}"),
        bob_api.put(f"/scenarios/{pk}", toy_scenario),
        bob_api.patch(f"/scenarios/{pk}", {"seed": 2}),
        bob_api.delete(f"/scenarios/{pk}"),
        bob_api.post(f"/scenarios/{pk}/clone"),
        bob_api.post(f"/scenarios/{pk}/runs"),
        bob_api.post(f"/scenarios/{pk}/studies", {"axes": {"seed": [1, 2]}}),
    ):
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert Scenario.objects.get(pk=pk).config == scenario.config
