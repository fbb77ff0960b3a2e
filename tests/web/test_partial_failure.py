"""A run whose plug-in fails keeps the papers' results: stored, shown and exported, with the failed unit named
(status "partly failed"), whether the run executes in one piece or spread over workers as units."""

import json

import pytest

import schedulers
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from tests.plugin_pkg import installed

pytestmark = pytest.mark.django_db

CONFIG = {"family": "backfill", "name": "with a bad plug-in", "algorithms": ["raising", "easy", "measy"],
          "datacenter": {"processors": 32}, "workload": {"n_jobs": 60, "feitelson": {"max_size": 32}}}  # fmt: skip


@pytest.fixture
def site(tmp_path):
    with installed(tmp_path / "site") as module:
        yield module


@pytest.mark.parametrize("spread", [False, True])
def test_a_failing_plugin_leaves_the_others_results_on_the_page_and_the_api(site, alice, alice_client, settings,
                                                                            spread):  # fmt: skip
    settings.RUN_FAN_OUT_MIN_CPU_S = 0 if spread else -1
    scenario = Scenario.objects.create(owner=alice, family="backfill", name=CONFIG["name"], config=CONFIG)
    run = Run.objects.create(scenario=scenario, config=CONFIG)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert (run.status, run.outcome) == (Run.Status.SUCCEEDED, "partly failed")
    assert run.error.startswith("1 of 3 units failed (the others' results are kept): raising repetition 0: plug-in "
                                "backfill.raising (cloudsched-test-orders 0.3.1) failed in its queue order")  # fmt: skip
    assert set(run.summary) == {"easy", "measy"}
    result = run.load_result()
    alone = schedulers.run({**CONFIG, "algorithms": ["easy", "measy"]})
    # the papers' results, unchanged
    assert [r["metrics"] for r in result["runs"]] == [r["metrics"] for r in alone["runs"]]

    page = alice_client.get(f"/runs/{run.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert '<span id="status-text">partly failed</span>' in text
    assert "backfill.raising (cloudsched-test-orders 0.3.1) failed in its queue order" in text
    assert 'id="validity-badge">checks' in text  # the kept runs' checks and charts are there
    metrics = alice_client.get(f"/runs/{run.pk}/export/metrics/").content.decode()
    assert "easy" in metrics and "measy" in metrics and "raising" not in metrics  # the kept units' metrics
    whole = alice_client.get(f"/runs/{run.pk}/export/json/")
    exported = json.loads(b"".join(whole.streaming_content))
    assert [f["algorithm"] for f in exported["failures"]] == ["raising"]  # the failed unit travels with the result
    assert [r["algorithm"] for r in exported["runs"]] == ["easy", "measy"]

    api = alice_client.get(f"/api/v1/runs/{run.pk}")
    assert api.status_code == 200, api.content
    body = api.json()
    assert (body["status"], body["outcome"]) == ("succeeded", "partly failed")
    assert [(f["algorithm"], f["plugin"]) for f in body["failures"]] == [("raising", "backfill.raising")]
    assert alice_client.get(f"/api/v1/runs/{run.pk}/status").json()["outcome"] == "partly failed"


def test_a_run_whose_every_unit_fails_names_the_plugin(site, alice, settings):
    settings.RUN_FAN_OUT_MIN_CPU_S = -1
    config = {**CONFIG, "algorithms": ["raising"]}
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="only bad", config=config)
    run = Run.objects.create(scenario=scenario, config=config)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and run.outcome == "failed"
    assert "plug-in backfill.raising (cloudsched-test-orders 0.3.1) failed in its queue order" in run.error
    assert run.progress_message.startswith("raising repetition 0 (plug-in backfill.raising, cloudsched-test-orders")
