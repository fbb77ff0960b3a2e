"""FCFS and EASY on one tier: hand-worked example, reservation guarantee, validity."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.backfill.easy import simulate_one_tier
from schedulers.backfill.workloads import Instance

from .helpers import assert_jobs_complete, assert_no_overlap, jobs_workload

# Hand-worked on 6 processors, exact estimates (times in s):
#   J1 (0, 4 procs, 10)  starts at 0.
#   J2 (1, 5 procs, 5)   head: 2 free; at J1's end (10) 6 are free → shadow 10, extra 6 − 5 = 1.
#   J3 (2, 1 proc, 20)   ends at 22 > 10, but 1 ≤ extra → backfills at 2 on the extra processor (extra → 0).
#   J4 (3, 1 proc, 30)   ends at 33 > 10 and extra is 0 → waits.
#   J5 (4, 1 proc, 6)    4 + 6 = 10 ≤ shadow → backfills at 4.
#   At 10 J1 and J5 end: J2 starts (5 free); at 15 J2 ends and J4 starts.
HAND = [(0, 4, 10), (1, 5, 5), (2, 1, 20), (3, 1, 30), (4, 1, 6)]
EASY_STARTS = [0, 10, 2, 15, 4]
# FCFS: J2 at 10, then J3 fits beside it (1 free); J4 and J5 wait for J2's end.
FCFS_STARTS = [0, 10, 10, 15, 15]


def _run(alg, rows, processors=6):
    scenario = {"family": "backfill", "algorithms": [alg], "datacenter": {"processors": processors},
                "workload": jobs_workload(rows)}  # fmt: skip
    return schedulers.run(scenario)["runs"][0]


def test_easy_matches_the_hand_worked_example():
    run = _run("easy", HAND)
    assert [j["start_s"] for j in run["jobs"]] == EASY_STARTS
    assert [j["end_s"] for j in run["jobs"]] == [10, 15, 22, 45, 10]
    assert_no_overlap(run["schedule"], 6)


def test_fcfs_respects_arrival_order_when_nothing_may_pass():
    run = _run("fcfs", HAND)
    starts = [j["start_s"] for j in run["jobs"]]
    assert starts == FCFS_STARTS
    assert starts == sorted(starts)


def test_easy_backfills_nothing_that_would_delay_the_head():
    """A job that fits now but would end after the shadow on reserved processors waits."""
    run = _run("easy", [(0, 2, 10), (1, 4, 5), (2, 2, 50)], processors=4)
    assert [j["start_s"] for j in run["jobs"]] == [0, 10, 15]


def test_every_segment_is_one_processor_of_one_job():
    run = _run("easy", HAND)
    per_job = {}
    for s in run["schedule"]:
        per_job.setdefault(s["job"], []).append(s)
        assert s["tier"] == "fg" and s["share"] == 1.0
    for j in run["jobs"]:
        segs = per_job[j["job"]]
        assert len(segs) == j["processors"]
        assert {(s["start"], s["end"]) for s in segs} == {(j["start_s"], j["end_s"])}


def _instance(subs, sizes, runs, ests, procs):
    n = len(subs)
    order = np.argsort(subs, kind="stable")
    arr = lambda v, t=float: np.asarray(v, dtype=t)[order]  # noqa: E731
    return Instance(procs, arr(subs), arr(sizes, np.int64), arr(runs), arr(ests), np.ones(n), np.ones(n),
                    np.zeros(n), np.arange(1, n + 1))  # fmt: skip


jobs_st = st.lists(
    st.tuples(st.integers(0, 200), st.integers(1, 8), st.integers(1, 60), st.integers(0, 60)), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(jobs_st, st.booleans())
def test_easy_invariants(rows, exact):
    """Capacity is never exceeded; with exact estimates no head starts after its reservation."""
    procs = 8
    subs = [r[0] for r in rows]
    sizes = [r[1] for r in rows]
    runs = [r[2] for r in rows]
    ests = [r[2] if exact else r[2] + r[3] for r in rows]
    inst = _instance(subs, sizes, runs, ests, procs)
    res_by_job = {}
    res = simulate_one_tier(inst, backfill=True, reservations=res_by_job)
    assert np.all(res.start >= inst.submit)
    assert np.allclose(res.end - res.start, inst.runtime)
    events = sorted([(s, 1, n) for s, n in zip(res.start, inst.size, strict=True)]
                    + [(e, 0, -n) for e, n in zip(res.end, inst.size, strict=True)])  # fmt: skip
    level = 0
    for _, _, d in events:
        level += d
        assert level <= procs
    for j, alloc in enumerate(res.alloc):
        assert len(set(alloc)) == inst.size[j]
    if exact:
        for head, shadow in res_by_job.items():
            assert res.start[head] <= shadow + 1e-9


@settings(max_examples=30, deadline=None)
@given(jobs_st)
def test_fcfs_starts_in_arrival_order(rows):
    inst = _instance([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[2] for r in rows], 8)
    res = simulate_one_tier(inst, backfill=False)
    assert np.all(np.diff(res.start) >= 0)


def test_easy_result_is_valid_on_a_generated_workload():
    scenario = {"family": "backfill", "algorithms": ["easy", "fcfs"], "datacenter": {"processors": 64},
                "workload": {"n_jobs": 500, "feitelson": {"max_size": 64}}}  # fmt: skip
    result = schedulers.run(scenario)
    for run in result["runs"]:
        assert_no_overlap(run["schedule"], 64)
        assert len(run["jobs"]) == 500
        assert run["metrics"]["utilization"] <= 1.0
    easy, fcfs = (r["metrics"] for r in result["runs"])
    assert easy["avg_response_time_s"] < fcfs["avg_response_time_s"]
    _ = assert_jobs_complete
