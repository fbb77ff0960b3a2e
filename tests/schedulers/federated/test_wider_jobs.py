"""Federated trace jobs wider than every cloud: a job needs one VM per processor, and one
needing more VMs than the largest cloud has fits nowhere. Refused at validation by default (the count and
the widest named; exit 2 in the CLI), or — only when the scenario asks — left out and counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import schedulers
from tests.schedulers.backfill.test_wider_jobs import WIDE as BACKFILL_WIDE

ROOT = Path(__file__).resolve().parents[3]

# The example's clouds hold 64 VMs each (16 × 4, 8 × 8, 32 × 2); the trace's 3 jobs need 8, 100 and 4.
WIDE = {
    **schedulers.example("federated"),
    "name": "a trace job wider than every cloud is never dropped silently",
    "algorithms": ["fcfs", "dcls"],
    "workload": {"kind": "trace", "swf": BACKFILL_WIDE["workload"]["swf"], "group_min": 1, "group_max": 1},
}


def _with(**workload) -> dict:
    return {**WIDE, "workload": {**WIDE["workload"], **workload}}


def test_a_job_wider_than_every_cloud_is_refused_naming_the_count_and_the_widest():
    with pytest.raises(schedulers.ScenarioError) as exc:
        schedulers.validate(WIDE)
    (error,) = exc.value.errors
    assert error["field"] == "datacenter.clouds"
    assert error["message"] == "1 job of the trace needs more VMs than the largest cloud's 64 (the widest needs 100)"
    assert "≥ 100 VMs" in error["allowed"] and "workload.wider_jobs" in error["allowed"]


def test_a_cloud_as_wide_as_the_widest_job_is_accepted():
    clouds = [*WIDE["datacenter"]["clouds"][:2], {"name": "big", "servers": 25, "server_capacity": 4, "perf": 1.0}]
    schedulers.validate({**WIDE, "datacenter": {"clouds": clouds}})


def test_dropping_is_a_choice_and_every_run_counts_what_it_dropped():
    result = schedulers.run(_with(wider_jobs="drop"))
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        measured = run["extra"]["workload"]
        assert measured == {"jobs": 2, "dropped_too_large": 1, "processors": 64, "unit": "VMs", "wider_jobs": "drop"}
        assert run["metrics"]["rejected_apps"] == 0  # left out, not counted as a rejection


def test_a_trace_that_fits_records_that_nothing_was_left_out():
    narrow = _with(swf=WIDE["workload"]["swf"].replace(" 100 -1 -1 100 ", " 10 -1 -1 10 "))
    run = schedulers.run(narrow)["runs"][0]
    assert run["extra"]["workload"]["dropped_too_large"] == 0 and run["extra"]["workload"]["jobs"] == 3


def test_the_cli_exits_2_on_a_wide_trace(tmp_path):
    scenario = tmp_path / "wide.json"
    scenario.write_text(json.dumps(WIDE))
    done = subprocess.run([sys.executable, "-m", "schedulers", "run", str(scenario), "-o", str(tmp_path / "r.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "datacenter.clouds" in done.stderr and "widest needs 100" in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_vm_reservations_maps_every_trace_job_to_a_vm_type_so_none_is_wider():
    """vm_reservations reads a trace job's processors as a VM type (nearest CPU units, or modulo): no job is
    wider than the machine, so none is refused or dropped — the widest takes the largest VM type."""
    sc = schedulers.example("vm_reservations")
    sc["workload"] = {"kind": "trace", "text": BACKFILL_WIDE["workload"]["swf"], "n_requests": 3}
    result = schedulers.run(sc)
    assert all(len(r["jobs"]) == 3 for r in result["runs"])
