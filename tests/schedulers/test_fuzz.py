"""Adversarial scenarios for every family: the only outcomes allowed are a result or a ScenarioError."""

import math
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.core import jsonio
from schedulers.core.sweep import flatten, set_path

FAMILIES = sorted(schedulers.all_families())
SMALL = [0, 1, -1, 0.5, 2, True, False]
NASTY = [None, "x", "", [], {}, math.nan, math.inf, -math.inf, 1e308, -1e308, 10**12, -(10**12), [1, "a"], {"a": 1}]


class Overtime(Exception):
    pass


def _alarm(signum, frame):
    raise Overtime()


def _run_briefly(scenario, seconds=30):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return schedulers.run(scenario)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _mutations(family):
    example = schedulers.example(family)
    paths = [p for p in flatten(example) if p not in ("family",)]
    return example, st.sampled_from(paths)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_a_mutated_example_validates_or_fails_with_a_field_error(family, data):
    example, paths = _mutations(family)
    path = data.draw(paths)
    value = data.draw(st.sampled_from(SMALL + NASTY))
    scenario = set_path(example, path, value)
    try:
        schedulers.validate(scenario)
    except schedulers.ScenarioError as exc:
        assert exc.errors and all(e["field"] for e in exc.errors)  # noqa: PT017 - either outcome is fine
        return
    if value in NASTY and not isinstance(value, bool):
        assert not (isinstance(value, float) and not math.isfinite(value)), f"{path} accepted {value}"
        return  # accepted a big but finite value: validation passed; not run (could be legitimately long)
    result = _run_briefly(scenario)
    jsonio.dumps(result)


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    junk=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
        max_leaves=10,
    )
)
def test_random_json_never_crashes_validation(family, junk):
    scenario = {"family": family, "datacenter": junk, "workload": junk, "params": junk}
    try:
        schedulers.validate(scenario)
    except schedulers.ScenarioError as exc:
        assert exc.errors  # noqa: PT017
