import json

import pytest

import schedulers

pytestmark = pytest.mark.django_db


@pytest.fixture
def spec(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200  # public: no token needed to read the description
    return response


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def test_it_is_openapi_3_with_unique_keys(spec):
    doc = json.loads(spec.content, object_pairs_hook=_no_duplicate_keys)
    assert doc["openapi"].startswith("3.")
    assert "/api/v1/runs/{run_id}/result/segments" in doc["paths"]


def test_scenario_bodies_are_the_families_own_models(spec):
    schemas = spec.json()["components"]["schemas"]
    mapping = schemas["Scenario"]["discriminator"]["mapping"]
    assert set(mapping) == set(schedulers.all_families())
    toy = schedulers.get_family("toy").scenario_model.model_json_schema(ref_template="#/components/schemas/toy.{model}")
    toy.pop("$defs")
    assert schemas["toy.Scenario"] == toy
    body = spec.json()["paths"]["/api/v1/scenarios"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Scenario"}


def test_every_operation_documents_the_json_errors(spec):
    assert spec.json()["paths"]  # the loop below checks each
    for methods in spec.json()["paths"].values():
        for operation in methods.values():
            for status in ("400", "401", "404", "413", "429", "500"):
                assert operation["responses"][status]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"
                }


def test_the_token_scheme_is_documented(spec):
    security = spec.json()["components"]["securitySchemes"]
    assert any(s.get("scheme") == "bearer" for s in security.values())


def test_preset_studies_list_the_registered_families_and_presets(spec):
    props = spec.json()["components"]["schemas"]["PresetIn"]["properties"]
    assert set(props["family"]["enum"]) == set(schedulers.all_families())
    assert "machines_sweep" in props["preset"]["enum"]
