"""Longest Loaded Interval First, LLIF (paper 003, Section 3, Algorithm 3.1).

Lines 2–4: the load of slot i is represented by l_i = ⌈L_i/g⌉, the fewest PMs
the slot needs. Line 6: the "longest continuous interval with the same load" is
a maximal run of consecutive slots with equal l_i. Lines 7–9: the unallocated
requests of that run are split into an end-time-first (ETF) and a start-time-
first (STF) group, longest first in each group, and each is put on the first PM
that can host it, a new PM being opened when none can. Line 11: the PMs' loads
are updated and the allocated requests removed; repeat with the next run.

Readings chosen where the paper is silent (each is tested):

* The l_i are computed once, from all requests (lines 2–4 precede the loop);
  "update the load of M_H" (line 11) is the PMs' occupancy, not the l_i.
* Runs are taken longest first (length in slots); equal lengths: earlier first.
  Idle slots (l_i = 0) form no run that any request touches.
* "Jobs either started or ended in [z1, z2]" = the unallocated requests that
  overlap the run (a request covering the whole run also loads it).
* ETF group = requests that started before the run (their end lies ahead, in
  the run or after it); STF group = requests starting inside the run. ETF goes
  first. Within a group: longer first, then earlier start, then request order.
* Placement is first fit over PMs in opening order, no migration (Section 3:
  "there is no job migration in LLIF").

Each request is thus allocated in the first processed run it overlaps; that run
is found for all requests at once by a range-minimum query over run ranks, so
the ordering costs O(n log n) and the placement is the shared first-fit packer.
"""

from __future__ import annotations

import numpy as np

from schedulers.vm_reservations.bound import Axis, Placement, min_machines
from schedulers.vm_reservations.ffd import Progress, first_fit

__all__ = ["llif", "llif_order", "load_runs"]


def load_runs(axis: Axis, d: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of segments with equal l_i: (first segment, end segment, l of the run)."""
    lvl = min_machines(axis.load(d), g)
    k = lvl.size
    change = np.flatnonzero(np.diff(lvl) != 0) + 1
    first = np.concatenate([[0], change]).astype(np.int64)
    end = np.concatenate([change, [k]]).astype(np.int64)
    return first, end, lvl[first]


def _range_min(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """min(values[lo[i] .. hi[i]]) (inclusive) for every i: a bottom-up segment tree, vectorised."""
    size = 1
    while size < values.size:
        size *= 2
    big = np.iinfo(np.int64).max
    tree = np.full(2 * size, big, dtype=np.int64)
    tree[size : size + values.size] = values
    level = size
    while level > 1:
        half = level // 2
        tree[half:level] = np.minimum(tree[level : 2 * level : 2], tree[level + 1 : 2 * level : 2])
        level = half
    res = np.full(lo.size, big, dtype=np.int64)
    left, right = lo + size, hi + size + 1
    while True:
        active = left < right
        if not active.any():
            return res
        take = active & (left & 1 == 1)
        res[take] = np.minimum(res[take], tree[left[take]])
        left = left + take
        take = active & (right & 1 == 1)
        right = right - take
        res[take] = np.minimum(res[take], tree[right[take]])
        left, right = left >> 1, right >> 1


def llif_order(s: np.ndarray, e: np.ndarray, d: np.ndarray, g: int, split: bool = True) -> np.ndarray:
    """The order in which LLIF allocates the requests (see the module docstring).

    ``split=False`` reads line 8 without the ETF/STF groups: a run's requests longest first
    (``params.llif_groups = "no_split"``, a reading evaluated beside the paper's text)."""
    if s.size == 0:
        return np.zeros(0, dtype=np.int64)
    axis = Axis.of(s, e)
    first, end, _ = load_runs(axis, d, g)
    runs = first.size
    run_len = axis.bounds[end] - axis.bounds[first]
    processing = np.lexsort((np.arange(runs), -run_len))  # longest first, then earlier
    rank = np.empty(runs, dtype=np.int64)
    rank[processing] = np.arange(runs)
    run_of_segment = np.repeat(np.arange(runs), end - first)
    job_rank = _range_min(rank, run_of_segment[axis.a], run_of_segment[axis.b - 1])
    run_start = axis.bounds[first[processing[job_rank]]]
    group = (s >= run_start).astype(np.int64) if split else np.zeros(s.size, dtype=np.int64)  # 0: ETF, 1: STF
    return np.lexsort((np.arange(s.size), s, -(e - s), group, job_rank))


def llif(s, e, d, g, progress: Progress | None = None, split: bool = True) -> Placement:
    """LLIF (Algorithm 3.1): longest loaded interval first, first fit, no migration.

    Theorem 4 claims LLIF ≤ 2·OPT; Observation 6 that LLIF = OPT when all
    requests share a start (or an end) time and demands are unit.
    """
    return first_fit(s, e, d, g, llif_order(s, e, d, g, split), progress)
