"""ep_jobs records its power and energy over time: ∫ α·c(t) dt ends at the energy metric (eq. 8–9)."""

import pytest

import schedulers


@pytest.mark.parametrize(
    "scenario",
    [
        {"family": "ep_jobs", "seed": 1, "datacenter": {"kind": "fattree", "pods": 4},
         "workload": {"kind": "generator", "tasks": 12, "alpha": 2.5}, "algorithms": ["tapra_fast", "min_min"]},
        {"family": "ep_jobs", "seed": 2, "datacenter": {"kind": "fattree", "pods": 4},
         "workload": {"kind": "online_generator", "arrival_end_s": 60.0, "max_tasks": 4, "alpha": 1.5},
         "algorithms": ["ontapra:tapra_fast", "fcfs:min_min"]},
    ],
)  # fmt: skip
def test_the_energy_curve_ends_at_the_energy_metric(scenario):
    for run in schedulers.run(scenario)["runs"]:
        s = run["series"]
        assert len(s["t"]) == len(s["power"]) == len(s["energy"]) == len(s["allocated_vcpus"])
        alpha = scenario["workload"]["alpha"]
        assert s["power"] == pytest.approx([alpha * v for v in s["allocated_vcpus"]])
        assert s["energy"][0] == 0 and all(b >= a for a, b in zip(s["energy"], s["energy"][1:], strict=False))
        assert s["energy"][-1] == pytest.approx(run["metrics"]["energy"], rel=1e-9), run["algorithm"]
