"""The admin's scenario JSON is read by the bounded reader: hostile text is a field error, never a 500."""

import json

import pytest
from django.contrib.auth import get_user_model

from schedulers.core.jsonio import MAX_DEPTH, MAX_INT_DIGITS

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw-unused-123"))
    return client


def _post(admin_client, scenario, config_text, url=None):
    url = url or f"/admin/scenarios/scenario/{scenario.pk}/change/"
    data = {"owner": scenario.owner_id, "name": scenario.name, "description": "", "config": config_text}
    return admin_client.post(url, data)


def _config_with(scenario, key, raw_value):
    """The scenario's JSON with ``key`` set to ``raw_value`` written verbatim."""
    text = json.dumps({**scenario.config, key: "PLACEHOLDER"})
    return text.replace('"PLACEHOLDER"', raw_value)


HOSTILE = {
    "deep nesting": ("[" * 100_000 + "]" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    "a 100,000-digit integer": (None, f"at most {MAX_INT_DIGITS} digits"),
    "NaN": (None, "not a JSON number"),
}


@pytest.mark.parametrize("case", HOSTILE)
@pytest.mark.parametrize("page", ["change", "add"])
def test_hostile_json_is_a_field_error_naming_the_limit(admin_client, scenario, case, page):
    text, expected = HOSTILE[case]
    if text is None:
        text = _config_with(scenario, "seed", "9" * 100_000 if "integer" in case else "NaN")
    before = scenario.config
    url = "/admin/scenarios/scenario/add/" if page == "add" else None
    response = _post(admin_client, scenario, text, url)
    assert response.status_code == 200  # the form again, not a 500
    body = response.content.decode()
    assert expected in body and "errorlist" in body
    if case != "deep nesting":
        assert "seed: " in body  # the path of the bad number
    scenario.refresh_from_db()
    assert scenario.config == before


def test_json_just_inside_the_limits_still_reaches_the_scenario_checks(admin_client, scenario):
    deep = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)  # inside the configuration object: MAX_DEPTH in all
    response = _post(admin_client, scenario, _config_with(scenario, "seed", deep))
    body = response.content.decode()
    assert response.status_code == 200 and "nested deeper" not in body and "seed" in body  # the library's own error


def test_a_valid_configuration_is_still_saved(admin_client, scenario):
    config = {**scenario.config, "seed": 12345}
    response = _post(admin_client, scenario, json.dumps(config))
    assert response.status_code == 302
    scenario.refresh_from_db()
    assert scenario.config["seed"] == 12345
