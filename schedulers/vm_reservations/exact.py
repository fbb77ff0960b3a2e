"""Exact MinTEC optimum without migration, for small instances (MILP, scipy/HiGHS).

Not in the paper: the paper's "OPT" is the Theorem 1 bound, reachable only with
migration. This solver gives the true optimum of problem (1) when every VM stays
on one PM, so tests can measure real approximation ratios (Example #4: 5 > 4).

Formulation on the compressed time axis (segments k of length len_k):

    min  Σ_{m,k} len_k · y[m,k]
    s.t. Σ_m x[j,m] = 1                                  every request on one PM
         Σ_{j active in k} d_j · x[j,m] ≤ g · y[m,k]      capacity, and PM m on in k
         x, y binary;  x[j,m] = 0 for m > j               (PMs labelled by their first request)

Up to n PMs are offered (an optimum never needs more), and labelling PMs by
their lowest-numbered request keeps one optimum while removing the symmetric
copies. Segments where PM m cannot hold any request get no variable.
"""

from __future__ import annotations

import time

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.vm_reservations.bound import Axis, Placement, min_machines, power_on_slots
from schedulers.vm_reservations.ffd import ffd

optimize, sparse = lazy("scipy.optimize"), lazy("scipy.sparse")

__all__ = ["exact"]


def exact(s, e, d, g, time_limit_s: float = 30.0) -> tuple[Placement, bool]:
    """Optimal placement without migration; returns (placement, proven optimal).

    Requests that never overlap in time through a chain of others form independent
    components, solved one by one within the time limit. When HiGHS stops before
    proving optimality the better of its incumbent and FFD is returned, flagged.
    """
    n = s.size
    pm = np.zeros(n, dtype=np.int64)
    if n == 0:
        return Placement.static(pm, s, e), True
    order = np.lexsort((-(e - s), s))
    reach = np.maximum.accumulate(e[order])
    cut = np.flatnonzero(s[order][1:] >= reach[:-1]) + 1
    deadline = time.monotonic() + time_limit_s
    optimal = True
    for part in np.split(order, cut):
        left = max(deadline - time.monotonic(), 0.05)
        pm[part], ok = _solve(s[part], e[part], d[part], g, left)
        optimal &= ok
    return Placement.static(pm, s, e), optimal


def _solve(s, e, d, g, time_limit_s: float) -> tuple[np.ndarray, bool]:
    """One connected component, requests sorted by start: PM index per request."""
    n = s.size
    fallback = ffd(s, e, d, g)
    if n == 1:
        return np.zeros(1, np.int64), True
    axis = Axis.of(s, e)
    seg = axis.lengths
    need = min_machines(axis.load(d), g)
    # An optimal schedule opens at most n PMs; labelling PMs by their lowest request
    # (x[j,m] = 0 for m > j) keeps an optimum while cutting the symmetric copies.
    xs = [(j, m) for j in range(n) for m in range(j + 1)]
    xi = {jm: i for i, jm in enumerate(xs)}
    active = [[j for j in range(n) if axis.a[j] <= k < axis.b[j]] for k in range(seg.size)]
    ys = [(m, k) for m in range(n) for k in range(seg.size) if any(j >= m for j in active[k])]
    yi = {mk: len(xs) + i for i, mk in enumerate(ys)}
    cost = np.zeros(len(xs) + len(ys))
    for (_m, k), i in yi.items():
        cost[i] = seg[k]
    builder = Rows()
    row = builder.add
    rows, cols, vals, lo, hi = builder.rows, builder.cols, builder.vals, builder.lo, builder.hi
    for j in range(n):  # every request on exactly one PM
        row([(xi[j, m], 1.0) for m in range(j + 1)], 1.0, 1.0)
    for (m, k), i in yi.items():  # capacity, and PM m on in k when it hosts anything there
        jobs = [j for j in active[k] if j >= m]
        row([(xi[j, m], float(d[j])) for j in jobs] + [(i, -float(g))], -np.inf, 0.0)
        for j in jobs:  # disaggregated link: a much tighter LP relaxation
            row([(xi[j, m], 1.0), (i, -1.0)], -np.inf, 0.0)
    for k in range(seg.size):  # Theorem 1 per segment: a valid cut
        row([(yi[m, k], 1.0) for m in range(n) if (m, k) in yi], float(need[k]), np.inf)
    a = sparse.coo_matrix((vals, (rows, cols)), shape=(len(lo), cost.size)).tocsr()
    res = optimize.milp(
        cost,
        constraints=optimize.LinearConstraint(a, lo, hi),
        integrality=np.ones(cost.size),
        bounds=optimize.Bounds(0, 1),
        options={"time_limit": float(time_limit_s)},
    )
    if res.x is None:
        return fallback.pm, False
    pm = np.zeros(n, dtype=np.int64)
    for (j, m), i in xi.items():
        if res.x[i] > 0.5:
            pm[j] = m
    candidate = Placement.static(pm, s, e)
    if res.status != 0 and power_on_slots(fallback) < power_on_slots(candidate):
        return fallback.pm, False
    return pm, bool(res.status == 0)


class Rows:
    """Sparse MILP rows ``low ≤ Σ coef · x[col] ≤ high``, added one at a time."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def add(self, entries, low: float, high: float) -> None:
        r = len(self.lo)
        for c, v in entries:
            self.rows.append(r), self.cols.append(c), self.vals.append(v)
        self.lo.append(low), self.hi.append(high)

    def constraint(self, n_vars: int):
        """The rows as a ``scipy.optimize.LinearConstraint`` over ``n_vars`` variables."""
        from scipy.optimize import LinearConstraint  # on first use: start-up time
        from scipy.sparse import coo_matrix

        a = coo_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.lo), n_vars)).tocsr()
        return LinearConstraint(a, self.lo, self.hi)
