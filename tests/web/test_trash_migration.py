"""The trash migrations keep every existing scenario, study and run, live."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def _trash_migrations(graph):
    """The ``*_trash`` migrations of both apps, and what each depends on (found by name, whatever its number)."""
    mine = sorted(key for key in graph.nodes if key[1].endswith("_trash"))
    before = {parent.key for key in mine for parent in graph.node_map[key].parents if parent.key[0] == key[0]}
    return mine, sorted(before)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_rows_from_before_the_trash_survive_the_migration_and_stay_visible(toy_scenario):
    graph = MigrationExecutor(connection).loader.graph
    mine, before = _trash_migrations(graph)
    assert {app for app, _ in mine} == {"runs", "scenarios"}
    old = _migrate(before)
    user = old.get_model("auth", "User").objects.create(username="carol")
    scenario = old.get_model("scenarios", "Scenario").objects.create(
        owner=user, family="toy", name="kept", config=toy_scenario
    )
    study = old.get_model("runs", "Study").objects.create(scenario=scenario, name="kept study")
    old.get_model("runs", "Run").objects.create(scenario=scenario, study=study, config=toy_scenario)
    _migrate(graph.leaf_nodes())  # the trash migrations and everything else

    from cloudsched_web.runs.models import Run, Study
    from cloudsched_web.scenarios.models import Scenario

    assert list(Scenario.objects.values_list("name", "trashed_at")) == [("kept", None)]
    assert Study.objects.get().name == "kept study" and Run.objects.get().study_id == study.pk
