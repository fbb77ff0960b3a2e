"""schedulers.workload_digest: runs that see the same instances share it, and only they."""

import pytest

import schedulers


def _normalised(scenario):
    _, cfg = schedulers.validate(scenario)
    return cfg.model_dump(mode="json")


def _digest(scenario):
    return schedulers.workload_digest(_normalised(scenario))


@pytest.mark.parametrize("family", [f for f in schedulers.all_families() if f != "toy"])
def test_algorithms_repetitions_and_name_leave_the_workload_digest_alone(family):
    base = schedulers.example(family)
    algs = _normalised(base)["algorithms"]
    other = {**base, "name": "another name", "algorithms": algs[-1:], "repetitions": base.get("repetitions", 1) + 2}
    assert _digest(base) == _digest(other)
    assert _digest(base) != _digest({**base, "seed": base.get("seed", 0) + 1})


def test_the_workload_and_datacenter_change_it():
    base = schedulers.example("backfill")
    n = _normalised(base)
    assert _digest({**base, "workload": {**n["workload"], "n_jobs": n["workload"]["n_jobs"] + 1}}) != _digest(base)
    assert _digest(
        {**base, "datacenter": {**n["datacenter"], "processors": n["datacenter"]["processors"] * 2}}
    ) != _digest(base)


def test_backfill_params_that_shape_the_instance_count_and_policy_params_do_not():
    """backfill draws each job's background efficiency from params (eq. 3.2): part of its workload."""
    base = schedulers.example("backfill")
    params = _normalised(base)["params"]
    assert _digest({**base, "params": {**params, "eff_multi_mean": 0.5}}) != _digest(base)
    assert _digest({**base, "params": {**params, "migration_cost_s": 99.0}}) == _digest(base)


def test_the_same_digest_means_the_same_instance():
    """Two scenarios with one digest give every algorithm the same jobs: equal job records under one algorithm."""
    base = {**schedulers.example("backfill"), "repetitions": 1, "algorithms": ["fcfs"]}
    n = _normalised(base)
    other = {**base, "name": "x", "params": {**n["params"], "migration_cost_s": 99.0}}
    assert _digest(base) == _digest(other)
    a, b = schedulers.run(base), schedulers.run(other)
    assert a["runs"][0]["jobs"] == b["runs"][0]["jobs"]
