"""Algorithm-level rules: CMMS caching is exact, baselines place tasks as documented, progress reports."""

from __future__ import annotations

import numpy as np
import pytest

import schedulers
from schedulers.federated.allocate import _reserve_entries, assign_app
from schedulers.federated.cmms import cmms_assign
from schedulers.federated.planner import Planner

from .helpers import instance_of

SCENARIO = {
    "family": "federated",
    "seed": 4,
    "datacenter": {
        "clouds": [
            {"name": "a", "servers": 4, "server_capacity": 4, "perf": 1.0},
            {"name": "b", "servers": 4, "server_capacity": 8, "perf": 0.85},
            {"name": "c", "servers": 8, "server_capacity": 2, "perf": 0.5},
        ]
    },
    "workload": {"kind": "generator", "apps": 8, "tasks_min": 5, "tasks_max": 20, "vms_max": 16, "ar_share": 0.0},
}


def _naive_cmms(planner: Planner, app: int) -> None:
    """Alg. 3 recomputing every (task, cloud) pair at every step."""
    inst = planner.inst
    lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
    left = [t for t in range(lo, hi) if planner.cloud[t] < 0]
    while left:
        best = (np.inf, -1, -1, 0.0)
        for t in left:
            if any(planner.cloud[p] < 0 for p in planner.preds[t]):
                continue
            for c in range(inst.n_clouds):
                erat, tau = planner.estimate(t, c)
                if tau < best[0]:
                    best = (tau, t, c, erat)
        planner.commit(best[1], best[2], best[3])
        left.remove(best[1])


@pytest.mark.parametrize("ar_share", [0.0, 0.5])
def test_cmms_with_cached_estimates_equals_the_naive_alg3(ar_share):
    scenario = SCENARIO | {"workload": SCENARIO["workload"] | {"ar_share": ar_share}}
    inst = instance_of(scenario)
    fast, slow = Planner(inst, 0.0, False), Planner(inst, 0.0, False)
    for app in range(inst.n_apps):
        if inst.app_ar[app]:
            assert _reserve_entries("cmms", fast, app) == _reserve_entries("cmms", slow, app)
        cmms_assign(fast, app)
        _naive_cmms(slow, app)
    assert fast.cloud == slow.cloud
    assert fast.est_fin == slow.est_fin


def test_fcfs_keeps_tasks_home_and_round_robin_deals_them_in_turn():
    inst = instance_of(SCENARIO)
    fcfs, rr = Planner(inst, 0.0, False), Planner(inst, 0.0, False)
    for app in range(inst.n_apps):
        assert assign_app("fcfs", fcfs, app)
        assert assign_app("round_robin", rr, app)
    home = inst.app_home[inst.task_app]
    fits_home = np.isfinite(inst.etm[np.arange(inst.n_tasks), home])
    assert (np.asarray(fcfs.cloud)[fits_home] == home[fits_home]).all()
    fits_all = np.isfinite(inst.etm).all(axis=1)
    dealt = np.asarray(rr.cloud)
    if fits_all.all():
        assert dealt.tolist() == (np.arange(inst.n_tasks) % 3).tolist()


def test_list_schedulers_prefer_fast_clouds_when_idle():
    """With idle clouds and no dataset cost, CLS puts a lone task on the fastest cloud (eq. 5)."""
    scenario = SCENARIO | {
        "workload": {"kind": "jobs", "dataset_size_gb": 0.0, "jobs": [{"home": 2, "tasks": [{"runtime_s": 100.0}]}]},
        "algorithms": ["cls", "cmms", "fcfs"],
    }
    runs = {r["algorithm"]: r for r in schedulers.run(scenario)["runs"]}
    assert runs["cls"]["schedule"][0]["cloud"] == "a"
    assert runs["cmms"]["schedule"][0]["cloud"] == "a"
    assert runs["fcfs"]["schedule"][0]["cloud"] == "c"


def test_dataset_transfer_keeps_short_tasks_home():
    """M_s/S_c (1 TB at 1 Gbps = 8000 s) outweighs a 2× slower home cloud for a 100 s task."""
    scenario = SCENARIO | {
        "workload": {"kind": "jobs", "jobs": [{"home": 2, "tasks": [{"runtime_s": 100.0}]}]},
        "algorithms": ["dcls"],
    }
    run = schedulers.run(scenario)["runs"][0]
    assert run["schedule"][0]["cloud"] == "c"


def test_progress_is_reported_and_bounded():
    seen: list[float] = []
    schedulers.run(SCENARIO | {"algorithms": ["dcmms"]}, progress=lambda f, m="": seen.append(f))
    assert seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)
    assert len(seen) <= 110
