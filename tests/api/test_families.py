import pytest

import schedulers

pytestmark = pytest.mark.django_db


def test_it_lists_every_registered_family_with_algorithms_and_presets(api):
    families = {f["name"]: f for f in api.get("/families").json()}
    assert set(families) == set(schedulers.all_families())
    assert families["toy"]["algorithms"] == {"fcfs": "first come first served", "lpt": "longest processing time first"}
    assert families["toy"]["presets"] == ["machines_sweep"]


def test_a_family_has_its_schema_and_a_valid_example(api):
    data = api.get("/families/toy").json()
    assert data["scenario_schema"] == schedulers.schema("toy")
    schedulers.validate(data["example"])
    assert api.get("/families/toy/schema").json() == schedulers.schema("toy")
    assert api.get("/families/toy/example").json() == schedulers.example("toy")


def test_presets_carry_claims_and_scenarios(api):
    [preset] = api.get("/families/toy/presets").json()
    assert preset["name"] == "machines_sweep" and len(preset["scenarios"]) == 3
    assert "Graham" in api.get("/families/toy/presets/machines_sweep").json()["claims"][0]


def test_unknown_family_or_preset_is_404_listing_the_allowed_ones(api):
    body = api.get("/families/nope").json()["error"]
    assert body["code"] == "not_found" and "toy" in body["allowed"]
    body = api.get("/families/toy/presets/nope").json()["error"]
    assert body["field"] == "preset" and body["allowed"] == "machines_sweep"


def test_each_algorithm_names_its_origin_a_plugin_its_package_and_version(api, tmp_path):
    from tests.plugin_pkg import installed

    with installed(tmp_path / "site"):
        backfill = {f["name"]: f for f in api.get("/families").json()}["backfill"]
    assert backfill["origins"]["easy"] == {"package": "cloudsched", "version": "built-in"}
    widest = backfill["origins"]["widest"]
    assert (widest["package"], widest["version"], widest["entry_point"]) == ("cloudsched-test-orders", "0.3.1",
                                                                            "cloudsched_test_orders:widest")  # fmt: skip
    assert len(widest["sha256"]) == 64 and "file" not in widest  # the server's paths stay on the server
    assert set(backfill["origins"]) == set(backfill["algorithms"])
