"""Exact minimum-migration schedule at the least power-on time, for small instances (MILP, scipy/HiGHS).

Paper 003, Theorem 3 and Algorithm 2.1 claim that OPT-Min-Migration reaches the
Theorem 1 bound "with the cost of the minimum number of total migrations". Our
sweep (``opt_min_migration.py``) reaches the bound but its migration count is a
greedy one, not always the minimum (three 2-unit VMs on [2,4), [3,6), [3,7) with
g = 4: the sweep migrates once, 0 migrations are needed). This module computes
the true minimum, lexicographically: first the least total power-on time that
migration allows, then the fewest migrations among the schedules with that time.

Two stages, not one objective ``B · power-on + migrations``. That big-M form,
solved with HiGHS's default relative gap (1e-4), returned 2 migrations where 1
suffices and called it optimal (``vm_min_migration_gap`` in the tests): with B
in the hundreds and a power-on time in the hundreds of slots, 1e-4 of the
objective is several migrations. A zero gap would have to be proven on an
objective of 1e4–1e6 to an absolute 1e-6, below what an LP's feasibility
tolerances (1e-7 relative) can vouch for. The two stages have no B:

1. With migration free, segments are independent, so the least power-on time is
   Σ_k len_k · bins_k, bins_k the fewest PMs that carry segment k's requests.
   bins_k = ⌈L_k/g⌉ (Theorem 1) wherever the sweep keeps that many on (always
   for strongly divisible demands); elsewhere a small bin-packing MILP per
   distinct set of demands decides it.
2. The fewest migrations with exactly bins_k PMs on in every segment: unit
   costs, an integer objective, and per-segment equalities that are tighter
   than a power-on term in the objective.

Stage 2 on the compressed time axis (segment k, active requests A_k):

    min  Σ_{j,k} w[j,k]
    s.t. Σ_m x[j,m,k] = 1                          j ∈ A_k: one PM per segment
         Σ_{j∈A_k} d_j · x[j,m,k] ≤ g · y[m,k]      capacity; PM m on in k
         x[j,m,k] ≤ y[m,k]                          (tighter relaxation)
         Σ_m y[m,k] = bins_k                        stage 1's least power-on time
         w[j,k] ≥ x[j,m,k] − x[j,m,k+1]             j ∈ A_k ∩ A_{k+1}, every m
         x, y binary; w ≥ 0

A migration is a request changing PM between two consecutive segments it runs
in (line 13 of Alg. 2.1 counts moves of running VMs); ``w[j,k]`` is 1 exactly
then. Up to max_k bins_k PMs are offered: PM identities only matter between
consecutive segments, where any matching of bins to PMs is realisable with that
many labels. Independent components (requests not linked by overlapping
intervals) are solved one by one. Both stages run with ``mip_rel_gap = 0`` and
a component counts as proven only when the ceiling of the dual bound reaches the
value found; otherwise :class:`~schedulers.vm_reservations.exact.Proof` carries
the power-on and migration gaps.
"""

from __future__ import annotations

import time

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.vm_reservations.bound import Axis, Placement, min_machines, power_on_slots
from schedulers.vm_reservations.exact import SOLVED, Proof, Rows, highs_options, proven_lower
from schedulers.vm_reservations.opt_min_migration import merge_pieces, opt_min_migration

optimize = lazy("scipy.optimize")

__all__ = ["fewest_bins", "min_migration"]


def min_migration(s, e, d, g, time_limit_s: float = 30.0) -> tuple[Placement, Proof]:
    """Least power-on time, then fewest migrations; returns (placement, what was proven).

    When HiGHS stops before proving optimality on a component, that component keeps
    the better of its incumbent and the OPT-Min-Migration sweep, and the proof says by
    how much the answer may miss the optimum.
    """
    n = s.size
    if n == 0:
        z = np.zeros(0, np.int64)
        return Placement(z, z, z, z, 0), SOLVED
    order = np.lexsort((-(e - s), s))
    reach = np.maximum.accumulate(e[order])
    cut = np.flatnonzero(s[order][1:] >= reach[:-1]) + 1
    deadline = time.monotonic() + time_limit_s
    proof, pieces, migrations, pm_base = SOLVED, [], 0, 0
    for part in np.split(order, cut):
        p, proved = _solve(s[part], e[part], d[part], g, deadline)
        proof += proved
        pieces.append((part[p.job], p.pm + pm_base, p.start, p.end))
        pm_base += int(p.pm.max()) + 1
        migrations += p.migrations
    job, pm, start, end = (np.concatenate(c) for c in zip(*pieces, strict=True))
    return Placement(job, pm, start, end, migrations), proof


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.05)


def _solve(s, e, d, g, deadline: float) -> tuple[Placement, Proof]:
    """One connected component: its placement (component-local job ids) and what was proven."""
    n = s.size
    fallback = opt_min_migration(s, e, d, g)
    if n == 1:
        return fallback, SOLVED
    axis = Axis.of(s, e)
    seg, n_seg = axis.lengths, axis.lengths.size
    active = [[j for j in range(n) if axis.a[j] <= k < axis.b[j]] for k in range(n_seg)]
    swept = _pms_on(fallback, axis, n_seg)
    bins, floor = _stage1(active, d, g, min_machines(axis.load(d), g), swept, deadline)
    least = int(floor @ seg)  # proven lower bound on the power-on time
    at_least = bool(np.array_equal(bins, floor))  # stage 1 proven: bins is the least time
    res, where = _stage2(axis, active, d, g, bins, floor, _left(deadline))
    candidate = fallback if where is None else _placement(where, axis)
    if _rank(fallback) < _rank(candidate):
        candidate = fallback
    power_gap = power_on_slots(candidate) - least
    fewest = proven_lower(res) if at_least and power_gap == 0 else 0
    migration_gap = max(candidate.migrations - fewest, 0)
    return candidate, Proof(power_gap == 0 and migration_gap == 0, power_gap, migration_gap)


def _stage1(active, d, g, need, swept, deadline) -> tuple[np.ndarray, np.ndarray]:
    """Per segment, the PMs to keep on (proven fewest where possible) and a proven lower bound."""
    bins, floor = swept.copy(), need.copy()
    known: dict[tuple[int, ...], tuple[int, int]] = {}
    for k, jobs in enumerate(active):
        if not jobs or swept[k] <= need[k]:
            bins[k] = floor[k] = need[k]
            continue
        key = tuple(sorted(int(d[j]) for j in jobs))
        if key not in known:
            known[key] = fewest_bins(np.array(key), g, int(swept[k]), _left(deadline))
        bins[k], floor[k] = known[key]
    return bins, floor


def fewest_bins(d: np.ndarray, g: int, upper: int, time_limit_s: float) -> tuple[int, int]:
    """Bin packing of demands ``d`` into PMs of capacity g: (bins found, proven lower bound).

    ``upper`` bins are known to suffice; the MILP offers that many, opened in order.
    """
    need = int(-(-int(d.sum()) // g))
    if upper <= need:
        return upper, upper
    n, m_max = d.size, upper
    x = n * m_max  # x[j,m] at j * m_max + m, then y[m]
    cost = np.concatenate([np.zeros(x), np.ones(m_max)])
    rows = Rows()
    for j in range(n):
        rows.add([(j * m_max + m, 1.0) for m in range(m_max)], 1.0, 1.0)
    for m in range(m_max):
        rows.add([(j * m_max + m, float(d[j])) for j in range(n)] + [(x + m, -float(g))], -np.inf, 0.0)
        if m:
            rows.add([(x + m, 1.0), (x + m - 1, -1.0)], -np.inf, 0.0)  # open PMs in order
    rows.add([(x + m, 1.0) for m in range(m_max)], float(need), np.inf)
    res = optimize.milp(
        cost,
        constraints=rows.constraint(cost.size),
        integrality=np.ones(cost.size),
        bounds=optimize.Bounds(0, 1),
        options=highs_options(time_limit_s),
    )
    found = upper if res.x is None else min(round(float(res.fun)), upper)
    return found, min(max(need, proven_lower(res)), found)


def _stage2(axis, active, d, g, bins, floor, time_limit_s):
    """Fewest migrations with bins_k PMs on in segment k: (HiGHS result, PM per request and segment or None)."""
    n, n_seg = axis.a.size, len(active)
    pms = int(bins.max())
    xs = [(j, m, k) for k in range(n_seg) for j in active[k] for m in range(pms)]
    xi = {v: i for i, v in enumerate(xs)}
    ys = [(m, k) for k in range(n_seg) if active[k] for m in range(pms)]
    yi = {v: len(xs) + i for i, v in enumerate(ys)}
    ws = [(j, k) for k in range(n_seg - 1) for j in active[k] if axis.b[j] > k + 1]
    wi = {v: len(xs) + len(ys) + i for i, v in enumerate(ws)}
    cost = np.zeros(len(xs) + len(ys) + len(ws))
    cost[len(xs) + len(ys) :] = 1.0
    rows = Rows()
    row = rows.add
    for k in range(n_seg):
        if not active[k]:
            continue
        for j in active[k]:
            row([(xi[j, m, k], 1.0) for m in range(pms)], 1.0, 1.0)
        for m in range(pms):
            row([(xi[j, m, k], float(d[j])) for j in active[k]] + [(yi[m, k], -float(g))], -np.inf, 0.0)
            for j in active[k]:
                row([(xi[j, m, k], 1.0), (yi[m, k], -1.0)], -np.inf, 0.0)
        row([(yi[m, k], 1.0) for m in range(pms)], float(floor[k]), float(bins[k]))
    for (j, k), i in wi.items():
        for m in range(pms):
            row([(i, 1.0), (xi[j, m, k], -1.0), (xi[j, m, k + 1], 1.0)], 0.0, np.inf)
    integrality = np.concatenate([np.ones(len(xs) + len(ys)), np.zeros(len(ws))])
    res = optimize.milp(
        cost,
        constraints=rows.constraint(cost.size),
        integrality=integrality,
        bounds=optimize.Bounds(0, np.concatenate([np.ones(len(xs) + len(ys)), np.full(len(ws), np.inf)])),
        options=highs_options(time_limit_s),
    )
    if res.x is None:
        return res, None
    where = np.full((n, n_seg), -1, dtype=np.int64)
    for (j, m, k), i in xi.items():
        if res.x[i] > 0.5:
            where[j, k] = m
    return res, where


def _pms_on(p: Placement, axis: Axis, n_seg: int) -> np.ndarray:
    """PMs the placement keeps on in each segment."""
    counts = np.zeros(n_seg, dtype=np.int64)
    seg_of = np.searchsorted(axis.bounds, p.start), np.searchsorted(axis.bounds, p.end)
    for m in np.unique(p.pm):
        on = np.zeros(n_seg + 1, dtype=np.int64)
        sel = p.pm == m
        np.add.at(on, seg_of[0][sel], 1)
        np.add.at(on, seg_of[1][sel], -1)
        counts += np.cumsum(on)[:-1] > 0
    return counts


def _rank(p: Placement) -> tuple[int, int]:
    """(power-on PM-slots, migrations): the lexicographic objective."""
    return power_on_slots(p), p.migrations


def _placement(where: np.ndarray, axis: Axis) -> Placement:
    """Pieces from the per-segment PM of each request; a change of PM between segments is a migration."""
    job, pm, start, end = [], [], [], []
    migrations = 0
    for j in range(where.shape[0]):
        a, b = int(axis.a[j]), int(axis.b[j])
        for k in range(a, b):
            if k > a and where[j, k] != where[j, k - 1]:
                migrations += 1
            job.append(j), pm.append(int(where[j, k]))
            start.append(int(axis.bounds[k])), end.append(int(axis.bounds[k + 1]))
    cols = (np.asarray(c, dtype=np.int64) for c in (job, pm, start, end))
    return Placement(*merge_pieces(*cols), migrations=migrations)
