"""The Iosup BoT generator (Table I counts, urgency ratios, bounds), validation errors and presets."""

from __future__ import annotations

import numpy as np
import pytest

from schedulers.core.validation import ScenarioError
from schedulers.dvfs_bot.model import GeneratorWorkload
from schedulers.dvfs_bot.presets import PRESETS, TABLE1_JOBS
from schedulers.dvfs_bot.workloads import expected_jobs, generate_iosup


@pytest.mark.parametrize(("key", "paper"), list(TABLE1_JOBS.items()))
def test_table1_job_counts_follow_from_shape_then_scale(key, paper):
    """Reading the paper's (α, β) as (Weibull shape, scale in s) reproduces Table I within 0.5 %."""
    alpha, beta, _ = key
    assert expected_jobs(alpha, beta, 86400.0) == pytest.approx(paper, rel=0.005)


def test_one_generated_day_matches_table1():
    wl = generate_iosup(GeneratorWorkload(iat_shape=4.25, iat_scale_s=15.72), np.random.default_rng(0))
    assert wl.n_jobs == pytest.approx(6040.9, rel=0.01)
    assert np.all(np.diff(wl.submit) > 0) and wl.submit[-1] < 86400


def test_bounds_and_urgency_ratios():
    wl = generate_iosup(GeneratorWorkload(urgent_fraction=0.5, duration_h=12), np.random.default_rng(1))
    assert wl.runtime.min() >= 60 * 2.0**-6 and wl.runtime.max() <= 60 * 2.0**8
    assert wl.ntasks.min() >= 1 and wl.ntasks.max() <= 512
    ratio = (wl.deadline - wl.submit) / wl.runtime
    hi, lo = ratio[wl.urgent], ratio[~wl.urgent]
    assert hi.min() >= 3 - 1.4 * 3**0.5 and hi.max() <= 3 + 1.4 * 3**0.5
    assert lo.min() >= 8 - 3 * 3**0.5 and lo.max() <= 8 + 3 * 3**0.5
    assert hi.mean() == pytest.approx(3, abs=0.15) and hi.std() == pytest.approx(1.4, abs=0.1)
    assert lo.mean() == pytest.approx(8, abs=0.3) and lo.std() == pytest.approx(3, abs=0.2)
    assert wl.urgent.mean() == pytest.approx(0.5, abs=0.03)
    np.testing.assert_array_equal(wl.actual, np.repeat(wl.runtime, wl.ntasks))  # exact by default


def test_truncated_runtime_exponent_has_no_atoms_at_the_bounds():
    wl = generate_iosup(GeneratorWorkload(duration_h=24), np.random.default_rng(2))
    x = np.log2(wl.runtime / 60)
    assert np.mean(x >= 8 - 1e-9) < 0.001 and np.mean(x <= -6 + 1e-9) < 0.001


def test_invalid_scenario_names_every_bad_field():
    import schedulers

    bad = {
        "family": "dvfs_bot",
        "datacenter": {"host_types": [{"count": 0, "energy_rank": 12}], "vm_order": "zigzag"},
        "workload": {"runtime_log2_min": 5, "runtime_log2_max": 4, "high_ratio_sd": 2.0},
        "algorithms": ["cloud_aware", "nope"],
    }
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(bad)
    fields = {e["field"] for e in exc.value.errors}
    assert {"datacenter.host_types[0].count", "datacenter.host_types[0].energy_rank", "datacenter.vm_order"} <= fields
    assert any(f.startswith("algorithms") for f in fields)
    bad.pop("algorithms")
    bad["datacenter"] = {"host_types": [{"count": 6000, "cores": 4}]}
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(bad)
    fields = {e["field"] for e in exc.value.errors}
    assert fields == {"datacenter.host_types", "workload.runtime_log2_max", "workload.high_ratio_sd"}
    assert all(e["allowed"] for e in exc.value.errors)


def test_jobs_workload_and_missing_kind_default_to_sensible_models():
    import schedulers

    _, cfg = schedulers.validate({"family": "dvfs_bot", "workload": {"urgent_fraction": 0.5}})
    assert cfg.workload.kind == "generator"
    _, cfg = schedulers.validate({"family": "dvfs_bot", "workload": {"kind": "jobs"}})
    assert cfg.workload.jobs[0].tasks == 1


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_validate(name):
    import schedulers

    study = schedulers.preset("dvfs_bot", name)
    assert study["claims"] and study["scenarios"]
    for sc in study["scenarios"]:
        _, cfg = schedulers.validate(sc)
        assert cfg.repetitions == 10
        assert sum(ht.count * ht.cores for ht in cfg.datacenter.host_types) == 800
    assert len(study["scenarios"]) == (6 if name.startswith("fig2") else 12)


def test_example_runs_both_algorithms():
    import schedulers

    result = schedulers.run(schedulers.example("dvfs_bot"))  # speed: bench/dvfs_bot.py, never a timed test
    assert {r["algorithm"] for r in result["runs"]} == {"cloud_aware", "baseline"}


def test_runs_too_large_to_finish_are_refused():
    import schedulers

    big = {
        "family": "dvfs_bot",
        "datacenter": {"host_types": [{"count": 2000, "cores": 4}]},
        "workload": {"iat_scale_s": 0.5, "duration_h": 168},
    }
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(big)
    assert [e["field"] for e in exc.value.errors] == ["workload.iat_scale_s"]
