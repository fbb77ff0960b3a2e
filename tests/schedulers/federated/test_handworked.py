"""Hand-worked cases: Alg. 1 priority list, eq. 7 feedback, a preemption timeline, Algs. 4-5 mapping."""

from __future__ import annotations

import numpy as np
import pytest

from schedulers.federated.cls import est_lst, priority_list
from schedulers.federated.mapping import energy_aware, striping
from schedulers.federated.output import build_output
from schedulers.federated.planner import Frontier, Planner, feedback_factor

from .helpers import simulate, stints

# 0 → 1, 0 → 2, 1 → 3, {1, 2} → 4, {3, 4} → 5 with AT = 2, 3, 1, 4, 2, 1
DAG = [[], [0], [0], [1], [1, 2], [3, 4]]
AT = np.array([2.0, 3.0, 1.0, 4.0, 2.0, 1.0])


def test_est_and_lst_follow_eqs_2_and_3():
    """EST by eq. 2 (entry 0); LST by eq. 3 with LST = EST at the exit."""
    est, lst = est_lst(DAG, AT)
    assert est.tolist() == [0, 2, 2, 5, 5, 9]
    assert lst.tolist() == [0, 2, 6, 5, 7, 9]


def test_cls_priority_list_matches_hand_walk():
    """Alg. 1: CNs 0,1,3,5 stacked by LST; 5 pulls in 4, 4 pulls in 2 → [0, 1, 3, 2, 4, 5]."""
    assert priority_list(DAG, AT) == [0, 1, 3, 2, 4, 5]


def test_priority_list_is_topological_even_with_zero_times():
    rng = np.random.default_rng(1)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        dag = [sorted({int(p) for p in rng.integers(0, k, rng.integers(0, 3))}) if k else [] for k in range(n)]
        at = rng.choice([0.0, 1.0, 2.5], n)
        order = priority_list(dag, at)
        assert sorted(order) == list(range(n))
        pos = {v: i for i, v in enumerate(order)}
        assert all(pos[p] < pos[v] for v in range(n) for p in dag[v])


def test_feedback_factor_eq7_worked_case():
    """Fig. 5/6 style: ERAT 2, S/b 1, ETM 5, actual finish 14 → Δτ = 12, fd = α·(12 − 6)/6."""
    assert feedback_factor(1.0, 14.0, 2.0, 1.0, 5.0) == pytest.approx(1.0)
    assert feedback_factor(0.8, 14.0, 2.0, 1.0, 5.0) == pytest.approx(0.8)
    assert feedback_factor(0.5, 8.0, 2.0, 1.0, 5.0) == pytest.approx(0.0)  # finished as estimated


def _one_cloud(apps: list[dict], **params) -> dict:
    return {
        "family": "federated",
        "datacenter": {
            "clouds": [
                {"name": "c", "servers": 2, "server_capacity": 2, "perf": 1.0, "p_active_w": 100, "p_idle_w": 10}
            ],
            "intra_cloud_gbytes_s": 4.0,
        },
        "workload": {"kind": "jobs", "jobs": apps, "image_size_gb": 8.0, "dataset_size_gb": 0.0},
        "algorithms": ["dcls"],
        "params": {"alpha": 0.75, **params},
    }


def test_ar_task_preempts_best_effort_and_both_overheads_are_paid():
    """BE 4 VMs × 100 s at 0; AR 4 VMs × 20 s reserved at 50 (S/b = 2 s).

    BE: load 2 s, runs 48 s, suspended at 50 (52 s left). AR: store BE image 2 s + load 2 s,
    runs 20 s → ends 74. BE resumes at 74: reload 2 s + 52 s → ends 128.
    """
    be = {"arrival": 0.0, "tasks": [{"runtime_s": 100.0, "vms": 4}]}
    ar = {"arrival": 10.0, "ar": True, "start": 50.0, "tasks": [{"runtime_s": 20.0, "vms": 4}]}
    sim, _ = simulate(_one_cloud([be, ar]), "dcls")
    out = build_output(sim)
    s = stints(out.schedule)
    assert s["0.0"] == [(0.0, 50.0, 2.0, "preempted", "c"), (74.0, 128.0, 2.0, "finish", "c")]
    assert s["1.0"] == [(50.0, 74.0, 4.0, "finish", "c")]
    assert out.metrics["preemptions"] == 1
    assert out.metrics["avg_app_execution_time_s"] == pytest.approx((128.0 + 64.0) / 2)
    # eq. 6-7 from the push of task 0: ERAT 0, Δτ = 128, S/b + ETM = 102
    assert sim.planner.fd[0][0] == pytest.approx(0.75 * (128.0 - 102.0) / 102.0)


def test_ar_application_is_rejected_when_ar_reservations_fill_the_cloud():
    """Section 5.1.3: AR is rejected only when other AR tasks hold the resources at its time."""
    a = {"arrival": 0.0, "ar": True, "start": 10.0, "tasks": [{"runtime_s": 100.0, "vms": 3}]}
    b = {"arrival": 1.0, "ar": True, "start": 20.0, "tasks": [{"runtime_s": 10.0, "vms": 2}]}
    c = {"arrival": 2.0, "ar": True, "start": 20.0, "tasks": [{"runtime_s": 10.0, "vms": 1}]}
    sim, _ = simulate(_one_cloud([a, b, c]), "dcls")
    assert sim.app_rejected.tolist() == [False, True, False]


def test_zero_notice_ar_tasks_run_after_their_predecessors_and_wait_for_reservations():
    """A later AR task starts when its inputs are ready unless a reservation needs the VMs."""
    chain = {
        "arrival": 0.0,
        "ar": True,
        "start": 0.0,
        "tasks": [{"runtime_s": 10.0, "vms": 2}, {"runtime_s": 10.0, "vms": 4, "preds": [0]}],
    }
    other = {"arrival": 0.0, "ar": True, "start": 20.0, "tasks": [{"runtime_s": 30.0, "vms": 2}]}
    sim, _ = simulate(_one_cloud([chain, other]), "dcls")
    s = stints(build_output(sim).schedule)
    assert s["0.0"] == [(0.0, 12.0, 2.0, "finish", "c")]
    assert s["1.0"] == [(20.0, 52.0, 2.0, "finish", "c")]  # reserved AR at 20: load 2 s + 30 s
    # the 4-VM zero-notice task is ready at 12 but its 14 s window would collide with the
    # reservation at 20, so it waits until that AR task ends
    assert s["0.1"] == [(52.0, 64.0, 2.0, "finish", "c")]


def test_alg5_packs_marginal_workloads_into_one_server():
    """C = 4, free [4, 4, 4, 1]: tasks 6 VMs (wl_m 2) and 2 VMs (wl_m 2) and 1 VM (wl_m 1).

    Whole part of task 6 → idle server 0. Marginals L_d = [t0 (2), t1 (2), t2 (1)]: no server
    has exactly 2 free; S_g's largest is server 3 (1 free) < 2 → an idle server (1) takes t0's
    2 VMs, then L_a fills it: t2 (1) fits, t1 (2) does not → stop. t1: no exact fit (server
    1 has 1 free, server 3 has 1) → idle server 2. Server 3's single VM stays free.
    """
    free = np.array([4, 4, 4, 1], dtype=np.int64)
    alloc = energy_aware(free, 4, [(0, 6), (1, 2), (2, 1)], ar=False)
    assert alloc[0] == [(0, 4), (1, 2)]
    assert alloc[2] == [(1, 1)]
    assert alloc[1] == [(2, 2)]
    assert free.tolist() == [0, 1, 2, 1]


def test_alg5_uses_an_exact_fit_first():
    free = np.array([4, 2, 3], dtype=np.int64)
    alloc = energy_aware(free, 4, [(7, 3)], ar=False)
    assert alloc[7] == [(2, 3)]


def test_striping_spreads_vms_over_the_emptiest_servers():
    free = np.array([4, 4, 2, 4], dtype=np.int64)
    alloc = striping(free, 4, [(0, 5)])
    assert alloc[0] == [(0, 2), (1, 2), (3, 1)]
    assert free.tolist() == [2, 2, 2, 3]


def test_frontier_gives_the_wth_earliest_vm_and_ar_shifts_planned_work():
    f = Frontier(4)
    f.take(2, 0.0, 10.0, shift=False)  # 2 VMs busy until 10
    assert f.kth(2) == 0.0 and f.kth(3) == 10.0
    f.take(3, 5.0, 4.0, shift=True)  # AR at 5 for 4 s: 2 free VMs → 9, one busy VM → 14
    assert f.times.tolist() == [9.0, 10.0, 14.0]
    assert f.counts.tolist() == [2, 1, 1]
    f.take(4, 20.0, 1.0, shift=False)
    assert f.times.tolist() == [21.0] and f.counts.tolist() == [4]


def test_frontier_matches_a_per_vm_list():
    """The run-length slot table behaves like a sorted list of per-VM free times."""
    rng = np.random.default_rng(3)
    f, vms = Frontier(12), np.zeros(12)
    for _ in range(200):
        w = int(rng.integers(1, 13))
        start = float(rng.integers(0, 50))
        dur = float(rng.integers(1, 20))
        shift = bool(rng.random() < 0.3)
        assert f.kth(w) == vms[w - 1]
        f.take(w, start, dur, shift)
        vms[:w] = np.maximum(vms[:w], start) + dur if shift else start + dur
        vms.sort()
        assert np.repeat(f.times, f.counts).tolist() == vms.tolist()


@pytest.mark.parametrize(("negative", "expected"), [(False, 0.0), (True, 0.5 * (4.0 - 12.0) / 12.0)])
def test_feedback_is_floored_at_zero_unless_eq7_is_taken_as_printed(negative, expected):
    """A task finishing before ERAT + S/b + ETM gives fd < 0 by eq. 7; the default floors it at 0."""
    sim, _ = simulate(_one_cloud([{"tasks": [{"runtime_s": 10.0, "vms": 1}]}]), "dcls")
    planner = Planner(sim.inst, 0.5, feedback=True, negative_feedback=negative)
    planner.cloud[0], planner.erat[0] = 0, 0.0
    planner.observe(0, 4.0)  # S/b + ETM = 12, finished after 4
    assert planner.fd[0][0] == pytest.approx(expected)
