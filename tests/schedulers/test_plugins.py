"""Plug-in algorithms (schedulers/plugins.py): a package installed with a real dist-info is discovered, runs
beside the built-ins, is named on the result; a plug-in that raises, answers wrongly or is too slow fails
its run naming itself; a broken package never takes the library down; a removed one leaves results readable."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

import schedulers
from schedulers import plugins
from schedulers.core import jsonio
from schedulers.plugins import PluginError, RunLimit
from tests.plugin_pkg import installed

ROOT = Path(__file__).resolve().parents[2]


def _scenario(*algorithms, n_jobs=300):
    return {"family": "backfill", "algorithms": list(algorithms), "datacenter": {"processors": 64},
            "workload": {"n_jobs": n_jobs, "load": 0.9, "feitelson": {"max_size": 64}}}  # fmt: skip


@pytest.fixture
def package(tmp_path):
    with installed(tmp_path / "site") as module:
        yield module


def test_an_installed_plugin_is_a_family_algorithm_with_its_origin(package):
    fam = schedulers.get_family("backfill")
    assert fam.algorithms["widest"] == "widest job first"
    origin = fam.origins["widest"]
    assert (origin["package"], origin["version"]) == ("cloudsched-test-orders", "0.3.1")
    assert origin["entry_point"] == "cloudsched_test_orders:widest"
    assert origin["sha256"] == hashlib.sha256(package.read_bytes()).hexdigest()
    assert fam.origins["easy"]["package"] == "cloudsched"
    enum = schedulers.schema("backfill")["properties"]["algorithms"]["items"]["enum"]
    assert "widest" in enum and "easy" in enum  # the wizard draws its checkboxes from this


def test_the_cli_lists_plugins_with_package_and_version(package):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package.parent), str(ROOT)])}
    out = subprocess.run([sys.executable, "-m", "schedulers", "families"], capture_output=True, text=True, env=env,
                         check=True)  # fmt: skip
    line = next(x for x in out.stdout.splitlines() if "widest" in x)
    assert "cloudsched-test-orders 0.3.1" in line
    assert "easy:wfp3" in out.stdout  # the named parts are built-ins


def test_a_plugin_runs_beside_the_builtins_and_the_result_names_it(package):
    result = schedulers.run(_scenario("easy", "widest"))
    assert [r["algorithm"] for r in result["runs"]] == ["easy", "widest"]
    stamp = result["plugins"]["widest"]
    assert stamp["name"] == "backfill.widest" and stamp["version"] == "0.3.1"
    assert stamp["sha256"] == hashlib.sha256(package.read_bytes()).hexdigest()
    assert "easy" not in result["plugins"]
    easy, widest = (tuple(j["start_s"] for j in r["jobs"]) for r in result["runs"])
    assert easy != widest


def test_a_result_without_plugins_has_no_plugins_key():
    assert "plugins" not in schedulers.run(_scenario("easy", n_jobs=20))


def test_a_raising_plugin_fails_its_own_unit_naming_it_and_the_decision(package):
    """The papers' algorithms of the same run keep their results, identical to a run without the plug-in."""
    result = schedulers.run(_scenario("raising", "easy"))
    assert [r["algorithm"] for r in result["runs"]] == ["easy"]
    assert list(result["summary"]) == ["easy"]
    (failure,) = result["failures"]
    assert (failure["algorithm"], failure["repetition"], failure["plugin"]) == ("raising", 0, "backfill.raising")
    assert failure["type"] == "PluginError"
    msg = failure["error"]
    assert "backfill.raising (cloudsched-test-orders 0.3.1)" in msg
    assert "queue order" in msg and "ZeroDivisionError" in msg
    alone = schedulers.run(_scenario("easy"))
    assert result["runs"][0]["metrics"] == alone["runs"][0]["metrics"]
    with pytest.raises(PluginError, match=r"backfill\.raising"):  # nothing left to keep: the run fails with it
        schedulers.run(_scenario("raising"))


def test_a_wrong_answer_is_an_invalid_decision(package):
    with pytest.raises(PluginError, match=r"invalid decision.*300 keys expected \(one per job\), got shape \(299,\)"):
        schedulers.run(_scenario("short"))
    with pytest.raises(PluginError, match=r"key nan for job 0 \(300 keys not finite\); allowed: finite numbers; an "
                       "order that reads `now` must be declared dynamic"):  # fmt: skip
        schedulers.run(_scenario("undeclared"))


KEYS_SOURCE = """
import numpy as np
from schedulers.backfill.policy import queue_order
from schedulers.vm_reservations.policy import pm_choice

infinite = queue_order("inf for the widest")(lambda now, jobs: np.where(jobs.size == jobs.size.max(), np.inf, 0.0))
text = queue_order("numbers as text")(lambda now, jobs: [str(v) for v in jobs.size.tolist()])
flags = queue_order("wide jobs last (bools)")(lambda now, jobs: jobs.size > 8)
exits = queue_order("exits")(lambda now, jobs: __import__("sys").exit(3))
pm_inf = pm_choice("inf order", order=lambda r: np.full(len(r), -np.inf))(lambda fit: -1)
"""


def test_order_keys_must_be_finite_numbers(tmp_path):
    eps = {"backfill.infinite": "infinite", "backfill.text": "text", "backfill.flags": "flags",
           "backfill.exits": "exits", "vm_reservations.pm-inf": "pm_inf"}  # fmt: skip
    with installed(tmp_path / "site", entry_points=eps, source=KEYS_SOURCE):
        result = schedulers.run(_scenario("infinite", "text", "flags", "exits", n_jobs=50))
        errors = {f["algorithm"]: f["error"] for f in result["failures"]}
        assert [r["algorithm"] for r in result["runs"]] == ["flags"]  # bools are numbers (False first)
        assert "key inf for job" in errors["infinite"] and "allowed: finite numbers" in errors["infinite"]
        assert "keys must be numbers, got <U" in errors["text"]
        assert "called sys.exit(3)" in errors["exits"]  # ends its own unit, never the process
        vm = schedulers.example("vm_reservations")
        with pytest.raises(PluginError, match=r"request order: .*the pool's request order: key -inf for request 0 "):
            schedulers.run({**vm, "algorithms": ["pm-inf"]})


def test_a_second_package_declaring_a_name_never_replaces_the_first(tmp_path):
    """Discovery keeps the first package's algorithm (sys.path order) and lists the second as left out."""
    with installed(tmp_path / "first", entry_points={"backfill.widest": "widest"}):
        second = tmp_path / "second"
        (second / "other_orders-2.0.dist-info").mkdir(parents=True)
        (second / "other_orders.py").write_text(
            "from schedulers.backfill.policy import queue_order\n\n"
            "@queue_order('narrowest first')\ndef narrow(now, jobs):\n    return jobs.size\n"
        )
        info = second / "other_orders-2.0.dist-info"
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other-orders\nVersion: 2.0\n")
        (info / "entry_points.txt").write_text("[cloudsched.algorithms]\nbackfill.widest = other_orders:narrow\n")
        sys.path.append(str(second))
        plugins.refresh()
        try:
            fam = schedulers.get_family("backfill")
            assert fam.origins["widest"]["package"] == "cloudsched-test-orders"
            assert fam.algorithms["widest"] == "widest job first"
            left_out = [b for b in plugins.broken() if "other_orders:narrow" in b["entry_point"]]
            assert len(left_out) == 1 and left_out[0]["error"] == "another package already declares this name"
        finally:
            sys.path.remove(str(second))
            sys.modules.pop("other_orders", None)
            plugins.refresh()


@contextmanager
def _time_limit(seconds):
    class Limit(RunLimit):
        pass

    def alarm(signum, frame):
        raise Limit(f"time limit of {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield Limit
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_answer_checks_and_the_guard_the_families_share():
    """``index_in`` (a VM, cloud or PM number): integers of Python and numpy in range, never a bool (True is 1)
    nor a float; ``reraise`` turns the exception being handled into a PluginError naming plug-in and decision,
    and lets a run limit through with a note."""
    import numpy as np

    assert plugins.index_in(0, 0, 3) and plugins.index_in(np.int32(2), 0, 3) and plugins.index_in(-1, -1, 3)
    for bad in (True, False, 1.0, 3, -1, "1", None, np.float64(1)):
        assert not plugins.index_in(bad, 0, 3), bad
    plugin = plugins.Plugin("backfill", "p", None, "m:o", "pkg", "1.0", "f.py", "0" * 64)

    def ask(exc):
        try:
            raise exc
        except BaseException:
            plugins.reraise(plugin, "queue order")

    with pytest.raises(PluginError, match=r"backfill.p .*queue order: ZeroDivisionError: boom"):
        ask(ZeroDivisionError("boom"))
    with pytest.raises(RunLimit) as stopped:
        ask(RunLimit("time"))
    assert "interrupted plug-in backfill.p (pkg 1.0) in its queue order" in stopped.value.__notes__


def test_a_slow_plugin_is_stopped_by_the_callers_time_limit_which_names_it(package):
    """The worker's limit (cloudsched_web/runs/tasks.py) raises a RunLimit: it passes the guard as itself,
    with a note naming the plug-in it interrupted, and the library is usable afterwards."""
    with _time_limit(0.5) as limit, pytest.raises(limit) as err:
        schedulers.run(_scenario("sleepy", n_jobs=20))
    assert any("backfill.sleepy (cloudsched-test-orders 0.3.1)" in n for n in err.value.__notes__)
    assert schedulers.run(_scenario("widest", n_jobs=20))["runs"][0]["algorithm"] == "widest"


def test_broken_entry_points_are_left_out_with_a_reason(tmp_path):
    bad = {
        "backfill.fine": "widest",
        "backfill.number": "not_an_order",
        "backfill.easy": "widest",
        "nosuchfamily.x": "widest",
        "backfill.Bad Name": "widest",
        "backfill.missing": "cloudsched_test_orders_nope:widest",
    }
    with installed(tmp_path / "site", entry_points=bad):
        assert "fine" in schedulers.get_family("backfill").algorithms
        reasons = {b["entry_point"].split(" = ")[0]: b["error"] for b in plugins.broken()}
        assert "QueueOrder" in reasons["backfill.number"]
        assert "built-in" in reasons["backfill.easy"]
        assert "no family 'nosuchfamily'" in reasons["nosuchfamily.x"]
        assert "not lower-case" in reasons["backfill.Bad Name"]
        assert "ModuleNotFoundError" in reasons["backfill.missing"]
        assert schedulers.get_family("backfill").algorithms["easy"].startswith("EASY")


def test_a_removed_plugin_leaves_its_results_readable_and_named(tmp_path):
    with installed(tmp_path / "site"):
        stored = jsonio.dumps(schedulers.run(_scenario("easy", "widest", n_jobs=50)))
    assert "widest" not in schedulers.get_family("backfill").algorithms
    old = json.loads(stored)
    assert old["plugins"]["widest"]["name"] == "backfill.widest"
    assert old["summary"]["widest"]["avg_response_time_s"]["mean"] > 0
    with pytest.raises(schedulers.ScenarioError, match=r"algorithms\[1\]: .*, not .widest."):  # rerunning names it
        schedulers.run(old["scenario"])


def _cli(package, *args, cwd):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package.parent), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "schedulers", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)  # fmt: skip


def test_the_cli_keeps_the_other_results_and_names_the_failed_unit(package, tmp_path):
    """Exit 3: the result is written with the papers' runs and the failure; stderr names the unit and plug-in."""
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(_scenario("raising", "easy", n_jobs=40)))
    done = _cli(package, "run", str(scenario), "-o", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "unit failed: raising repetition 0: plug-in backfill.raising (cloudsched-test-orders 0.3.1)" in done.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert [r["algorithm"] for r in result["runs"]] == ["easy"]
    assert result["failures"][0]["plugin"] == "backfill.raising"
    scenario.write_text(json.dumps(_scenario("easy", n_jobs=40)))
    assert _cli(package, "run", str(scenario), "-o", str(tmp_path / "r2.json"), cwd=tmp_path).returncode == 0


def test_the_cli_time_limit_names_the_plugin_it_interrupted(package, tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(_scenario("easy", "sleepy", n_jobs=20)))
    done = _cli(package, "run", str(scenario), "--time-limit", "1", cwd=tmp_path)
    assert done.returncode == 4, done.stderr
    assert "the run exceeded its time limit of 1 s" in done.stderr
    assert "interrupted plug-in backfill.sleepy (cloudsched-test-orders 0.3.1)" in done.stderr
    assert done.stdout == ""  # no half result


def test_sys_exit_in_a_plugin_fails_its_unit_not_the_cli(tmp_path):
    with installed(tmp_path / "site", entry_points={"backfill.exits": "exits"}, source=KEYS_SOURCE) as module:
        scenario = tmp_path / "s.json"
        scenario.write_text(json.dumps(_scenario("exits", n_jobs=20)))
        done = _cli(module, "run", str(scenario), cwd=tmp_path)
    assert done.returncode == 1  # the run failed (its only unit), not the exit code the plug-in asked for
    assert "plug-in backfill.exits (cloudsched-test-orders 0.3.1) failed in its queue order: called sys.exit(3)" in (
        done.stderr
    )
