"""Data-local CLS: its cloud choice by hand, and a run beside CLS when installed."""

import numpy as np
from cloudsched_example_plugins.mapping import data_local

import schedulers
from schedulers.federated import example
from schedulers.federated.policy import Task


def _task(home, tau, erat, etm=(100.0, 100.0, 100.0)):
    return Task(0, 0, 4, home, False, 0.0, 10.0, np.array(etm), np.array(erat), np.array(tau))


def test_home_unless_another_cloud_is_at_least_ten_percent_of_the_home_span_earlier():
    # home span = τ − ERAT = 100 s at home (cloud 0): cloud 1 finishing 5 s earlier is not enough, 20 s is
    assert data_local.choose(_task(0, tau=[200.0, 195.0, 300.0], erat=[100.0, 90.0, 0.0])) == 0
    assert data_local.choose(_task(0, tau=[200.0, 180.0, 300.0], erat=[100.0, 90.0, 0.0])) == 1
    # a task the home cloud cannot run goes where CLS sends it
    assert data_local.choose(_task(0, [np.inf, 180.0, 170.0], [np.inf, 0.0, 0.0], (np.inf, 1.0, 1.0))) == 2


def test_it_runs_beside_cls_and_keeps_more_tasks_home():
    scenario = example() | {"algorithms": ["cls", "data-local"]}
    scenario["workload"]["apps"] = 30
    result = schedulers.run(scenario)
    assert result["plugins"]["data-local"]["name"] == "federated.data-local"
    cls, local = (r["metrics"] for r in result["runs"])
    assert local["remote_task_share"] < cls["remote_task_share"]  # 0.60 against 0.64 with this seed
    assert local["avg_app_execution_time_s"] < cls["avg_app_execution_time_s"]  # 5,929 s against 6,073 s
