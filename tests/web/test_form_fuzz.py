"""Adversarial input to the scenario and sweep forms: a page or a redirect, never a 500, never a corrupted scenario."""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedulers
from cloudsched_web.scenarios.models import Scenario
from schedulers.core.sweep import flatten, set_path

pytestmark = pytest.mark.django_db
FAMILIES = sorted(schedulers.all_families())
VALUES = [0, 1, -1, 0.5, 2, True, None, "x", "", [], {}, math.nan, math.inf, 1e308, 10**12, [1, "a"], {"a": 1}]
FUZZ = settings(
    max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _saved(alice, family):
    _, cfg = schedulers.validate(schedulers.example(family))
    return Scenario.objects.create(owner=alice, family=family, name="fuzz", config=cfg.model_dump(mode="json"))


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@FUZZ
@given(data=st.data())
def test_editing_with_mutated_json_saves_a_valid_scenario_or_changes_nothing(alice_client, alice, family, data):
    scenario = Scenario.objects.filter(owner=alice, family=family).first() or _saved(alice, family)
    before = scenario.config
    path = data.draw(st.sampled_from(sorted(flatten(before))))
    value = data.draw(st.sampled_from(VALUES))
    text = json.dumps(set_path(before, path, value))  # NaN/Infinity become JS literals, as a browser may send
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]  # truncated JSON
    response = alice_client.post(f"/scenarios/{scenario.pk}/edit/", {"family": family, "config": text})
    assert response.status_code in (200, 302)
    scenario.refresh_from_db()
    if response.status_code == 200:
        assert scenario.config == before
    else:
        schedulers.validate(scenario.config)  # what was saved is valid


@pytest.mark.parametrize("family", FAMILIES)
@FUZZ
@given(axis_values=st.text(max_size=40), family_field=st.sampled_from([*FAMILIES, "nope", ""]))
def test_the_sweep_form_never_fails_with_a_server_error(alice_client, alice, family, axis_values, family_field):
    scenario = Scenario.objects.filter(owner=alice, family=family).first() or _saved(alice, family)
    response = alice_client.post(f"/scenarios/{scenario.pk}/sweep/", {"axis1": "seed", "values1": axis_values})
    assert response.status_code in (200, 302, 404)
    response = alice_client.post("/scenarios/new/", {"family": family_field, "config": axis_values})
    assert response.status_code == 200
