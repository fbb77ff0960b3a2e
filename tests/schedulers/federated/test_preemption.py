"""Preemption: an AR lease takes only the VMs it lacks, and only lost time counts.

The two scenarios are the minimal cases ``fed_overpreempt`` and ``fed_zero_stint`` (one cloud,
one server, image load S/b = 8 GB / 4 GB/s = 2 s, no dataset), with hand-worked schedules.
"""

from __future__ import annotations

import pytest

import schedulers
from schedulers.federated.simulator import choose_victims

from .helpers import capacities, check_schedule, instance_of, stints


def _case(capacity: int, jobs: list[dict]) -> dict:
    return {
        "family": "federated",
        "seed": 1,
        "algorithms": ["fcfs", "cls", "dcmms"],
        "datacenter": {"clouds": [{"name": "c0", "servers": 1, "server_capacity": capacity, "perf": 1.0}]},
        "workload": {"kind": "jobs", "dataset_size_gb": 0, "jobs": jobs},
    }


OVERPREEMPT = _case(
    4,
    [
        {"arrival": 0, "tasks": [{"runtime_s": 1000, "vms": 3}]},
        {"arrival": 1, "tasks": [{"runtime_s": 1000, "vms": 1}]},
        {"arrival": 2, "ar": True, "start": 100, "tasks": [{"runtime_s": 50, "vms": 2}]},
    ],
)

ZERO_STINT = _case(
    2,
    [
        {
            "arrival": 0,
            "ar": True,
            "start": 0,
            "tasks": [{"runtime_s": 100, "vms": 2}, {"runtime_s": 100, "vms": 1, "preds": [0]}],
        },
        {"arrival": 1, "tasks": [{"runtime_s": 100, "vms": 2}]},
    ],
)


@pytest.mark.parametrize("algorithm", ["fcfs", "cls", "dcmms"])
def test_ar_lease_preempts_only_the_task_it_needs(algorithm):
    """4 VMs. BE a (3 VMs) from 0, BE b (1 VM) from 1; AR (2 VMs) reserved at 100.

    At 100 no VM is free; the AR lease needs 2. Preempting a alone frees 3, so b keeps
    running: b loads 2 s + 1000 s → ends 1003. a ran 100 − 2 = 98 s, 902 s left. AR: store
    a's image 2 s + load 2 s + 50 s → 100..154. a resumes at 154 (1 VM free before): 2 s
    reload + 902 s → 1058. One preemption (the old greedy choice took b too and resumed it
    at 100: two counted, one needed).
    """
    scenario = OVERPREEMPT | {"algorithms": [algorithm]}
    run = schedulers.run(scenario)["runs"][0]
    s = stints(run["schedule"])
    assert s["0.0"] == [(0.0, 100.0, 2.0, "preempted", "c0"), (154.0, 1058.0, 2.0, "finish", "c0")]
    assert s["1.0"] == [(1.0, 1003.0, 2.0, "finish", "c0")]
    assert s["2.0"] == [(100.0, 154.0, 4.0, "finish", "c0")]
    assert run["metrics"]["preemptions"] == 1
    check_schedule(run, instance_of(scenario), capacities(scenario["datacenter"]["clouds"]))


@pytest.mark.parametrize("algorithm", ["fcfs", "cls", "dcmms"])
def test_no_best_effort_stint_starts_at_the_instant_an_ar_task_takes_its_vms(algorithm):
    """2 VMs. AR app at 0: task 0 (2 VMs, 100 s) then zero-notice task 1 (1 VM, 100 s).

    Task 0: 0..102. At 102 task 1 becomes ready (same cloud, no transfer) and, being AR,
    goes before the waiting BE task (2 VMs), which no longer starts at 102 only to be
    suspended at once: task 1 runs 102..204 without storing any image (overhead 2 s), and
    the BE task runs 204..306. No preemption.
    """
    scenario = ZERO_STINT | {"algorithms": [algorithm]}
    run = schedulers.run(scenario)["runs"][0]
    s = stints(run["schedule"])
    assert s["0.0"] == [(0.0, 102.0, 2.0, "finish", "c0")]
    assert s["0.1"] == [(102.0, 204.0, 2.0, "finish", "c0")]
    assert s["1.0"] == [(204.0, 306.0, 2.0, "finish", "c0")]
    assert run["metrics"]["preemptions"] == 0
    assert all(seg["end"] > seg["start"] for seg in run["schedule"])


def test_victims_are_the_latest_started_minus_those_not_needed():
    running = {10: 3, 11: 1, 12: 2}  # start order: 10, 11, 12
    assert choose_victims(running, 0) == []
    assert choose_victims(running, 2) == [12]  # the latest alone is enough
    assert choose_victims(running, 3) == [12, 11]
    # 12 + 11 + 10 = 6 VMs for 4 needed: 12 (2) is spared first, then 11 and 10 are both needed
    assert choose_victims(running, 4) == [11, 10]
    assert sorted(choose_victims(running, 6)) == [10, 11, 12]
    assert choose_victims({1: 3, 2: 1}, 2) == [1]  # the fed_overpreempt case


# two AR leases reserved at the same instant: on 4 VMs, BE a (3 VMs) from 0 and BE b
# (1 VM) from 1; AR x (1 VM) and AR y (2 VMs) both reserved at 100
TOGETHER = _case(
    4,
    [
        {"arrival": 0, "tasks": [{"runtime_s": 1000, "vms": 3}]},
        {"arrival": 1, "tasks": [{"runtime_s": 1000, "vms": 1}]},
        {"arrival": 2, "ar": True, "start": 100, "tasks": [{"runtime_s": 50, "vms": 1}]},
        {"arrival": 3, "ar": True, "start": 100, "tasks": [{"runtime_s": 50, "vms": 2}]},
    ],
)


@pytest.mark.parametrize("algorithm", ["fcfs", "cls", "dcmms"])
def test_leases_starting_together_choose_their_victims_together(algorithm):
    """x and y need 3 VMs at 100, none is free: a alone (3 VMs) is enough, so b keeps running.

    One lease at a time, x (1 VM) took b, the latest started, then y (2 VMs) took a, whose third
    VM stayed idle and b resumed on it at 100: two preemptions for one needed. Together: a is
    preempted (98 s run, 902 s left), b ends at 1 + 2 + 1000 = 1003; x and y each wait for a's
    image store (2 s) and load their own (2 s): 100..154; a resumes at 154 and ends 154 + 2 +
    902 = 1058.
    """
    scenario = TOGETHER | {"algorithms": [algorithm]}
    run = schedulers.run(scenario)["runs"][0]
    s = stints(run["schedule"])
    assert s["0.0"] == [(0.0, 100.0, 2.0, "preempted", "c0"), (154.0, 1058.0, 2.0, "finish", "c0")]
    assert s["1.0"] == [(1.0, 1003.0, 2.0, "finish", "c0")]
    assert s["2.0"] == s["3.0"] == [(100.0, 154.0, 4.0, "finish", "c0")]
    assert run["metrics"]["preemptions"] == 1
    check_schedule(run, instance_of(scenario), capacities(scenario["datacenter"]["clouds"]))


# the same with zero-notice AR tasks ready together: on 5 VMs an AR entry task (1 VM, 100 s) from 0, BE a
# (3 VMs) from 1, BE b (1 VM) from 2; the entry task's successors y (2 VMs) and x (1 VM) are ready at 102
TOGETHER_ZERO_NOTICE = _case(
    5,
    [
        {
            "arrival": 0,
            "ar": True,
            "start": 0,
            "tasks": [
                {"runtime_s": 100, "vms": 1},
                {"runtime_s": 50, "vms": 2, "preds": [0]},
                {"runtime_s": 50, "vms": 1, "preds": [0]},
            ],
        },
        {"arrival": 1, "tasks": [{"runtime_s": 1000, "vms": 3}]},
        {"arrival": 2, "tasks": [{"runtime_s": 1000, "vms": 1}]},
    ],
)


@pytest.mark.parametrize("algorithm", ["fcfs", "dcmms"])
def test_zero_notice_tasks_starting_together_choose_their_victims_together(algorithm):
    """At 102 y and x need 3 VMs and 1 is free: a alone is enough, so b keeps running.

    One at a time, y (2 VMs, 1 short) took b, then x (1 short) took a, leaving two VMs idle on
    which b resumed at once. Together a is preempted (99 s run, 901 s left); y and x wait for
    its image store and load theirs: 102..156; a resumes at 156 and ends 156 + 2 + 901 = 1059.
    """
    scenario = TOGETHER_ZERO_NOTICE | {"algorithms": [algorithm]}
    run = schedulers.run(scenario)["runs"][0]
    s = stints(run["schedule"])
    assert s["0.0"] == [(0.0, 102.0, 2.0, "finish", "c0")]
    assert s["1.0"] == [(1.0, 102.0, 2.0, "preempted", "c0"), (156.0, 1059.0, 2.0, "finish", "c0")]
    assert s["2.0"] == [(2.0, 1004.0, 2.0, "finish", "c0")]
    assert s["0.1"] == s["0.2"] == [(102.0, 156.0, 4.0, "finish", "c0")]
    assert run["metrics"]["preemptions"] == 1
    check_schedule(run, instance_of(scenario), capacities(scenario["datacenter"]["clouds"]))
