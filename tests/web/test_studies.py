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
    assert (
        Scenario.objects.get(owner=alice).name == "Toy: makespan vs machines · preset toy/machines_sweep, paper scale"
    )
    assert study.name == "Toy: makespan vs machines"
    assert study.axes == ["datacenter.machines"]
    assert [r.point for r in study.runs.order_by("id")] == [{"datacenter.machines": m} for m in (1, 2, 4)]
    assert "Graham" in study.claims[0]
    assert study.status_counts()["succeeded"] == 3


def test_a_finished_preset_study_stores_the_verdicts_of_its_claims(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        study = create_preset_study(alice, "toy", "machines_sweep", "small")
    study.refresh_from_db()
    assert (study.preset, study.scale) == ("machines_sweep", "small")
    assert all(r.config["workload"]["jobs"] == 5 for r in study.runs.all())
    assert [v["verdict"] for v in study.verdicts] == ["reproduced", "not reproduced", "not evaluated"]
    assert study.verdicts[0]["measured"].startswith("lpt/fcfs makespan_s: m=1 →")
    assert study.verdicts[1]["paper"] == "LPT < FCFS at m = 1"


def test_verdicts_wait_for_the_last_run_and_a_failed_point_leaves_its_claims_unchecked(alice):
    study = create_preset_study(alice, "toy", "machines_sweep")  # not committed: the runs stay queued
    assert study.check_claims() is None and Study.objects.get().verdicts is None
    first, second, third = study.runs.order_by("id")
    same = {"fcfs": {"makespan_s": 50.0}, "lpt": {"makespan_s": 50.0}}
    Run.objects.filter(pk__in=[first.pk, second.pk]).update(status=Run.Status.SUCCEEDED, summary=same)
    assert study.check_claims() is None
    Run.objects.filter(pk=third.pk).update(status=Run.Status.FAILED)
    verdicts = Study.objects.get().check_claims()
    assert [v["verdict"] for v in verdicts] == ["not evaluated", "not reproduced", "not evaluated"]
    assert "m=4" in verdicts[0]["measured"]
    assert Study.objects.get().verdicts == verdicts


def test_a_sweep_has_no_verdicts(scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2]})
    assert study.is_finished and Study.objects.get().verdicts is None
