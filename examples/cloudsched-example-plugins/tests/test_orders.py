"""The example queue order: its keys by hand, and a run beside EASY through cloudsched's front door."""

import numpy as np
from cloudsched_example_plugins.orders import largest_xfactor

import schedulers
from schedulers.backfill.policy import Jobs, QueueOrder


def test_the_job_with_the_largest_expansion_factor_comes_first():
    jobs = Jobs(index=np.arange(3), submit=np.array([0.0, 50.0, 90.0]), size=np.array([4, 1, 2]),
                estimate=np.array([100.0, 10.0, 10.0]), processors=8)  # fmt: skip
    keys = largest_xfactor(100.0, jobs)  # factors 2, 6, 2
    assert isinstance(largest_xfactor, QueueOrder) and largest_xfactor.dynamic
    assert np.argsort(keys, kind="stable").tolist() == [1, 0, 2]


def test_it_runs_as_an_algorithm_when_installed():
    """Needs the package installed (pip install -e): then the entry point makes it a backfill algorithm."""
    scenario = {"family": "backfill", "algorithms": ["easy", "easy-lxf"], "datacenter": {"processors": 64},
                "workload": {"n_jobs": 2000, "load": 0.9, "feitelson": {"max_size": 64}},
                "params": {"record_schedule": False}}  # fmt: skip
    result = schedulers.run(scenario)
    assert result["plugins"]["easy-lxf"]["package"] == "cloudsched-example-plugins"
    easy, lxf = (r["metrics"]["avg_bounded_slowdown"] for r in result["runs"])
    assert lxf < easy  # 54.2 against 79.9 with this seed
