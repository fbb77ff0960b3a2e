"""A trace with jobs wider than the machine: refused on the form and the API, or — when the
scenario chooses to drop them — counted in the run header and in the validity checks."""

import copy
import json
import re

import pytest

from cloudsched_web.results import checks
from cloudsched_web.runs import describe
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario
from tests.schedulers.backfill.test_wider_jobs import WIDE

pytestmark = pytest.mark.django_db


def _dropping():
    sc = copy.deepcopy(WIDE)
    sc["workload"]["wider_jobs"] = "drop"
    return sc


def test_the_form_refuses_a_wide_trace_at_the_processors_field_and_saves_nothing(alice_client):
    response = alice_client.post("/scenarios/new/", {"family": "backfill", "config": json.dumps(WIDE)})
    html = response.content.decode()
    assert response.status_code == 200
    assert "datacenter.processors" in html and "1 job of the trace needs more than the machine&#x27;s 64" in html
    assert "widest needs 100" in html
    assert not Scenario.objects.exists()


def test_the_api_answers_400_naming_the_count_and_the_widest(client, alice):
    from cloudsched_web.api.models import ApiToken

    token = ApiToken.issue(alice, "tests")[1]
    response = client.post("/api/v1/scenarios", json.dumps(WIDE), content_type="application/json",
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "datacenter.processors" and "widest needs 100" in error["message"]


def test_a_run_that_drops_wide_jobs_says_so_in_its_header_and_validity_box(
    alice, alice_client, django_capture_on_commit_callbacks
):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="wide", config=_dropping())
    with django_capture_on_commit_callbacks(execute=True):
        run = submit_run(scenario)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    header = re.search(r'id="run-dropped">(.*?)</p>', html, re.S)[1]
    assert "1 job of the trace needed more than the machine of 64 processors" in header
    assert "it ran 2 of them" in header and "wider than the machine: drop" in header.lower()
    assert "2 jobs (1 wider than the machine left out)" in html
    assert 'id="validity-badge">checks passed, with a warning<' in html
    assert '<li class="warn">! every trace job fits the machine: 1 job needed more than 64' in html


def test_a_stored_run_that_dropped_jobs_without_being_asked_fails_its_check():
    """Results from before wide traces were refused (no ``wider_jobs`` recorded): the check fails."""
    run = {"extra": {"workload": {"dropped_too_large": 14, "processors": 64, "jobs": 386}}}
    (check,) = checks.trace_jobs_kept(run)
    assert check["status"] == "fail" and "14 jobs needed more than 64 processors" in check["detail"]
    assert not checks.validity({"runs": [run]})["ok"]
    assert "before such traces were refused" in describe.dropped({"runs": [run]})


def test_nothing_dropped_passes_and_says_nothing_in_the_header():
    run = {"extra": {"workload": {"dropped_too_large": 0, "processors": 64, "jobs": 3, "wider_jobs": "refuse"}}}
    assert checks.trace_jobs_kept(run)[0]["status"] == "pass"
    assert describe.dropped({"runs": [run]}) == ""
    assert checks.trace_jobs_kept({"extra": {}}) == []  # families that read no trace: no such check


@pytest.mark.parametrize(("family", "offered"), [("backfill", True), ("federated", True), ("vm_reservations", True),
                                                 ("dvfs_bot", False), ("ep_jobs", False)])  # fmt: skip
def test_only_families_that_read_traces_offer_a_trace_upload(alice_client, family, offered):
    html = alice_client.get(f"/scenarios/new/?family={family}").content.decode()
    assert ('name="trace_file"' in html) is offered


def test_federated_follows_the_same_rule_on_the_api_and_the_run_page(
    client, alice, alice_client, django_capture_on_commit_callbacks
):
    """Federated reads traces too: a job needing more VMs than every cloud is a 400, or dropped when chosen."""
    from cloudsched_web.api.models import ApiToken
    from tests.schedulers.federated.test_wider_jobs import WIDE as FEDERATED_WIDE

    token = ApiToken.issue(alice, "tests")[1]
    response = client.post("/api/v1/scenarios", json.dumps(FEDERATED_WIDE), content_type="application/json",
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "datacenter.clouds" and "widest needs 100" in error["message"]
    dropping = copy.deepcopy(FEDERATED_WIDE)
    dropping["workload"]["wider_jobs"] = "drop"
    scenario = Scenario.objects.create(owner=alice, family="federated", name="wide", config=dropping)
    with django_capture_on_commit_callbacks(execute=True):
        run = submit_run(scenario)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    header = re.search(r'id="run-dropped">(.*?)</p>', html, re.S)[1]
    assert "1 job of the trace needed more than the machine of 64 VMs" in header and "it ran 2" in header
    assert 'id="validity-badge">checks passed, with a warning<' in html
    assert '<li class="warn">! every trace job fits the machine: 1 job needed more than 64 VMs' in html


def test_a_preset_whose_log_has_jobs_wider_than_every_cloud_is_refused_naming_them(alice_client):
    """Presets follow the same rule: the federated presets replay the imported LLNL-Thunder log; a log with a job
    no cloud can hold is refused before any study is created, the count and the widest named."""
    import schedulers
    from cloudsched_web.runs.models import Study
    from cloudsched_web.traces.services import store

    if "federated" not in schedulers.all_families():
        pytest.skip("needs federated")
    lines = ["; MaxProcs: 100000"] + [f"{i} {i * 60} 0 600 {s} -1 -1 {s} 600 -1 1 1 1 -1 1 -1 -1 -1"
                                       for i, s in enumerate([8, 100_000, 16, 4], 1)]  # fmt: skip
    store(("\n".join(lines) + "\n").encode(), "LLNL-Thunder-2007-1.1-cln.swf.gz", imported=True)
    response = alice_client.post("/presets/federated/table3_feedback/", {"scale": "small"}, follow=True)
    html = response.content.decode()
    assert "1 job of the trace needs more VMs than the largest cloud" in html and "widest needs 100,000" in html
    assert not Study.objects.exists() and not Scenario.objects.exists()


def test_a_refused_upload_stays_chosen_so_dropping_its_wider_jobs_is_one_save_away(alice_client, alice):
    """Upload a trace with a job wider than the machine: refused (the trace is stored), and the redrawn wizard
    has it chosen; choose "drop" and save: a saved scenario on that trace, which runs."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from cloudsched_web.runs.models import Run
    from cloudsched_web.traces.models import Trace

    config = {k: v for k, v in WIDE.items() if k != "workload"} | {"workload": {"kind": "trace"}}
    upload = SimpleUploadedFile("wide.swf", WIDE["workload"]["swf"].encode())
    refused = alice_client.post("/scenarios/new/", {"family": "backfill", "config": json.dumps(config),
                                                    "trace_file": upload})  # fmt: skip
    assert refused.status_code == 200 and "widest needs 100" in refused.content.decode()
    assert not Scenario.objects.exists()
    (trace,) = Trace.objects.all()
    redrawn = json.loads(refused.context["form"]["config"].value())  # what the wizard is drawn from
    assert redrawn["workload"]["trace"] == trace.ref and "swf" not in redrawn["workload"]
    redrawn["workload"]["wider_jobs"] = "drop"  # the one choice the error names
    saved = alice_client.post("/scenarios/new/", {"family": "backfill", "config": json.dumps(redrawn)})
    assert saved.status_code == 302, saved.content.decode()[-2000:]
    scenario = Scenario.objects.get()
    assert scenario.config["workload"]["trace"] == trace.ref and scenario.config["workload"]["wider_jobs"] == "drop"
    ran = alice_client.post(f"/scenarios/{scenario.pk}/run/")
    assert ran.status_code == 302 and Run.objects.filter(scenario=scenario).count() == 1
