"""What the ERAT pull sees (Section 3.1) and why FCFS speeds up with AR applications (Tables 4-5).

Hand-worked on one or two 4-VM clouds with no image or dataset transfer, so every time is a
runtime: the list schedulers' slot tables must describe the cloud's *current* status, and
under FCFS an AR application runs in the VMs a blocked best-effort queue head leaves idle.
"""

from __future__ import annotations

import numpy as np
import pytest

import schedulers
from schedulers.federated.planner import Frontier

from .helpers import capacities, check_schedule, instance_of, simulate, stints

CLOUDS = [
    {"name": "home", "servers": 1, "server_capacity": 4, "perf": 1.0},
    {"name": "slow", "servers": 1, "server_capacity": 4, "perf": 0.5},
]


def _scenario(jobs: list[dict], algorithms: list[str], slot_tables: str = "current", clouds=CLOUDS) -> dict:
    return {
        "family": "federated",
        "seed": 1,
        "algorithms": algorithms,
        "datacenter": {"clouds": clouds},
        "workload": {"kind": "jobs", "image_size_gb": 0, "dataset_size_gb": 0, "edge_data_gb": 0, "jobs": jobs},
        "params": {"alpha": 0.8, "slot_tables": slot_tables},
    }


# app 0 at 0: task 0 (1 VM, 100 s) → task 1 (4 VMs, 100 s); app 1 at 50: one task of 3 VMs, 40 s
STALE = [
    {"arrival": 0.0, "tasks": [{"runtime_s": 100.0, "vms": 1}, {"runtime_s": 100.0, "vms": 4, "preds": [0]}]},
    {"arrival": 50.0, "tasks": [{"runtime_s": 40.0, "vms": 3}]},
]


@pytest.mark.parametrize("algorithm", ["cls", "dcls", "cmms", "dcmms"])
def test_erat_comes_from_the_clouds_current_status_not_a_stale_plan(algorithm):
    """Section 3.1: the pull is answered "based on its current status of resources".

    App 0 goes home: task 0 on 1 VM over [0, 100), task 1 on all 4 VMs over [100, 200). At
    50 app 1 (3 VMs, 40 s) asks. Current status: task 0 runs on 1 VM until 100, 3 VMs are
    free, task 1 is not ready: it holds all four VMs over [100, 200) (committed work),
    not before: ERAT 50, τ = 90 at home vs 50 + 80 = 130 on the slow cloud → home, finished at
    90, before task 1 needs the VMs. The plan written at 0 (no insertion)
    holds all 4 home VMs until 200: τ = 240 at home → slow cloud, 80 s instead of 40 s.
    """
    runs = {}
    for tables in ("current", "plan"):
        scenario = _scenario(STALE, [algorithm], tables)
        run = schedulers.run(scenario)["runs"][0]
        check_schedule(run, instance_of(scenario), capacities(CLOUDS))
        runs[tables] = stints(run["schedule"])
    assert runs["current"]["1.0"] == [(50.0, 90.0, 0.0, "finish", "home")]
    assert runs["plan"]["1.0"] == [(50.0, 130.0, 0.0, "finish", "slow")]
    for s in runs.values():  # app 0 is the same either way
        assert s["0.1"] == [(100.0, 200.0, 0.0, "finish", "home")]


def test_with_a_stale_plan_the_list_schedulers_lose_to_fcfs():
    """The same two apps: FCFS keeps app 1 home ([50, 90)), average (200 + 40) / 2 = 120 s.

    DCLS with the current status does the same (ratio 1); with the stale plan it sends app 1 to
    the slow cloud, (200 + 80) / 2 = 140 s, ratio 1.17 > 1: Table 4's reversal in miniature.
    """
    avg = {}
    for tables in ("current", "plan"):
        scenario = _scenario(STALE, ["fcfs", "dcls"], tables)
        for run in schedulers.run(scenario)["runs"]:
            check_schedule(run, instance_of(scenario), capacities(CLOUDS))
            avg[tables, run["algorithm"]] = run["metrics"]["avg_app_execution_time_s"]
    assert avg["current", "fcfs"] == avg["plan", "fcfs"] == pytest.approx(120.0)
    assert avg["current", "dcls"] == pytest.approx(120.0)
    assert avg["plan", "dcls"] == pytest.approx(140.0)


def test_the_pull_counts_the_waiting_queue():
    """The rebuilt table holds the cloud's queue ("the current task queue of cloud j", eq. 5), not only running tasks.

    At 0 app 0 (4 VMs, 100 s) runs at home (τ 100 vs 200 slow). At 10 app 1 (4 VMs, 100 s):
    home frees its VMs at 100, τ = 200 vs 10 + 200 slow → home, where it waits in the queue.
    At 20 app 2 (2 VMs, 100 s): home gives its VMs to the queue head over [100, 200), τ = 300
    vs 20 + 200 = 220 slow → slow. Leaving the queue out would offer 100 + 100 = 200 at home.
    """
    jobs = [
        {"arrival": 0.0, "tasks": [{"runtime_s": 100.0, "vms": 4}]},
        {"arrival": 10.0, "tasks": [{"runtime_s": 100.0, "vms": 4}]},
        {"arrival": 20.0, "tasks": [{"runtime_s": 100.0, "vms": 2}]},
    ]
    scenario = _scenario(jobs, ["cls"])
    sim, inst = simulate(scenario, "cls")
    assert sim.planner.cloud == [0, 0, 1]
    assert sim.planner.est_fin == pytest.approx([100.0, 200.0, 220.0])
    run = schedulers.run(scenario)["runs"][0]
    check_schedule(run, inst, capacities(CLOUDS))


def test_fcfs_runs_an_ar_app_in_the_vms_a_blocked_queue_head_leaves_idle():
    """Why FCFS gets faster as the AR share grows (Tables 4-5), on one 4-VM cloud.

    App 0 (3 VMs, 100 s) starts at 0; app 1 (4 VMs, 100 s) heads the best-effort queue from 1
    to 100 (Section 5.1.3: only "when there are enough VMs for the task on the top of the
    queue"), app 2 (1 VM, 50 s) waits behind it and runs over [200, 250): average (100 + 199
    + 248) / 3 = 182.33 s. Made AR (zero notice, Section 3.2) app 2 is admitted at 2 on the
    VM the blocked head leaves idle, runs over [2, 52) and delays nobody: (100 + 199 + 50) /
    3 = 116.33 s. FCFS's time falls with the AR share although no task ran faster.
    """
    one = [CLOUDS[0]]
    jobs = [
        {"arrival": 0.0, "tasks": [{"runtime_s": 100.0, "vms": 3}]},
        {"arrival": 1.0, "tasks": [{"runtime_s": 100.0, "vms": 4}]},
        {"arrival": 2.0, "tasks": [{"runtime_s": 50.0, "vms": 1}]},
    ]
    expected = {False: ((200.0, 250.0), 547 / 3), True: ((2.0, 52.0), 349 / 3)}
    assert expected  # the loop below checks each
    for ar, ((start, end), avg) in expected.items():
        jobs[2]["ar"] = ar
        scenario = _scenario(jobs, ["fcfs"], clouds=one)
        run = schedulers.run(scenario)["runs"][0]
        check_schedule(run, instance_of(scenario), capacities(one))
        s = stints(run["schedule"])
        assert s["1.0"] == [(100.0, 200.0, 0.0, "finish", "home")]
        assert s["2.0"] == [(start, end, 0.0, "finish", "home")]
        assert run["metrics"]["avg_app_execution_time_s"] == pytest.approx(avg)
        assert run["metrics"]["preemptions"] == 0


def test_batched_fifo_takes_equal_one_take_at_a_time():
    """:meth:`Frontier.take_fifo` (the queue part of the pull) is ``take`` applied task by task."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        vms = int(rng.integers(1, 40))
        now = float(rng.integers(0, 50))
        busy, left = [], vms
        while left and rng.random() < 0.7:
            w = int(rng.integers(1, left + 1))
            busy.append((float(rng.integers(0, 100)), w))
            left -= w
        tasks = [(int(rng.integers(1, vms + 1)), float(rng.integers(0, 30))) for _ in range(rng.integers(0, 12))]
        one, batch = Frontier(vms, now, busy), Frontier(vms, now, busy)
        for w, d in tasks:
            one.take(w, max(now, one.kth(w)), d, shift=False)
        batch.take_fifo(now, tasks)
        assert batch.times.tolist() == one.times.tolist()
        assert batch.counts.tolist() == one.counts.tolist()


def test_water_fill_raises_the_earliest_vms_to_one_level():
    """VMs free at 0, 0, 10, 20 and 30 VM-s of queued work beyond the exact part: level L with
    2L + (L − 10) = 30 → L = 40/3 ≤ 20, so three VMs at 13.33 and one at 20."""
    f = Frontier(4, 0.0, [(10.0, 1), (20.0, 1)])
    f.water_fill(30.0)
    assert f.times.tolist() == pytest.approx([40 / 3, 20.0])
    assert f.counts.tolist() == [3, 1]
    g = Frontier(4, 0.0, [(10.0, 1), (20.0, 1)])
    g.water_fill(50.0)  # 20 + 20 + 10: level exactly 20, one run of 4 VMs
    assert g.times.tolist() == [20.0] and g.counts.tolist() == [4]
    g.water_fill(8.0)  # all four at 20 → 22
    assert g.times.tolist() == [22.0] and g.counts.tolist() == [4]


# ../shared/cases/fed_slot_tables.json: home (8 one-VM servers, perf 0.7) and fast (4, perf 1.0); six
# applications 10 s apart, each four independent 1,000 s one-VM tasks; 50 GB dataset (400 s to fast at
# 1 Gbit/s), 1 GB image (0.25 s)
COMMITTED_CLOUDS = [
    {"name": "home", "servers": 8, "server_capacity": 1, "perf": 0.7},
    {"name": "fast", "servers": 4, "server_capacity": 1, "perf": 1.0},
]
COMMITTED = {
    "family": "federated",
    "seed": 1,
    "algorithms": ["fcfs", "cls", "dcls", "cmms", "dcmms"],
    "datacenter": {"clouds": COMMITTED_CLOUDS},
    "workload": {
        "kind": "jobs",
        "dataset_size_gb": 50.0,
        "image_size_gb": 1.0,
        "jobs": [{"arrival": 10.0 * a, "home": 0, "tasks": [{"runtime_s": 1000.0, "vms": 1}] * 4} for a in range(6)],
    },
}


def test_slot_tables_count_work_already_committed_to_a_cloud():
    """fed_slot_tables: a task assigned to a cloud but not ready yet is part of its current status.

    Section 3.1: an assigned task "will enter a queue waiting for execution", and eq. 5's ERAT is
    based on "the current task queue of cloud j". App 0 goes to fast (ERAT 400, the dataset;
    τ 1,400.25 vs 1,428.8 at home). At 10 its four tasks still wait for the dataset, but they
    hold fast's four VMs over [400, 1,400.25): app 1 gets τ 2,400.5 there, 1,438.8 at home →
    home; app 2 home; app 3, with home full until 1,438.8, fast (2,400.5 < 2,867.9); apps 4-5
    home. Left out, fast looked empty to every application and got all 24 tasks: average
    3,876 s, makespan 6,402 s, against FCFS's 2,838 s.
    """
    fast, home = 1, 0
    expected = [fast, home, home, fast, home, home]
    runs = {r["algorithm"]: r for r in schedulers.run(COMMITTED)["runs"]}
    inst = instance_of(COMMITTED)
    for algorithm in ("cls", "dcls", "cmms", "dcmms"):
        sim, _ = simulate(COMMITTED, algorithm)
        assert sim.planner.cloud == [c for c in expected for _ in range(4)], algorithm
        m = runs[algorithm]["metrics"]
        check_schedule(runs[algorithm], inst, capacities(COMMITTED_CLOUDS))
        assert m["avg_app_execution_time_s"] == pytest.approx(2047.3, abs=0.1)
        assert m["makespan_s"] == pytest.approx(2877.6, abs=0.1)
        assert m["avg_app_execution_time_s"] < runs["fcfs"]["metrics"]["avg_app_execution_time_s"]
    assert runs["fcfs"]["metrics"]["avg_app_execution_time_s"] == pytest.approx(2837.6, abs=0.1)


def _brute_earliest(free_times, committed, w, ready, duration, step=0.5):
    """Earliest multiple of ``step`` ≥ ready at which w VMs stay free for ``duration``: VMs free at
    ``free_times`` (then free for good), minus the committed ``(start, end, VMs)`` over their stretch."""

    def left(t):
        return sum(f <= t for f in free_times) - sum(v for s, e, v in committed if s <= t < e)

    t = ready
    while True:
        probes = [t, *(s for s, _, _ in committed if t < s < t + duration)]
        if min(left(p) for p in probes) >= w:
            return t
        t += step


def test_earliest_fits_around_committed_work():
    """:meth:`Frontier.earliest` against a scan over half-second steps on 300 random tables (times on the grid)."""
    rng = np.random.default_rng(26)
    for _ in range(300):
        vms = int(rng.integers(1, 9))
        busy, left = [], vms
        while left and rng.random() < 0.6:
            w = int(rng.integers(1, left + 1))
            busy.append((float(rng.integers(0, 40)), w))
            left -= w
        table = Frontier(vms, 0.0, busy)
        free_times = [t for t, w in busy for _ in range(w)] + [0.0] * left
        committed = []
        for _ in range(rng.integers(0, 5)):
            w, ready, d = int(rng.integers(1, vms + 1)), float(rng.integers(0, 60)), float(rng.integers(1, 30))
            start = table.earliest(w, ready, d)
            assert start == _brute_earliest(free_times, committed, w, ready, d)
            table.commit_later(w, start, d)
            committed.append((start, start + d, w))
        w, ready, d = int(rng.integers(1, vms + 1)), float(rng.integers(0, 60)), float(rng.integers(1, 30))
        assert table.earliest(w, ready, d) == _brute_earliest(free_times, committed, w, ready, d)
