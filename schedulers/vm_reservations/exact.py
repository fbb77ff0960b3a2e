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

Proof. HiGHS stops by default at a relative gap of 1e-4, which on a power-on
time of 10,000 slots hides a whole slot; it runs here with ``mip_rel_gap = 0``
(the objective is an integer number of PM-slots), and a component counts as
solved only when the ceiling of HiGHS's dual bound reaches the value found.
Otherwise :class:`Proof` carries the gap: the answer's power-on time minus the
best proven lower bound (the dual bound or Theorem 1's, whichever is higher).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.vm_reservations.bound import Axis, Placement, lower_bound_slots, min_machines, power_on_slots
from schedulers.vm_reservations.ffd import ffd

optimize = lazy("scipy.optimize")

__all__ = ["Proof", "exact", "proven_lower"]


@dataclass(frozen=True)
class Proof:
    """What an exact solver proved about its answer (summed over components and pools).

    ``optimal`` only when every component's optimum was proven; otherwise the gaps say
    how far the answer may be from it: ``power_on_gap`` PM-slots above a proven lower
    bound on the least power-on time, ``migration_gap`` migrations above a proven lower
    bound on the fewest migrations at that time (min_migration only).
    """

    optimal: bool = True
    power_on_gap: int = 0
    migration_gap: int = 0

    def __add__(self, other: Proof) -> Proof:
        return Proof(
            self.optimal and other.optimal,
            self.power_on_gap + other.power_on_gap,
            self.migration_gap + other.migration_gap,
        )


SOLVED = Proof()


def proven_lower(res) -> int:
    """The proven lower bound of an integer-valued minimisation: ⌈HiGHS's dual bound⌉ (0 if none)."""
    bound = getattr(res, "mip_dual_bound", None)
    if bound is None or not math.isfinite(bound):
        return 0
    return max(math.ceil(bound - 1e-6), 0)


def highs_options(time_limit_s: float) -> dict:
    """Run to a proven optimum: no relative gap (HiGHS's default 1e-4 hides whole slots and migrations)."""
    return {"time_limit": float(time_limit_s), "mip_rel_gap": 0.0}


def exact(s, e, d, g, time_limit_s: float = 30.0) -> tuple[Placement, Proof]:
    """Optimal placement without migration; returns (placement, what was proven).

    Requests that never overlap in time through a chain of others form independent
    components, solved one by one within the time limit. When HiGHS stops before
    proving optimality the better of its incumbent and FFD is returned, with its gap.
    """
    n = s.size
    pm = np.zeros(n, dtype=np.int64)
    if n == 0:
        return Placement.static(pm, s, e), SOLVED
    order = np.lexsort((-(e - s), s))
    reach = np.maximum.accumulate(e[order])
    cut = np.flatnonzero(s[order][1:] >= reach[:-1]) + 1
    deadline = time.monotonic() + time_limit_s
    proof = SOLVED
    for part in np.split(order, cut):
        left = max(deadline - time.monotonic(), 0.05)
        pm[part], lower = _solve_bounded(s[part], e[part], d[part], g, left)
        found = power_on_slots(Placement.static(pm[part], s[part], e[part]))
        proof += Proof(found <= lower, found - min(lower, found))
    return Placement.static(pm, s, e), proof


def _solve(s, e, d, g, time_limit_s: float) -> tuple[np.ndarray, bool]:
    """One connected component, requests sorted by start: PM index per request, and whether it is optimal."""
    pm, lower = _solve_bounded(s, e, d, g, time_limit_s)
    return pm, power_on_slots(Placement.static(pm, s, e)) <= lower


def _solve_bounded(s, e, d, g, time_limit_s: float) -> tuple[np.ndarray, int]:
    """One connected component: PM index per request, and a proven lower bound on the optimum (PM-slots)."""
    n = s.size
    theorem1 = lower_bound_slots(s, e, d, g)
    if n == 1:
        return np.zeros(1, np.int64), theorem1
    fallback = ffd(s, e, d, g)
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
    for j in range(n):  # every request on exactly one PM
        row([(xi[j, m], 1.0) for m in range(j + 1)], 1.0, 1.0)
    for (m, k), i in yi.items():  # capacity, and PM m on in k when it hosts anything there
        jobs = [j for j in active[k] if j >= m]
        row([(xi[j, m], float(d[j])) for j in jobs] + [(i, -float(g))], -np.inf, 0.0)
        for j in jobs:  # disaggregated link: a much tighter LP relaxation
            row([(xi[j, m], 1.0), (i, -1.0)], -np.inf, 0.0)
    for k in range(seg.size):  # Theorem 1 per segment: a valid cut
        row([(yi[m, k], 1.0) for m in range(n) if (m, k) in yi], float(need[k]), np.inf)
    res = optimize.milp(
        cost,
        constraints=builder.constraint(cost.size),
        integrality=np.ones(cost.size),
        bounds=optimize.Bounds(0, 1),
        options=highs_options(time_limit_s),
    )
    lower = max(theorem1, proven_lower(res))
    if res.x is None:
        return fallback.pm, lower
    pm = np.zeros(n, dtype=np.int64)
    for (j, m), i in xi.items():
        if res.x[i] > 0.5:
            pm[j] = m
    if power_on_slots(fallback) < power_on_slots(Placement.static(pm, s, e)):
        return fallback.pm, lower
    return pm, lower


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
