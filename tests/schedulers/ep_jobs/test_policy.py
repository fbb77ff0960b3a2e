"""The task placement as a plug-in (policy.py): Min-Min written as a plug-in gives min_min's schedule (with
OptRA's shares, baseline_allocation = optra); another placement runs with OptRA's shares and its energy limit
reported; an answer that is not one server per task fails the run naming the plug-in; plug-ins are offline."""

from __future__ import annotations

import pytest

import schedulers
from schedulers.plugins import PluginError
from tests.plugin_pkg import package_fixture

SOURCE = """
import numpy as np

from schedulers.ep_jobs.minmin import min_min_placement
from schedulers.ep_jobs.policy import task_placement
from schedulers.ep_jobs.tapra import rec


@task_placement("Min-Min with REC, as a plug-in")
def minmin(job):
    return rec(job, min_min_placement(job))[0]


@task_placement("every task on its most efficient server, ties to the lowest index")
def greenest(job):
    return np.argmax(job.lam, axis=1)


@task_placement("one task short")
def short(job):
    return np.zeros(job.n_tasks - 1, dtype=int)


@task_placement("a server too far")
def far(job):
    return np.full(job.n_tasks, job.platform.n_servers)
"""
ENTRY_POINTS = {f"ep_jobs.{n}": n for n in ("minmin", "greenest", "short", "far")}


package = package_fixture(ENTRY_POINTS, SOURCE)


def _scenario(*algorithms, **params):
    scenario = schedulers.example("ep_jobs") | {"algorithms": list(algorithms)}
    scenario["params"] = scenario["params"] | params
    return scenario


def test_min_min_as_a_plugin_gives_min_mins_schedule(package):
    result = schedulers.run(_scenario("min_min", "minmin", "greenest", baseline_allocation="optra"))
    runs = {r["algorithm"]: r for r in result["runs"]}
    assert runs["minmin"]["schedule"] == runs["min_min"]["schedule"]
    assert runs["minmin"]["metrics"]["jct_s"] == runs["min_min"]["metrics"]["jct_s"]
    assert runs["greenest"]["metrics"]["energy_limit_met"] in (0.0, 1.0)
    assert result["plugins"]["greenest"]["name"] == "ep_jobs.greenest"


def test_a_placement_that_is_not_one_server_per_task_fails_naming_the_plugin(package):
    with pytest.raises(PluginError, match=r"ep_jobs.short .*task placement: invalid decision: job 0: 40 integer "
                       r"servers expected \(one per task\), got int64 of shape \(39,\)"):  # fmt: skip
        schedulers.run(_scenario("short"))
    with pytest.raises(PluginError, match=r"ep_jobs.far .*task 0 on server 54; allowed: 0…53"):
        schedulers.run(_scenario("far"))


def test_plugins_are_offline_algorithms_only(package):
    online = _scenario("ontapra:tapra_fast", "greenest")
    online["workload"] = {"kind": "online_generator"}
    with pytest.raises(schedulers.ScenarioError, match=r"algorithms\[1\].*not an online algorithm"):
        schedulers.validate(online)
