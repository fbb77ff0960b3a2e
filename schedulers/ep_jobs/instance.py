"""The single-job model of Shi, Zhang & Robertazzi (Section 3) and the OptRA closed form (Section 4.1).

A *platform* is the data centre as one job sees it: ``M`` servers and ``R`` resource
availability constraints ``Σ_j A_kj c_sj ≤ B_k`` (eq. 4), stored as a sparse ``R × M``
matrix. An :class:`Instance` is a platform plus one job: task loads ``Load_i``, the
efficiency matrix ``λ_ij`` (eq. 1), the VM power constants ``α_i`` (eq. 7) and the energy
limit ``E_MAX`` (eq. 9). A placement is an int array ``server[i]``.

Key identity used everywhere (eq. 16): with the equivalent loads ``L_i = Load_i/λ_{i,s_i}``
(eq. 15) and the constraint sums ``S_k = Σ_i A_{k,s_i} L_i``, OptRA gives task ``i`` the
allocation ``c_i = L_i / max_{k ∈ R_i} S_k/B_k`` so its time is ``et_i = max_{k∈R_i} S_k/B_k``
and ``JCT = max_k S_k/B_k``. Moving one task changes ``S`` only on the constraints of its
old and new server, which :func:`move_times` evaluates for every destination at once.

Readings where the paper is silent:

* Every server carries its own capacity constraint ``c_sj ≤ C_sj`` (β = 1) in addition to
  the pod/rack/DC constraints of eqs. 57–58, so no allocation ever exceeds a server.
* If ``E_MAX`` is below the least energy any placement can reach
  (``E_min = Σ α_i Load_i / max_j λ_ij``; the paper assumes ``E_min = Σ Load_i``, which
  only holds when some λ equals 1), every algorithm and the LP use ``max(E_MAX, E_min)``;
  the metric ``energy_limit_met`` reports whether the requested limit was met.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedulers.core.lazy import lazy

sp = lazy("scipy.sparse")

__all__ = [
    "Instance",
    "Platform",
    "apply_move",
    "energy",
    "fattree_platform",
    "move_times",
    "optra",
    "ratios",
    "static_shares",
    "static_view",
]

# relative tolerance for "equal JCT" and "within the energy limit" comparisons
RTOL = 1e-9


@dataclass
class Platform:
    """Servers and availability constraints (eq. 4) with precomputed sparse views."""

    capacity: np.ndarray  # (M,) C_sj, vCPUs
    A: sp.csr_matrix  # (R, M) coefficients A_jk (transposed: one row per constraint)
    B: np.ndarray  # (R,) bounds B_k
    servers: list[str]
    constraint_names: list[str]
    fraction: np.ndarray = field(default=None)  # (R,) B_k / Σ_j A_kj C_sj, used online

    def __post_init__(self) -> None:
        self.A = sp.csr_matrix(self.A, dtype=float)
        self.A.sum_duplicates()
        self.A.eliminate_zeros()
        self.B = np.asarray(self.B, dtype=float)
        self.capacity = np.asarray(self.capacity, dtype=float)
        at = self.A.T.tocsr()
        at.sort_indices()
        self.AT = at
        self.nnz_con = at.indices.astype(np.intp)
        self.nnz_server = np.repeat(np.arange(at.shape[0]), np.diff(at.indptr))
        self.nnz_w = at.data / self.B[self.nnz_con]
        self.deg = np.diff(at.indptr)
        # dense (M, R) copy of A_kj / B_k for the movement evaluation when it is small
        m, r = at.shape
        self.w_dense = (at.multiply(1.0 / self.B[None, :])).toarray() if m * r <= 4_000_000 else None
        if self.fraction is None:
            full = self.A @ self.capacity
            self.fraction = np.divide(self.B, full, out=np.ones_like(self.B), where=full > 0)

    @property
    def n_servers(self) -> int:
        return int(self.A.shape[1])

    def subset(self, keep: np.ndarray, bounds: np.ndarray) -> Platform:
        """The platform restricted to servers ``keep`` with new bounds (online scheduling)."""
        rows = np.asarray(bounds > 0)
        a = self.A[:, keep]
        live = rows & (np.diff(a.indptr) > 0)
        return Platform(
            capacity=self.capacity[keep],
            A=a[live],
            B=bounds[live],
            servers=[self.servers[j] for j in keep],
            constraint_names=[n for n, ok in zip(self.constraint_names, live, strict=True) if ok],
            fraction=self.fraction[live],
        )


@dataclass
class Instance:
    """One job on one platform (Section 3.1)."""

    platform: Platform
    loads: np.ndarray  # (N,)
    lam: np.ndarray  # (N, M) efficiencies λ_ij in (0, 1]
    alpha: np.ndarray  # (N,) VM power constants α
    e_max: float  # requested energy limit E_MAX (eq. 9)
    job: str = "0"

    def __post_init__(self) -> None:
        self.loads = np.asarray(self.loads, dtype=float)
        self.lam = np.asarray(self.lam, dtype=float)
        self.alpha = np.broadcast_to(np.asarray(self.alpha, dtype=float), self.loads.shape).copy()
        self.leq = self.loads[:, None] / self.lam  # equivalent loads L_ij (eq. 15)
        self.ecost = self.alpha[:, None] * self.leq  # energy of task i on server j (eq. 8)
        self.e_min = float(self.ecost.min(axis=1).sum())
        self.e_limit = max(float(self.e_max), self.e_min)

    @property
    def n_tasks(self) -> int:
        return int(self.loads.size)


def ratios(inst: Instance, server: np.ndarray) -> np.ndarray:
    """``S_k / B_k`` for every constraint k under placement ``server``."""
    plat = inst.platform
    w = np.bincount(server, weights=inst.leq[np.arange(server.size), server], minlength=plat.n_servers)
    # S = A·w through the per-nonzero arrays: cheaper than a scipy product for small instances
    return np.bincount(plat.nnz_con, weights=plat.nnz_w * w[plat.nnz_server], minlength=plat.B.size)


def apply_move(inst: Instance, r: np.ndarray, task: int, src: int, dst: int) -> None:
    """Update ``r = S/B`` in place for task ``task`` moving from server ``src`` to ``dst``."""
    plat = inst.platform
    lo, hi = plat.AT.indptr[src], plat.AT.indptr[src + 1]
    r[plat.nnz_con[lo:hi]] -= inst.leq[task, src] * plat.nnz_w[lo:hi]
    lo, hi = plat.AT.indptr[dst], plat.AT.indptr[dst + 1]
    r[plat.nnz_con[lo:hi]] += inst.leq[task, dst] * plat.nnz_w[lo:hi]


def _server_times(plat: Platform, r: np.ndarray) -> np.ndarray:
    """``max_{k ∋ j} r_k`` per server j (every server has at least one constraint)."""
    return np.maximum.reduceat(r[plat.nnz_con], plat.AT.indptr[:-1])


def optra(inst: Instance, server: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """OptRA analytical solution, eq. 16: returns ``(c, et, JCT)`` for a fixed placement.

    ``c_i = min_{k∈R_i} L_i B_k / Σ_j P_jk L_j``; Theorem 1 proves it optimal. Vectorised as
    ``et_i = max_{k∈R_i} S_k/B_k`` and ``c_i = L_i / et_i``.
    """
    server = np.asarray(server, dtype=np.intp)
    r = ratios(inst, server)
    et = _server_times(inst.platform, r)[server]
    c = inst.leq[np.arange(server.size), server] / et
    return c, et, float(r.max()) if r.size else 0.0


def static_shares(plat: Platform) -> np.ndarray:
    """Fixed vCPUs per server: ``C_sj · min_{k ∋ j} B_k / Σ_j' A_kj' C_sj'``.

    Every server gets the same fraction of its capacity as every constraint it is
    in allows when all servers draw their share at once, so the shares meet eq. 4
    whatever the placement — a *static* allocation, decided before tasks are placed.
    """
    full = plat.A @ plat.capacity
    theta = np.divide(plat.B, full, out=np.ones_like(plat.B), where=full > 0)
    return plat.capacity * np.minimum.reduceat(theta[plat.nnz_con], plat.AT.indptr[:-1])


def static_view(inst: Instance) -> Instance:
    """The job on its platform with static per-server shares (the baselines' allocation).

    Section 2 of the paper: the baselines' approaches [10], [11] "consider the
    computing resources allocated to each task as static"; Sec. 6.1.4 credits TaPRA's
    advantage to eq. 16, which it uses "to optimally allocate resource for any given
    task placement plan". Reading: a baseline's server offers a fixed share
    (:func:`static_shares`), split among the tasks placed there in proportion to
    their equivalent loads (so they end together). That is OptRA on a platform with
    one constraint per server, ``c_sj ≤ share_j``, so every algorithm runs unchanged
    on the returned instance and reports that allocation.
    """
    plat = inst.platform
    m = plat.n_servers
    shares = static_shares(plat)
    static = Platform(
        capacity=plat.capacity, A=sp.identity(m, format="csr"), B=shares,
        servers=plat.servers, constraint_names=list(plat.servers),
    )  # fmt: skip
    return Instance(static, inst.loads, inst.lam, inst.alpha, inst.e_max, inst.job)


def energy(inst: Instance, server: np.ndarray) -> float:
    """Total job energy, eq. 9: ``Σ α_i Load_i / λ_{i,s_i}``."""
    return float(inst.ecost[np.arange(server.size), server].sum())


def move_times(inst: Instance, server: np.ndarray, r: np.ndarray, tasks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Effect of moving each task of ``tasks`` to every server (the issue's "cheap movement").

    Returns ``(et_new, rest)``, both indexed by task: ``et_new[t, b]`` is the new time of task
    ``tasks[t]`` if it moves to server b and ``rest[t]`` the JCT of all the other tasks once it
    has left. The JCT after the move is ``max(rest, et_new)``; ``et_new[t, s_t]`` is its current
    time. Cost O(len(tasks) · nnz(A)).
    """
    plat = inst.platform
    tasks = np.asarray(tasks, dtype=np.intp)
    n = tasks.size
    src = server[tasks]
    la = inst.leq[tasks, src]
    if plat.w_dense is not None:
        rp = r[None, :] - la[:, None] * plat.w_dense[src]
    else:
        lengths = plat.deg[src]
        rows = np.repeat(np.arange(n), lengths)
        offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        pos = np.repeat(plat.AT.indptr[src], lengths) + offsets
        rp = np.tile(r, (n, 1))
        rp[rows, plat.nnz_con[pos]] -= np.repeat(la, lengths) * plat.nnz_w[pos]
    rest = rp.max(axis=1) if r.size else np.zeros(n)
    vals = rp[:, plat.nnz_con] + inst.leq[tasks][:, plat.nnz_server] * plat.nnz_w
    et_new = np.maximum.reduceat(vals, plat.AT.indptr[:-1], axis=1)
    return et_new, rest


def fattree_platform(
    pods: int,
    capacity: np.ndarray,
    beta_rack: float = 0.3,
    beta_pod: float = 0.2,
    beta_dc: float = 0.2,
    server_constraints: bool = True,
) -> Platform:
    """A y-ary FatTree (Section 6.1.1): y pods × y/2 racks × y/2 servers = y³/4 servers.

    Constraints (eqs. 57–58): one per pod, per rack and for the whole DC with bound
    β·(capacity below it), plus, by our reading, one per server with bound ``C_sj``.
    """
    half = pods // 2
    m = pods * half * half
    capacity = np.asarray(capacity, dtype=float)
    if capacity.shape != (m,):
        raise ValueError(f"a {pods}-ary FatTree has {m} servers, got {capacity.shape} capacities")
    srv = np.arange(m)
    rack = srv // half
    pod = srv // (half * half)
    n_racks = pods * half
    levels = [(rack, n_racks, beta_rack, "rack"), (pod, pods, beta_pod, "pod"), (np.zeros(m, int), 1, beta_dc, "dc")]
    if server_constraints:
        levels.insert(0, (srv, m, 1.0, "server"))
    rows, names, betas = [], [], []
    offset = 0
    for member, count, beta_level, label in levels:
        rows.append(offset + member)
        names += [label if label == "dc" else f"{label}{k}" for k in range(count)]
        betas.append(np.full(count, beta_level))
        offset += count
    row = np.concatenate(rows)
    col = np.tile(srv, len(levels))
    beta = np.concatenate(betas)
    a = sp.csr_matrix((np.ones(row.size), (row, col)), shape=(beta.size, m))
    bound = beta * (a @ capacity)
    servers = [f"p{p}r{r % half}s{j % half}" for j, (p, r) in enumerate(zip(pod, rack, strict=True))]
    return Platform(capacity=capacity, A=a, B=bound, servers=servers, constraint_names=names, fraction=beta)
