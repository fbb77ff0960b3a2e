"""Power and energy series: eq. 7 (P = α·c) over the schedule integrates to the energy metric (eq. 9)."""

from __future__ import annotations

import pytest

import schedulers
from tests.series import assert_change_points, step_integral

FATTREE = {"kind": "fattree", "pods": 4, "capacity_low": 10}


def _assert_power_is_the_energy(run, alpha):
    s, energy = run["series"], run["metrics"]["energy"]
    assert {"t", "allocated_vcpus", "power_w", "energy_j"} <= set(s)
    assert_change_points(s)
    assert s["power_w"] == pytest.approx([alpha * c for c in s["allocated_vcpus"]], rel=1e-12)
    assert step_integral(s["t"], s["power_w"]) == pytest.approx(energy, rel=1e-9), run["algorithm"]
    assert s["energy_j"][-1] == pytest.approx(energy, rel=1e-9)


@pytest.mark.parametrize(("tasks", "pods", "alpha", "seed"), [(10, 4, 1.0, 1), (40, 4, 2.5, 7), (60, 6, 0.3, 11)])
def test_offline_power_integrates_to_the_energy(tasks, pods, alpha, seed):
    sc = {
        "family": "ep_jobs",
        "seed": seed,
        "datacenter": {"kind": "fattree", "pods": pods},
        "workload": {"kind": "generator", "tasks": tasks, "alpha": alpha},
        "algorithms": ["tapra", "tapra_fast", "min_min", "gsa"],
        "params": {"ga_generations": 5, "ga_population": 8},
    }
    for run in schedulers.run(sc)["runs"]:
        _assert_power_is_the_energy(run, alpha)


@pytest.mark.parametrize(
    ("algorithms", "alpha", "workload"),
    [
        (["ontapra:tapra_fast", "ontapra-ndrc:tapra_fast"], 1.0, {}),
        (["fcfs:min_min", "slf-ndrc:tapra", "llf:tapra_fast"], 3.0, {"task_count_scale": 6.0}),
    ],
)
def test_online_power_integrates_to_the_energy_with_and_without_drc(algorithms, alpha, workload):
    """DRC changes a task's rate, not its work α·Load/λ, so the integral still equals Σ eq. 9 over the jobs."""
    wl = {"kind": "online_generator", "arrival_end_s": 300.0, "arrival_rate": 0.3, "load_high": 400.0}
    sc = {
        "family": "ep_jobs",
        "seed": 5,
        "datacenter": FATTREE,
        "workload": wl | {"alpha": alpha} | workload,
        "algorithms": algorithms,
        "params": {"ga_generations": 5, "ga_population": 8},
    }
    for run in schedulers.run(sc)["runs"]:
        _assert_power_is_the_energy(run, alpha)
        assert_change_points(run["extra"]["running_jobs"])


def test_hand_worked_power_of_one_task():
    """One task of load 90, λ = 1, α = 2 W/vCPU: 2 vCPUs for 45 s without DRC → 4 W, 180 J = α·Load/λ."""
    sc = {
        "family": "ep_jobs",
        "algorithms": ["fcfs-ndrc:tapra"],
        "datacenter": {"kind": "fattree", "pods": 2, "capacity_low": 10, "capacity_high": 10},
        "workload": {"kind": "online_jobs", "eff_low": 1.0, "alpha": 2.0, "jobs": [{"arrival": 0.0, "loads": [90.0]}]},
    }
    run = schedulers.run(sc)["runs"][0]
    assert run["series"]["t"] == pytest.approx([0.0, 45.0])
    assert run["series"]["power_w"] == pytest.approx([4.0, 0.0])
    assert run["series"]["energy_j"] == pytest.approx([0.0, 180.0])
    assert run["metrics"]["energy"] == pytest.approx(180.0)
