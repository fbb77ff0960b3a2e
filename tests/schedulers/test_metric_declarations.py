"""Every metric a family emits is declared once, with its kind and unit (``Family.metrics``)."""

import pytest

import schedulers
from schedulers.core.metrics import KINDS, Metric, declared, undeclared
from schedulers.registry import all_families

FAMILIES = sorted(all_families())


@pytest.fixture(scope="module")
def examples():
    return {name: schedulers.run(all_families()[name].example()) for name in FAMILIES}


@pytest.mark.parametrize("name", FAMILIES)
def test_every_emitted_metric_is_declared(name, examples):
    family = all_families()[name]
    emitted = sorted({k for r in examples[name]["runs"] for k in r["metrics"]})
    assert emitted, "the example emits metrics"
    assert undeclared(family.metrics, emitted) == [], f"{name} emits metrics it does not declare in Family.metrics"


@pytest.mark.parametrize("name", FAMILIES)
def test_declarations_are_complete_and_consistent(name):
    family = all_families()[name]
    assert undeclared(family.metrics, family.summary_metrics) == []
    for key, spec in family.metrics.items():
        assert spec.kind in KINDS and spec.label, key
        if spec.ci_of:  # a within-run CI is a spread of another declared metric, in the same kind and unit
            target = declared(family.metrics, spec.ci_of)
            assert target is not None and (target.kind, target.unit) == (spec.kind, spec.unit), key


def test_an_online_ep_jobs_run_declares_its_metrics_too():
    family = all_families()["ep_jobs"]
    result = schedulers.run({"family": "ep_jobs", "seed": 2, "datacenter": {"kind": "fattree", "pods": 4},
                             "workload": {"kind": "online_generator", "arrival_end_s": 60.0, "max_tasks": 4},
                             "algorithms": ["ontapra:tapra_fast"]})  # fmt: skip
    assert undeclared(family.metrics, list(result["runs"][0]["metrics"])) == []


def test_patterns_and_bad_declarations():
    metrics = {"load_*": Metric("fraction", "", "load of {}"), "energy_kwh": Metric("energy", "kWh", "energy")}
    assert declared(metrics, "load_atlas").label == "load of atlas"
    assert undeclared(metrics, ["energy_kwh", "load_x", "energy_j"]) == ["energy_j"]
    with pytest.raises(ValueError, match="kind 'speed'"):
        Metric("speed", "m/s", "speed")
    with pytest.raises(ValueError, match="unit 'kJ' of kind energy"):
        Metric("energy", "kJ", "energy")
