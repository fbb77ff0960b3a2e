"""Where DCLS/DCMMS differ from CLS/CMMS: finish times later than eq. 5 estimates.

The feedback factor (eqs. 6-8) only acts when tasks finish later than estimated. Without
hidden contention or estimate errors the slot tables predict finish times exactly unless an
AR task preempts, so the dynamic and static forms often agree. These cases make the managers'
estimates wrong and show the feedback steering work away from the cloud that is slower than
its ETM says.
"""

from __future__ import annotations

import pytest

import schedulers
from schedulers.core.validation import ScenarioError

from .helpers import capacities, check_schedule, instance_of, stints


def _two_clouds(jobs: list[dict], contention: float = 0.0, **workload) -> dict:
    """Cloud ``a`` (perf 1) and cloud ``b`` (perf 1.25, so ETM = 0.8 × runtime), 1 VM each, S/b = 2 s."""
    return {
        "family": "federated",
        "seed": 1,
        "algorithms": ["cls", "dcls", "cmms", "dcmms"],
        "datacenter": {
            "clouds": [
                {"name": "a", "servers": 1, "server_capacity": 1, "perf": 1.0},
                {"name": "b", "servers": 1, "server_capacity": 1, "perf": 1.25, "contention": contention},
            ]
        },
        "workload": {"kind": "jobs", "dataset_size_gb": 0, "edge_data_gb": 0, "jobs": jobs, **workload},
        "params": {"alpha": 1.0},
    }


THREE_APPS = [{"arrival": 1000.0 * k, "tasks": [{"runtime_s": 100.0}]} for k in range(3)]


def _by_algorithm(scenario: dict) -> dict[str, dict]:
    return {run["algorithm"]: run for run in schedulers.run(scenario)["runs"]}


def test_hidden_contention_is_learnt_by_the_feedback_and_only_by_it():
    """Cloud b looks faster (ETM 80 s vs 100 s) but runs best-effort work 2× its ETM (160 s).

    CLS/CMMS: every app goes to b (τ = 0 + 2 + 80 < 2 + 100) and takes 2 + 160 = 162 s.
    DCLS/DCMMS: app 0 goes to b too; its completion at 162 gives, by eqs. 6-7 with α = 1,
    fd = (162 − 82) / 82; app 1's τ_fd on b is then (1 + fd) · 82 = 162 > 102 on a, so apps
    1 and 2 run on a in 102 s. Averages: 162 vs (162 + 102 + 102) / 3 = 122.
    """
    runs = _by_algorithm(_two_clouds(THREE_APPS, contention=1.0))
    for static in ("cls", "cmms"):
        s = stints(runs[static]["schedule"])
        assert [s[f"{k}.0"][0][4] for k in range(3)] == ["b", "b", "b"]
        assert s["1.0"] == [(1000.0, 1162.0, 2.0, "finish", "b")]
        assert runs[static]["metrics"]["avg_app_execution_time_s"] == pytest.approx(162.0)
    for dynamic in ("dcls", "dcmms"):
        s = stints(runs[dynamic]["schedule"])
        assert [s[f"{k}.0"][0][4] for k in range(3)] == ["b", "a", "a"]
        assert s["1.0"] == [(1000.0, 1102.0, 2.0, "finish", "a")]
        assert runs[dynamic]["metrics"]["avg_app_execution_time_s"] == pytest.approx(122.0)
    scenario = _two_clouds(THREE_APPS, contention=1.0)
    for run in runs.values():
        check_schedule(run, instance_of(scenario), capacities(scenario["datacenter"]["clouds"]))


def test_without_contention_static_and_dynamic_forms_agree_here():
    """Same apps, estimates exact: every task finishes when eq. 5 said, fd stays 0, all on b (82 s)."""
    runs = _by_algorithm(_two_clouds(THREE_APPS))
    assert runs  # the loop below checks each
    for run in runs.values():
        assert run["metrics"]["avg_app_execution_time_s"] == pytest.approx(82.0)


def test_an_inline_actual_runtime_is_an_estimate_error_the_feedback_learns():
    """App 0's task is estimated at 100 s but runs 300 s (at perf 1): on b it takes 2 + 240 s.

    Its completion gives fd = (242 − 82) / 82 on b for DCLS, so app 1 goes to a (102 s);
    CLS sends app 1 to b again (its own estimate, 82 s, is exact).
    """
    jobs = [
        {"arrival": 0.0, "tasks": [{"runtime_s": 100.0, "actual_runtime_s": 300.0}]},
        {"arrival": 1000.0, "tasks": [{"runtime_s": 100.0}]},
    ]
    runs = _by_algorithm(_two_clouds(jobs))
    assert stints(runs["cls"]["schedule"])["1.0"] == [(1000.0, 1082.0, 2.0, "finish", "b")]
    assert stints(runs["dcls"]["schedule"])["1.0"] == [(1000.0, 1102.0, 2.0, "finish", "a")]
    assert stints(runs["dcls"]["schedule"])["0.0"] == [(0.0, 242.0, 2.0, "finish", "b")]


def test_runtime_error_draws_mean_one_factors_for_best_effort_tasks_only():
    scenario = {
        "family": "federated",
        "seed": 3,
        "workload": {"kind": "generator", "apps": 60, "ar_share": 0.3, "runtime_error": 0.5},
    }
    inst = instance_of(scenario)
    ratio = inst.actual[:, 0] / inst.etm[:, 0]
    ar = inst.app_ar[inst.task_app]
    assert (ratio[ar] == 1.0).all()
    assert ratio[~ar].std() > 0.2 and 0.85 < ratio[~ar].mean() < 1.15
    exact = instance_of(scenario | {"workload": scenario["workload"] | {"runtime_error": 0.0}})
    assert (exact.etm == inst.etm).all() and (exact.actual == exact.etm).all()  # nothing else moves


def test_ar_tasks_cannot_have_an_actual_runtime():
    jobs = [{"ar": True, "tasks": [{"runtime_s": 10.0, "actual_runtime_s": 20.0}]}]
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(_two_clouds(jobs))
    assert "workload.jobs[0].tasks[0].actual_runtime_s" in exc.value.by_field()
