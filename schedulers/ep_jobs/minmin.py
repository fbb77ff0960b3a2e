"""Min-Min baseline (Section 6.1.3), with REC (Alg. 2) when the energy limit is broken.

Each iteration evaluates, for every unplaced task and every server, the JCT of the partial
placement (OptRA, eq. 16, on the placed tasks plus this one), keeps each task's best server
and places the task whose best is smallest.

Readings where the paper is silent: the "expected JCT" of a partial placement is the OptRA
JCT of the tasks placed so far plus the candidate; since that value is often the current JCT
for many candidates, ties are broken by the candidate task's own OptRA time (the classic
Min-Min "minimum completion time"), then by lower task and server index. Energy is ignored
while placing; REC repairs the final placement as the paper states.
"""

from __future__ import annotations

import numpy as np

from schedulers.ep_jobs.model import RTOL, Instance
from schedulers.ep_jobs.tapra import Schedule, finish, rec

__all__ = ["min_min", "min_min_placement"]


def min_min_placement(inst: Instance) -> np.ndarray:
    """The Min-Min placement (no energy repair)."""
    plat = inst.platform
    n = inst.n_tasks
    server = np.full(n, -1, dtype=np.intp)
    load_on = np.zeros(plat.n_servers)
    unplaced = np.arange(n)
    r = np.zeros(plat.A.shape[0])
    jct = 0.0
    while unplaced.size:
        vals = r[plat.nnz_con] + inst.leq[unplaced][:, plat.nnz_server] * plat.nnz_w
        et = np.maximum.reduceat(vals, plat.AT.indptr[:-1], axis=1)  # (|U|, M)
        new_jct = np.maximum(et, jct)
        best = new_jct.min()
        tie = new_jct <= best * (1 + RTOL)
        flat = int(np.argmin(np.where(tie, et, np.inf)))
        t, j = divmod(flat, plat.n_servers)
        i = int(unplaced[t])
        server[i] = j
        load_on[j] += inst.leq[i, j]
        r = (plat.A @ load_on) / plat.B
        jct = float(r.max())
        unplaced = np.delete(unplaced, t)
    return server


def min_min(inst: Instance) -> Schedule:
    """Min-Min followed by REC when ``E_total > E_MAX``."""
    server, moves = rec(inst, min_min_placement(inst))
    return finish(inst, server, moves)
