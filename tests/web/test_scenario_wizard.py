"""The scenario editor: a wizard drawn from the family's JSON schema, errors keyed by the wizard's field paths."""

import json

import pytest

import schedulers
from cloudsched_web.scenarios.forms import error_paths, scalar_paths
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def _script(page, element_id):
    start = page.index(f'id="{element_id}"')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def test_the_editor_ships_the_family_schema_algorithms_and_filled_in_defaults(alice_client):
    page = alice_client.get("/scenarios/new/?family=toy").content.decode()
    assert _script(page, "scenario-schema") == schedulers.schema("toy")
    assert _script(page, "scenario-algorithms") == {
        "fcfs": "first come first served",
        "lpt": "longest processing time first",
    }
    assert "&quot;machines&quot;: 3" in page  # the example normalised: every default is visible to edit


def test_it_keys_errors_by_the_path_the_wizard_drew(alice_client):
    config = {"family": "toy", "repetitions": 0, "datacenter": {"machines": 0}}
    response = alice_client.post("/scenarios/new/", {"family": "toy", "config": json.dumps(config)})
    errors = _script(response.content.decode(), "scenario-errors")
    assert {e["path"] for e in errors} == {"repetitions", "datacenter.machines"}
    assert all(e["allowed"].startswith("≥") for e in errors)
    assert not Scenario.objects.exists()


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("workload.generator.n_jobs", "workload.n_jobs"),  # union tag dropped
        ("workload.generator.load.float", "workload.load"),  # branch type dropped
        ("datacenter.processors", "datacenter.processors"),
        ("seed", "seed"),
    ],
)
def test_error_paths_drop_union_tags(field, expected):
    if "backfill" not in schedulers.all_families():
        pytest.skip("backfill not installed")
    assert (
        error_paths([{"field": field, "message": "m", "allowed": ""}], schedulers.schema("backfill"))[0]["path"]
        == expected
    )


def test_error_paths_keep_list_indexes():
    if "federated" not in schedulers.all_families():
        pytest.skip("federated not installed")
    schema = schedulers.schema("federated")
    assert (
        error_paths([{"field": "datacenter.clouds[2].servers", "message": "", "allowed": ""}], schema)[0]["path"]
        == "datacenter.clouds[2].servers"
    )


def test_every_family_example_validates_and_has_a_drawable_schema():
    assert schedulers.all_families()  # the loop below checks each
    for name in schedulers.all_families():
        schema = schedulers.schema(name)
        assert schema["type"] == "object" and "algorithms" in schema["properties"]
        schedulers.validate(schedulers.example(name))


def test_edit_prefills_the_saved_scenario_and_a_family_switch_the_example(alice_client, scenario):
    page = alice_client.get(f"/scenarios/{scenario.pk}/edit/").content.decode()
    assert "toy example" in page
    other = next((f for f in schedulers.all_families() if f != "toy"), None)
    if other:
        page = alice_client.get(f"/scenarios/{scenario.pk}/edit/?family={other}").content.decode()
        assert f'"family": "{other}"' in page.replace("&quot;", '"')


def test_scalar_paths_list_what_a_sweep_can_vary(toy_scenario):
    _family, cfg = schedulers.validate(toy_scenario)
    paths = scalar_paths(cfg.model_dump(mode="json"))
    assert "datacenter.machines" in paths and "workload.jobs" in paths and "seed" in paths
    assert "family" not in paths and "name" not in paths
