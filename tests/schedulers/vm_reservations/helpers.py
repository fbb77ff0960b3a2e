"""Validity checks shared by the vm_reservations tests."""

from __future__ import annotations

import numpy as np

from schedulers.vm_reservations.bound import Placement


def assert_valid_placement(p: Placement, s, e, d, g: int) -> None:
    """Capacity ≤ g on every PM in every slot; every request served over its whole interval, once."""
    s, e, d = (np.asarray(x) for x in (s, e, d))
    assert np.all(p.start < p.end), "empty piece"
    for j in range(s.size):  # pieces of one request tile [s_j, e_j) exactly
        mine = np.flatnonzero(p.job == j)
        order = mine[np.argsort(p.start[mine])]
        starts, ends = p.start[order], p.end[order]
        assert starts.size >= 1, f"request {j} not placed"
        assert starts[0] == s[j] and ends[-1] == e[j], f"request {j} not served over [{s[j]}, {e[j]})"
        assert np.all(starts[1:] == ends[:-1]), f"request {j} has a gap or an overlap"
    horizon = int(e.max()) if e.size else 0
    for m in np.unique(p.pm):  # per-slot occupancy of each PM
        occ = np.zeros(horizon + 1, dtype=np.int64)
        on = p.pm == m
        np.add.at(occ, p.start[on], d[p.job[on]])
        np.add.at(occ, p.end[on], -d[p.job[on]])
        assert np.cumsum(occ).max() <= g, f"PM {m} over capacity"


def brute_lower_bound(s, e, d, g: int) -> int:
    """Theorem 1 by a plain loop over slots (a reference for the vectorised bound)."""
    total = 0
    for t in range(int(max(e))):
        load = sum(int(dd) for ss, ee, dd in zip(s, e, d, strict=True) if ss <= t < ee)
        total += -(-load // g)
    return total
