"""The VM and frequency choice as a plug-in (policy.py): Alg. 1's choice written as a plug-in gives its
schedules exactly; a plug-in may run a task faster than needed; a VM that misses the deadlines, a level
below the one needed, or an answer that is no VM fails the run naming the plug-in."""

from __future__ import annotations

import pytest

import schedulers
from schedulers.plugins import PluginError
from tests.plugin_pkg import package_fixture

SOURCE = """
import numpy as np

from schedulers.dvfs_bot.policy import REJECT, vm_choice


@vm_choice("Alg. 1 lines 34-39 as a plug-in")
def alg1(task):
    v = int(np.argmax(task.score))
    return v if task.score[v] > 0 else REJECT


@vm_choice("Alg. 1's VM at its top frequency")
def flat_out(task):
    v = int(np.argmax(task.score))
    return (v, int(task.top[v])) if task.score[v] > 0 else REJECT


@vm_choice("Alg. 1's VM, one level too slow")
def too_slow(task):
    v = int(np.argmax(task.score))
    return (v, int(task.level[v]) - 1) if task.score[v] > 0 else REJECT


@vm_choice("answers a float")
def floaty(task):
    return 0.5
"""
ENTRY_POINTS = {f"dvfs_bot.{n.replace('_', '-')}": n for n in ("alg1", "flat_out", "too_slow", "floaty")}


package = package_fixture(ENTRY_POINTS, SOURCE)


def _scenario(*algorithms):
    return schedulers.example("dvfs_bot") | {"algorithms": list(algorithms)}


def test_alg1_as_a_plugin_gives_its_schedule_and_a_chosen_level_is_applied(package):
    result = schedulers.run(_scenario("cloud_aware", "alg1", "flat-out"))
    runs = {r["algorithm"]: r for r in result["runs"]}
    assert runs["alg1"]["schedule"] == runs["cloud_aware"]["schedule"]
    same = {k for k, v in runs["alg1"]["metrics"].items() if v == runs["cloud_aware"]["metrics"][k]}
    assert set(runs["alg1"]["metrics"]) - same <= {"scheduler_time_s"}
    fast, alg1 = runs["flat-out"]["metrics"], runs["cloud_aware"]["metrics"]
    assert fast["avg_freq_ghz"] > alg1["avg_freq_ghz"] and fast["vm_busy_time_s"] < alg1["vm_busy_time_s"]
    assert result["plugins"]["flat-out"]["name"] == "dvfs_bot.flat-out"


def test_invalid_choices_fail_the_run_naming_the_plugin(package):
    with pytest.raises(PluginError, match=r"dvfs_bot.too-slow .*VM and frequency choice: invalid decision: job \d+, "
                       r"task \d+: level -?\d+ on VM \d+; allowed: \d+…\d+"):  # fmt: skip
        schedulers.run(_scenario("too-slow"))
    with pytest.raises(PluginError, match=r"dvfs_bot.floaty .*answered 0.5; allowed: a VM 0…39"):
        schedulers.run(_scenario("floaty"))
