import pytest

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def test_a_sweep_runs_every_point(api, scenario, run_now):
    response = run_now(api.post, f"/scenarios/{scenario.pk}/studies", {"axes": {"datacenter.machines": [1, 2, 3]}})
    assert response.status_code == 202
    data = api.get(f"/studies/{response.json()['id']}").json()
    assert data["axes"] == ["datacenter.machines"]
    assert [r["point"] for r in data["runs"]] == [{"datacenter.machines": m} for m in (1, 2, 3)]
    assert data["finished"] and data["status_counts"]["succeeded"] == 3
    assert all("makespan_s" in r["summary"]["fcfs"] for r in data["runs"])
    runs = api.get(f"/studies/{data['id']}/runs").json()
    assert [r["study_id"] for r in runs] == [data["id"]] * 3


def test_a_bad_sweep_is_400_and_creates_nothing(api, scenario):
    error = api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {"datacenter.machines": [1, 0]}}).json()["error"]
    assert error["field"] == "points[1].datacenter.machines"
    assert api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {}}).json()["error"]["field"] == "axes"
    assert api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {"seed.x": [1]}}).json()["error"]["field"] == "axes"
    assert api.post(f"/scenarios/{scenario.pk}/studies", {}).json()["error"]["field"] == "axes"
    assert not Study.objects.exists() and not Run.objects.exists()


def test_a_preset_study_saves_its_scenario(api, alice, run_now):
    response = run_now(api.post, "/studies", {"family": "toy", "preset": "machines_sweep"})
    assert response.status_code == 202
    data = response.json()
    assert Scenario.objects.get(owner=alice).pk == data["scenario_id"]
    assert "Graham" in data["claims"][0] and len(data["runs"]) == 3
    assert (
        api.post("/studies", {"family": "toy", "preset": "nope"}).json()["error"]["allowed"] == "one of machines_sweep"
    )
    assert api.post("/studies", {"family": "nope", "preset": "x"}).json()["error"]["field"] == "family"


def test_a_preset_study_reports_its_claims_verdicts_once_finished(api, run_now):
    created = run_now(api.post, "/studies", {"family": "toy", "preset": "machines_sweep", "scale": "small"}).json()
    assert created["preset"] == "machines_sweep" and created["scale"] == "small" and created["verdicts"] is None
    data = api.get(f"/studies/{created['id']}").json()
    assert data["finished"]
    assert [v["verdict"] for v in data["verdicts"]] == ["reproduced", "not reproduced", "not evaluated"]
    assert data["verdicts"][0]["text"].startswith("LPT never loses") and "m=4 →" in data["verdicts"][0]["measured"]


def test_an_unknown_scale_is_400_naming_it(api):
    error = api.post("/studies", {"family": "toy", "preset": "machines_sweep", "scale": "huge"}).json()["error"]
    assert error["field"] == "scale" and error["allowed"] == "one of paper, small"
    assert not Study.objects.exists()


def test_list_share_and_delete(api, client, scenario, run_now):
    study_id = run_now(api.post, f"/scenarios/{scenario.pk}/studies", {"axes": {"seed": [1, 2]}}).json()["id"]
    assert api.get("/studies", scenario=scenario.pk).json()["count"] == 1
    share = api.post(f"/studies/{study_id}/share")
    assert share.status_code == 201 and client.get(share.json()["url"]).status_code == 200
    assert api.get(f"/studies/{study_id}").json()["share_url"] == share.json()["url"]
    assert api.delete(f"/studies/{study_id}/share").status_code == 204
    assert client.get(share.json()["url"]).status_code == 404
    assert api.delete(f"/studies/{study_id}").status_code == 204
    assert not Run.objects.filter(study_id=study_id).exists()


def test_another_users_study_is_404_everywhere(api, bob_api, scenario):
    study_id = api.post(f"/scenarios/{scenario.pk}/studies", {"axes": {"seed": [1, 2]}}).json()["id"]
    for response in (
        bob_api.get(f"/studies/{study_id}"),
        bob_api.get(f"/studies/{study_id}/runs"),
        bob_api.delete(f"/studies/{study_id}"),
        bob_api.post(f"/studies/{study_id}/share"),
        bob_api.delete(f"/studies/{study_id}/share"),
    ):
        assert response.status_code == 404
    assert bob_api.get("/studies").json()["count"] == 0
    assert Study.objects.filter(pk=study_id).exists()
