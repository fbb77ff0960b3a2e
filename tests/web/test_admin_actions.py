import json

import pytest
from django.contrib.auth import get_user_model

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw-unused-123"))
    return client


def test_duplicate_scenarios(admin_client, scenario):
    admin_client.post("/admin/scenarios/scenario/", {"action": "duplicate", "_selected_action": [scenario.pk]})
    assert Scenario.objects.filter(name="copy of toy example").exists()


def test_requeue_failed_runs_sends_them_again(admin_client, scenario, django_capture_on_commit_callbacks):
    run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.FAILED, error="boom")
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post("/admin/runs/run/", {"action": "requeue_runs", "_selected_action": [run.pk]})
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and run.error == ""  # eager Celery ran it again


def test_config_is_shown_formatted(admin_client, scenario):
    page = admin_client.get(f"/admin/scenarios/scenario/{scenario.pk}/change/").content.decode()
    assert json.dumps(scenario.config, indent=2).splitlines()[1].strip().replace('"', "&quot;") in page
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    assert admin_client.get(f"/admin/runs/run/{run.pk}/change/").status_code == 200
    study = Study.objects.create(scenario=scenario, name="s", claims=["a claim"])
    assert "a claim" in admin_client.get(f"/admin/runs/study/{study.pk}/change/").content.decode()


def test_duplicate_a_study_resubmits_its_points(admin_client, scenario, django_capture_on_commit_callbacks):
    from cloudsched_web.runs.services import submit_sweep

    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2]})
        admin_client.post("/admin/runs/study/", {"action": "duplicate", "_selected_action": [study.pk]})
    copy = Study.objects.exclude(pk=study.pk).get()
    assert copy.name == f"copy of {study.name}"
    assert [r.point for r in copy.runs.order_by("id")] == [{"datacenter.machines": 1}, {"datacenter.machines": 2}]
    assert copy.status_counts()["succeeded"] == 2


def test_requeued_runs_of_a_preset_study_have_its_claims_checked_again(
    admin_client, admin_user, django_capture_on_commit_callbacks
):
    from cloudsched_web.runs.services import create_preset_study

    study = create_preset_study(admin_user, "toy", "machines_sweep")  # not committed: runs stay queued
    first, *rest = study.runs.order_by("id")
    Run.objects.filter(pk=first.pk).update(status=Run.Status.FAILED)
    same = {"fcfs": {"makespan_s": 5.0}, "lpt": {"makespan_s": 5.0}}
    Run.objects.filter(pk__in=[r.pk for r in rest]).update(status=Run.Status.SUCCEEDED, summary=same)
    assert Study.objects.get().check_claims()[1]["verdict"] == "not evaluated"  # point m=1 failed
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post("/admin/runs/study/", {"action": "requeue_failed", "_selected_action": [study.pk]})
    verdicts = Study.objects.get().verdicts
    assert verdicts is not None and verdicts[1]["verdict"] == "not reproduced"  # m=1 ran: LPT = FCFS there


def test_a_duplicated_preset_study_keeps_its_readings_and_a_requeue_rechecks_only_the_reading_requeued(
    admin_client, admin_user
):
    from cloudsched_web.runs.models import StudyReading
    from cloudsched_web.runs.services import create_preset_study

    study = create_preset_study(admin_user, "ep_jobs", "fig4", "small")  # not committed: runs stay queued
    optra = StudyReading.objects.get(study=study, default=False)
    points = study.runs.filter(reading=None).count()
    assert points > 0 and optra.runs.count() == points
    admin_client.post("/admin/runs/study/", {"action": "duplicate", "_selected_action": [study.pk]})
    copy = Study.objects.exclude(pk=study.pk).get()
    copied = StudyReading.objects.get(study=copy, default=False)
    assert [r.name for r in copy.readings.all()] == ["static shares", "optra"]
    assert copy.runs.filter(reading=None).count() == copied.runs.count() == points
    assert [r.config for r in copied.runs.order_by("id")] == [r.config for r in optra.runs.order_by("id")]

    study.runs.update(status=Run.Status.FAILED)
    Study.objects.filter(pk=study.pk).update(verdicts=[{"text": "kept"}])
    StudyReading.objects.filter(pk=optra.pk).update(verdicts=[{"text": "stale"}])
    Run.objects.filter(reading=None, study=study).update(status=Run.Status.SUCCEEDED)
    admin_client.post("/admin/runs/study/", {"action": "requeue_failed", "_selected_action": [study.pk]})
    optra.refresh_from_db()
    assert optra.verdicts is None and Study.objects.get(pk=study.pk).verdicts == [{"text": "kept"}]


def test_the_admin_delete_moves_to_the_trash_and_deletes_for_good_only_from_there(admin_client, scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    url = f"/admin/scenarios/scenario/{scenario.pk}/delete/"
    confirm = admin_client.get(url).content.decode()
    assert "moves this item" in confirm and "can be restored" in confirm and "cannot be restored" not in confirm
    response = admin_client.post(url, {"post": "yes"}, follow=True)
    assert "Moved “toy example (toy)” to the trash" in response.content.decode()
    scenario = Scenario.all_objects.get(pk=scenario.pk)
    assert scenario.trashed_at is not None and Run.all_objects.get(pk=run.pk).trashed_at == scenario.trashed_at
    assert "cannot be restored" in admin_client.get(url).content.decode()  # from the trash, the same button says so
    admin_client.post(url, {"post": "yes"})
    assert not Scenario.all_objects.filter(pk=scenario.pk).exists()


def test_the_admin_list_moves_to_the_trash_and_names_the_permanent_delete(admin_client, scenario):
    page = admin_client.get("/admin/scenarios/scenario/").content.decode()
    assert "Move the selected items to the trash" in page and "permanently (no restore)" in page
    admin_client.post("/admin/scenarios/scenario/", {"action": "trash_selected", "_selected_action": [scenario.pk]})
    assert Scenario.all_objects.get(pk=scenario.pk).trashed_at is not None
