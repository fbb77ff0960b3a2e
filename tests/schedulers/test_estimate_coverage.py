"""Every shipped family estimates its scenarios (CPU and memory), its example and every preset point."""

import pytest

import schedulers

SHIPPED = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]


@pytest.mark.parametrize("family", SHIPPED)
def test_every_preset_point_and_the_example_have_a_real_estimate(family):
    fam = schedulers.get_family(family)
    scenarios = [schedulers.example(family)]
    for name in fam.presets or {}:
        scenarios += schedulers.preset(family, name)["scenarios"]
    assert len(scenarios) > 1
    for scenario in scenarios:
        est = schedulers.estimate(scenario)
        assert est.detail["estimated"], scenario.get("name")
        assert est.cpu_s > 0 and est.peak_memory_mb > 0


def test_an_overloaded_online_ep_jobs_scenario_costs_more_than_its_jobs_alone():
    """Past an offered load of 1 the waiting queue is retried every round: the estimate grows with it."""
    base = {
        "family": "ep_jobs",
        "seed": 1,
        "datacenter": {"kind": "fattree", "pods": 8},
        "algorithms": ["ontapra:tapra"],
    }
    calm = schedulers.estimate(
        {**base, "workload": {"kind": "online_generator", "arrival_rate": 0.1, "arrival_end_s": 10_000}}
    )
    busy = schedulers.estimate(
        {**base, "workload": {"kind": "online_generator", "arrival_rate": 5, "arrival_end_s": 200}}
    )
    assert "offered load" in busy.detail["shape"]
    assert busy.cpu_s > 50 * calm.cpu_s  # 1,000 jobs each; the busy one retries its queue every round
    assert busy.cpu_s > 300  # measured: past 300 s (bench/estimate.py)


def test_the_200k_job_online_scenario_is_refused_by_the_default_memory_limit():
    scenario = {"family": "ep_jobs", "seed": 1, "datacenter": {"kind": "fattree", "pods": 16}, "algorithms": ["fcfs:tapra"],
                "workload": {"kind": "online_generator", "arrival_rate": 2, "arrival_end_s": 100_000, "max_jobs": 200_000}}  # fmt: skip
    est = schedulers.estimate(scenario)
    assert est.peak_memory_mb > 8192
