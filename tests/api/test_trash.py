"""DELETE on the API moves to the trash: gone from every list, detail, export and share link; restorable."""

import pytest

from cloudsched_web.runs import trash
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import shared_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(scenario):
    return shared_world(scenario)


def _visible(api, client, world):
    s, r, st, p = world["scenario"], world["run"], world["study"], world["point"]
    return {
        "scenario": api.get(f"/scenarios/{s.pk}").status_code,
        "run": api.get(f"/runs/{r.pk}").status_code,
        "status": api.get(f"/runs/{r.pk}/status").status_code,
        "result": api.get(f"/runs/{r.pk}/result").status_code,
        "export": api.get(f"/runs/{r.pk}/exports/metrics.csv").status_code,
        "point": api.get(f"/runs/{p.pk}").status_code,
        "study": api.get(f"/studies/{st.pk}").status_code,
        "study runs": api.get(f"/studies/{st.pk}/runs").status_code,
        "share": client.get(f"/share/{r.share_token}/").status_code,
        "scenario list": api.get("/scenarios").json()["count"],
        "run list": api.get("/runs").json()["count"],
        "study list": api.get("/studies").json()["count"],
    }


LIVE = dict.fromkeys(("scenario", "run", "status", "result", "export", "point", "study", "study runs", "share"), 200)
LIVE |= {"scenario list": 1, "run list": 2, "study list": 1}


def test_deleting_a_scenario_through_the_api_trashes_it_with_its_runs_and_studies(api, client, world):
    assert _visible(api, client, world) == LIVE
    assert api.delete(f"/scenarios/{world['scenario'].pk}").status_code == 204
    gone = _visible(api, client, world)
    assert gone == {**dict.fromkeys(LIVE, 404), "scenario list": 0, "run list": 0, "study list": 0}
    assert Scenario.all_objects.count() == 1 and Run.all_objects.count() == 2  # nothing deleted for good
    trash.restore(Scenario.all_objects.get())
    assert _visible(api, client, world) == LIVE


def test_deleting_a_run_through_the_api_trashes_it_alone(api, client, world):
    assert api.delete(f"/runs/{world['run'].pk}").status_code == 204
    seen = _visible(api, client, world)
    assert seen["run"] == seen["export"] == seen["share"] == 404 and seen["run list"] == 1
    assert seen["scenario"] == seen["point"] == 200
    assert api.delete(f"/runs/{world['run'].pk}").status_code == 404  # already in the trash


def test_deleting_a_study_through_the_api_trashes_it_with_its_runs(api, client, world):
    assert api.delete(f"/studies/{world['study'].pk}").status_code == 204
    seen = _visible(api, client, world)
    assert seen["study"] == seen["point"] == 404 and seen["study list"] == 0 and seen["run list"] == 1
    assert api.get(f"/runs?study={world['study'].pk}").json()["count"] == 0


def test_another_user_cannot_delete_my_things_through_the_api(bob_api, world):
    assert bob_api.delete(f"/scenarios/{world['scenario'].pk}").status_code == 404
    assert bob_api.delete(f"/runs/{world['run'].pk}").status_code == 404
    assert bob_api.delete(f"/studies/{world['study'].pk}").status_code == 404
    assert Scenario.objects.count() == 1 and Run.objects.count() == 2 and Study.objects.count() == 1


def test_the_api_lists_my_trash_and_restores_from_it(api, client, world):
    api.delete(f"/runs/{world['run'].pk}")
    api.delete(f"/scenarios/{world['scenario'].pk}")
    items = api.get("/trash").json()
    assert [(i["kind"], i["id"]) for i in items] == [("scenario", world["scenario"].pk), ("run", world["run"].pk)]
    assert items[0]["contents"] == "1 run(s), 1 study(ies)"
    refused = api.post(f"/trash/run/{world['run'].pk}/restore")
    assert refused.status_code == 409 and "restore the scenario first" in refused.json()["error"]["message"]
    assert api.post(f"/trash/scenario/{world['scenario'].pk}/restore").json()["restored"] is True
    assert api.post(f"/trash/run/{world['run'].pk}/restore").json()["restored"] is True
    assert _visible(api, client, world) == LIVE and api.get("/trash").json() == []
    assert api.post(f"/trash/run/{world['run'].pk}/restore").json()["restored"] is False  # already back


def test_another_user_neither_sees_nor_restores_my_trash(api, bob_api, world):
    api.delete(f"/scenarios/{world['scenario'].pk}")
    assert bob_api.get("/trash").json() == []
    assert bob_api.post(f"/trash/scenario/{world['scenario'].pk}/restore").status_code == 404
    assert Scenario.objects.count() == 0


def test_an_unknown_kind_is_a_400_naming_the_allowed_kinds(api, world):
    response = api.post(f"/trash/user/{world['scenario'].pk}/restore")
    assert response.status_code == 400, response.content
    assert "scenario" in response.content.decode()
