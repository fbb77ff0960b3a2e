"""The validity contract (schedulers.core.validity): every family's every algorithm passes it, and each
check fails on a schedule that breaks its rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

import schedulers
from schedulers.core import validity
from schedulers.core.columns import Columns

FAMILIES = ("backfill", "federated", "ep_jobs", "dvfs_bot", "vm_reservations")
ONLINE_EP_JOBS = {
    "family": "ep_jobs",
    "datacenter": {"kind": "fattree", "pods": 4, "capacity_low": 10},
    "workload": {"kind": "online_generator", "arrival_end_s": 300.0, "arrival_rate": 0.3, "load_high": 400.0},
}
CASES = Path("/work/shared/cases")


def _scenarios(family, every_online=False):
    """The family's example with every algorithm of its registry (ep_jobs' online ones on an online workload:
    each policy with TAPRA-fast, ONTAPRA with TAPRA and Min-Min; with ``every_online`` all pairs, the genetic
    ones too)."""
    algorithms = list(schedulers.get_family(family).algorithms)
    assert algorithms
    if family == "vm_reservations":  # the exact solvers take small instances only
        small = [a for a in algorithms if a in ("exact", "min_migration")]
        example = schedulers.example(family)
        few = {**example, "workload": {**example["workload"], "n_requests": 30}, "algorithms": small}
        return [{**example, "algorithms": [a for a in algorithms if a not in small]}, few]
    if family != "ep_jobs":
        return [{**schedulers.example(family), "algorithms": algorithms}]
    online = [a for a in algorithms if ":" in a]
    if not every_online:
        online = [a for a in online if a.endswith(":tapra_fast") or a in ("ontapra:tapra", "ontapra:min_min")]
    offline = [a for a in algorithms if ":" not in a]
    return [{**schedulers.example(family), "algorithms": offline}, {**ONLINE_EP_JOBS, "algorithms": online}]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_algorithm_of_every_family_passes_the_whole_contract(family):
    """Each run of the real example reports every check of the contract, none skipped, none failed."""
    scenarios = _scenarios(family)
    assert scenarios
    for scenario in scenarios:
        doc = schedulers.run(scenario)
        report = validity.report(doc)
        assert len(report["runs"]) == len(doc["runs"]) >= len(scenario["algorithms"]) > 0
        for run in report["runs"]:
            assert [c["name"] for c in run["checks"]] == list(validity.CONTRACT)
        assert report["passed"], (report["failed"], report["not_run"])
        assert not report["skipped"] and not report["not_run"]


@pytest.mark.slow
def test_every_online_ep_jobs_pair_passes_the_whole_contract():
    scenarios = _scenarios("ep_jobs", every_online=True)
    assert len(scenarios[1]["algorithms"]) > 20
    report = validity.report(schedulers.run(scenarios[1]))
    assert report["passed"], (report["failed"], report["not_run"])


def _records(family, **changes):
    """The first run of the family's example with its columns as lists of dicts (easy to break by hand)."""
    doc = schedulers.run({**schedulers.example(family), **changes})
    run = doc["runs"][0]
    run = {**run, "schedule": run["schedule"].to_records(), "jobs": run["jobs"].to_records()}
    return run


def _status(run, name):
    return next(c for c in validity.contract(run) if c["name"] == name)


@pytest.fixture(scope="module")
def backfill_run():
    return _records("backfill", algorithms=["keasy"])


@pytest.fixture(scope="module")
def federated_run():
    return _records("federated", algorithms=["cls"])


@pytest.fixture(scope="module")
def dvfs_run():
    return _records("dvfs_bot", algorithms=["cloud_aware"])


def test_the_hand_copies_pass_before_they_are_broken(backfill_run, federated_run, dvfs_run):
    for run in (backfill_run, federated_run, dvfs_run):
        assert len(run["schedule"]) and len(run["jobs"])
        assert {c["status"] for c in validity.contract(run)} <= {"pass", "na"}


def test_two_processes_on_one_vm_of_a_processor_break_capacity(backfill_run):
    run = copy.deepcopy(backfill_run)
    seg = run["schedule"][0]
    run["schedule"].append({**seg, "job": run["schedule"][-1]["job"]})  # same processor, same tier, same time
    check = _status(run, "capacity per resource")
    assert check["status"] == "fail" and f"{seg['resource']}: 2 > 1" in check["detail"]
    # the other tier of the same processor is a VM of its own: no overload
    other = copy.deepcopy(backfill_run)
    other["schedule"].append({**seg, "tier": "bg" if seg["tier"] == "fg" else "fg"})
    assert _status(other, "capacity per resource")["status"] == "pass"


def test_a_segment_before_its_jobs_submission_breaks_no_start_before_ready(dvfs_run):
    run = copy.deepcopy(dvfs_run)
    job = {j["job"]: j for j in run["jobs"]}
    seg = run["schedule"][0]
    seg["start"] = job[seg["job"]]["submit_s"] - 1.0
    check = _status(run, "no start before ready")
    assert check["status"] == "fail" and check["detail"].startswith("1 segments start before")


def test_a_remote_task_before_its_dataset_arrives_breaks_no_start_before_ready(federated_run):
    run = copy.deepcopy(federated_run)
    job = {j["job"]: j for j in run["jobs"]}
    remote = [s for s in run["schedule"] if s["cloud"] != job[s["job"]]["home"] and not job[s["job"]]["ar"]]
    assert remote
    seg = remote[0]
    seg["start"] = job[seg["job"]]["arrival"] + 1.0  # after the arrival, before the dataset is there
    assert _status(run, "no start before ready")["status"] == "fail"


def test_a_successor_before_its_predecessors_end_breaks_precedence(federated_run):
    run = copy.deepcopy(federated_run)
    dag = validity.dag_edges(run["jobs"], run["extra"]["validity"]["precedence"]["column"])
    job, pred, succ = dag["job"][0], dag["pred"][0], dag["succ"][0]
    name = run["jobs"][job]["job"]
    pred_end = max(s["end"] for s in run["schedule"] if s["task"] == f"{name}.{pred}")
    for s in run["schedule"]:
        if s["task"] == f"{name}.{succ}":
            s["start"] = min(s["start"], pred_end - 1.0)
    check = _status(run, "precedence")
    assert check["status"] == "fail" and f"{name}.{succ} starts at" in check["detail"]
    orphan = copy.deepcopy(federated_run)
    orphan["schedule"] = [s for s in orphan["schedule"] if s["task"] != f"{name}.{pred}"]
    assert "never did" in _status(orphan, "precedence")["detail"]


def test_a_job_missing_or_rejected_without_a_reason_breaks_every_job_accounted_for(dvfs_run):
    missing = copy.deepcopy(dvfs_run)
    gone = missing["jobs"].pop()
    missing["schedule"] = [s for s in missing["schedule"] if s["job"] != gone["job"]]
    check = _status(missing, "every job accounted for")
    assert check["status"] == "fail" and "1 of the instance's" in check["detail"]
    silent = copy.deepcopy(dvfs_run)
    rejected = next(j for j in silent["jobs"] if j["status"] == "rejected")
    del rejected["reason"]
    assert "1 not finished without a reason" in _status(silent, "every job accounted for")["detail"]
    ran = copy.deepcopy(dvfs_run)
    rejected = next(j for j in ran["jobs"] if j["status"] == "rejected")
    ran["schedule"].append({**ran["schedule"][0], "job": rejected["job"]})
    assert "1 rejected yet scheduled" in _status(ran, "every job accounted for")["detail"]


def test_energy_that_is_not_the_integral_of_power_breaks_the_energy_check(dvfs_run):
    run = copy.deepcopy(dvfs_run)
    run["metrics"] = {**run["metrics"], "energy_j": run["metrics"]["energy_j"] * 1.01}
    run["metrics"].pop("energy_kwh")
    assert _status(run, "energy = ∫ power")["status"] == "fail"


def test_a_segment_ending_before_it_starts_is_not_well_formed(dvfs_run):
    run = copy.deepcopy(dvfs_run)
    run["schedule"][3]["end"] = run["schedule"][3]["start"] - 1.0
    assert _status(run, "segments well-formed")["status"] == "fail"


def test_a_run_that_does_not_report_the_contracts_inputs_is_not_passed(dvfs_run):
    """Nothing is guessed: without extra.validity the checks that need it are skipped, and skipped is not passed."""
    run = copy.deepcopy(dvfs_run)
    run["extra"] = {k: v for k, v in run["extra"].items() if k != "validity"}
    report = validity.report({"runs": [run]})
    assert report["ok"] and not report["passed"]
    assert report["skipped"] == ["every job accounted for", "no start before ready", "precedence"]
    assert any(n.startswith("precedence (cloud_aware #0): not checked") for n in report["not_run"])


def test_the_checks_read_columns_and_records_alike(federated_run):
    doc = schedulers.run({**schedulers.example("federated"), "algorithms": ["cls"]})
    as_columns = validity.contract(doc["runs"][0])
    as_records = validity.contract(federated_run)
    assert [(c["name"], c["status"], c["detail"]) for c in as_columns] == [
        (c["name"], c["status"], c["detail"]) for c in as_records
    ]
    assert isinstance(doc["runs"][0]["schedule"], Columns)


def _cases():
    if not CASES.is_dir():
        return []
    return sorted(CASES.glob("*.json"))


@pytest.mark.skipif(not CASES.is_dir(), reason="the shared cases (/work/shared/cases) are not beside this clone")
def test_every_shared_case_that_runs_passes_the_contract():
    """The minimal cases of /work/shared/cases: each schedule they produce satisfies the whole contract."""
    ran = 0
    for path in _cases():
        scenario = json.loads(path.read_text())
        name = scenario.pop("name", "")
        if "wider than the machine" in name and scenario["workload"].get("wider_jobs") != "drop":
            # a trace job wider than the machine: refused with the reason, never dropped silently
            with pytest.raises(schedulers.ScenarioError, match="more than the machine"):
                schedulers.run(scenario)
            scenario["workload"]["wider_jobs"] = "drop"  # dropped when asked: counted, and the contract holds
        doc = schedulers.run(scenario)
        report = validity.report(doc)
        assert report["passed"], (path.name, report["failed"], report["not_run"])
        ran += 1
    assert ran > 0


def test_a_capacity_check_splits_resources_only_by_the_stated_column():
    seg = {"job": "1", "task": "1.0", "resource": "p0", "start": 0.0, "end": 1.0, "share": 1.0}
    run = {"schedule": [{**seg, "tier": "fg"}, {**seg, "job": "2", "tier": "bg"}], "jobs": [],
           "extra": {"capacities": {"p0": 1.0}}}  # fmt: skip
    assert validity.capacity(run)["status"] == "fail"
    run["extra"]["validity"] = {"capacity_per": "tier"}
    assert validity.capacity(run)["status"] == "pass"


def test_the_capacity_sweep_finds_the_same_peaks_as_counting_at_every_start():
    """Random segments on a few resources, integer times (many ties, back to back, zero length), any order."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 60))
        start = rng.integers(0, 20, n).astype(float)
        end = start + rng.integers(0, 6, n)
        share = rng.choice([0.5, 1.0, 2.0], n)
        res = rng.integers(0, 3, n)
        peak = {}
        for r in range(3):
            on = res == r
            levels = [share[on & (start <= t) & (end > t)].sum() for t in start[on]]
            peak[f"m{r}"] = max(levels, default=0.0)
        schedule = [{"job": str(i), "resource": f"m{res[i]}", "start": start[i], "end": end[i], "share": share[i]}
                    for i in range(n)]  # fmt: skip
        for cap_of in (peak, {k: v - 0.25 for k, v in peak.items()}):
            run = {"schedule": schedule, "extra": {"capacities": cap_of}}
            over = any(cap_of[k] < peak[k] for k in peak if k in {s["resource"] for s in schedule})
            assert validity.capacity(run)["status"] == ("fail" if over else "pass"), (schedule, cap_of)


def test_the_cli_checks_a_result_file(tmp_path, capsys, dvfs_run):
    from schedulers.__main__ import main
    from schedulers.core import jsonio

    doc = {"runs": [copy.deepcopy(dvfs_run)]}
    path = tmp_path / "result.json"
    path.write_text(jsonio.dumps(doc))
    assert main(["check", str(path)]) == 0
    assert "checks passed: 1 runs × 6 checks" in capsys.readouterr().out
    doc["runs"][0]["schedule"][0]["start"] = -5.0
    path.write_text(jsonio.dumps(doc))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED cloud_aware #0: segments well-formed" in out and "checks FAILED" in out


def test_a_dag_given_as_edge_lists_or_as_a_job_column_is_checked_alike():
    assert validity.dag_edges([{"job": "a", "preds": ";0;0;1,2"}], "preds") == {
        "job": [0, 0, 0, 0], "pred": [0, 0, 1, 2], "succ": [1, 2, 3, 3]}  # fmt: skip
    seg = {"job": "a", "resource": "m", "share": 1.0}
    schedule = [{**seg, "task": "a.0", "start": 0.0, "end": 10.0}, {**seg, "task": "a.1", "start": 9.0, "end": 12.0}]
    jobs = [{"job": "a", "preds": ";0"}]
    lists = {"job": [0], "pred": [0], "succ": [1]}
    for dag in (lists, {"column": "preds"}):
        run = {"schedule": schedule, "jobs": jobs, "extra": {"validity": {"precedence": dag}}}
        check = validity.precedence(run)
        assert check["status"] == "fail" and "a.1 starts at 9 < a.0's end 10" in check["detail"]
        schedule[1]["start"] = 10.0  # back to back: allowed
        assert validity.precedence(run)["status"] == "pass"
        schedule[1]["start"] = 9.0


def test_a_successor_without_its_predecessor_is_allowed_only_where_the_schedule_was_cut():
    seg = {"job": "a", "resource": "m", "share": 1.0, "task": "a.1", "start": 20.0, "end": 30.0}
    run = {"schedule": [seg], "jobs": [{"job": "a", "preds": ";0"}],
           "extra": {"validity": {"precedence": {"column": "preds"}}}}  # fmt: skip
    assert "never did" in validity.precedence(run)["detail"]
    run["extra"]["schedule_cut"] = {"limit": 1, "recorded": 1, "cut_at_s": 0.0}
    assert validity.precedence(run)["status"] == "pass"
