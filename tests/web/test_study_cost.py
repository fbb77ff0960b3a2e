"""A study's cost is bounded before anything is built, and its validation holds no write lock."""

import tracemalloc

import orjson
import pytest
from django.db import connection

import schedulers
from cloudsched_web.runs import services
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.services import MAX_STUDY_POINTS, submit_sweep


@pytest.mark.django_db
def test_a_grid_of_a_million_points_is_refused_from_its_axis_lengths(scenario):
    axes = {"seed": list(range(1000)), "workload.jobs": list(range(1, 1001))}  # the 9.8 KB probe body
    tracemalloc.start()
    try:
        with pytest.raises(schedulers.ScenarioError) as info:
            submit_sweep(scenario, axes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (error,) = info.value.errors
    assert error["field"] == "axes" and "1,000,000 points" in error["message"]
    assert error["allowed"] == f"1..{MAX_STUDY_POINTS} points"
    assert peak < 5 * 2**20  # expanding the grid first costs gigabytes
    assert not Study.objects.exists() and not Run.objects.exists()


@pytest.mark.django_db
def test_a_grid_at_the_point_limit_is_created_and_one_more_point_is_refused(scenario):
    study = submit_sweep(scenario, {"seed": list(range(10)), "workload.jobs": list(range(1, 21))})
    assert study.runs.count() == MAX_STUDY_POINTS == 200
    with pytest.raises(schedulers.ScenarioError, match="201 points"):
        submit_sweep(scenario, {"seed": list(range(201))})
    assert Study.objects.count() == 1


@pytest.mark.django_db
def test_what_a_study_would_store_is_bounded_at_the_limit_and_refused_above(scenario, monkeypatch):
    size = len(orjson.dumps(scenario.config))
    monkeypatch.setattr(services, "MAX_STUDY_CONFIG_BYTES", 4 * size)
    assert submit_sweep(scenario, {"seed": [1, 2, 3, 4]}).runs.count() == 4
    with pytest.raises(schedulers.ScenarioError) as info:
        submit_sweep(scenario, {"seed": [1, 2, 3, 4, 5]})
    assert info.value.errors[0]["field"] == "axes" and "5 points ×" in info.value.errors[0]["message"]
    assert Study.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_sweep_validates_its_points_outside_any_transaction(scenario, monkeypatch):
    """SQLite's write lock is held for a transaction's length: validation must not be inside one."""
    seen = []
    validate = schedulers.validate

    def watched(config):
        seen.append(connection.in_atomic_block)
        return validate(config)

    monkeypatch.setattr(schedulers, "validate", watched)
    submit_sweep(scenario, {"seed": [1, 2, 3]})
    assert seen == [False, False, False]
