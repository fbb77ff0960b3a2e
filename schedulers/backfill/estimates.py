"""User runtime estimates: the Tsafrir, Etsion & Feitelson 2005 model ("TModel", Section 3.1).

Implements the algorithm of Tsafrir's ``est_model`` as restated in docs/workload-models.md §3
(Steps A–F) without user bins: the head of 20 popular values (the maximum M,
the 15 "joint" values below M, then round values), their popularity sizes
``14.0491·e^(−0.177531·x) + 0.462513`` for ranks 2..20 with the top-20 share
H = 89 %, the observed time-rank → popularity-rank mapping of four logs, the
tail of K − 20 values ``y = (A − 1)x/(A − x)`` with sizes ``795.6·r^−2.267``,
the linear model for the number of distinct values K, and the randomised
assignment that gives every job an estimate ≥ its runtime.

Readings where the spec is silent: runtimes above M are cut to M (the code
warns; we count them); if the histogram cannot cover every runtime (Step F.3
would fail) the few jobs concerned get their own runtime as estimate (counted
as ``estimates_raised``) instead of aborting the run; the count equalisation of
Step E is done by ±1 steps on the largest bins.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["bin_count", "tsafrir_estimates"]

_JOINT = (300, 900, 600, 1200, 1800, 3600, 7200, 10800, 14400, 18000, 21600, 28800, 36000, 43200, 64800)
_ROUND_UNITS = (720000, 360000, 180000, 36000, 18000, 7200, 3600, 1200, 600, 300)
_K_POINTS = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565))
# time rank (row) -> popularity rank in the SDSC, CTC, KTH and BLUE logs (docs/workload-models.md §3.3 Step C)
_RANK_TABLE = (
    (3, 1, 1, 1), (1, 3, 4, 6), (4, 4, 10, 5), (17, 2, 14, 3), (13, 12, 20, 7),
    (7, 9, 2, 2), (8, 8, 3, 18), (18, 18, 7, 19), (2, 6, 12, 4), (6, 7, 6, 11),
    (16, 11, 19, 20), (10, 20, 5, 9), (5, 16, 18, 10), (15, 5, 16, 14), (14, 14, 9, 13),
    (19, 13, 17, 16), (11, 10, 15, 15), (12, 15, 13, 17), (9, 17, 8, 8), (20, 19, 11, 12),
)  # fmt: skip


def bin_count(n: int) -> int:
    """K, the number of distinct estimates, by the piecewise-linear model of Step A."""
    if n >= _K_POINTS[-1][0]:
        return _K_POINTS[-1][1]
    for (n0, k0), (n1, k1) in itertools.pairwise(_K_POINTS):
        if n <= n1:
            return max(1, k0 + round((n - n0) * (k1 - k0) / (n1 - n0)))
    return _K_POINTS[-1][1]


def _head_values(m: float) -> list[float]:
    values = [m] + [float(v) for v in _JOINT if v < m]
    for unit in _ROUND_UNITS:
        t = (m // unit) * unit
        while t > 0 and len(values) < 20:
            if t not in values:
                values.append(float(t))
            t -= unit
        if len(values) >= 20:
            break
    return [values[0], *sorted(values[1:20])]


def _popularity_ranks(rows: int, rng: np.random.Generator) -> list[int]:
    bound = {}
    for row, ranks in enumerate(_RANK_TABLE):
        for r in ranks:
            bound[r] = row
    chosen: list[int] = []
    pool: list[int] = []
    for row in range(rows):
        for r in _RANK_TABLE[row]:
            if r <= rows and r not in chosen and r not in pool:
                pool.append(r)
        rng.shuffle(pool)
        overdue = [r for r in range(1, rows + 1) if r not in chosen and bound.get(r, 99) <= row]
        if row == 0:
            pick = 1
        elif overdue:
            pick = overdue[0]
        elif len(pool) >= 2:
            pick = min(pool[0], pool[1])
        elif pool:
            pick = pool[0]
        else:
            pick = min(r for r in range(1, rows + 1) if r not in chosen)
        chosen.append(pick)
        if pick in pool:
            pool.remove(pick)
    return chosen


def _histogram(n: int, m: float, rng: np.random.Generator, h: float = 89.0) -> tuple[np.ndarray, np.ndarray]:
    k = bin_count(n)
    head = _head_values(m)[: max(1, min(20, k))]
    x = np.arange(2, len(head) + 1)
    sizes = 14.0491 * np.exp(-0.177531 * x) + 0.462513
    sizes = np.concatenate([[max(h - sizes.sum(), 0.0)], sizes])
    sizes = np.sort(sizes)[::-1]
    ranks = _popularity_ranks(len(head), rng)
    times, pct = list(head), [float(sizes[r - 1]) for r in ranks]
    tail_n = k - len(head)
    if tail_n > 0:
        a = 1 + 12.1039 * k**-0.6026
        seen = set(times)
        tail = []
        for i in range(1, tail_n + 1):
            xi = i / tail_n
            t = round((a - 1) * xi / (a - xi) * m / 60) * 60
            for d in (0, 30, -30, 20, -20, 10, -10):
                if t + d not in seen and 0 < t + d < m:
                    seen.add(t + d)
                    tail.append(float(t + d))
                    break
        tsize = 795.6 * np.arange(21, 21 + len(tail), dtype=float) ** -2.267
        tsize *= (100 - h) / tsize.sum()
        tail = rng.permutation(np.array(tail))
        times += tail.tolist()
        pct += rng.permutation(tsize).tolist()
    counts = np.maximum(1, np.round(np.array(pct) * n / 100)).astype(np.int64)
    diff = n - int(counts.sum())
    order = np.argsort(-counts, kind="stable")
    i = 0
    while diff != 0:
        b = order[i % order.size]
        step = 1 if diff > 0 else -1
        if counts[b] + step >= 0:
            counts[b] += step
            diff -= step
        i += 1
    return np.array(times), counts


def tsafrir_estimates(runtime: np.ndarray, m: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, dict]:
    """Estimates for ``runtime`` (seconds) with maximum ``m``; returns (runtime', estimate, info).

    ``runtime'`` is the runtime cut to ``m`` (Step F.2).
    """
    run = np.minimum(np.asarray(runtime, dtype=float), m)
    n = run.size
    times, counts = _histogram(n, m, rng)
    est = np.sort(np.repeat(times, counts))[::-1].copy()
    order = np.argsort(-run, kind="stable")
    r = run[order]
    out = np.empty(n)
    u = rng.random(n)
    hi = 0
    for j in range(n):
        rj = r[j]
        if hi < j:
            hi = j
        while hi < n - 1 and est[hi + 1] >= rj:
            hi += 1
        k = j + int(u[j] * (hi - j + 1))
        out[j] = est[k]
        est[k] = est[j]
    raised = int(np.count_nonzero(out < r))
    estimate = np.empty(n)
    estimate[order] = np.maximum(out, r)
    info = {"runtimes_cut": int(np.count_nonzero(np.asarray(runtime) > m)), "estimates_raised": raised,
            "distinct_estimates": int(times.size)}  # fmt: skip
    return run, estimate, info
