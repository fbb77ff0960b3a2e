"""The readings the paper leaves open around its FCFS baseline, on hand-worked cases.

``params.fcfs_placement``: FCFS keeps tasks at home (default) or sends each to the cloud where it can start
earliest. ``params.rejected_ar_apps``: an AR application refused its reservation is rejected and left out
of the averages (default) or submitted again without it at its required start. The contention metrics
(``app_wait_share``, ``apps_uncontended_share``) are checked on the same cases. Every schedule is checked
for capacity, precedence, transfers and start times (``check_schedule``).
"""

from __future__ import annotations

import re

import pytest

import schedulers

from .helpers import capacities, check_schedule, instance_of

# S_i/b = 8 GB / 4 GB/s = 2 s per stint; M_s/S_c = 10 GB / 0.125 GB/s = 80 s to a remote cloud
TWO = [
    {"name": "a", "servers": 1, "server_capacity": 4, "perf": 1.0, "p_active_w": 100, "p_idle_w": 10},
    {"name": "b", "servers": 1, "server_capacity": 4, "perf": 0.5, "p_active_w": 100, "p_idle_w": 10},
]


def _scenario(clouds: list[dict], apps: list[dict], **params) -> dict:
    return {
        "family": "federated",
        "datacenter": {"clouds": clouds, "inter_cloud_gbps": 1.0, "intra_cloud_gbytes_s": 4.0},
        "workload": {"kind": "jobs", "jobs": apps, "image_size_gb": 8.0, "dataset_size_gb": 10.0},
        "algorithms": ["fcfs"],
        "params": params,
    }


def _run(scenario: dict) -> dict:
    run = schedulers.run(scenario)["runs"][0]
    check_schedule(run, instance_of(scenario), capacities(scenario["datacenter"]["clouds"]))
    return run


# two applications of one 4-VM task, both at home on a: 100 s at 0, 50 s at 10
QUEUED = [
    {"arrival": 0.0, "home": 0, "tasks": [{"runtime_s": 100.0, "vms": 4}]},
    {"arrival": 10.0, "home": 0, "tasks": [{"runtime_s": 50.0, "vms": 4}]},
]


def test_fcfs_at_home_queues_the_second_application():
    """a runs app 0 on [0, 102) (2 s image + 100 s); app 1 waits for it: [102, 154), 144 s after arrival.

    Alone, app 1 would take 52 s: the two applications spend 1 − (102 + 52)/(102 + 144) of their time waiting.
    """
    m = _run(_scenario(TWO, QUEUED))["metrics"]
    assert m["avg_app_execution_time_s"] == pytest.approx((102 + 144) / 2)
    assert m["remote_task_share"] == 0.0
    assert m["app_wait_share"] == pytest.approx(1 - (102 + 52) / (102 + 144))
    assert m["apps_uncontended_share"] == pytest.approx(0.5)


def test_fcfs_anywhere_starts_where_it_can_start_first_whatever_the_speed():
    """App 1 can start on a at 102 (after app 0) or on b at 10 + 80 = 90 (dataset transfer): FCFS takes b,
    though b is half as fast: 2 + 50/0.5 s there, ends at 192 (182 s), later than 154 at home."""
    run = _run(_scenario(TWO, QUEUED, fcfs_placement="any"))
    m = run["metrics"]
    assert m["avg_app_execution_time_s"] == pytest.approx((102 + 182) / 2)
    assert m["remote_task_share"] == pytest.approx(0.5)
    assert {s["task"]: s["cloud"] for s in run["schedule"]} == {"0.0": "a", "1.0": "b"}
    assert m["app_wait_share"] == pytest.approx(0.0)  # each ran as it would alone on its cloud
    assert m["apps_uncontended_share"] == pytest.approx(1.0)


def test_fcfs_anywhere_stays_home_on_a_tie_and_when_home_is_free():
    """Alone, the application starts at home at once (a remote cloud waits 80 s for the dataset)."""
    run = _run(_scenario(TWO, QUEUED[:1], fcfs_placement="any"))
    assert run["metrics"]["remote_task_share"] == 0.0


ONE = [{"name": "a", "servers": 1, "server_capacity": 4, "perf": 1.0, "p_active_w": 100, "p_idle_w": 10}]
# app 0 reserves all 4 VMs from 10 (a lease of 2 + 100 s); app 1 asks for the same 4 VMs from 20: refused
CLASH = [
    {"arrival": 0.0, "ar": True, "start": 10.0, "tasks": [{"runtime_s": 100.0, "vms": 4}]},
    {"arrival": 5.0, "ar": True, "start": 20.0, "tasks": [{"runtime_s": 30.0, "vms": 4}]},
]


def test_refused_reservation_is_rejected_and_left_out_by_default():
    """App 0 runs [10, 112): 112 s after arrival, the only application in the average."""
    run = _run(_scenario(ONE, CLASH))
    m = run["metrics"]
    assert (m["rejected_apps"], m["resubmitted_apps"], m["completed_apps"]) == (1, 0, 1)
    assert m["avg_app_execution_time_s"] == pytest.approx(112.0)
    assert [j["rejected"] for j in run["jobs"]] == [False, True]


def test_refused_reservation_runs_best_effort_and_counts_from_first_submission():
    """Resubmitted at its required start (20) without the reservation, app 1 waits for app 0's lease to end
    (112), runs 2 + 30 s: ends 144, 139 s after its first submission at 5."""
    run = _run(_scenario(ONE, CLASH, rejected_ar_apps="run_best_effort"))
    m = run["metrics"]
    assert (m["rejected_apps"], m["resubmitted_apps"], m["completed_apps"]) == (0, 1, 2)
    assert m["avg_app_execution_time_s"] == pytest.approx((112 + 139) / 2)
    assert [j["resubmitted"] for j in run["jobs"]] == [False, True]
    assert {s["task"]: s["start"] for s in run["schedule"]} == {"0.0": 10.0, "1.0": 112.0}


def test_a_resubmitted_application_never_starts_before_its_required_start():
    """App 0's lease reserves [5, 19) (two image loads + 10 s) and runs [5, 17); app 1, submitted at 1 for 18,
    overlaps the reservation: refused, resubmitted at 18, it starts at 18 though the VMs are free from 17."""
    apps = [
        {"arrival": 0.0, "ar": True, "start": 5.0, "tasks": [{"runtime_s": 10.0, "vms": 4}]},
        {"arrival": 1.0, "ar": True, "start": 18.0, "tasks": [{"runtime_s": 30.0, "vms": 4}]},
    ]
    run = _run(_scenario(ONE, apps, rejected_ar_apps="run_best_effort"))
    assert run["metrics"]["resubmitted_apps"] == 1
    assert {s["task"]: s["start"] for s in run["schedule"]} == {"0.0": 5.0, "1.0": 18.0}


def test_claims_evaluate_the_fcfs_readings_side_by_side():
    """The energy figure runs once per reading: FCFS at home (default) and anywhere, each with its verdicts."""
    from schedulers import reproduce

    lines: list[str] = []
    (report,) = reproduce.run_claims([("federated", "fig9_energy_loose")], "small", 1, log=lines.append)
    # 2 scenarios × 3 algorithms, and FCFS again under the reading: DCLS and DCMMS are not run twice
    assert any(line.startswith("8 units ") for line in lines), lines
    names = [r["name"] for r in report["readings"]]
    assert names == ["FCFS at home, refused AR left out", "FCFS places anywhere"]
    default, anywhere = report["readings"]
    assert default["default"] and default["why"] and anywhere["params"] == {"fcfs_placement": "any"}
    assert len(anywhere["verdicts"]) == len(report["verdicts"]) > 0
    assert "FCFS 0.0%" in report["verdicts"][0]["measured"]  # the context line: FCFS keeps its tasks home
    assert "FCFS 0.0%" not in anywhere["verdicts"][0]["measured"]
    assert anywhere["verdicts"][0]["measured"] != report["verdicts"][0]["measured"]
    assert anywhere["algorithms"] == ["fcfs"]
    # the other algorithms' numbers are the default reading's: "dcls vs fcfs: <point> → <dcls> vs <fcfs>"
    dcls = lambda text: re.findall(r"→ ([\d,.]+) vs", text.split("; ")[0])  # noqa: E731
    assert dcls(anywhere["verdicts"][0]["measured"]) == dcls(report["verdicts"][0]["measured"]) != []


def test_a_reading_of_some_algorithms_runs_only_them_and_borrows_the_rest():
    from schedulers.core.claims import Reading

    r = Reading("x", "x", {"fcfs_placement": "any"}, algorithms=("fcfs",))
    sc = {"algorithms": ["fcfs", "dcls"], "params": {"alpha": 0.5}}
    assert r.apply(sc) == {"algorithms": ["fcfs"], "params": {"alpha": 0.5, "fcfs_placement": "any"}}
    assert r.apply({"algorithms": ["cls"], "params": {}}) == {"algorithms": ["cls"], "params": {}}  # untouched
    default = {"fcfs": {"m": 1.0}, "dcls": {"m": 2.0}}
    assert r.merged({"fcfs": {"m": 3.0}}, default) == {"fcfs": {"m": 3.0}, "dcls": {"m": 2.0}}
    assert r.merged(None, default) is None  # its own run failed: no borrowed half-table
