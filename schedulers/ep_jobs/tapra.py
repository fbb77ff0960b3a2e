"""TaPRA (Alg. 1), REC (Alg. 2) and TaPRA-fast (Section 4.3.1).

All three share the cheap task-movement evaluation of :func:`.model.move_times`: a movement
``TM_ij`` of task i to server j changes only the constraints of i's old and new server.

Readings where the paper is silent:

* REC (Alg. 2, line 8) picks the energy-reducing movement with the smallest ΔJCT; ties
  (frequent: most movements leave the JCT unchanged) go to the larger energy reduction,
  then to the lower (task, server) index. Comparisons use a relative tolerance of 1e-9.
* Phase III (Alg. 1, lines 9–18) visits the tasks of 𝒯_max in index order. A movement is
  valid when the energy stays within the limit and the task's new time is strictly below
  its current one (relative 1e-9); among valid movements the one giving the smallest new
  time wins (lowest server index on ties). Each movement lowers the JCT or the number of
  constraints at the JCT level, so the search ends; ``max_moves`` is a safety guard only.
* TaPRA-fast's start placement (argmax_j λ_ij) is the least-energy placement, so it never
  needs REC.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedulers.ep_jobs.instance import RTOL, Instance, apply_move, energy, move_times, optra, ratios
from schedulers.ep_jobs.lp import LpSolution, solve_relax_lp

__all__ = ["Schedule", "finish", "local_search", "rec", "tapra", "tapra_fast"]

_CHUNK = 32


@dataclass
class Schedule:
    """A placement with its OptRA allocation."""

    server: np.ndarray  # (N,) server index per task
    c: np.ndarray  # (N,) allocated vCPUs
    et: np.ndarray  # (N,) execution time
    jct: float
    energy: float
    moves: int = 0  # task movements performed by REC and local search
    lp: LpSolution | None = None


def finish(inst: Instance, server: np.ndarray, moves: int = 0, lp: LpSolution | None = None) -> Schedule:
    """OptRA (eq. 16) for a placement, packaged as a :class:`Schedule`."""
    server = np.asarray(server, dtype=np.intp)
    c, et, jct = optra(inst, server)
    return Schedule(server=server, c=c, et=et, jct=jct, energy=energy(inst, server), moves=moves, lp=lp)


def rec(inst: Instance, server: np.ndarray) -> tuple[np.ndarray, int]:
    """REC, Alg. 2: movements that cut energy, smallest ΔJCT first, until E ≤ E_MAX."""
    server = np.array(server, dtype=np.intp)
    n = inst.n_tasks
    tasks = np.arange(n)
    moves = 0
    e_total = energy(inst, server)
    r = ratios(inst, server)
    while e_total > inst.e_limit * (1 + RTOL):
        jct = r.max()
        d_e = inst.ecost - inst.ecost[tasks, server][:, None]
        cand = d_e < -RTOL * max(e_total, 1.0) / n
        movable = np.flatnonzero(cand.any(axis=1))  # tasks not yet on a least-energy server
        if movable.size == 0:
            break
        et_new, rest = move_times(inst, server, r, movable)
        d_jct = np.maximum(et_new, rest[:, None]) - jct
        d_jct[~cand[movable]] = np.inf
        best = d_jct.min()
        tie = d_jct <= best + RTOL * jct
        flat = int(np.argmin(np.where(tie, d_e[movable], np.inf)))
        t, j = divmod(flat, inst.platform.n_servers)
        i = int(movable[t])
        apply_move(inst, r, i, int(server[i]), j)
        server[i] = j
        e_total += float(d_e[i, j])
        moves += 1
    return server, moves


def local_search(inst: Instance, server: np.ndarray, max_moves: int | None = None) -> tuple[np.ndarray, int]:
    """Phase III of Alg. 1: move a task of 𝒯_max to where its time drops most, repeat."""
    server = np.array(server, dtype=np.intp)
    n = inst.n_tasks
    limit = max_moves if max_moves is not None else 50 * n + 1000
    e_total = energy(inst, server)
    e_cap = inst.e_limit * (1 + RTOL)
    moves = 0
    r = ratios(inst, server)
    while moves < limit:
        jct = r.max()
        et = np.maximum.reduceat(r[inst.platform.nnz_con], inst.platform.AT.indptr[:-1])[server]
        t_max = np.flatnonzero(et >= jct * (1 - RTOL))
        moved = False
        for lo in range(0, t_max.size, _CHUNK):
            chunk = t_max[lo : lo + _CHUNK]
            et_new, _ = move_times(inst, server, r, chunk)
            e_new = e_total + inst.ecost[chunk] - inst.ecost[chunk, server[chunk]][:, None]
            valid = (e_new <= e_cap) & (et_new < et[chunk][:, None] * (1 - RTOL))
            ok = valid.any(axis=1)
            if not ok.any():
                continue
            t = int(np.argmax(ok))
            j = int(np.argmin(np.where(valid[t], et_new[t], np.inf)))
            i = int(chunk[t])
            e_total = float(e_new[t, j])
            apply_move(inst, r, i, int(server[i]), j)
            server[i] = j
            moves += 1
            moved = True
            break
        if not moved:
            break
    return server, moves


def tapra(inst: Instance, lp_form: str = "colgen", max_moves: int | None = None) -> Schedule:
    """TaPRA, Alg. 1: LP relaxation (Phase I), argmax rounding eq. 55 + OptRA + REC
    (Phase II), local search (Phase III)."""
    lp = solve_relax_lp(inst, lp_form)
    server = np.argmax(lp.load_split, axis=1).astype(np.intp)
    server, m1 = rec(inst, server)
    server, m2 = local_search(inst, server, max_moves)
    return finish(inst, server, m1 + m2, lp)


def tapra_fast(inst: Instance, max_moves: int | None = None) -> Schedule:
    """TaPRA-fast, Section 4.3.1: each task on its most efficient server, then local search."""
    server = np.argmax(inst.lam, axis=1).astype(np.intp)
    server, moves = rec(inst, server)  # a no-op: this is the least-energy placement
    server, m2 = local_search(inst, server, max_moves)
    return finish(inst, server, moves + m2)
