"""SJS-Relax-LP (Section 4.2.1, eqs. 49–54) solved with HiGHS.

The relaxation splits every task over all servers (divisible load). Its optimum ``T`` is a
lower bound on the JCT of any integral placement (``lp_bound_s``); the split ``l_ij`` drives
TaPRA's Phase II (eq. 55).

Two forms are provided:

* ``"literal"``: variables ``T, l_ij, p_ij`` (2NM + 1) with rows (50) λ p ≥ l, (51) energy,
  (52) availability and (53) load conservation (NM + R + N + 1 rows).
* ``"reduced"`` (default): at an optimum ``p_ij = l_ij/λ_ij`` — a larger ``p`` only tightens
  (52) — so ``p`` is eliminated, leaving ``T`` and ``f_ij = l_ij / Load_i`` (NM + 1 variables,
  R + N + 1 rows). Scaling ``l`` by the task's load keeps the matrix well conditioned. Both
  forms give the same optimum (tested).

Eq. (51) uses the effective limit ``max(E_MAX, E_min)`` (see :mod:`.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from schedulers.ep_jobs.model import Instance

__all__ = ["LpSolution", "solve_relax_lp"]


@dataclass
class LpSolution:
    t: float  # optimum T, the lower bound on JCT (s)
    load_split: np.ndarray  # (N, M) l_ij


def _availability_rows(inst: Instance, scale: np.ndarray) -> sp.csr_matrix:
    """Rows ``Σ_j A_kj Σ_i scale_ij · v_ij`` for variables v in row-major (i, j) order."""
    plat = inst.platform
    coo = plat.A.tocoo()
    n, m = inst.n_tasks, plat.n_servers
    task = np.repeat(np.arange(n), coo.nnz)
    k = np.tile(coo.row, n)
    j = np.tile(coo.col, n)
    vals = np.tile(coo.data, n) * scale[task, j]
    return sp.csr_matrix((vals, (k, task * m + j)), shape=(plat.A.shape[0], n * m))


def _solve(c, a_ub, b_ub, a_eq, b_eq) -> np.ndarray:
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"SJS-Relax-LP failed: {res.message}")
    return res.x


def solve_relax_lp(inst: Instance, form: str = "reduced") -> LpSolution:
    """Solve SJS-Relax-LP; returns its optimum ``T`` and the load split ``l_ij``."""
    n, m = inst.n_tasks, inst.platform.n_servers
    nm = n * m
    plat = inst.platform
    r = plat.A.shape[0]
    eq_rows = sp.csr_matrix((np.ones(nm), (np.repeat(np.arange(n), m), np.arange(nm))), shape=(n, nm))
    col_t = sp.csr_matrix(np.concatenate([[[0.0]], -plat.B[:, None]]))
    if form == "reduced":
        # variables [T, f_ij]; l_ij = Load_i f_ij, p_ij = l_ij / λ_ij
        energy_row = sp.csr_matrix(inst.ecost.reshape(1, nm))
        avail = _availability_rows(inst, inst.leq)
        a_ub = sp.hstack([col_t, sp.vstack([energy_row, avail])]).tocsr()
        b_ub = np.concatenate([[inst.e_limit], np.zeros(r)])
        a_eq = sp.hstack([sp.csr_matrix((n, 1)), eq_rows]).tocsr()
        x = _solve(np.eye(1, nm + 1).ravel(), a_ub, b_ub, a_eq, np.ones(n))
        return LpSolution(t=float(x[0]), load_split=x[1:].reshape(n, m) * inst.loads[:, None])
    if form != "literal":
        raise ValueError(f"unknown LP form {form!r}")
    # variables [T, l_ij, p_ij]
    lam = inst.lam.ravel()
    ident = sp.identity(nm, format="csr")
    rows50 = sp.hstack([sp.csr_matrix((nm, 1)), ident, -sp.diags(lam)])  # l - λ p ≤ 0
    energy_row = sp.hstack(
        [sp.csr_matrix((1, 1)), sp.csr_matrix((inst.alpha[:, None] / inst.lam).reshape(1, nm)), sp.csr_matrix((1, nm))]
    )
    avail = _availability_rows(inst, np.ones((n, m)))
    rows52 = sp.hstack([sp.csr_matrix(-plat.B[:, None]), sp.csr_matrix((r, nm)), avail])
    a_ub = sp.vstack([rows50, energy_row, rows52]).tocsr()
    b_ub = np.concatenate([np.zeros(nm), [inst.e_limit], np.zeros(r)])
    a_eq = sp.hstack([sp.csr_matrix((n, 1)), eq_rows, sp.csr_matrix((n, nm))]).tocsr()
    x = _solve(np.eye(1, 2 * nm + 1).ravel(), a_ub, b_ub, a_eq, inst.loads)
    return LpSolution(t=float(x[0]), load_split=x[1 : nm + 1].reshape(n, m))
