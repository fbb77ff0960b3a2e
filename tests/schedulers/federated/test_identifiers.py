"""Results name the user's applications and times: no renumbering, no shift to t = 0."""

from __future__ import annotations

import pytest

import schedulers

from .helpers import stints


def _scenario(jobs: list[dict], **workload) -> dict:
    return {
        "family": "federated",
        "seed": 1,
        "algorithms": ["fcfs", "dcmms"],
        "datacenter": {"clouds": [{"name": "c0", "servers": 4, "server_capacity": 4, "perf": 1.0}]},
        "workload": {"kind": "jobs", "dataset_size_gb": 0, "jobs": jobs, **workload},
    }


# the minimal case fed_unsorted: the user lists the later application first
UNSORTED = [
    {"arrival": 500, "tasks": [{"runtime_s": 10, "vms": 1}]},
    {"arrival": 0, "tasks": [{"runtime_s": 999, "vms": 2}, {"runtime_s": 5, "vms": 1, "preds": [0]}]},
]


@pytest.mark.parametrize("algorithm", ["fcfs", "dcmms"])
def test_inline_apps_keep_their_list_index(algorithm):
    """App 0 is the one listed first (arrives at 500), app 1 the one listed second (at 0)."""
    run = schedulers.run(_scenario(UNSORTED) | {"algorithms": [algorithm]})["runs"][0]
    jobs = {j["job"]: j for j in run["jobs"]}
    assert jobs["0"]["arrival"] == 500.0 and jobs["0"]["tasks"] == 1
    assert jobs["1"]["arrival"] == 0.0 and jobs["1"]["tasks"] == 2
    s = stints(run["schedule"])
    assert s["0.0"] == [(500.0, 512.0, 2.0, "finish", "c0")]  # image 2 s + 10 s
    assert s["1.0"] == [(0.0, 1001.0, 2.0, "finish", "c0")]
    assert s["1.1"] == [(1001.0, 1008.0, 2.0, "finish", "c0")]
    assert {seg["job"] for seg in run["schedule"]} == {"0", "1"}


def test_inline_times_are_the_users_not_shifted_to_zero():
    """Arrivals 1500 and 1000, AR start 1600: the records and segments keep those times."""
    jobs = [
        {"arrival": 1500, "ar": True, "start": 1600, "tasks": [{"runtime_s": 100, "vms": 4}]},
        {"arrival": 1000, "tasks": [{"runtime_s": 50, "vms": 2}]},
    ]
    run = schedulers.run(_scenario(jobs) | {"algorithms": ["fcfs"]})["runs"][0]
    records = {j["job"]: j for j in run["jobs"]}
    assert records["0"]["arrival"] == 1500.0 and records["0"]["required_start"] == 1600.0
    assert records["0"]["finish"] == 1702.0 and records["0"]["execution_time_s"] == 202.0
    assert records["1"]["arrival"] == 1000.0 and records["1"]["finish"] == 1052.0
    s = stints(run["schedule"])
    assert s["0.0"] == [(1600.0, 1702.0, 2.0, "finish", "c0")]
    assert s["1.0"] == [(1000.0, 1052.0, 2.0, "finish", "c0")]
    # energy, loads and the makespan count from the first arrival, not from t = 0
    assert run["metrics"]["makespan_s"] == 702.0
    assert run["series"]["t"][0] == 1000.0


def test_gap_divisor_scales_distances_from_the_first_arrival():
    """Divisor 10: 1000 stays, 1500 → 1050, and the AR notice (100 s) is kept: start 1150."""
    jobs = [
        {"arrival": 1500, "ar": True, "start": 1600, "tasks": [{"runtime_s": 100, "vms": 4}]},
        {"arrival": 1000, "tasks": [{"runtime_s": 50, "vms": 2}]},
    ]
    run = schedulers.run(_scenario(jobs, gap_divisor=10.0) | {"algorithms": ["fcfs"]})["runs"][0]
    records = {j["job"]: j for j in run["jobs"]}
    assert records["0"]["arrival"] == 1050.0 and records["0"]["required_start"] == 1150.0
    assert records["1"]["arrival"] == 1000.0
