"""Scenario validation, defaults, presets, the example, and the real LLNL logs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import schedulers
from schedulers.core.validation import ScenarioError
from schedulers.federated.presets import PRESETS, trace_path
from schedulers.federated.workloads import load_trace_jobs

from .helpers import capacities, check_schedule, instance_of


def test_family_alone_validates_and_runs():
    """{"family": "federated"} is a complete scenario (Table 2 clouds, generator workload)."""
    result = schedulers.run({"family": "federated", "workload": {"kind": "generator", "apps": 3}})
    assert {r["algorithm"] for r in result["runs"]} == {"fcfs", "round_robin", "dcls", "dcmms"}
    _, cfg = schedulers.validate({"family": "federated"})
    assert [c.perf for c in cfg.datacenter.clouds] == [1.0, 0.85, 0.5]


def test_it_names_every_bad_field_with_its_range():
    bad = {
        "family": "federated",
        "datacenter": {"clouds": [{"name": "x", "servers": 0, "server_capacity": 65}], "inter_cloud_gbps": -1},
        "workload": {"kind": "generator", "tasks_max": 65, "ar_share": 1.5, "gap_divisor": 0.5},
        "params": {"alpha": 2},
    }
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(bad)
    fields = exc.value.by_field()
    for field in (
        "datacenter.clouds[0].servers",
        "datacenter.clouds[0].server_capacity",
        "datacenter.inter_cloud_gbps",
        "workload.tasks_max",
        "workload.ar_share",
        "workload.gap_divisor",
        "params.alpha",
    ):
        assert field in fields, field
    assert "≤ 1" in fields["params.alpha"]


def test_cross_field_errors_are_reported_together():
    bad = {
        "family": "federated",
        "datacenter": {"clouds": [{"name": "a"}, {"name": "a", "p_active_w": 10, "p_idle_w": 20}], "etm": [[1.0]]},
        "workload": {
            "kind": "jobs",
            "jobs": [{"home": 5, "ar": True, "arrival": 10, "start": 5, "tasks": [{"preds": [0]}, {"type": 3}]}],
        },
    }
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate(bad)
    fields = exc.value.by_field()
    for field in (
        "datacenter.clouds",
        "datacenter.clouds[1].p_idle_w",
        "datacenter.etm",
        "workload.jobs[0].home",
        "workload.jobs[0].start",
        "workload.jobs[0].tasks[0].preds",
        "workload.jobs[0].tasks[1].type",
    ):
        assert field in fields, field


def test_trace_needs_exactly_one_source():
    with pytest.raises(ScenarioError) as exc:
        schedulers.validate({"family": "federated", "workload": {"kind": "trace"}})
    assert "workload.swf" in exc.value.by_field()


def test_etm_matrix_sets_execution_times_per_task_type():
    """Section 3.4: with an ETM, a task of type i runs ETM[i][j] seconds on cloud j."""
    scenario = {
        "family": "federated",
        "datacenter": {
            "clouds": [
                {"name": "a", "servers": 2, "server_capacity": 2},
                {"name": "b", "servers": 2, "server_capacity": 2},
            ],
            "etm": [[10.0, 50.0], [40.0, 5.0]],
        },
        "workload": {
            "kind": "jobs",
            "dataset_size_gb": 0.0,
            "edge_data_gb": 0.0,
            "jobs": [{"tasks": [{"type": 0}, {"type": 1, "preds": [0]}]}],
        },
        "algorithms": ["cls"],
    }
    inst = instance_of(scenario)
    assert inst.etm.tolist() == [[10.0, 50.0], [40.0, 5.0]]
    run = schedulers.run(scenario)["runs"][0]
    clouds = {seg["task"]: seg["cloud"] for seg in run["schedule"]}
    assert clouds == {"0.0": "a", "0.1": "b"}  # each task on its fast cloud
    assert run["metrics"]["avg_app_execution_time_s"] == pytest.approx(2 + 10 + 2 + 5)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_validate_and_state_the_papers_claims(name):
    study = schedulers.preset("federated", name)
    assert study["claims"] and study["scenarios"]
    for scenario in study["scenarios"]:
        schedulers.validate(scenario)


def test_cli_runs_the_example():
    out = subprocess.run(
        [sys.executable, "-m", "schedulers", "example", "federated"], capture_output=True, text=True, check=True
    )
    scenario = json.loads(out.stdout)
    assert scenario["family"] == "federated"


THUNDER = trace_path("thunder")


@pytest.mark.skipif(THUNDER is None, reason="LLNL-Thunder log not available")
def test_llnl_thunder_log_groups_into_applications_as_table_1():
    """Table 1: jobs sorted by start, grouped ≤ 64 per application; runtime and CPUs from the log."""
    scenario = {
        "family": "federated",
        "workload": {"kind": "trace", "path": str(THUNDER), "max_jobs": 400, "gap_divisor": 100.0},
        "algorithms": ["fcfs", "dcmms"],
    }
    start, runtime, vms = load_trace_jobs(schedulers.validate(scenario)[1].workload)
    assert start.size == 400 and (runtime > 0).all() and (vms > 0).all()
    inst = instance_of(scenario)
    assert inst.n_tasks == 400
    assert (inst.app_ptr[1:] - inst.app_ptr[:-1]).max() <= 64
    assert inst.etm[:, 0].tolist() == runtime.tolist()  # Thunder: performance 1
    assert inst.etm[:, 2] == pytest.approx(runtime / 0.5)
    result = schedulers.run(scenario)
    _, cfg = schedulers.validate(scenario)
    caps = capacities([c.model_dump() for c in cfg.datacenter.clouds])
    for run in result["runs"]:
        check_schedule(run, inst, caps)
        assert run["metrics"]["completed_apps"] + run["metrics"]["rejected_apps"] == inst.n_apps


SWF = """; Version: 2.2
1 0 -1 100 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1
2 10 -1 50 8 -1 -1 8 -1 -1 1 1 1 1 1 1 -1 -1
3 20 -1 -1 8 -1 -1 8 -1 -1 1 1 1 1 1 1 -1 -1
4 -1 -1 70 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 -1
"""


def test_swf_text_drops_unknown_runtimes_and_submits():
    scenario = {"family": "federated", "workload": {"kind": "trace", "swf": SWF, "group_max": 1}}
    inst = instance_of(scenario)
    assert inst.n_apps == 2 and inst.task_vms.tolist() == [4, 8]
    assert inst.app_arrival.tolist() == [0.0, 10.0]


@pytest.mark.parametrize(
    ("workload", "field"),
    [
        ({"kind": "trace", "swf": SWF, "skip_jobs": 10}, "workload.swf"),
        ({"kind": "trace", "swf": "1 2 3"}, "workload.swf"),
        ({"kind": "trace", "path": "/nonexistent/x.swf"}, "workload.path"),
    ],
)
def test_unusable_traces_are_scenario_errors_naming_the_field(workload, field):
    with pytest.raises(ScenarioError) as exc:
        schedulers.run({"family": "federated", "workload": workload})
    assert field in exc.value.by_field()
