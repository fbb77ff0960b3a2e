"""The trash migration keeps every existing scenario, study and run, live."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("scenarios", "0001_initial"), ("runs", "0006_run_page")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_rows_from_before_the_trash_survive_the_migration_and_stay_visible(toy_scenario):
    old = _migrate(BEFORE)
    user = old.get_model("auth", "User").objects.create(username="carol")
    scenario = old.get_model("scenarios", "Scenario").objects.create(
        owner=user, family="toy", name="kept", config=toy_scenario
    )
    study = old.get_model("runs", "Study").objects.create(scenario=scenario, name="kept study")
    old.get_model("runs", "Run").objects.create(scenario=scenario, study=study, config=toy_scenario)
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # AFTER and everything else

    from cloudsched_web.runs.models import Run, Study
    from cloudsched_web.scenarios.models import Scenario

    assert list(Scenario.objects.values_list("name", "trashed_at")) == [("kept", None)]
    assert Study.objects.get().name == "kept study" and Run.objects.get().study_id == study.pk
