import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.services import create_preset_study, submit_study, submit_sweep
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def test_a_sweep_creates_one_run_per_grid_point_and_runs_them(scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2], "workload.jobs": [5, 10, 15]})
    assert study.axes == ["datacenter.machines", "workload.jobs"]
    runs = list(study.runs.order_by("id"))
    assert len(runs) == 6
    assert runs[0].point == {"datacenter.machines": 1, "workload.jobs": 5}
    assert runs[-1].config["workload"]["jobs"] == 15
    assert all(r.status == Run.Status.SUCCEEDED for r in Run.objects.filter(study=study))
    assert study.is_finished


def test_a_study_with_one_bad_point_is_not_created_at_all(scenario):
    with pytest.raises(schedulers.ScenarioError) as info:
        submit_sweep(scenario, {"datacenter.machines": [2, 0, 5000]})
    fields = [e["field"] for e in info.value.errors]
    assert fields == ["points[1].datacenter.machines", "points[2].datacenter.machines"]
    assert not Study.objects.exists() and not Run.objects.exists()


def test_study_size_and_axes_are_limited(scenario):
    with pytest.raises(schedulers.ScenarioError, match="points"):
        submit_study(scenario, [])
    with pytest.raises(schedulers.ScenarioError, match="1 or 2"):
        submit_sweep(scenario, {"a": [1], "b": [1], "c": [1]})


def test_a_preset_becomes_a_saved_scenario_and_a_study_with_claims(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        study = create_preset_study(alice, "toy", "machines_sweep")
    assert Scenario.objects.get(owner=alice).name == "Toy: makespan vs machines"
    assert study.axes == ["datacenter.machines"]
    assert [r.point for r in study.runs.order_by("id")] == [{"datacenter.machines": m} for m in (1, 2, 4)]
    assert "Graham" in study.claims[0]
    assert study.status_counts()["succeeded"] == 3
