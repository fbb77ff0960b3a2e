"""Queue orders for EASY (policy.py, ordered.py): the fcfs order is the papers' EASY; every named order
equals a plain reference; the composed algorithms run through the registry like the built-ins."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.backfill.easy import simulate_one_tier
from schedulers.backfill.ordered import simulate_ordered
from schedulers.backfill.policy import ORDERS, QueueOrder, queue_order

from .helpers import assert_jobs_complete, assert_no_overlap, config, crowded, instance
from .test_easy import _instance


def _score(name, now, sub, size, est, j):
    """Each named order's key written out per job, independently of policy.py (smallest first)."""
    wait = now - sub
    return {
        "fcfs": j,
        "sjf": est,
        "ljf": -est,
        "saf": size * est,
        "wfp3": -((wait / est) ** 3) * size,
        "unicef": -wait / (math.log2(max(size, 2)) * est),
    }[name]


def reference(subs, sizes, runs, ests, procs, name, backfill=True):
    """Textbook EASY with a priority: after the completions and arrivals of an instant, sort the queue by the
    order's key (ties by arrival), start jobs while they fit, reserve for the first that does not, backfill the
    rest in that order (the plain oracle of test_easy.reference_easy with a sort)."""
    n = len(subs)
    start = [None] * n
    running, queue = [], []
    free, nxt = procs, 0
    while nxt < n or queue or running:
        now = min(([subs[nxt]] if nxt < n else []) + [e for e, _, _ in running])
        for r in [r for r in running if r[0] == now]:
            running.remove(r)
            free += sizes[r[2]]
        while nxt < n and subs[nxt] == now:
            queue.append(nxt)
            nxt += 1
        queue.sort(key=lambda j: (_score(name, now, subs[j], sizes[j], ests[j], j), j))
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


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_the_fcfs_order_gives_easys_and_fcfss_schedules(seed, backfill):
    """Same start times and the same processors as easy.py's specialised loop, job for job."""
    inst = _instance(*crowded(seed), 6)
    a = simulate_one_tier(inst, backfill=backfill)
    b = simulate_ordered(inst, ORDERS["fcfs"].key, dynamic=False, backfill=backfill)
    assert b.start.tolist() == a.start.tolist()
    assert b.alloc == a.alloc


@pytest.mark.parametrize("name", list(ORDERS))
@settings(max_examples=80, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), backfill=st.booleans())
def test_every_named_order_matches_the_plain_reference(name, seed, backfill):
    subs, sizes, runs, ests = crowded(seed)
    inst = _instance(subs, sizes, runs, ests, 6)
    order = ORDERS[name]
    res = simulate_ordered(inst, order.key, order.dynamic, backfill)
    assert res.start.tolist() == reference(subs, sizes, runs, ests, 6, name, backfill)


def test_the_fcfs_order_equals_easy_on_a_large_workload():
    cfg = config(workload={"n_jobs": 8000, "load": 0.9}, datacenter={"processors": 320})
    inst = instance(cfg)
    a = simulate_one_tier(inst, processors=False)
    b = simulate_ordered(inst, ORDERS["fcfs"].key, dynamic=False, processors=False)
    assert b.start.tolist() == a.start.tolist()


def test_composed_algorithms_run_and_give_valid_schedules():
    algorithms = ["easy", *(f"easy:{o}" for o in ORDERS if o != "fcfs")]
    scenario = {"family": "backfill", "algorithms": algorithms, "datacenter": {"processors": 64},
                "workload": {"n_jobs": 400, "load": 0.9, "feitelson": {"max_size": 64}}}  # fmt: skip
    result = schedulers.run(scenario)
    inst = instance(config(**scenario))
    starts = {}
    for run in result["runs"]:
        assert_no_overlap(run["schedule"], 64)
        assert_jobs_complete(run, inst, two_tier=False)
        starts[run["algorithm"]] = tuple(j["start_s"] for j in run["jobs"])
    assert len(set(starts.values())) == len(algorithms)  # every order changes the schedule here


def test_the_schema_offers_the_composed_algorithms():
    enum = schedulers.schema("backfill")["properties"]["algorithms"]["items"]["enum"]
    assert {f"easy:{o}" for o in ORDERS if o != "fcfs"} <= set(enum)


def test_queue_order_decorator_takes_the_docstring_as_description():
    @queue_order(dynamic=True)
    def oldest(now, jobs):
        """Oldest first.

        More text."""
        return jobs.submit

    assert isinstance(oldest, QueueOrder)
    assert (oldest.description, oldest.dynamic, oldest.backfill) == ("Oldest first.", True, True)
    assert np.array_equal(oldest(0.0, _jobs_of([3.0, 1.0])), [3.0, 1.0])


def _jobs_of(submit):
    from schedulers.backfill.policy import Jobs

    n = len(submit)
    return Jobs(np.arange(n), np.asarray(submit), np.ones(n, dtype=np.int64), np.ones(n), 4)
