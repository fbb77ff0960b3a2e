import json

import pytest

import schedulers
from schedulers import ScenarioError
from schedulers.core import jsonio


def test_it_reports_every_bad_field_with_its_range_in_one_error():
    bad = {"family": "toy", "seed": -1, "repetitions": 0, "datacenter": {"machines": 5000}, "workload": {"jobs": 0}}
    with pytest.raises(ScenarioError) as info:
        schedulers.validate(bad)
    fields = {e["field"]: e for e in info.value.errors}
    assert set(fields) == {"seed", "repetitions", "datacenter.machines", "workload.jobs"}
    assert fields["datacenter.machines"]["allowed"] == "≥ 1, ≤ 1000"  # the whole range
    assert fields["seed"]["allowed"] == "≥ 0, ≤ 9007199254740991"
    assert "datacenter.machines" in str(info.value)


def test_it_rejects_unknown_keys_instead_of_dropping_them():
    with pytest.raises(ScenarioError) as info:
        schedulers.validate({"family": "toy", "datacenter": {"machnes": 3}})
    assert info.value.errors[0]["field"] == "datacenter.machnes"


def test_it_names_the_allowed_families():
    with pytest.raises(ScenarioError) as info:
        schedulers.validate({"family": "nope"})
    assert info.value.errors[0]["field"] == "family"
    assert "toy" in info.value.errors[0]["allowed"]


def test_it_rejects_unknown_algorithms_with_the_choices():
    with pytest.raises(ScenarioError) as info:
        schedulers.validate({"family": "toy", "algorithms": ["fcfs", "magic"]})
    assert any("fcfs" in e["allowed"] and e["field"].startswith("algorithms") for e in info.value.errors)


def test_a_non_object_scenario_is_a_validation_error():
    with pytest.raises(ScenarioError):
        schedulers.validate(["family", "toy"])


def test_run_is_deterministic_and_json_native(toy_scenario):
    a = schedulers.run(toy_scenario)
    b = schedulers.run(toy_scenario)
    for r in a["runs"] + b["runs"]:
        r.pop("wall_time_s")
    assert a == b
    assert json.loads(jsonio.dumps(a)) == a  # native types only
    assert a["scenario_digest"].startswith("sha256:")


def test_repetitions_share_the_workload_across_algorithms_but_not_across_repetitions(toy_scenario):
    result = schedulers.run(toy_scenario)
    jobs = {
        (r["algorithm"], r["repetition"]): sorted(s["end"] - s["start"] for s in r["schedule"]) for r in result["runs"]
    }
    assert jobs[("fcfs", 0)] == pytest.approx(jobs[("lpt", 0)])
    assert jobs[("fcfs", 0)] != pytest.approx(jobs[("fcfs", 1)])


def test_summary_has_mean_and_ci_over_repetitions(toy_scenario):
    result = schedulers.run(toy_scenario)
    stat = result["summary"]["fcfs"]["makespan_s"]
    values = [r["metrics"]["makespan_s"] for r in result["runs"] if r["algorithm"] == "fcfs"]
    assert stat["n"] == 2
    assert stat["mean"] == pytest.approx(sum(values) / 2)
    assert stat["ci"] > 0


def test_progress_is_monotone_and_ends_at_one(toy_scenario):
    seen = []
    schedulers.run(toy_scenario, progress=lambda f, m="": seen.append(f))
    assert seen == sorted(seen)
    assert seen[-1] == 1.0


def test_every_registered_family_has_a_valid_runnable_example():
    assert schedulers.all_families()  # the loop below checks each
    for name, family in schedulers.all_families().items():
        example = family.example()
        fam, cfg = schedulers.validate(example)
        assert fam.name == name
        assert set(cfg.algorithms) <= set(family.algorithms)
        assert schedulers.schema(name)["type"] == "object"


def test_every_family_accepts_the_bare_minimum_scenario():
    for name in schedulers.all_families():
        schedulers.validate({"family": name})


def test_every_preset_validates():
    assert schedulers.all_families()  # the loop below checks each
    for name, family in schedulers.all_families().items():
        for preset in family.presets:
            study = schedulers.preset(name, preset)
            assert study["scenarios"], f"{name}/{preset} has no scenarios"
            for scenario in study["scenarios"]:
                schedulers.validate(scenario)


def test_nan_and_infinity_are_rejected():
    for bad in ("nan", "inf", "-inf"):
        with pytest.raises(ScenarioError) as info:
            schedulers.validate({"family": "toy", "workload": {"mean_duration_s": float(bad)}})
        assert info.value.errors[0]["field"] == "workload.mean_duration_s"
