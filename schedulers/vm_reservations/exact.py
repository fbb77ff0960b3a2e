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

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from schedulers.vm_reservations.bound import Axis, Placement
from schedulers.vm_reservations.ffd import ffd

__all__ = ["exact"]


def exact(s, e, d, g, time_limit_s: float = 30.0) -> tuple[Placement, bool]:
    """Optimal placement without migration; returns (placement, proven optimal)."""
    n = s.size
    if n == 0:
        return Placement.static(np.zeros(0, np.int64), s, e), True
    axis = Axis.of(s, e)
    seg = axis.lengths
    # An optimal schedule opens at most n PMs; labelling PMs by their lowest request
    # (x[j,m] = 0 for m > j) keeps every optimum while cutting symmetry.
    pms = n
    xs = [(j, m) for j in range(n) for m in range(min(j + 1, pms))]
    xi = {jm: i for i, jm in enumerate(xs)}
    active = [[j for j in range(n) if axis.a[j] <= k < axis.b[j]] for k in range(seg.size)]
    ys = [(m, k) for m in range(pms) for k in range(seg.size) if any(j >= m for j in active[k])]
    yi = {mk: len(xs) + i for i, mk in enumerate(ys)}
    cost = np.zeros(len(xs) + len(ys))
    for (_m, k), i in yi.items():
        cost[i] = seg[k]
    rows, cols, vals, lo, hi = [], [], [], [], []
    for j in range(n):  # assignment
        for m in range(min(j + 1, pms)):
            rows.append(j), cols.append(xi[j, m]), vals.append(1.0)
        lo.append(1.0), hi.append(1.0)
    r = n
    for (m, k), i in yi.items():  # capacity × power-on
        for j in active[k]:
            if j >= m:
                rows.append(r), cols.append(xi[j, m]), vals.append(float(d[j]))
        rows.append(r), cols.append(i), vals.append(-float(g))
        lo.append(-np.inf), hi.append(0.0)
        r += 1
    a = coo_matrix((vals, (rows, cols)), shape=(r, cost.size)).tocsr()
    res = milp(
        cost,
        constraints=LinearConstraint(a, lo, hi),
        integrality=np.ones(cost.size),
        bounds=Bounds(0, 1),
        options={"time_limit": float(time_limit_s)},
    )
    if res.x is None:  # no incumbent within the limit: fall back to FFD, not optimal
        return ffd(s, e, d, g), False
    pm = np.zeros(n, dtype=np.int64)
    for (j, m), i in xi.items():
        if res.x[i] > 0.5:
            pm[j] = m
    return Placement.static(pm, s, e), bool(res.status == 0)
