"""Schedule validity for every algorithm: capacity, precedence, AR start times, work conservation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.core import jsonio
from schedulers.federated import example
from schedulers.federated.model import ALGORITHMS
from tests.golden import assert_matches_golden
from tests.series import assert_change_points, step_integral

from .helpers import active_server_seconds, capacities, check_schedule, instance_of

CLOUDS = [
    {"name": "a", "servers": 6, "server_capacity": 4, "perf": 1.0, "p_active_w": 400, "p_idle_w": 100},
    {"name": "b", "servers": 4, "server_capacity": 8, "perf": 0.85, "p_active_w": 500, "p_idle_w": 150},
    {"name": "c", "servers": 10, "server_capacity": 2, "perf": 0.5, "p_active_w": 60, "p_idle_w": 20},
]


def _scenario(seed: int, ar_share: float, divisor: float, el: bool, apps: int = 10) -> dict:
    return {
        "family": "federated",
        "seed": seed,
        "datacenter": {"clouds": CLOUDS},
        "workload": {
            "kind": "generator",
            "apps": apps,
            "tasks_min": 1,
            "tasks_max": 10,
            "mean_gap_s": 400.0,
            "runtime_min_s": 20.0,
            "runtime_max_s": 600.0,
            "vms_max": 16,
            "ar_share": ar_share,
            "gap_divisor": divisor,
            "dataset_size_gb": 20.0,
        },
        "algorithms": list(ALGORITHMS),
        "params": {"energy_aware": el},
    }


@pytest.mark.parametrize("el", [True, False])
def test_every_algorithm_gives_a_valid_schedule(el):
    """Capacity holds, each task finishes once, precedence + transfers, AR at reserved time, no work lost."""
    scenario = _scenario(3, 0.4, 20.0, el, apps=14)
    result = schedulers.run(scenario)
    inst = instance_of(scenario)
    for run in result["runs"]:
        check_schedule(run, inst, capacities(CLOUDS))
    assert any(r["metrics"]["preemptions"] > 0 for r in result["runs"]), "the scenario should exercise preemption"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    ar_share=st.sampled_from([0.0, 0.3, 1.0]),
    divisor=st.sampled_from([1.0, 10.0, 100.0]),
    el=st.booleans(),
)
def test_random_workloads_stay_valid(seed, ar_share, divisor, el):
    """Invariants hold on random DAG workloads, loose or tight, with or without EL."""
    scenario = _scenario(seed, ar_share, divisor, el, apps=6)
    result = schedulers.run(scenario)
    inst = instance_of(scenario)
    for run in result["runs"]:
        check_schedule(run, inst, capacities(CLOUDS))


def test_energy_counts_active_and_idle_servers():
    """energy_kwh = Σ idle power × horizon + (active − idle) × active server time (from the segments)."""
    scenario = _scenario(5, 0.3, 10.0, True)
    result = schedulers.run(scenario)
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        m = run["metrics"]
        active = active_server_seconds(run["schedule"])
        expected = sum(
            c["p_idle_w"] * c["servers"] * m["makespan_s"]
            + (c["p_active_w"] - c["p_idle_w"]) * active.get(c["name"], 0)
            for c in CLOUDS
        )
        assert m["energy_kwh"] == pytest.approx(expected / 3.6e6, rel=1e-9)
        assert run["series"]["energy_j"][-1] <= expected * (1 + 1e-9)


def test_energy_aware_mapping_saves_energy():
    """Figs. 9-10: with EL the same schedule keeps fewer servers active than striping."""
    on = schedulers.run(_scenario(11, 0.2, 1.0, True, apps=12) | {"algorithms": ["fcfs"]})
    off = schedulers.run(_scenario(11, 0.2, 1.0, False, apps=12) | {"algorithms": ["fcfs"]})
    assert on["runs"][0]["metrics"]["energy_kwh"] < off["runs"][0]["metrics"]["energy_kwh"]


def test_same_seed_gives_identical_results():
    """Determinism: same scenario and seed, same result bit for bit."""
    a = schedulers.run(example())
    b = schedulers.run(example())
    strip = lambda r: [{k: v for k, v in run.items() if k != "wall_time_s"} for run in r["runs"]]  # noqa: E731
    assert jsonio.dumps(strip(a)) == jsonio.dumps(strip(b))


def test_full_result_is_json_serialisable_with_native_types():
    result = schedulers.run(example())
    text = jsonio.dumps(result)
    assert "federated" in text
    run = result["runs"][0]
    assert set(run["series"]) == {"t", "power_w", "energy_j", "busy_vms"}
    assert len({len(v) for v in run["series"].values()}) == 1
    seg = run["schedule"][0]
    assert {"job", "task", "resource", "start", "end", "share", "kind", "cloud"} <= set(seg)


def test_segment_cap_truncates_and_says_so():
    scenario = _scenario(5, 0.3, 10.0, True) | {"algorithms": ["dcls"], "params": {"max_segments": 10}}
    run = schedulers.run(scenario)["runs"][0]
    full = schedulers.run(scenario | {"params": {}})["runs"][0]
    cut = run["extra"]["schedule_cut"]
    assert cut["limit"] == 10 and cut["recorded"] == len(run["schedule"]) <= 10
    assert "schedule_cut" not in full.get("extra", {}) and len(full["schedule"]) > 10
    # the recorded stints are the first ones to end, and the first stint left out ends at cut_at_s
    assert run["schedule"] == full["schedule"][: cut["recorded"]]
    assert full["schedule"][cut["recorded"]]["end"] == cut["cut_at_s"]


def test_example_matches_the_golden_metrics():
    """Seeded golden run: any change to the algorithms' numbers must be deliberate (regenerate the file)."""
    golden = json.loads((Path(__file__).parent / "golden_example.json").read_text())
    result = schedulers.run(example())
    got = {run["algorithm"]: run["metrics"] for run in result["runs"]}
    assert got.keys() == golden.keys()
    for algorithm, metrics in got.items():
        assert_matches_golden(metrics, golden[algorithm], f"{algorithm}: ")


@pytest.mark.parametrize(
    ("seed", "ar_share", "divisor", "el", "apps"),
    [(5, 0.3, 10.0, True, 10), (8, 0.0, 1.0, False, 40), (13, 1.0, 100.0, True, 25), (21, 0.5, 20.0, False, 60)],
)
def test_the_stored_power_series_integrates_to_the_energy_metric(seed, ar_share, divisor, el, apps):
    """Every change point is stored (none dropped, no bucket maxima): ∫ power dt = energy_kwh to rounding."""
    result = schedulers.run(_scenario(seed, ar_share, divisor, el, apps=apps))
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:  # every algorithm
        series, energy = run["series"], run["metrics"]["energy_kwh"] * 3.6e6
        assert_change_points(series)
        assert step_integral(series["t"], series["power_w"]) == pytest.approx(energy, rel=1e-9), run["algorithm"]
        assert series["energy_j"][-1] == pytest.approx(energy, rel=1e-9)
        assert series["t"][-1] - series["t"][0] == pytest.approx(run["metrics"]["makespan_s"], rel=1e-12)
