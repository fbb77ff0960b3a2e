"""The backfill decision as a plug-in (policy.Backfill): EASY's own test written as a rule gives EASY's
schedules exactly, in arrival order and in a named order; another rule changes them but never starts a job
that does not fit; a rule that answers anything but a bool, or raises, fails its run naming itself."""

from __future__ import annotations

import pytest

import schedulers
from schedulers.plugins import PluginError
from tests.plugin_pkg import package_fixture

SOURCE = """
from schedulers.backfill.policy import Backfill, backfill_rule, easy_admit

easy_rule = Backfill(easy_admit, "EASY's test as a plug-in")
easy_wfp3 = Backfill(easy_admit, "EASY's test in WFP3 order", order="wfp3")


@backfill_rule("backfill only jobs that end by the shadow time")
def by_shadow(now, job, size, estimate, shadow, extra):
    return estimate <= shadow - now


@backfill_rule("start every job that fits (no reservation)")
def greedy(now, job, size, estimate, shadow, extra):
    return True


@backfill_rule("answers a word")
def wordy(now, job, size, estimate, shadow, extra):
    return "yes"


@backfill_rule("raises")
def raising(now, job, size, estimate, shadow, extra):
    return size / 0
"""
ENTRY_POINTS = {f"backfill.{n.replace('_', '-')}": n for n in ("easy_rule", "easy_wfp3", "by_shadow", "greedy",
                                                                "wordy", "raising")}  # fmt: skip


package = package_fixture(ENTRY_POINTS, SOURCE)


def _scenario(*algorithms, n_jobs=400):
    return {"family": "backfill", "algorithms": list(algorithms), "datacenter": {"processors": 64},
            "workload": {"n_jobs": n_jobs, "load": 0.9, "feitelson": {"max_size": 64}}}  # fmt: skip


def _starts(result):
    return {r["algorithm"]: [j["start_s"] for j in r["jobs"]] for r in result["runs"]}


def test_easys_test_as_a_rule_gives_easys_schedules(package):
    starts = _starts(schedulers.run(_scenario("easy", "easy-rule", "easy:wfp3", "easy-wfp3")))
    assert starts["easy-rule"] == starts["easy"]
    assert starts["easy-wfp3"] == starts["easy:wfp3"]
    assert starts["easy"] != starts["easy:wfp3"]


def test_other_rules_change_the_schedule_and_it_stays_valid(package):
    result = schedulers.run(_scenario("easy", "by-shadow", "greedy"))
    starts = _starts(result)
    assert starts["by-shadow"] != starts["easy"] and starts["greedy"] != starts["easy"]
    for run in result["runs"]:  # never more processors busy than the machine has
        assert max(run["series"]["busy_fg"]) <= 64
    assert result["plugins"]["greedy"]["name"] == "backfill.greedy"


def test_a_rule_that_answers_no_bool_or_raises_fails_naming_itself(package):
    with pytest.raises(PluginError, match=r"backfill.wordy .*backfill decision: invalid decision: at t = .* s, job "
                       r"\d+: answered 'yes'; allowed: True"):  # fmt: skip
        schedulers.run(_scenario("wordy"))
    with pytest.raises(PluginError, match=r"backfill.raising .*backfill decision: ZeroDivisionError"):
        schedulers.run(_scenario("raising"))
