"""Alg. 1 scoring: the four branches by hand, the baseline's blind spot, and numpy vs a plain loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.dvfs_bot.cloud_aware import feasible_levels, required_speed, score_vms, select_vm

from .conftest import job, tiny

SPEEDS = [np.array([0.5, 0.75, 1.0])]


def test_each_branch_scores_as_in_algorithm_1():
    """VM0 in use, same level (i); VM1 in use, faster (ii); VM2 idle on a busy host (iii); VM3 host off (iv)."""
    level = np.array([1, 2, 0, 0])
    busy = np.array([True, True, False, False])
    current = np.array([1, 1, -1, -1])
    host_on = np.array([True, True, True, False])
    rank = np.array([0, 1, 2, 3])
    scores = score_vms(level, busy, current, host_on, rank, cloud_aware=True)
    assert scores.tolist() == [10000 - 1 - 0, 1000 - 2 - 1, 100 - 2, 10 - 3]


def test_a_vm_that_cannot_meet_the_deadlines_scores_minus_one():
    scores = score_vms(np.array([-1, -1]), np.array([True, False]), np.array([0, -1]), np.array([True, False]), 0)
    assert scores.tolist() == [-1, -1]
    assert select_vm(scores) == -1


def test_baseline_ignores_whether_the_host_is_running():
    """Sec. V-A: line 24's host test is ignored, so both idle VMs score 100 − energyRank."""
    args = (np.array([0, 0]), np.array([False, False]), np.array([-1, -1]), np.array([False, True]), np.array([0, 0]))
    assert score_vms(*args, cloud_aware=False).tolist() == [100, 100]
    assert select_vm(score_vms(*args, cloud_aware=False)) == 0
    assert select_vm(score_vms(*args, cloud_aware=True)) == 1


def test_ties_go_to_the_first_vm_like_the_strict_comparison_of_line_34():
    assert select_vm(np.array([5, 9, 9, 1])) == 1


def test_required_speed_by_hand():
    """Running task 100 s left (deadline 400), queued task 100 s (deadline 400); new 100 s task, deadline 250."""
    busy = np.array([True, False])
    head = np.array([100.0, 0.0])
    run_deadline = np.array([400.0, 0.0])
    qwork = np.array([[100.0], [0.0]])
    qdead = np.array([[400.0], [np.inf]])
    s, pos = required_speed(0.0, 100.0, 250.0, busy, head, run_deadline, qwork, qdead)
    # VM0: new task goes before the queued one: 200/250 = 0.8 for it, 300/400 = 0.75 for the queued one.
    assert s.tolist() == [0.8, 0.4]
    assert pos.tolist() == [0, 0]
    assert feasible_levels(s, np.zeros(2, np.int64), SPEEDS).tolist() == [2, 0]


def test_levels_are_looked_up_in_each_host_types_own_table():
    speeds = [np.array([0.5, 0.75, 1.0]), np.array([0.25, 1.0])]
    vm_type = np.array([0, 1, 0, 1])
    s = np.array([0.6, 0.6, 1.2, 0.2])
    assert feasible_levels(s, vm_type, speeds).tolist() == [1, 1, -1, 0]


def test_equal_deadlines_keep_the_queued_task_first():
    s, pos = required_speed(
        0.0, 50.0, 400.0, np.array([True]), np.array([0.0]), np.array([1.0]), np.array([[10.0]]), np.array([[400.0]])
    )
    assert pos.tolist() == [1]
    assert s.tolist() == [60.0 / 400.0]


def _reference(now, work, deadline, busy, head, run_dead, queues):
    """Alg. 1 lines 10–12 and 23 literally: insert, then check every task of the list."""
    out = []
    for b, h, rd, q in zip(busy, head, run_dead, queues, strict=True):
        if not b:
            out.append(work / (deadline - now))
            continue
        pos = sum(1 for _, d in q if d <= deadline)
        lst = [(h, rd), *q[:pos], (work, deadline), *q[pos:]]
        need, acc = 0.0, 0.0
        for w, d in lst:
            acc += w
            if acc > 0:
                need = max(need, acc / (d - now) if d > now else np.inf)
        out.append(need)
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.floats(0, 100),
            st.lists(st.tuples(st.floats(1, 100), st.floats(0, 1000)), max_size=4),  # some already due
        ),
        min_size=1,
        max_size=6,
    ),
    st.floats(1, 100),
    st.floats(20, 1000),
)
def test_vectorised_speed_matches_a_plain_loop(vms, work, deadline):
    now = 10.0
    busy = np.array([b for b, _, _ in vms])
    head = np.array([h if b else 0.0 for b, h, _ in vms])
    run_dead = np.full(len(vms), 500.0)
    queues = [sorted(q, key=lambda x: x[1]) if b else [] for b, _, q in vms]
    width = max(len(q) for q in queues)
    qwork = np.zeros((len(vms), width))
    qdead = np.full((len(vms), width), np.inf)
    for i, q in enumerate(queues):
        for k, (w, d) in enumerate(q):
            qwork[i, k], qdead[i, k] = w, d
    s, _ = required_speed(now, work, deadline, busy, head, run_dead, qwork, qdead)
    np.testing.assert_allclose(s, _reference(now, work, deadline, busy, head, run_dead, queues), rtol=1e-12)


def _placements(result, algorithm):
    run = next(r for r in result["runs"] if r["algorithm"] == algorithm)
    return {(s["job"], s["resource"], s["start"], s["end"], s["freq_ghz"]) for s in run["schedule"]}


def test_hand_worked_schedule_walks_through_all_four_branches(run_family):
    """2 hosts × 2 cores, spread order (vm0, vm2 on h0; vm1, vm3 on h1), all jobs at t = 0.

    A (100 s, d 400): every host off → branch (iv), vm0 at 1.0 GHz (needs 0.25).
    B (100 s, d 400): vm0 in use, 200/400 = 0.5 → same level, branch (i), queued behind A.
    C (100 s, d 250): vm0, ahead of B: needs 0.8 → 2.0 GHz, branch (ii) beats idle VMs.
    D (100 s, d 150): vm0 cannot (200/150); vm2 is idle on running host h0 → branch (iii) at 1.5 GHz.
    """
    jobs = [job(0, 100, 400), job(0, 100, 400), job(0, 100, 250), job(0, 100, 150)]
    result = run_family(tiny(jobs, algorithms=["cloud_aware", "baseline"]))
    assert _placements(result, "cloud_aware") == {
        ("0", "vm0", 0.0, 100.0, 2.0),
        ("2", "vm0", 100.0, 200.0, 2.0),
        ("1", "vm0", 200.0, 300.0, 2.0),
        ("3", "vm2", 0.0, 100.0 / 0.75, 1.5),
    }
    # The baseline sees vm1 (host h1, suspended) and vm2 alike and takes the first: h1 wakes up.
    assert ("3", "vm1", 0.0, 100.0 / 0.75, 1.5) in _placements(result, "baseline")
    ca, base = (next(r for r in result["runs"] if r["algorithm"] == a)["metrics"] for a in ("cloud_aware", "baseline"))
    assert ca["energy_kwh"] < base["energy_kwh"]


def test_one_vm_terms_equal_the_all_vm_terms_exactly():
    """The simulator rescores the VM that took a task with scalars; they must equal the numpy terms bit for bit.

    Random queues on 12 VMs, some holding a task whose deadline has passed (no level can
    then meet the queue: worst = inf, line 12).
    """
    from schedulers.dvfs_bot.datacenter import build_datacenter
    from schedulers.dvfs_bot.model import DatacenterModel
    from schedulers.dvfs_bot.simulator import _Sim
    from schedulers.dvfs_bot.workloads import Workload

    dc = build_datacenter(DatacenterModel.model_validate({"host_types": [{"count": 3, "cores": 4}]}))
    empty = np.zeros(0)
    wl = Workload(empty, empty, np.zeros(0, np.int64), empty, np.zeros(0, bool), empty)
    rng = np.random.default_rng(7)
    passed = 0
    for _ in range(40):
        sim = _Sim(dc, wl, True, lambda f: None)
        vms, now = sim.vms, 100.0
        for v in range(dc.n_vms):
            if rng.random() < 0.3:
                continue
            vms.start(v, 0.0, 0, float(rng.uniform(0, 50)), 1.0, float(rng.uniform(50, 400)), -1)
            for _k in range(int(rng.integers(0, 12))):
                d = float(rng.choice([rng.uniform(20, 400), 150.0]))
                pos = sum(1 for q in vms.queue[v] if q[2] <= d)
                vms.insert(v, pos, float(rng.uniform(1, 60)), 1.0, d, -1)
            passed += any(q[2] <= now for q in vms.queue[v])
        work, deadline = float(rng.uniform(1, 40)), float(rng.choice([150.0, rng.uniform(101, 500)]))
        full = sim._terms(now, work, deadline, np.flatnonzero(vms.busy))
        for v in range(dc.n_vms):
            assert sim._row_terms(v, now, work, deadline) == tuple(x[v].item() for x in full), v
    assert passed > 0


@pytest.mark.parametrize("algorithm", ["cloud_aware", "baseline"])
def test_a_job_is_refused_up_front_only_when_even_an_idle_vm_at_the_top_level_is_too_slow(run_family, algorithm):
    """The simulator skips Alg. 1 for a job whose deadline no idle VM can meet at the top frequency.

    Needing 95 % or exactly 100 % of the top speed is still feasible (a task then runs at the top
    level); needing 100.1 % is not. Three VMs are busy at the time.
    """
    jobs = [
        job(0.0, 400.0, 500.0, tasks=3),  # three VMs busy at the top level (each task needs 80 %)
        job(10.0, 100.0, 100.0 / 0.95),  # needs 95 % of the top speed
        job(10.0, 100.0, 100.0),  # ratio exactly 1
        job(10.0, 100.0, 100.0 * (1 - 5e-13)),  # over by less than the level tolerance (1e-12): accepted
        job(10.0, 100.0, 99.9),  # ratio < 1: refused
        job(10.0, 50.0, 49.0, tasks=2),  # ratio < 1: refused
    ]
    run = run_family(tiny(jobs, hosts=3, algorithms=(algorithm,)))["runs"][0]
    assert [rec["accepted"] for rec in sorted(run["jobs"], key=lambda r: int(r["job"]))] == [True] * 4 + [False] * 2
    busy = {seg["resource"] for seg in run["schedule"] if seg["job"] == "0"}
    placed = {(seg["task"], seg["freq_ghz"]) for seg in run["schedule"] if seg["job"] != "0"}
    assert len(busy) == 3 and placed == {("1.0", 2.0), ("2.0", 2.0), ("3.0", 2.0)}
