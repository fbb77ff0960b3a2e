"""A result produced by a plug-in algorithm names the plug-in on its stamp, and stays readable once the
plug-in package is removed (issue #27)."""

import pytest

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.plugin_pkg import installed

pytestmark = pytest.mark.django_db


def test_a_removed_plugins_result_page_still_renders_and_names_it(alice, alice_client, tmp_path):
    queries.clear_cache()
    config = {"family": "backfill", "name": "plug", "algorithms": ["easy", "widest"],
              "datacenter": {"processors": 32}, "workload": {"n_jobs": 60, "feitelson": {"max_size": 32}}}  # fmt: skip
    with installed(tmp_path / "site"):
        scenario = Scenario.objects.create(owner=alice, family="backfill", name="plug", config=config)
        run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0)
        run.store_result(schedulers.run(config))
        run.save()
    assert "widest" not in schedulers.get_family("backfill").algorithms
    response = alice_client.get(f"/runs/{run.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "backfill.widest" in page and "cloudsched-test-orders 0.3.1" in page
    assert response.context["stamp"]["plugins"]["widest"]["sha256"]


def test_the_wizard_marks_plugin_algorithms_from_the_server(alice_client, tmp_path):
    with installed(tmp_path / "site"):
        response = alice_client.get("/scenarios/new/?family=backfill")
    page = response.content.decode()
    labels = response.context["wizard"]["algorithms"]
    assert labels["widest"] == "[plug-in, cloudsched-test-orders 0.3.1] widest job first"
    assert labels["easy"].startswith("EASY")
    assert 'id="plugin-note"' in page and "<code>widest</code> from cloudsched-test-orders 0.3.1" in page
    assert 'id="plugin-note"' not in alice_client.get("/scenarios/new/?family=backfill").content.decode()
