"""The top of a run page: the name it ran under, its workload as the family reads it, the time left,
and the share link's field."""

import re

import pytest
from django.utils import timezone

import schedulers
from cloudsched_web.runs import describe
from cloudsched_web.runs.models import Run, remaining_text
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_now(django_capture_on_commit_callbacks):
    """Submit a run and let the (eager) task run it, as the commit would."""

    def submit(scenario):
        with django_capture_on_commit_callbacks(execute=True):
            run = submit_run(scenario)
        run.refresh_from_db()
        assert run.status == Run.Status.SUCCEEDED, run.error
        return run

    return submit


def _title(html):
    return re.search(r"<title>(.*?)</title>", html, re.S)[1].strip()


def test_the_page_is_titled_by_the_name_it_ran_under_and_says_the_scenario_was_renamed(alice_client, scenario):
    run = submit_run(scenario)
    scenario.name = "a better name"
    scenario.config = {**scenario.config, "name": "a better name"}
    scenario.save()
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert _title(html).startswith("toy example · run")
    assert re.search(r'<h1 id="run-title">toy example <small>', html)
    assert "(scenario since renamed to “a better name”)" in html
    listing = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "<td>toy example</td>" in listing  # the scenario's run list: the name each run ran under
    assert alice_client.get(f"/api/v1/runs/{run.pk}").json()["scenario_name"] == "toy example"


def test_no_rename_note_while_the_name_is_the_same_nor_on_a_share_link(client, alice_client, scenario):
    run = submit_run(scenario)
    assert "since renamed" not in alice_client.get(f"/runs/{run.pk}/").content.decode()
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.SUCCEEDED, share_token="6c0d3c5e-6a3f-4c67-8f1e-3d0b7a0c9d11"
    )
    Scenario.objects.filter(pk=scenario.pk).update(name="private new name")
    shared = client.get("/share/6c0d3c5e-6a3f-4c67-8f1e-3d0b7a0c9d11/").content.decode()
    assert "toy example" in shared and "private new name" not in shared


SWF = "; MaxProcs: 8\n" + "\n".join(
    f"{i} {i * 400} 0 {300 + 50 * i} {1 + i % 4} -1 -1 {1 + i % 4} {400 + 50 * i} -1 1 1 1 -1 1 -1 -1 -1"
    for i in range(1, 41)
)


def _backfill_trace(load=None):
    config = {"family": "backfill", "name": "trace replay", "algorithms": ["easy"],
              "datacenter": {"processors": 8}, "workload": {"kind": "trace", "swf": SWF, "load": load}}  # fmt: skip
    return schedulers.validate(config)[1].model_dump(mode="json")


def test_a_trace_at_its_logged_load_says_so():
    config = _backfill_trace()
    result = schedulers.run(config)
    natural = result["runs"][0]["extra"]["workload"]["natural_load"]
    line = describe.workload(config, result)
    assert f"load: as logged ({natural:.2f})" in line and "SWF trace uploaded" in line and "40 jobs" in line
    assert "load 0." not in line  # never a form's default load

    scaled = _backfill_trace(load=0.9)
    line = describe.workload(scaled, schedulers.run(scaled))
    assert f"load 0.9 (logged {natural:.2f}, inter-arrivals × " in line


def test_the_run_page_prints_the_workload_line(alice, alice_client, run_now):
    config = _backfill_trace()
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="trace replay", config=config)
    run = run_now(scenario)
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert re.search(r'id="run-workload">Workload: SWF trace uploaded · 40 jobs · load: as logged \(\d\.\d\d\)', html)


@pytest.mark.parametrize(
    ("family", "workload", "says"),
    [
        ("federated", {"kind": "trace", "path": "/x/CTC-SP2.swf.gz", "max_jobs": 500, "gap_divisor": 1.0},
         ["SWF trace CTC-SP2.swf.gz", "at most 500 jobs", "arrivals as logged"]),
        ("federated", {"kind": "trace", "path": "/x/a.swf", "gap_divisor": 10.0}, ["arrival gaps ÷ 10"]),
        ("backfill", {"kind": "trace", "trace": "sha256:" + "ab" * 32}, ["SWF trace stored as sha256:abababab", "as logged"]),
        ("vm_reservations", {"kind": "trace", "text": "1 0 0 5 4", "n_requests": 300, "skip": 20},
         ["SWF trace uploaded", "first 300 usable jobs", "after skipping 20", "as logged"]),
        ("backfill", {"kind": "generator", "model": "jann", "n_jobs": 500, "load": 0.6}, ["jann generator", "load 0.6"]),
        ("dvfs_bot", {"kind": "generator", "duration_h": 2.0}, ["generator", "duration_h 2"]),
    ],
)  # fmt: skip
def test_each_family_describes_its_workload(family, workload, says):
    line = describe.workload({"family": family, "workload": workload})
    assert all(part in line for part in says), line
    assert "None" not in line and "1 0 0 5 4" not in line  # never the trace text itself


def test_time_left_is_the_average_rate_so_far_and_hidden_until_it_means_something(scenario):
    now = timezone.now()
    run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.RUNNING, progress=0.25,
                             started_at=now - timezone.timedelta(seconds=60), heartbeat_at=now)  # fmt: skip
    assert run.remaining_s(now) == pytest.approx(180.0)
    assert run.status_dict()["remaining"] == "about 3 min left"
    run.progress = 0.01  # too early: one report says little about the rate
    assert run.remaining_s(now) is None and run.status_dict()["remaining"] == ""
    run.progress, run.started_at = 0.5, now - timezone.timedelta(seconds=1)
    assert run.remaining_s(now) is None
    run.started_at, run.status = now - timezone.timedelta(seconds=60), Run.Status.QUEUED
    assert run.remaining_s(now) is None
    run.status, run.heartbeat_at = Run.Status.RUNNING, now - timezone.timedelta(hours=1)
    assert run.status_dict()["stalled"] and run.status_dict()["remaining_s"] is None  # no estimate for a silent worker


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(10, "less than a minute left"), (80, "about 1 min left"), (150, "about 2 min left"),
     (3600 + 300, "about 1 h 05 min left"), (3 * 86400 + 7200, "about 3 d 2 h left")],
)  # fmt: skip
def test_time_left_reads_like_a_person_would_say_it(seconds, text):
    assert remaining_text(seconds) == text


def test_the_status_json_and_the_api_carry_the_time_left(alice_client, scenario):
    now = timezone.now()
    run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.RUNNING, progress=0.5,
                             started_at=now - timezone.timedelta(seconds=600), heartbeat_at=now)  # fmt: skip
    status = alice_client.get(f"/runs/{run.pk}/status.json").json()
    assert status["remaining"] == "about 10 min left" and 590 < status["remaining_s"] < 620
    api = alice_client.get(f"/api/v1/runs/{run.pk}").json()
    assert api["remaining"] == "about 10 min left"
    assert (
        'id="progress-remaining" class="help">about 10 min left'
        in alice_client.get(f"/runs/{run.pk}/").content.decode()
    )


def test_the_share_link_sits_in_a_read_only_field_with_a_copy_button(alice_client, scenario, run_now):
    run = run_now(scenario)
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="share-url"' not in html and 'id="create-share"' in html
    alice_client.post(f"/runs/{run.pk}/share/")
    run.refresh_from_db()
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    field = re.search(r'<input id="share-url"[^>]*>', html)[0]
    assert "readonly" in field and f'value="http://testserver/share/{run.share_token}/"' in field
    assert 'id="copy-share" data-copy="share-url"' in html
    assert "<script>" not in html and " onclick=" not in html  # the button works from run-header.js


@pytest.mark.django_db
def test_a_run_the_broker_did_not_take_says_so_and_is_kept(alice_client, scenario, django_capture_on_commit_callbacks):
    """Redis down (nothing listens on the port): the run stays queued and its page says why."""
    from cloudsched_web.celery import app
    from cloudsched_web.runs.services import submit_run

    app.conf.task_always_eager = False
    old = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:9/0"  # the discard port: connection refused
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run = submit_run(scenario)  # sent when the transaction commits, and refused
    finally:
        app.conf.broker_url = old
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.dispatched_at is None
    status = alice_client.get(f"/runs/{run.pk}/status.json").json()
    assert "could not be reached" in status["message"] and "kept" in status["message"]
