"""Trace jobs wider than the machine: refused by default, dropped only when asked, and then counted."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import schedulers

ROOT = Path(__file__).resolve().parents[3]

# ../shared/cases/backfill_wide_trace.json: 3 jobs, one of 100 processors, on 64 processors.
WIDE = {
    "family": "backfill",
    "name": "minimal: a trace job wider than the machine is never dropped silently",
    "seed": 1,
    "algorithms": ["easy"],
    "datacenter": {"processors": 64},
    "workload": {
        "kind": "trace",
        "swf": "; MaxProcs: 128\n1 0 0 100 8 -1 -1 8 100 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 10 0 100 100 -1 -1 100 100 -1 1 1 1 -1 1 -1 -1 -1\n3 20 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n",
        "estimates": "trace",
        "max_jobs": 0,
    },
}


def _with(**workload) -> dict:
    return {**WIDE, "workload": {**WIDE["workload"], **workload}}


def test_a_trace_with_a_job_wider_than_the_machine_is_refused_naming_the_count_and_the_widest():
    with pytest.raises(schedulers.ScenarioError) as exc:
        schedulers.validate(WIDE)
    (error,) = exc.value.errors
    assert error["field"] == "datacenter.processors"
    assert "1 job of the trace needs more than the machine's 64 processors" in error["message"]
    assert "widest needs 100" in error["message"]
    assert "≥ 100 processors" in error["allowed"] and "workload.wider_jobs" in error["allowed"]


def test_a_machine_as_wide_as_the_widest_job_is_accepted():
    schedulers.validate({**WIDE, "datacenter": {"processors": 100}})


def test_dropping_is_a_choice_and_the_run_counts_what_it_dropped():
    run = schedulers.run(_with(wider_jobs="drop"))["runs"][0]
    assert len(run["jobs"]) == 2
    assert run["extra"]["workload"]["dropped_too_large"] == 1
    assert run["extra"]["workload"]["wider_jobs"] == "drop"


def test_the_traces_own_machine_size_is_its_header_else_its_widest_job():
    ok = {**WIDE, "datacenter": {"processors": 64, "use_trace_size": True}}
    run = schedulers.run(ok)["runs"][0]
    assert run["extra"]["workload"]["processors"] == 128 and len(run["jobs"]) == 3
    headless = _with(swf=WIDE["workload"]["swf"].replace("; MaxProcs: 128\n", ""))
    run = schedulers.run({**headless, "datacenter": {"processors": 64, "use_trace_size": True}})["runs"][0]
    assert run["extra"]["workload"]["processors"] == 100 and len(run["jobs"]) == 3


def test_a_header_smaller_than_the_traces_widest_job_is_refused_at_the_trace():
    small = _with(swf=WIDE["workload"]["swf"].replace("MaxProcs: 128", "MaxProcs: 32"))
    with pytest.raises(schedulers.ScenarioError) as exc:
        schedulers.validate({**small, "datacenter": {"processors": 512, "use_trace_size": True}})
    (error,) = exc.value.errors
    assert error["field"] == "workload.swf" and "32 processors" in error["message"]
    assert "1 job of the trace" in error["message"] and "widest needs 100" in error["message"]


def test_a_trace_file_is_checked_like_inline_text(tmp_path, monkeypatch):
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path))
    path = tmp_path / "wide.swf.gz"
    path.write_bytes(gzip.compress(WIDE["workload"]["swf"].encode()))
    by_path = _with(swf="", path=str(path))
    with pytest.raises(schedulers.ScenarioError, match="widest needs 100"):
        schedulers.validate(by_path)
    assert schedulers.run({**by_path, "workload": {**by_path["workload"], "wider_jobs": "drop"}})["runs"]


def test_the_cli_exits_2_on_a_wide_trace(tmp_path):
    scenario = tmp_path / "wide.json"
    scenario.write_text(json.dumps(WIDE))
    done = subprocess.run([sys.executable, "-m", "schedulers", "run", str(scenario), "-o", str(tmp_path / "r.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "datacenter.processors" in done.stderr and "widest needs 100" in done.stderr
    assert not (tmp_path / "r.json").exists()
