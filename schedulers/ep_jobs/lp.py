"""SJS-Relax-LP (Section 4.2.1, eqs. 49–54) solved with HiGHS.

The relaxation splits every task over all servers (divisible load). Its optimum ``T`` is a
lower bound on the JCT of any integral placement (``lp_bound_s``); the split ``l_ij`` drives
TaPRA's Phase II (eq. 55).

Three forms are provided; all give the same optimum (tested):

* ``"literal"``: variables ``T, l_ij, p_ij`` (2NM + 1) with rows (50) λ p ≥ l, (51) energy,
  (52) availability and (53) load conservation (NM + R + N + 1 rows).
* ``"reduced"``: at an optimum ``p_ij = l_ij/λ_ij`` — a larger ``p`` only tightens (52) — so
  ``p`` is eliminated, leaving ``T`` and ``f_ij = l_ij / Load_i`` (NM + 1 variables, R + N + 1
  rows). Rows are scaled to unit bounds (energy / E_MAX, availability k / B_k).
* ``"colgen"`` (default): the reduced form solved by column generation. It starts from each
  task's 8 most efficient servers and adds the columns whose reduced cost
  ``−(y_E·αL_ij/E + L_ij·Σ_k A_kj y_k/B_k + π_i)`` is negative (HiGHS duals), until none is;
  LP duality then makes the restricted optimum the full one. 200 tasks × 432 servers: ~0.05 s
  instead of ~1.5–3 s. HiGHS may return a different optimal vertex than the full form, which
  can change TaPRA's rounding (eq. 55) but not the bound.

Eq. (51) uses the effective limit ``max(E_MAX, E_min)`` (see :mod:`.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.ep_jobs.instance import Instance

sp, optimize = lazy("scipy.sparse"), lazy("scipy.optimize")

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
    res = optimize.linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"SJS-Relax-LP failed: {res.message}")
    return res.x


class _Restricted:
    """What column generation reads of a restricted LP's optimum: ``x`` and the row duals (scipy's signs)."""

    __slots__ = ("eq_duals", "ub_duals", "x")

    def __init__(self, x: np.ndarray, ub_duals: np.ndarray, eq_duals: np.ndarray):
        self.x, self.ub_duals, self.eq_duals = x, ub_duals, eq_duals


def _highs(c: np.ndarray, indptr, indices, data, lhs: np.ndarray, rhs: np.ndarray, n_ub: int) -> _Restricted:
    """``min c·x`` s.t. ``lhs ≤ A x ≤ rhs``, ``x ≥ 0``, ``A`` given column-wise (CSC): HiGHS called as
    ``scipy.optimize.linprog(method="highs")`` calls it — the same model, the same options (presolve on,
    dual simplex strategy, no output), so the same optimum bit for bit — without its input parsing,
    sparse conversions and per-column bound marginals, which cost several times the solve itself on
    the small LPs that OnTaPRA solves by the thousand (docs/ep_jobs.md, "Speed").
    The solution is refused as linprog would (``_check_result``)."""
    from scipy.optimize._highspy import _core as h
    from scipy.optimize._linprog_util import _check_result

    n, m = c.size, rhs.size
    lp = h.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.format_ = h.MatrixFormat.kColwise
    lp.col_cost_ = c
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.full(n, h.kHighsInf)
    lp.row_lower_ = np.where(np.isinf(lhs), np.sign(lhs) * h.kHighsInf, lhs)
    lp.row_upper_ = rhs
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = indptr, indices, data
    highs = h._Highs()
    options = h.HighsOptions()
    options.presolve = "on"
    options.highs_debug_level = h.HighsDebugLevel.kHighsDebugLevelNone
    options.log_to_console = False
    options.output_flag = False
    options.simplex_strategy = h.simplex_constants.SimplexStrategy.kSimplexStrategyDual
    highs.passOptions(options)
    highs.passModel(lp)
    highs.run()
    if highs.getModelStatus() != h.HighsModelStatus.kOptimal:
        raise RuntimeError(f"SJS-Relax-LP failed: {highs.modelStatusToString(highs.getModelStatus())}")
    sol = highs.getSolution()
    x = np.array(sol.col_value)
    slack = rhs - np.asarray(sol.row_value)
    bounds = np.column_stack([np.zeros(n), np.full(n, np.inf)])
    status, message = _check_result(x, highs.getInfo().objective_function_value, 0, slack[:n_ub], slack[n_ub:],
                                    bounds, 1e-9, "", None)  # fmt: skip
    if status != 0:
        raise RuntimeError(f"SJS-Relax-LP failed: {message}")
    duals = np.array(sol.row_dual)
    return _Restricted(x, duals[:n_ub], duals[n_ub:])


def _restricted(inst: Instance, ci: np.ndarray, cj: np.ndarray) -> _Restricted:
    """Reduced form on the columns (ci, cj), rows scaled to unit bounds.

    Variables ``[T, f_c]``; rows: energy / E, availability k / B_k (``Σ A_kj L_ij f_ij / B_k ≤ T``),
    and ``Σ_j f_ij = 1`` per task. The matrix is built column-wise as scipy's ``csc_array`` of the
    stacked rows would be (row indices ascending in each column): T's column holds −1 on every
    availability row; column ``c`` holds its energy coefficient (row 0), its availability terms
    (rows ``1 + k`` for the constraints k over server ``cj[c]``, ascending) and 1 on its task's row.
    """
    plat = inst.platform
    n, r, ncol = inst.n_tasks, plat.A.shape[0], ci.size
    lengths = plat.deg[cj]
    col = np.repeat(np.arange(ncol), lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    pos = np.repeat(plat.AT.indptr[cj], lengths) + offsets
    k = plat.nnz_con[pos]
    # within a column, availability rows in ascending order (AT's indices may not be sorted)
    order = np.lexsort((k, col))
    col, k, pos = col[order], k[order], pos[order]
    per_col = lengths + 2
    indptr = np.concatenate([[0, r], r + np.cumsum(per_col)]).astype(np.int32)
    nnz = r + int(per_col.sum())
    indices = np.empty(nnz, np.int32)
    data = np.empty(nnz)
    indices[:r], data[:r] = np.arange(1, r + 1), -1.0
    first = indptr[1:-1]  # where each f column starts
    indices[first], data[first] = 0, inst.ecost[ci, cj] / inst.e_limit
    body = np.repeat(first + 1, lengths) + (np.arange(col.size) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    indices[body], data[body] = 1 + k, plat.nnz_w[pos] * inst.leq[ci[col], cj[col]]
    last = indptr[2:] - 1
    indices[last], data[last] = r + 1 + ci, 1.0
    lhs = np.concatenate([np.full(r + 1, -np.inf), np.ones(n)])
    rhs = np.concatenate([[1.0], np.zeros(r), np.ones(n)])
    return _highs(np.eye(1, ncol + 1).ravel(), indptr, indices, data, lhs, rhs, r + 1)


def _split(inst: Instance, ci, cj, res) -> LpSolution:
    split = np.zeros(inst.lam.shape)
    split[ci, cj] = res.x[1:] * inst.loads[ci]
    return LpSolution(t=float(res.x[0]), load_split=split)


def _column_generation(inst: Instance, start: int = 8, add: int = 4) -> LpSolution:
    """The reduced LP by column generation: start from each task's ``start`` most efficient
    servers, add the ``add`` most negative reduced-cost columns per task, stop when none is
    negative — then the restricted optimum is the full one (LP duality)."""
    n, m = inst.lam.shape
    mask = np.zeros((n, m), dtype=bool)
    best = np.argsort(-inst.lam, axis=1, kind="stable")[:, : min(start, m)]
    mask[np.arange(n)[:, None], best] = True
    while True:
        ci, cj = np.nonzero(mask)
        res = _restricted(inst, ci, cj)
        y_e, y_k = res.ub_duals[0], res.ub_duals[1:]
        w = inst.platform.AT @ (y_k / inst.platform.B)  # Σ_k A_kj y_k / B_k per server
        reduced = -(y_e * inst.ecost / inst.e_limit + inst.leq * w[None, :] + res.eq_duals[:, None])
        reduced[mask] = 0.0
        tol = 1e-9 * max(1.0, abs(res.x[0]))
        if reduced.min() >= -tol:
            return _split(inst, ci, cj, res)
        k = min(add, m)
        cand = np.argpartition(reduced, k - 1, axis=1)[:, :k]
        rows = np.repeat(np.arange(n), k)
        pick = cand.ravel()
        neg = reduced[rows, pick] < -tol
        mask[rows[neg], pick[neg]] = True


def solve_relax_lp(inst: Instance, form: str = "colgen") -> LpSolution:
    """Solve SJS-Relax-LP; returns its optimum ``T`` and the load split ``l_ij``."""
    n, m = inst.n_tasks, inst.platform.n_servers
    if form == "colgen":
        return _column_generation(inst)
    if form == "reduced":
        ci, cj = np.divmod(np.arange(n * m), m)
        return _split(inst, ci, cj, _restricted(inst, ci, cj))
    if form != "literal":
        raise ValueError(f"unknown LP form {form!r}")
    nm = n * m
    plat = inst.platform
    r = plat.A.shape[0]
    eq_rows = sp.csr_matrix((np.ones(nm), (np.repeat(np.arange(n), m), np.arange(nm))), shape=(n, nm))
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
