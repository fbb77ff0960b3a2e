"""The API's study answers a verdict per reading: each reading of a preset study with its own verdicts and runs."""

import pytest

import schedulers
from cloudsched_web.runs.models import StudyReading

pytestmark = pytest.mark.django_db

FAMILY, PRESET, SCALE = "ep_jobs", "fig4", "small"


def test_a_preset_study_answers_each_reading_with_its_verdicts(api, run_now):
    created = run_now(api.post, "/studies", {"family": FAMILY, "preset": PRESET, "scale": SCALE}).json()
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    assert points > 0 and len(created["runs"]) == 2 * points
    data = api.get(f"/studies/{created['id']}").json()
    assert data["finished"]
    default, optra = data["readings"]
    assert (default["name"], default["default"], default["why"] != "") == ("static shares", True, True)
    assert (optra["name"], optra["default"], optra["params"]) == ("optra", False, {"baseline_allocation": "optra"})
    assert (default["state"], optra["state"], default["runs"], optra["runs"]) == (
        "evaluated",
        "evaluated",
        points,
        points,
    )
    # The default's verdicts are the study's; the alternative's are those stored from its own runs.
    assert default["verdicts"] == data["verdicts"] and len(data["verdicts"]) > 0
    stored = StudyReading.objects.get(study_id=data["id"], default=False).verdicts
    assert [v["verdict"] for v in optra["verdicts"]] == [v["verdict"] for v in stored]
    assert [v["verdict"] for v in optra["verdicts"]] != [v["verdict"] for v in default["verdicts"]]
    assert [r["reading"] for r in data["runs"]] == [""] * points + ["optra"] * points


def test_without_readings_a_preset_study_answers_none(api, run_now):
    toy = run_now(api.post, "/studies", {"family": "toy", "preset": "machines_sweep", "scale": "small"}).json()
    assert toy["readings"] == [] and {r["reading"] for r in toy["runs"]} == {""}
    left_out = api.post("/studies", {"family": FAMILY, "preset": PRESET, "scale": SCALE, "readings": False}).json()
    assert left_out["readings"] == [] and len(left_out["runs"]) == len(schedulers.preset(FAMILY, PRESET)["scenarios"])


def test_the_queue_cap_counts_the_reading_runs(api, settings):
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    settings.RUN_QUEUE_MAX_PER_USER = 2 * points - 1
    error = api.post("/studies", {"family": FAMILY, "preset": PRESET, "scale": SCALE}).json()["error"]
    assert error["field"] == "points" and f"this would add {2 * points:,}" in error["message"]
    settings.RUN_QUEUE_MAX_PER_USER = 2 * points
    assert len(api.post("/studies", {"family": FAMILY, "preset": PRESET, "scale": SCALE}).json()["runs"]) == 2 * points
