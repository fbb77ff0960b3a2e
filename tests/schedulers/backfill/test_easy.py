"""FCFS and EASY on one tier: hand-worked example, reservation guarantee, validity."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.backfill.easy import shadow_and_extra, simulate_one_tier
from schedulers.backfill.workloads import Instance

from .helpers import assert_jobs_complete, assert_no_overlap, config, crowded, instance, jobs_workload

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


# Ties at the shadow time: every running job whose estimated end equals the shadow time frees its
# processors, so they all count in the extra processors. 6 processors, exact estimates.
#   J1..J3 (0, 1 proc, 10 / 20 / 20) start at 0; 3 free.
#   J4 (1, 5 procs, 5) head: 3 free, 4 at 10, 5 at 20 (J2) → shadow 20; J3 also ends at 20 → 6 free, extra 1.
#   J5 (2, 1 proc, 100) arrives (arrival pass): ends at 102 > 20 but 1 ≤ extra → starts at 2.
#   At 20 J2, J3 end: 6 − 1 = 5 free → J4 starts at 20 as reserved.
# Reading the first job at the shadow only (extra 0), J5 would wait until 20.
TIE_ARRIVAL = [(0, 1, 10), (0, 1, 20), (0, 1, 20), (1, 5, 5), (2, 1, 100)]
TIE_ARRIVAL_STARTS = [0, 0, 0, 20, 2]
# The same tie met by the completion pass: J0 (0, 3 procs, 5) keeps the machine full until 5, so J5 waits
# and is backfilled on the extra processor by the pass at 5 (shadow 20, extra 1); first-job reading: 20.
TIE_COMPLETION = [(0, 1, 10), (0, 1, 20), (0, 1, 20), (0, 3, 5), (1, 5, 5), (2, 1, 100)]
TIE_COMPLETION_STARTS = [0, 0, 0, 0, 20, 5]
# Extra processors are consumed (Alg. 1 line 32), in the completion pass. 6 processors:
#   J1 (0, 3, 10), J2 (0, 3, 20) fill the machine; J3 (1, 5, 5), J4 (2, 1, 100), J5 (3, 1, 100), J6 (4, 1, 8) wait.
#   At 10 (J1 ends, 3 free): head J3 → shadow 20 (3 + 3 = 6), extra 1. J4 uses the extra processor (extra → 0);
#   J5 may not (extra 0, ends after 20); J6 ends at 18 ≤ 20 → starts. At 20: 5 free → J3 starts; J5 at 25.
#   Without `extra -= N_j`, J5 would also start at 10 and J3 would wait until 110.
EXTRA_COMPLETION = [(0, 3, 10), (0, 3, 20), (1, 5, 5), (2, 1, 100), (3, 1, 100), (4, 1, 8)]
EXTRA_COMPLETION_STARTS = [0, 0, 20, 10, 25, 10]
# The same in the arrival pass: J1 (0, 4, 20) leaves 2 free; J2 (1, 5, 5) head → shadow 20, extra 1.
#   J3 (2, 1, 100) arrives: uses the extra processor (extra → 0); J4 (3, 1, 100) arrives: must wait until 25.
EXTRA_ARRIVAL = [(0, 4, 20), (1, 5, 5), (2, 1, 100), (3, 1, 100)]
EXTRA_ARRIVAL_STARTS = [0, 20, 2, 25]


def test_every_job_at_the_shadow_time_frees_its_processors():
    assert [j["start_s"] for j in _run("easy", TIE_ARRIVAL)["jobs"]] == TIE_ARRIVAL_STARTS
    assert [j["start_s"] for j in _run("easy", TIE_COMPLETION)["jobs"]] == TIE_COMPLETION_STARTS


def test_extra_processors_are_used_up_in_both_passes():
    assert [j["start_s"] for j in _run("easy", EXTRA_COMPLETION)["jobs"]] == EXTRA_COMPLETION_STARTS
    assert [j["start_s"] for j in _run("easy", EXTRA_ARRIVAL)["jobs"]] == EXTRA_ARRIVAL_STARTS


def test_shadow_and_extra_counts_ties_and_overruns():
    """The shared reservation function, by hand (a hand-worked example): head 45, 43 free, ends 614 (1), 674 (1, 1)."""
    sizes = [1, 1, 1]
    running = [(614.0, 0), (674.0, 1), (674.0, 2)]
    assert shadow_and_extra(43, 45, running, sizes) == (674.0, 1)
    assert shadow_and_extra(43, 44, running, sizes) == (614.0, 0)
    assert shadow_and_extra(43, 47, running, sizes) == (float("inf"), 0)
    # estimated ends already past (overrunning two-tier jobs) count as ending now, all together
    assert shadow_and_extra(43, 44, running, sizes, now=700.0) == (700.0, 2)


def test_easy_backfills_nothing_that_would_delay_the_head():
    """A job that fits now but would end after the shadow on reserved processors waits."""
    run = _run("easy", [(0, 2, 10), (1, 4, 5), (2, 2, 50)], processors=4)
    assert [j["start_s"] for j in run["jobs"]] == [0, 10, 15]


def test_every_segment_is_one_processor_of_one_job():
    run = _run("easy", HAND)
    assert len(run["schedule"]) and len(run["jobs"])
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


def reference_easy(subs, sizes, runs, ests, procs, backfill=True):
    """Textbook EASY (Mu'alem & Feitelson 2001) / FCFS, written plainly as the oracle: after the completions and
    arrivals of each instant, start queue heads while they fit; then reserve for the head at the first estimated
    end where enough processors are free, count *all* processors free then, and backfill in arrival order."""
    n = len(subs)
    start = [None] * n
    running = []  # (actual end, estimated end, job)
    queue = []
    free, nxt = procs, 0
    while nxt < n or queue or running:
        now = min(([subs[nxt]] if nxt < n else []) + [e for e, _, _ in running])
        for r in [r for r in running if r[0] == now]:
            running.remove(r)
            free += sizes[r[2]]
        while nxt < n and subs[nxt] == now:
            queue.append(nxt)
            nxt += 1
        while queue and sizes[queue[0]] <= free:
            j = queue.pop(0)
            start[j], free = now, free - sizes[j]
            running.append((now + runs[j], now + ests[j], j))
        if not queue or not backfill:
            continue
        need = sizes[queue[0]]
        ends = sorted({e for _, e, _ in running})
        shadow = next(t for t in ends if free + sum(sizes[k] for _, e, k in running if e <= t) >= need)
        extra = free + sum(sizes[k] for _, e, k in running if e <= shadow) - need
        for j in list(queue[1:]):
            if sizes[j] <= free and (now + ests[j] <= shadow or sizes[j] <= extra):
                if now + ests[j] > shadow:
                    extra -= sizes[j]
                queue.remove(j)
                start[j], free = now, free - sizes[j]
                running.append((now + runs[j], now + ests[j], j))
    return start


jobs_st = st.lists(
    st.tuples(st.integers(0, 200), st.integers(1, 8), st.integers(1, 60), st.integers(0, 60)), min_size=1, max_size=40
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_easy_and_fcfs_match_the_textbook_reference_job_for_job(seed, backfill):
    """Differential check against the plain reference above (derandomised: the same examples in every CI run)."""
    subs, sizes, runs, ests = crowded(seed)
    res = simulate_one_tier(_instance(subs, sizes, runs, ests, 6), backfill=backfill)
    assert res.start.tolist() == reference_easy(subs, sizes, runs, ests, 6, backfill)


@settings(max_examples=200, deadline=None, derandomize=True)
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


@settings(max_examples=100, deadline=None, derandomize=True)
@given(jobs_st)
def test_fcfs_starts_in_arrival_order(rows):
    inst = _instance([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[2] for r in rows], 8)
    res = simulate_one_tier(inst, backfill=False)
    assert np.all(np.diff(res.start) >= 0)


def test_easy_result_is_valid_on_a_generated_workload():
    scenario = {"family": "backfill", "algorithms": ["easy", "fcfs"], "datacenter": {"processors": 64},
                "workload": {"n_jobs": 500, "feitelson": {"max_size": 64}}}  # fmt: skip
    result = schedulers.run(scenario)
    inst = instance(config(**scenario))
    for run in result["runs"]:
        assert_no_overlap(run["schedule"], 64)
        assert len(run["jobs"]) == 500
        assert run["metrics"]["utilization"] <= 1.0
        assert_jobs_complete(run, inst, two_tier=False)
    easy, fcfs = (r["metrics"] for r in result["runs"])
    assert easy["avg_response_time_s"] < fcfs["avg_response_time_s"]
