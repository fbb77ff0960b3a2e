"""Min-Min baseline (Section 6.1.3), with REC (Alg. 2) when the energy limit is broken.

Each iteration evaluates, for every unplaced task and every server, the JCT of the partial
placement (OptRA, eq. 16, on the placed tasks plus this one), keeps each task's best server
and places the task whose best is smallest.

Readings where the paper is silent: the "expected JCT" of a partial placement is the OptRA
JCT of the tasks placed so far plus the candidate, ``max(JCT, et_ib)`` with ``et_ib`` the
candidate's own OptRA time; since that value is often the current JCT for many candidates,
ties are broken by ``et_ib`` (the classic Min-Min "minimum completion time"), then by lower
task and server index. Energy is ignored while placing; REC repairs the final placement as
the paper states.

Implementation: with that tie-break the chosen pair is simply the global minimum of
``et_ib`` (``max(JCT, ·)`` is monotone). Placing tasks only raises the constraint sums, so
``et_ib`` never decreases and a task's last computed best is a lower bound: a lazy heap
recomputes a task's best only when it reaches the top (exact, like lazy greedy), instead of
re-evaluating all unplaced tasks every iteration (``min_min_placement(..., lazy=False)``).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedulers.ep_jobs.instance import RTOL, Instance
from schedulers.ep_jobs.tapra import Schedule, finish, rec

__all__ = ["min_min", "min_min_placement"]


def _best(inst: Instance, r: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    """``et_ib`` of unplaced ``tasks`` on every server given the current ``r = S/B``."""
    plat = inst.platform
    vals = r[plat.nnz_con] + inst.leq[tasks][:, plat.nnz_server] * plat.nnz_w
    return np.maximum.reduceat(vals, plat.AT.indptr[:-1], axis=1)


def _place(inst: Instance, r: np.ndarray, server: np.ndarray, i: int, j: int) -> None:
    # a "move" from nowhere: add task i's load to server j's constraints
    plat = inst.platform
    lo, hi = plat.AT.indptr[j], plat.AT.indptr[j + 1]
    r[plat.nnz_con[lo:hi]] += inst.leq[i, j] * plat.nnz_w[lo:hi]
    server[i] = j


def min_min_placement(inst: Instance, lazy: bool = True) -> np.ndarray:
    """The Min-Min placement (no energy repair)."""
    plat = inst.platform
    n = inst.n_tasks
    server = np.full(n, -1, dtype=np.intp)
    r = np.zeros(plat.B.size)
    if not lazy:
        unplaced = np.arange(n)
        while unplaced.size:
            et = _best(inst, r, unplaced)
            best = et.min()
            flat = int(np.argmin(np.where(et <= best * (1 + RTOL), et, np.inf)))
            t, j = divmod(flat, plat.n_servers)
            _place(inst, r, server, int(unplaced[t]), j)
            unplaced = np.delete(unplaced, t)
        return server
    et0 = _best(inst, r, np.arange(n))
    heap = [(float(v), i) for i, v in enumerate(et0.min(axis=1))]
    heapq.heapify(heap)
    while heap:
        _, i = heapq.heappop(heap)
        et = _best(inst, r, np.array([i]))[0]
        j = int(np.argmin(et))
        if not heap or et[j] <= heap[0][0] * (1 + RTOL):
            _place(inst, r, server, i, j)
        else:
            heapq.heappush(heap, (float(et[j]), i))
    return server


def min_min(inst: Instance) -> Schedule:
    """Min-Min followed by REC when ``E_total > E_MAX``."""
    server, moves = rec(inst, min_min_placement(inst))
    return finish(inst, server, moves)
