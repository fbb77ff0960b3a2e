"""The migrations that add Run.scenario_name and Scenario.key fill them from what existing rows hold."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.web.test_trash_migration import _migrate

pytestmark = pytest.mark.django_db(transaction=True)


def _migration(graph, app, suffix):
    """The app's migration named ``*_<suffix>`` and the one before it (found by name, whatever its number)."""
    (key,) = [k for k in graph.nodes if k[0] == app and k[1].endswith(suffix)]
    (parent,) = [p.key for p in graph.node_map[key].parents if p.key[0] == app]
    return key, parent


def test_existing_runs_get_the_name_they_ran_under_and_existing_demos_their_key(toy_scenario):
    graph = MigrationExecutor(connection).loader.graph
    _, runs_before = _migration(graph, "runs", "_run_scenario_name")
    _, scenarios_before = _migration(graph, "scenarios", "_scenario_key_and_description")
    old = _migrate([runs_before, scenarios_before])
    user = old.get_model("auth", "User").objects.create(username="carol")
    Scenario = old.get_model("scenarios", "Scenario")
    Run, Study = old.get_model("runs", "Run"), old.get_model("runs", "Study")
    scenario = Scenario.objects.create(owner=user, family="toy", name="renamed now", config=toy_scenario)
    single = Run.objects.create(scenario=scenario, config={**toy_scenario, "name": "the name back then"})
    study = Study.objects.create(scenario=scenario, name="sweep")
    point = Run.objects.create(scenario=scenario, study=study, config={**toy_scenario, "name": "point 3"})
    nameless = Run.objects.create(scenario=scenario, config={"family": "toy"})
    demo = Scenario.objects.create(owner=user, family="toy", name="Demo: toy", config=toy_scenario)
    later_copy = Scenario.objects.create(owner=user, family="toy", name="Demo: toy", config=toy_scenario)
    other = Scenario.objects.create(owner=user, family="toy", name="Demo: backfill", config=toy_scenario)
    _migrate(graph.leaf_nodes())

    from cloudsched_web.runs.models import Run as NewRun
    from cloudsched_web.scenarios.models import Scenario as NewScenario

    names = dict(NewRun.objects.values_list("pk", "scenario_name"))
    assert names == {single.pk: "the name back then", point.pk: "renamed now", nameless.pk: "renamed now"}
    assert NewRun.objects.get(pk=single.pk).renamed_to == "renamed now"
    keys = dict(NewScenario.objects.values_list("pk", "key"))
    assert keys[demo.pk] == "demo-toy" and keys[later_copy.pk] == "" and keys[other.pk] == ""
    assert keys[scenario.pk] == ""
