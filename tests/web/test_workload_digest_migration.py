"""The workload-digest migration gives stored results their digest, found by name whatever its number."""

import zlib

import orjson
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import schedulers

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_stored_results_get_the_digest_of_their_scenario(toy_scenario):
    graph = MigrationExecutor(connection).loader.graph
    (mine,) = [key for key in graph.nodes if key[0] == "runs" and key[1].endswith("_run_workload_digest")]
    before = [parent.key for parent in graph.node_map[mine].parents if parent.key[0] == "runs"]
    # the other apps at their newest (their columns exist in the table whatever the runs app's state)
    old = _migrate(before + [n for n in graph.leaf_nodes() if n[0] != "runs"])
    user = old.get_model("auth", "User").objects.create(username="carol")
    scenario = old.get_model("scenarios", "Scenario").objects.create(
        owner=user, family="toy", name="kept", config=toy_scenario
    )
    _, cfg = schedulers.validate(toy_scenario)
    header = {"family": "toy", "scenario": cfg.model_dump(mode="json"), "runs": [], "summary": {}}
    Run = old.get_model("runs", "Run")
    done = Run.objects.create(scenario=scenario, config=toy_scenario, status="succeeded",
                              result_blob=zlib.compress(orjson.dumps(header)))  # fmt: skip
    queued = Run.objects.create(scenario=scenario, config=toy_scenario)
    _migrate(graph.leaf_nodes())

    from cloudsched_web.runs.models import Run

    assert Run.objects.get(pk=done.pk).workload_digest == schedulers.workload_digest(header["scenario"])
    assert Run.objects.get(pk=queued.pk).workload_digest == ""
