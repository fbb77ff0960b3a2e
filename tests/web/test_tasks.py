import pytest
from django.utils import timezone

from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation

pytestmark = pytest.mark.django_db


def _run(scenario, **fields):
    return Run.objects.create(scenario=scenario, config=scenario.config, **fields)


def test_it_runs_once_even_if_delivered_twice(scenario):
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    first_finish = run.finished_at
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED
    assert run.attempts == 1 and run.finished_at == first_finish
    assert run.load_result()["family"] == "toy"


def test_a_stale_running_row_is_taken_over(scenario):
    stale = timezone.now() - timezone.timedelta(hours=1)
    run = _run(scenario, status=Run.Status.RUNNING, heartbeat_at=stale, attempts=1)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 2


def test_a_live_running_row_is_left_alone(scenario):
    run = _run(scenario, status=Run.Status.RUNNING, heartbeat_at=timezone.now())
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


def test_invalid_config_fails_with_a_readable_message(scenario):
    run = _run(scenario)
    Run.objects.filter(pk=run.pk).update(config={**scenario.config, "repetitions": 0})
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "repetitions" in run.error and "≥ 1" in run.error


def test_a_cancelled_run_stays_cancelled(scenario):
    run = _run(scenario, status=Run.Status.CANCELLED)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and run.result_blob is None


def test_editing_the_scenario_does_not_change_a_submitted_run(scenario):
    run = _run(scenario)
    scenario.config = {**scenario.config, "seed": 999}
    scenario.save()
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.load_result()["seed"] == 1


def test_a_run_whose_worker_died_three_times_fails_instead_of_looping(scenario):
    run = _run(scenario, status=Run.Status.QUEUED, attempts=3)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "died 3 times" in run.error


def test_a_failure_while_storing_the_result_is_recorded(scenario, monkeypatch):
    from cloudsched_web.runs import page

    monkeypatch.setattr(page, "summarize", lambda doc: 1 / 0)
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "ZeroDivisionError" in run.error


BACKFILL = {"family": "backfill", "name": "columns", "seed": 2, "algorithms": ["easy", "measy"],
            "datacenter": {"processors": 32},
            "workload": {"kind": "generator", "model": "feitelson", "n_jobs": 300, "load": 0.8}}  # fmt: skip


def _backfill_run(alice, config):
    from cloudsched_web.scenarios.models import Scenario

    scenario = Scenario.objects.create(owner=alice, family="backfill", name="columns", config=config)
    return Run.objects.create(scenario=scenario, config=config)


def test_the_worker_stores_a_result_without_turning_its_columns_into_dicts(alice, monkeypatch):
    from schedulers.core.columns import Columns

    run = _backfill_run(alice, BACKFILL)
    monkeypatch.setattr(Columns, "_rows", lambda *a: pytest.fail("the worker built records from columns"))
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    assert run.page["validity"]["ok"] and "capacity per resource" not in run.page["validity"]["failed"]
    monkeypatch.undo()
    segments = sum(info["segments"] for info in run.result_files["runs"])
    import schedulers

    assert segments == sum(len(r["schedule"]) for r in schedulers.run(BACKFILL)["runs"])


def test_the_result_page_states_a_schedule_cut(alice, client):
    run = _backfill_run(alice, BACKFILL | {"params": {"max_segments": 200}})
    run_simulation(run.pk)
    run.refresh_from_db()
    cut = run.load_header()["runs"][1]["extra"]["schedule_cut"]
    assert cut["limit"] == 200 and cut["recorded"] == 200 == run.result_files["runs"][1]["segments"]
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    notice = page[page.index('id="schedule-cut"') :].split("</div>")[0]
    assert "measy #0" in notice and "max_segments</code> = 200 kept 200 segments" in notice
    assert f"the cut falls at t = {cut['cut_at_s']:.3f} s" in notice


def test_the_worker_releases_the_run_before_it_builds_the_chart_indexes(scenario, monkeypatch):
    from cloudsched_web.results import indexes, indexfiles

    seen = []
    build = indexes.build

    def watching(header, manifest):
        row = Run.objects.get(pk=run.pk)
        seen.append((row.status, "index" in (row.result_files or {})))
        return build(header, manifest)

    monkeypatch.setattr(indexes, "build", watching)
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert seen == [(Run.Status.SUCCEEDED, False)]  # visible as succeeded, without indexes, while they build
    assert run.result_files["index"]["version"] == indexfiles.VERSION


def test_indexes_of_an_attempt_that_lost_the_run_are_not_written_over_the_newer_one(scenario, monkeypatch):
    from cloudsched_web.results import indexes

    build = indexes.build

    def overtaken(header, manifest):
        Run.objects.filter(pk=run.pk).update(task_id="a-newer-attempt")
        return build(header, manifest)

    monkeypatch.setattr(indexes, "build", overtaken)
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and "index" not in run.result_files


def test_a_failing_index_build_leaves_the_result_standing(scenario, monkeypatch):
    from cloudsched_web.results import indexes

    def broken(header, manifest):
        raise RuntimeError("disk full")

    monkeypatch.setattr(indexes, "build", broken)
    run = _run(scenario)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and run.load_header() and "index" not in run.result_files
