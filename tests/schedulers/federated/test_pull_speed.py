"""The fast pull builds the same slot tables, bit for bit, as the step-by-step reading.

:meth:`Planner.resync` works on run heaps and :func:`simulator._tail_work` sums a slice of a
per-queue array; here both are checked against the straightforward code they replaced
(``Frontier`` built from the status, every reservation and queued task taken in turn on the
sorted runs, the tail of a queue gathered by task index and summed) on random statuses.
"""

from __future__ import annotations

import numpy as np

from schedulers.federated.planner import Frontier, Planner
from schedulers.federated.simulator import _tail_work

from .helpers import simulate


def _reference(vms, now, running, reserved, ar_queue, be_queue, ar_tail, be_tail):
    """The pull as first written: sorted runs, one ``take`` at a time."""
    fr = Frontier(vms, now, [(e, w) for e, w, _ in running])
    ar = Frontier(vms, now, [(e, w) for e, w, is_ar in running if is_ar])
    for start, end, w in sorted(reserved):
        ar.take(w, start, end - start, shift=True)
        fr.take(w, start, end - start, shift=True)
    for w, dur in ar_queue:
        start = max(now, ar.kth(w))
        ar.take(w, start, dur, shift=True)
        fr.take(w, start, dur, shift=True)
    ar.water_fill(ar_tail)
    fr.water_fill(ar_tail)
    for w, dur in be_queue:
        fr.take(w, max(now, fr.kth(w)), dur, shift=False)
    fr.water_fill(be_tail)
    return fr, ar


def _runs(f: Frontier) -> list[tuple[float, int]]:
    """The table's runs without the empty ones (a run of no VMs changes no look-up)."""
    return [(t, int(n)) for t, n in zip(f.times.tolist(), f.counts.tolist(), strict=True) if n]


def _planner(vms: int) -> Planner:
    sim, _ = simulate(
        {
            "family": "federated",
            "seed": 1,
            "algorithms": ["cls"],
            "datacenter": {"clouds": [{"name": "a", "servers": vms, "server_capacity": 1, "perf": 1.0}]},
            "workload": {
                "kind": "jobs",
                "image_size_gb": 0,
                "dataset_size_gb": 0,
                "edge_data_gb": 0,
                "jobs": [{"arrival": 0.0, "tasks": [{"runtime_s": 1.0, "vms": 1}]}],
            },
        },
        "cls",
    )
    return sim.planner


def test_the_heap_pull_gives_the_tables_of_the_step_by_step_pull():
    rng = np.random.default_rng(17)
    checked = crashed = 0
    for case in range(400):
        vms = int(rng.integers(1, 24))
        now = float(rng.integers(0, 40)) + (0.3 if case % 3 else 0.0)
        running, left = [], vms
        while left and rng.random() < 0.8:  # sometimes every VM is busy (no run at ``now``)
            w = int(rng.integers(1, left + 1))
            end = float(rng.integers(0, 120)) / (1 if case % 2 else 7)  # some ends before ``now``, odd fractions
            running.append((end, w, bool(rng.random() < 0.4)))
            left -= w
        reserved = []
        for _ in range(rng.integers(0, 5)):
            start = now + float(rng.integers(0, 60))
            reserved.append((start, start + float(rng.integers(1, 50)) / 3, int(rng.integers(1, vms + 1))))
        task_vms = [int(rng.integers(1, vms + 1)) for _ in range(80)]
        ids = list(range(80))
        rng.shuffle(ids)
        ar_ids = [t for t in ids[: rng.integers(0, 70)] if task_vms[t] <= vms]
        be_ids = [t for t in ids[rng.integers(0, 40) :] if task_vms[t] <= vms]
        ar_queue = [(t, task_vms[t], float(rng.integers(1, 90)) / 3) for t in ar_ids]
        be_queue = [(t, task_vms[t], float(rng.integers(1, 90)) / 3) for t in be_ids]
        ar_tail = float(rng.integers(0, 3)) * float(rng.integers(1, 500)) / 7
        be_tail = float(rng.integers(0, 3)) * float(rng.integers(1, 500)) / 7

        planner = _planner(vms)
        for k, (start, end, w) in enumerate(reserved):
            planner.book.reserve(0, 1000 + k, start, end, w)
        planner.resync(0, now, running, ar_queue, be_queue, ar_tail, be_tail)
        try:
            fr, ar = _reference(
                vms,
                now,
                running,
                reserved,
                [(w, d) for _, w, d in ar_queue],
                [(w, d) for _, w, d in be_queue],
                ar_tail,
                be_tail,
            )
        except ZeroDivisionError:
            # the old pull kept a run of no VMs at ``now`` when every VM was busy, and a queue tail
            # spread over it divided by zero; the heap pull has no empty runs
            crashed += 1
            for table in (planner.frontiers[0], planner.ar_frontiers[0]):
                assert sum(n for _, n in _runs(table)) == vms
            continue
        assert _runs(planner.frontiers[0]) == _runs(fr)  # exact: the same float operations
        assert _runs(planner.ar_frontiers[0]) == _runs(ar)
        for w in range(1, vms + 1):
            assert planner.frontiers[0].kth(w) == fr.kth(w)
            assert planner.ar_frontiers[0].kth(w) == ar.kth(w)
        checked += bool(reserved) and bool(ar_queue) and bool(be_queue) and (ar_tail > 0 or be_tail > 0)
    assert checked > 50  # most cases exercise every part of the pull
    assert crashed < 40, (checked, crashed)


def test_a_queue_tail_sums_as_the_gathered_tasks_do():
    """The slice of the per-queue work array sums to the same float as the tasks gathered by index."""
    rng = np.random.default_rng(5)
    work = rng.random((5000, 3)) * rng.integers(1, 4096, (5000, 1)) + 2.0
    for _ in range(300):
        c = int(rng.integers(0, 3))
        order = rng.permutation(5000)[: rng.integers(0, 5000)]
        head = int(rng.integers(0, len(order) + 1))  # tasks already popped from the queue
        buf = np.empty(5000)
        buf[: len(order)] = work[order, c]
        skip = int(rng.integers(0, 100))
        queue = order[head:]
        expected = float(work[queue[skip:], c].sum()) if len(queue) > skip else 0.0
        assert _tail_work(buf, head, len(queue), skip) == expected
