"""The data migration moves inline SWF text of stored scenarios and runs into Traces, losing nothing."""

import gzip

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import schedulers
from tests.web.test_traces import SWF

pytestmark = pytest.mark.django_db(transaction=True)

BAD = "1 2 3\n"  # does not parse: left inline, reported


def _migration(graph):
    """The inline-to-stored migration and the nodes it depends on (found by name, whatever its number)."""
    (mine,) = [key for key in graph.nodes if key[1].endswith("_inline_traces_to_stored")]
    return mine, sorted(parent.key for parent in graph.node_map[mine].parents)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _inline(family, text):
    config = schedulers.example(family)
    field = "text" if family == "vm_reservations" else "swf"
    config["workload"] = {"kind": "trace", field: text}
    config = schedulers.validate(config)[1].model_dump(mode="json")
    del config["workload"]["trace"]  # stored before the field existed
    return config


def test_inline_traces_become_stored_traces_and_back(toy_scenario):
    graph = MigrationExecutor(connection).loader.graph
    mine, before = _migration(graph)
    old = _migrate(before)
    user = old.get_model("auth", "User").objects.create(username="carol")
    Scenario = old.get_model("scenarios", "Scenario")
    rows = {}
    for family in ("backfill", "federated", "vm_reservations"):
        rows[family] = Scenario.objects.create(owner=user, family=family, name=family, config=_inline(family, SWF))
    broken = dict(rows["backfill"].config, workload={**rows["backfill"].config["workload"], "swf": BAD})
    rows["broken"] = Scenario.objects.create(owner=user, family="backfill", name="broken", config=broken)
    rows["toy"] = Scenario.objects.create(owner=user, family="toy", name="toy", config=toy_scenario)
    old.get_model("runs", "Run").objects.create(scenario=rows["federated"], config=rows["federated"].config)

    apps = _migrate([mine])  # the models as of this migration (later ones may add columns)
    Trace = apps.get_model("traces", "Trace")
    Current = apps.get_model("scenarios", "Scenario")
    t = Trace.objects.get()  # three scenarios and a run, one content: one trace
    ref = "sha256:" + t.sha256  # Trace.ref (a property: historical models have only the fields)
    assert (t.jobs, t.processors, t.owner_id) == (5, 16, user.pk)
    assert t.holders.get().user_id == user.pk
    with open(t.file.path, "rb") as f:
        assert gzip.decompress(f.read()).decode() == SWF
    for family in ("backfill", "federated", "vm_reservations"):
        config = Current.objects.get(pk=rows[family].pk).config
        assert config["workload"]["trace"] == ref
        assert "1   0  5 100" not in str(config)
        schedulers.validate(config)  # still a valid scenario (resolved through the Trace table)
    run = apps.get_model("runs", "Run").objects.get()
    assert run.config["workload"]["trace"] == ref and run.config["workload"]["swf"] is None
    assert Current.objects.get(pk=rows["broken"].pk).config["workload"]["swf"] == BAD
    assert Current.objects.get(pk=rows["toy"].pk).config == toy_scenario

    _migrate(before)  # and back: the text returns to the configurations
    for family in ("backfill", "federated", "vm_reservations"):
        assert Scenario.objects.get(pk=rows[family].pk).config == rows[family].config
    _migrate(graph.leaf_nodes())
