"""schemathesis against the OpenAPI description the live server serves: no 5xx, responses match it.

Runs the schemathesis CLI (examples, coverage and fuzzing phases, a few examples
per operation) against pytest-django's live server on loopback, with alice's
token and every registered family. Path ids are drawn from real objects most of
the time (dictionaries) so the handlers behind the 404s are exercised too; the
three deletions (to the trash) run last, in a second pass, on spare objects, so that they do not
turn the rest into 404s. Submissions are recorded but not sent to Celery:
fuzzed scenarios must not actually run in the test process.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs import services, trash
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.services import store
from tests.api.factories import big_result, finished_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
DELETIONS = r"^/api/v1/(scenarios|studies|runs)/\{[a-z_]+\}$"
CONFIG = r"""
[dictionaries.scenarios]
values = [{scenario}]
[dictionaries.runs]
values = [{run}, {swf_run}]
[dictionaries.studies]
values = [{study}]
[dictionaries.items]
values = [{scenario}, {run}, {study}, {trashed}]
[dictionaries.traces]
values = [{trace}]
[dictionaries.families]
values = ["toy", "backfill"]
[dictionaries.presets]
values = ["machines_sweep"]

[parameters]
"path.scenario_id" = {{ dictionary = "scenarios", probability = 0.8 }}
"path.run_id" = {{ dictionary = "runs", probability = 0.8 }}
"path.study_id" = {{ dictionary = "studies", probability = 0.8 }}
"path.family" = {{ dictionary = "families", probability = 0.8 }}
"path.preset" = {{ dictionary = "presets", probability = 0.8 }}
"path.item_id" = {{ dictionary = "items", probability = 0.8 }}
"path.trace_id" = {{ dictionary = "traces", probability = 0.8 }}

# Scenario bodies are the families' whole oneOf schema: the coverage phase enumerates thousands
# of variants of it (~2 min each); fuzzing them with the other operations' budget is enough here.
[[operations]]
include-path-regex = "^/api/v1/scenarios(/\\{{scenario_id\\}})?$"
include-method = ["POST", "PUT"]
phases.coverage.enabled = false
"""


@pytest.fixture
def objects(alice, scenario):
    spare = Scenario.objects.create(owner=alice, family="toy", name="spare", config=scenario.config)
    return {
        "scenario": scenario.pk,
        "run": finished_run(scenario).pk,
        "swf_run": finished_run(scenario, big_result(n_jobs=200)).pk,
        "study": Study.objects.create(scenario=scenario, name="s", axes=["seed"]).pk,
        "spare_scenario": spare.pk,
        "spare_study": Study.objects.create(scenario=spare, name="spare", axes=["seed"]).pk,
        "spare_run": finished_run(spare).pk,
        "trashed": _trashed(finished_run(scenario)),
        "trace": store(b"1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n", "t", owner=alice)[0].pk,
    }


def _trashed(run):
    trash.trash(run)
    return run.pk


def _schemathesis(url, token, objects, tmp_path, name, *args):
    config = tmp_path / f"{name}.toml"
    config.write_text(CONFIG.format(**objects))
    cmd = [
        str(SCHEMATHESIS), "--config-file", str(config), "--no-color", "run", url,
        "-H", f"Authorization: Bearer {token}", "--checks", CHECKS,
        "--max-examples", "8", "--seed", "20261123",
        "--workers", "1",  # hypothesis' lambda reprs race in ast.parse under several threads on 3.11
        "--suppress-health-check", "all", "--request-timeout", "20", *args,
    ]  # fmt: skip
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=400, cwd=tmp_path
    )  # a hang guard, not a time limit
    (tmp_path / f"{name}.txt").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout[-12000:] + proc.stderr[-4000:]
    return proc.stdout


@pytest.mark.timeout(900)
def test_schemathesis_finds_no_server_error_and_no_schema_violation(
    live_server, alice, objects, monkeypatch, settings, tmp_path
):
    monkeypatch.setattr(services, "send", lambda run_ids: True)
    settings.API_RATE_LIMIT = 100_000
    token = ApiToken.issue(alice, "schemathesis")[1]
    url = f"{live_server.url}/api/v1/openapi.json"
    phases = ("--phases", "examples,coverage,fuzzing")
    out = _schemathesis(url, token, objects, tmp_path, "main", *phases, "--exclude-path-regex", DELETIONS)
    assert "Missing test data" not in out  # the real objects were reached, not only 404s
    assert Study.objects.filter(pk=objects["study"]).exists() and Run.objects.filter(pk=objects["run"]).exists()

    spare = {**objects, "scenario": objects["spare_scenario"], "study": objects["spare_study"]}
    spare |= {"run": objects["spare_run"], "swf_run": objects["spare_run"]}
    # (path filters select every method on the three paths; GET/PUT/PATCH on spare objects are harmless)
    _schemathesis(url, token, spare, tmp_path, "deletions", *phases, "--include-path-regex", DELETIONS)
    assert not Study.objects.filter(pk=objects["spare_study"]).exists()
