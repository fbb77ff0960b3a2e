"""The cloud-mapping interface (policy.py): CLS and DCLS written as plug-in choices give their schedules
exactly; a plug-in that picks a cloud the task cannot use, or raises, fails its run naming itself."""

from __future__ import annotations

import pytest

import schedulers
from schedulers.federated import example
from schedulers.plugins import PluginError
from tests.plugin_pkg import package_fixture

SOURCE = """
import numpy as np

from schedulers.federated.policy import cloud_choice


@cloud_choice("CLS through the interface: earliest estimated finish (eq. 5)")
def earliest(task):
    return int(np.argmin(task.tau))


@cloud_choice("DCLS through the interface (eq. 8)", feedback=True)
def earliest_fd(task):
    return int(np.argmin(task.tau))


@cloud_choice("the home cloud when it fits")
def home(task):
    return task.home if task.fits()[task.home] else int(np.argmin(task.tau))


@cloud_choice("always the last cloud")
def last(task):
    return task.etm.size - 1


@cloud_choice("one past the last cloud")
def beyond(task):
    return task.etm.size


@cloud_choice("raises")
def raising(task):
    return task.nothing
"""
ENTRY_POINTS = {f"federated.{n.replace('_', '-')}": n for n in ("earliest", "earliest_fd", "home", "last", "beyond",
                                                                 "raising")}  # fmt: skip


package = package_fixture(ENTRY_POINTS, SOURCE)


def _scenario(*algorithms, **datacenter):
    scenario = example() | {"algorithms": list(algorithms)}
    if datacenter:
        scenario["datacenter"] = datacenter
    return scenario


def test_cls_and_dcls_as_plugin_choices_give_their_schedules_exactly(package):
    scenario = _scenario("cls", "earliest", "dcls", "earliest-fd")
    scenario["workload"]["apps"] = 30  # enough finish times for the feedback factor to move a task
    result = schedulers.run(scenario)
    runs = {r["algorithm"]: r for r in result["runs"]}
    assert runs["earliest"]["schedule"] == runs["cls"]["schedule"]
    assert runs["earliest-fd"]["schedule"] == runs["dcls"]["schedule"]
    assert runs["earliest"]["metrics"] == runs["cls"]["metrics"]
    assert runs["cls"]["schedule"] != runs["dcls"]["schedule"]  # the example's feedback matters
    assert result["plugins"]["earliest"]["name"] == "federated.earliest"


def test_another_choice_changes_the_schedule(package):
    runs = {r["algorithm"]: r for r in schedulers.run(_scenario("cls", "home"))["runs"]}
    assert runs["home"]["schedule"] != runs["cls"]["schedule"]


def test_a_cloud_the_task_cannot_use_fails_the_run_naming_plugin_and_task(package):
    # the example's last cloud (ubgl) has 64 VMs: tasks of up to 16 fit, so `last` is valid there;
    # with a 4-VM last cloud a larger task does not fit
    clouds = [*example()["datacenter"]["clouds"][:2], {"name": "tiny", "servers": 2, "server_capacity": 2}]
    with pytest.raises(PluginError, match=r"federated.last .*cloud mapping: invalid decision: task \d+ \(\d+ VMs\) "
                       r"does not fit cloud 2; allowed: \[0, 1\]"):  # fmt: skip
        schedulers.run(_scenario("last", clouds=clouds))
    with pytest.raises(PluginError, match=r"federated.beyond .*answered 3; allowed: a cloud 0…2"):
        schedulers.run(_scenario("beyond"))
    with pytest.raises(PluginError, match=r"federated.raising .*cloud mapping: AttributeError"):
        schedulers.run(_scenario("raising"))
