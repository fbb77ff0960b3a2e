"""schemathesis against the OpenAPI description the live server serves: no 5xx, responses match it.

Runs the schemathesis CLI (examples, coverage and fuzzing phases, a few examples
per operation) against pytest-django's live server on loopback, with alice's
token. Path ids are drawn from real objects most of the time (dictionaries) so
the handlers behind the 404s are exercised too. Submissions are recorded but not
sent to Celery: fuzzed scenarios must not actually run in the test process.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs import services
from cloudsched_web.runs.models import Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import big_result, finished_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
CONFIG = r"""
[dictionaries.scenarios]
values = [{scenario}]
[dictionaries.runs]
values = [{run}, {swf_run}]
[dictionaries.studies]
values = [{study}]
[dictionaries.spare_scenarios]
values = [{spare_scenario}]
[dictionaries.spare_studies]
values = [{spare_study}]
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

# Deleting the shared objects would turn every later operation into a 404: deletions get their own.
[[operations]]
include-path-regex = "^/api/v1/(scenarios|studies)/\\{{[a-z_]+\\}}$"
include-method = "DELETE"
parameters = {{ "path.scenario_id" = {{ dictionary = "spare_scenarios" }}, "path.study_id" = {{ dictionary = "spare_studies" }} }}

# Scenario bodies are the families' whole oneOf schema: the coverage phase enumerates thousands
# of variants of it (~2 min each); fuzzing them with the other operations' budget is enough here.
[[operations]]
include-path-regex = "^/api/v1/scenarios(/\\{{scenario_id\\}})?$"
include-method = ["POST", "PUT"]
phases.coverage.enabled = false
"""


@pytest.fixture
def objects(alice, scenario):
    run = finished_run(scenario)
    swf_run = finished_run(scenario, big_result(n_jobs=200))
    study = Study.objects.create(scenario=scenario, name="s", axes=["seed"])
    spare = Scenario.objects.create(owner=alice, family="toy", name="spare", config=scenario.config)
    spare_study = Study.objects.create(scenario=spare, name="spare", axes=["seed"])
    return {
        "scenario": scenario.pk, "run": run.pk, "swf_run": swf_run.pk, "study": study.pk,
        "spare_scenario": Scenario.objects.create(owner=alice, family="toy", name="x", config=scenario.config).pk,
        "spare_study": spare_study.pk,
    }  # fmt: skip


@pytest.mark.timeout(120)
def test_schemathesis_finds_no_server_error_and_no_schema_violation(
    live_server, alice, objects, monkeypatch, settings, tmp_path
):
    monkeypatch.setattr(services, "_send", lambda run_ids: True)
    settings.API_RATE_LIMIT = 100_000
    token = ApiToken.issue(alice, "schemathesis")[1]
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG.format(**objects))
    schemathesis = Path(sys.executable).with_name("schemathesis")
    cmd = [
        str(schemathesis), "--config-file", str(config), "--no-color", "run",
        f"{live_server.url}/api/v1/openapi.json",
        "-H", f"Authorization: Bearer {token}",
        "--checks", CHECKS,
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", "8", "--seed", "20261123", "--workers", "1",
        "--suppress-health-check", "all",
        "--request-timeout", "20",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=85, cwd=tmp_path)
    (tmp_path / "output.txt").write_text(proc.stdout + proc.stderr)
    output = proc.stdout[-12000:] + proc.stderr[-4000:]
    assert proc.returncode == 0, output
