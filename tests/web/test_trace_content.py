"""Inline trace fields are content, never file names: on the API, the form, a sweep and a run.

Each family's inline SWF field (backfill ``workload.swf``, federated ``workload.swf``,
vm_reservations ``workload.text``) receives strings that name files on the server. No
response and no stored run may contain those files' contents, and a malformed trace is
refused when it is saved, naming the field and the line.
"""

import json
from pathlib import Path

import pytest
from django.conf import settings

import schedulers
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import submit_run, submit_sweep
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from tests.api.conftest import Api

pytestmark = pytest.mark.django_db

FIELDS = {"backfill": "swf", "federated": "swf", "vm_reservations": "text"}
PROBES = ["var/secret_key", "/etc/passwd", "/proc/self/environ", "/dev/zero"]
RECORD = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"


def _forbidden():
    """Strings that must appear nowhere: the secret key and lines of /etc/passwd."""
    passwd = [line for line in Path("/etc/passwd").read_text().splitlines() if line][:3]
    return [settings.SECRET_KEY, *passwd]


def _trace_scenario(family, text):
    config = schedulers.example(family)
    config["workload"] = {"kind": "trace", FIELDS[family]: text}
    return config


def _assert_clean(text):
    for secret in _forbidden():
        assert secret not in text


@pytest.mark.parametrize("family", sorted(FIELDS))
@pytest.mark.parametrize("probe", PROBES)
def test_the_api_refuses_a_file_name_as_trace_text_and_leaks_nothing(client, alice, family, probe):
    from cloudsched_web.api.models import ApiToken

    api = Api(client, ApiToken.issue(alice, "t")[1])
    response = api.post("/scenarios", _trace_scenario(family, probe))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == f"workload.{FIELDS[family]}"
    assert "line 1" in error["message"] and "18 fields" in error["message"]
    _assert_clean(response.content.decode())
    assert not Scenario.objects.exists()


@pytest.mark.parametrize("family", sorted(FIELDS))
def test_the_form_refuses_a_file_name_as_trace_text(alice_client, family):
    config = _trace_scenario(family, "/etc/passwd")
    response = alice_client.post("/scenarios/new/", {"family": family, "config": json.dumps(config)})
    assert response.status_code == 200
    page = response.content.decode()
    assert f"workload.{FIELDS[family]}" in page and "18 fields" in page
    _assert_clean(page)
    assert not Scenario.objects.exists()


def test_a_malformed_upload_is_refused_on_save_with_line_and_field(client, alice):
    from cloudsched_web.api.models import ApiToken

    api = Api(client, ApiToken.issue(alice, "t")[1])
    bad = RECORD + RECORD.replace(" 100 ", " 10x ")
    response = api.post("/scenarios", _trace_scenario("backfill", bad))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "workload.swf"
    assert "line 2: field 4 (run_time) is not a number" in error["message"]


def test_a_sweep_over_the_trace_text_refuses_file_names(alice, tmp_path):
    scenario = Scenario.objects.create(
        owner=alice, family="backfill", name="t", config=_trace_scenario("backfill", RECORD * 3)
    )
    with pytest.raises(schedulers.ScenarioError) as info:
        submit_sweep(scenario, {"workload.swf": ["/etc/passwd", "var/secret_key"]})
    assert {e["field"] for e in info.value.errors} == {"points[0].workload.swf", "points[1].workload.swf"}
    _assert_clean(str(info.value))


@pytest.mark.parametrize("family", sorted(FIELDS))
def test_a_stored_scenario_naming_a_valid_trace_file_runs_nothing_from_it(
    alice, family, tmp_path, django_capture_on_commit_callbacks
):
    """A scenario saved before the fix (never revalidated) must not read the file it names, even a valid trace."""
    trace = tmp_path / "server-side.swf"
    trace.write_text(RECORD * 5)
    scenario = Scenario.objects.create(
        owner=alice, family=family, name="old", config=_trace_scenario(family, str(trace))
    )
    # Submitting checks the scenario against the library (and the run budget) first: nothing is queued.
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(schedulers.ScenarioError) as info:
        submit_run(scenario)
    assert f"workload.{FIELDS[family]}" in str(info.value) and "18 fields" in str(info.value)
    assert not Run.objects.exists()
    # A run queued before that check (its row written directly) fails in the worker the same way.
    run = Run.objects.create(scenario=scenario, config=scenario.config, scenario_name=scenario.name)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert f"workload.{FIELDS[family]}" in run.error and "18 fields" in run.error


@pytest.mark.parametrize("probe", PROBES)
def test_a_stored_run_of_a_probe_keeps_no_secret(alice, probe, django_capture_on_commit_callbacks):
    scenario = Scenario.objects.create(
        owner=alice, family="backfill", name="old", config=_trace_scenario("backfill", probe)
    )
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(schedulers.ScenarioError) as info:
        submit_run(scenario)
    assert not Run.objects.exists()
    _assert_clean(str(info.value))
