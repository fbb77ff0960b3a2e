"""The two-tier families' tier choice as a plug-in (policy.TierChoice): KEASY, REASY and MEASY written as choices
give the built-ins' schedules exactly; a choice that changes with time gives, through the incremental arrival pass,
the schedule of the full Steps 1–2 at every event; a choice that answers anything but 'K', 'M' or 'R', or raises,
fails its run naming itself and the decision."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import schedulers
from schedulers import plugins
from schedulers.backfill import keasy
from schedulers.backfill.keasy import checked_choice, simulate_two_tier
from schedulers.backfill.policy import KILL, MIGRATE, REFUSE, TIERS, TierChoice
from schedulers.plugins import Plugin, PluginError
from tests.plugin_pkg import package_fixture

from .helpers import assert_jobs_complete, assert_no_overlap, config, instance
from .test_incremental import _checking
from .test_two_tier import _crowded_instance

SOURCE = """
from schedulers.backfill.policy import KILL, MIGRATE, REFUSE, TIERS, TierChoice, queue_order, tier_choice

keasy_p, reasy_p, measy_p = TIERS["keasy"], TIERS["reasy"], TIERS["measy"]
migrate = TIERS["measy"].deploy


@queue_order("the estimate, as a plug-in")
def by_estimate(now, jobs):
    return jobs.estimate


@queue_order("one key too few")
def short(now, jobs):
    return jobs.index[:-1]


measy_sjf = TierChoice(migrate, "MEASY, Step 3's SJF as a plug-in order", background=by_estimate)
measy_fcfs = TierChoice(migrate, "MEASY, arrival order into the background tier", background="fcfs")
measy_short = TierChoice(migrate, "MEASY, Step 3 keys one too few", background=short)
measy_wfp3 = TierChoice(migrate, "MEASY, a dynamic Step 3 order", background="wfp3")


@tier_choice("kill a job that has done less work than a migration costs, else migrate")
def least_waste(now, job, size, estimate, done, cost):
    return MIGRATE if done > cost else KILL


@tier_choice("answers a word")
def wordy(now, job, size, estimate, done, cost):
    return "migrate"


@tier_choice("raises")
def raising(now, job, size, estimate, done, cost):
    return size / 0
"""
ENTRY_POINTS = {f"backfill.{n.replace('_', '-')}": n for n in ("keasy_p", "reasy_p", "measy_p", "least_waste",
                                                                "wordy", "raising", "measy_sjf", "measy_fcfs",
                                                                "measy_short", "measy_wfp3")}  # fmt: skip

package = package_fixture(ENTRY_POINTS, SOURCE)


def _plugin(name: str, choice: TierChoice) -> Plugin:
    return Plugin("backfill", name, choice, f"tests:{name}", "tests", "0", __file__, "", "")


def _same(a, b) -> None:
    """Every column of the two runs: first starts, ends, counters, series and every recorded stretch."""
    assert a.first_start.tolist() == b.first_start.tolist()
    assert a.end.tolist() == b.end.tolist()
    assert a.counters == b.counters
    assert (a.series_t, a.series_fg, a.series_bg, a.series_queue) == (b.series_t, b.series_fg, b.series_bg,
                                                                      b.series_queue)  # fmt: skip
    for col in ("job", "start", "end", "tier", "rate", "procs"):
        assert getattr(a.stretches, col) == getattr(b.stretches, col), col
    assert a.stretches.ended == b.stretches.ended


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("alg", ["keasy", "reasy", "measy"])
def test_the_papers_three_as_tier_choices_give_the_built_ins_schedules(alg, seed):
    cfg = config(seed=seed, datacenter={"processors": 128},
                 workload={"model": "feitelson", "n_jobs": 2000, "load": 0.9, "feitelson": {"max_size": 128}})  # fmt: skip
    inst = instance(cfg)
    built_in = simulate_two_tier(inst, alg, cfg.params)
    plug_in = simulate_two_tier(inst, f"{alg}-p", cfg.params, choice=checked_choice(_plugin(alg, TIERS[alg]),
                                                                                    TIERS[alg]))  # fmt: skip
    _same(built_in, plug_in)
    assert built_in.counters["kills" if alg == "keasy" else "migrations" if alg == "measy" else "swaps"] > 0


def _fickle(now, job, size, estimate, done, cost):
    """Refuses in odd minutes, else kills a job that has done less work than a migration costs, else migrates."""
    if int(now // 60) % 2:
        return REFUSE
    return MIGRATE if done > cost else KILL


@pytest.mark.parametrize("seed", range(40))
def test_a_choice_that_changes_with_time_gets_the_full_pass_schedule(seed, monkeypatch):
    """The incremental arrival pass re-runs Steps 1–2 whenever a background job could be a candidate (a choice may
    answer otherwise than at the last pass): its schedule equals the full passes' (``INCREMENTAL = False``), and the
    machine's incremental structures equal a rescan after every pass (test_incremental.check_state)."""
    choice = TierChoice(_fickle, "fickle")
    inst = _crowded_instance(seed)
    params = config(params={"cpu_info": "exact" if seed % 2 else "none", "migration_cost_s": 7.0}).params
    runs, calls = [], []
    for incremental in (True, False):
        monkeypatch.setattr(keasy, "INCREMENTAL", incremental)
        monkeypatch.setattr(keasy, "CHECK", _checking(calls))
        runs.append(simulate_two_tier(inst, "fickle", params, choice=checked_choice(_plugin("fickle", choice), choice)))
    _same(*runs)
    assert calls


def test_a_choice_that_changes_with_time_on_a_large_workload_gets_the_full_pass_schedule(monkeypatch):
    choice = TierChoice(_fickle, "fickle")
    cfg = config(seed=4, datacenter={"processors": 128},
                 workload={"model": "feitelson", "n_jobs": 2000, "load": 0.9, "feitelson": {"max_size": 128}})  # fmt: skip
    inst, runs = instance(cfg), []
    for incremental in (True, False):
        monkeypatch.setattr(keasy, "INCREMENTAL", incremental)
        runs.append(simulate_two_tier(inst, "fickle", cfg.params, choice=checked_choice(_plugin("fickle", choice),
                                                                                        choice)))  # fmt: skip
    _same(*runs)
    assert runs[0].counters["kills"] > 0 and runs[0].counters["migrations"] > 0


def _scenario(*algorithms, n_jobs=400):
    return {"family": "backfill", "algorithms": list(algorithms), "datacenter": {"processors": 64},
            "workload": {"n_jobs": n_jobs, "load": 0.9, "feitelson": {"max_size": 64}}}  # fmt: skip


def test_installed_tier_choices_run_as_two_tier_algorithms(package):
    result = schedulers.run(_scenario("keasy", "keasy-p", "reasy", "reasy-p", "measy", "measy-p", "least-waste"))
    runs = {r["algorithm"]: r for r in result["runs"]}
    for alg in ("keasy", "reasy", "measy"):
        assert runs[f"{alg}-p"]["jobs"] == runs[alg]["jobs"]
        assert runs[f"{alg}-p"]["metrics"] == runs[alg]["metrics"]
    mixed = runs["least-waste"]
    assert mixed["metrics"]["migrations"] > 0 and mixed["metrics"]["kills"] > 0
    assert_no_overlap(mixed["schedule"], 64)
    inst = instance(config(**_scenario("keasy")))  # the same instance for every algorithm
    assert_jobs_complete(mixed, inst, two_tier=True)
    assert result["plugins"]["least-waste"]["name"] == "backfill.least-waste"
    assert schedulers.get_family("backfill").algorithms["least-waste"].startswith("kill a job")


def test_families_lists_a_tier_choice_with_its_origin(package):
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(package).parent), str(root)])}
    out = subprocess.run([sys.executable, "-m", "schedulers", "families"], capture_output=True, text=True, env=env,
                         check=True, timeout=120).stdout  # fmt: skip
    line = next(x for x in out.splitlines() if "least-waste" in x)
    assert "plug-in from cloudsched-test-orders 0.3.1 (cloudsched_test_orders:least_waste): kill a job" in line


def test_a_choice_that_answers_no_mode_or_raises_fails_naming_itself(package):
    with pytest.raises(PluginError, match=r"backfill.wordy .*tier choice: invalid decision: at t = .* s, background "
                       r"job \d+: answered 'migrate'; allowed: 'K'"):  # fmt: skip
        schedulers.run(_scenario("wordy"))
    with pytest.raises(PluginError, match=r"backfill.raising .*tier choice: ZeroDivisionError"):
        schedulers.run(_scenario("raising"))


@pytest.mark.parametrize("answer", [None, "k", "KM", 1, np.int8(75)])
def test_only_the_three_modes_are_decisions(answer):
    choice = TierChoice(lambda now, job, size, estimate, done, cost: answer, "odd")
    cfg = config(datacenter={"processors": 64}, workload={"n_jobs": 400, "load": 0.9, "feitelson": {"max_size": 64}})
    with pytest.raises(PluginError, match=r"backfill.odd .*tier choice: invalid decision"):
        simulate_two_tier(instance(cfg), "odd", cfg.params, choice=checked_choice(_plugin("odd", choice), choice))


def test_step_3_takes_a_static_order_from_the_choice(package):
    """SJF written as a plug-in order gives MEASY's schedule; arrival order into the background tier another,
    valid one."""
    result = schedulers.run(_scenario("measy", "measy-sjf", "measy-fcfs"))
    runs = {r["algorithm"]: r for r in result["runs"]}
    assert runs["measy-sjf"]["jobs"] == runs["measy"]["jobs"]
    assert runs["measy-fcfs"]["jobs"] != runs["measy"]["jobs"]
    assert_no_overlap(runs["measy-fcfs"]["schedule"], 64)
    assert_jobs_complete(runs["measy-fcfs"], instance(config(**_scenario("measy"))), two_tier=True)


def test_a_bad_step_3_order_fails_and_a_dynamic_one_is_left_out(package):
    with pytest.raises(
        PluginError, match=r"backfill.measy-short .*queue order: invalid decision: .* 400 keys expected"
    ):
        schedulers.run(_scenario("measy-short"))
    left_out = [b for b in plugins.broken() if "measy-wfp3" in b["entry_point"]]
    assert left_out and "computed once per run" in left_out[0]["error"]
    assert "measy-wfp3" not in schedulers.get_family("backfill").algorithms
