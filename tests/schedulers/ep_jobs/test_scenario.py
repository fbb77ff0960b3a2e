"""Scenario validation, the family contract, presets and JSON results through ``schedulers.run``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import schedulers
from schedulers import ScenarioError
from schedulers.core import jsonio
from schedulers.ep_jobs.presets import PRESETS

RUNTIME = {"algorithm_runtime_s", "total_scheduler_runtime_s"}


def _strip(result):
    for run in result["runs"]:
        run.pop("wall_time_s")
        for key in RUNTIME:
            run["metrics"].pop(key, None)
    result.pop("summary")
    return result


def test_family_alone_validates_and_runs():
    result = schedulers.run(
        {
            "family": "ep_jobs",
            "workload": {"kind": "generator", "tasks": 10},
            "datacenter": {"kind": "fattree", "pods": 4},
        }
    )
    jsonio.dumps(result)
    assert {r["algorithm"] for r in result["runs"]} == {"tapra", "tapra_fast", "min_min"}
    for run in result["runs"]:
        m = run["metrics"]
        assert m["jct_s"] >= m["lp_bound_s"] * (1 - 1e-7)
        assert m["energy"] <= m["energy_limit"] * (1 + 1e-9) or m["energy_limit_met"] == 0.0


def test_bare_scenario_is_valid():
    _family, cfg = schedulers.validate({"family": "ep_jobs"})
    assert cfg.workload.tasks == 100
    assert cfg.datacenter.pods == 8


def test_example_runs_and_is_deterministic():
    a = _strip(schedulers.run(schedulers.example("ep_jobs")))
    b = _strip(schedulers.run(schedulers.example("ep_jobs")))
    assert a == b
    jsonio.dumps(a)


def test_online_result_is_json_serialisable():
    sc = {
        "family": "ep_jobs",
        "datacenter": {"kind": "fattree", "pods": 4},
        "workload": {"kind": "online_generator", "arrival_end_s": 200},
        "algorithms": ["ontapra:tapra_fast", "llf-ndrc:tapra_fast"],
    }
    result = schedulers.run(sc)
    jsonio.dumps(result)
    series = result["runs"][0]["series"]
    assert len(series["t"]) == len(series["allocated_vcpus"]) == len(series["power_w"]) == len(series["energy_j"])


def test_errors_name_every_bad_field():
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(
            {
                "family": "ep_jobs",
                "datacenter": {"kind": "fattree", "pods": 7, "beta_dc": 2},
                "workload": {"kind": "generator", "tasks": 0},
            }
        )
    fields = {e["field"] for e in exc.value.errors}
    assert {"datacenter.beta_dc", "workload.tasks"} <= fields  # the keys written, no union tags
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(
            {
                "family": "ep_jobs",
                "datacenter": {"kind": "fattree", "pods": 7},
                "workload": {"kind": "generator", "emax_low": 1.2},
                "algorithms": ["ontapra:tapra"],
                "params": {"ga_elite": 60},
            }
        )
    fields = exc.value.by_field()
    assert {"datacenter.pods", "workload.emax_low", "algorithms[0]", "params.ga_elite"} <= set(fields)


def test_custom_servers_and_constraints_are_accepted():
    sc = {
        "family": "ep_jobs",
        "algorithms": ["tapra", "tapra_fast", "gsa"],
        "datacenter": {
            "kind": "servers",
            "capacities": [35, 10, 30],
            "constraints": [{"servers": [0], "bound": 30}, {"servers": [1, 2], "bound": 30}],
        },
        "workload": {
            "kind": "job",
            "e_max": 1e9,
            "tasks": [{"load": v, "efficiency": [1, 1, 1]} for v in (100, 200, 400, 500)],
        },
        "params": {"ga_generations": 20},
    }
    result = schedulers.run(sc)
    metrics = {r["algorithm"]: r["metrics"] for r in result["runs"]}
    # Sec. 1.1: schedule B (JCT 20) is optimal; schedule A has JCT 33.33. TaPRA's rounding of the
    # LP vertex lands on a local optimum of 23.33 (worked by hand in the note); TaPRA-fast finds 20.
    assert metrics["tapra_fast"]["jct_s"] == pytest.approx(20.0)
    assert metrics["tapra"]["lp_bound_s"] == pytest.approx(20.0)
    assert 20.0 - 1e-9 <= metrics["tapra"]["jct_s"] < 33.3
    with pytest.raises(ScenarioError, match="out of range"):
        schedulers.validate(
            {**sc, "datacenter": {"kind": "servers", "capacities": [1], "constraints": [{"servers": [3], "bound": 1}]}}
        )


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_validate(name):
    study = schedulers.preset("ep_jobs", name)
    assert study["claims"] and study["scenarios"]
    for sc in study["scenarios"]:
        schedulers.validate(sc)


def test_library_does_not_import_django():
    code = "import schedulers, sys; list(schedulers.all_families().values()); assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
