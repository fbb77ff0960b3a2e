"""OptRA closed form (eq. 16), the movement evaluation and the FatTree generator."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from schedulers.ep_jobs.instance import Instance, Platform, fattree_platform, move_times, optra, ratios

from .conftest import random_instance


def _optra_by_lp(inst: Instance, server: np.ndarray) -> float:
    """The OptRA problem (eqs. 12–15) as an LP: maximise z = 1/T with c_i ≥ L_i z, Σ P_ik c_i ≤ B_k."""
    n = inst.n_tasks
    L = inst.leq[np.arange(n), server]
    P = inst.platform.A[:, server]  # (R, N)
    a_ub = sp.vstack(
        [sp.hstack([sp.csr_matrix(L[:, None]), -sp.identity(n)]), sp.hstack([sp.csr_matrix((P.shape[0], 1)), P])]
    )
    b_ub = np.concatenate([np.zeros(n), inst.platform.B])
    c = np.zeros(n + 1)
    c[0] = -1.0
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    assert res.status == 0
    return 1.0 / res.x[0]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 30), pods=st.sampled_from([2, 4, 6]), seed=st.integers(0, 10**6))
def test_optra_equals_the_lp_optimum(n, pods, seed):
    """Eq. 16 gives the same JCT as HiGHS on the OptRA problem, and its allocation is feasible."""
    inst = random_instance(n, pods, seed)
    server = np.random.default_rng(seed).integers(0, inst.platform.n_servers, n)
    c, et, jct = optra(inst, server)
    assert jct == pytest.approx(_optra_by_lp(inst, server), rel=1e-7)
    used = np.bincount(server, weights=c, minlength=inst.platform.n_servers)
    assert np.all(inst.platform.A @ used <= inst.platform.B * (1 + 1e-9))
    assert np.allclose(et, inst.leq[np.arange(n), server] / c)
    assert jct == pytest.approx(et.max())


def test_paper_introduction_example():
    """Sec. 1.1: servers (35, 10, 30), loads (100, 200, 400, 500), ≤ 30 per rack: JCT 20."""
    cap = np.array([35.0, 10.0, 30.0])
    a = sp.csr_matrix(np.vstack([np.eye(3), [[1, 0, 0], [0, 1, 1]]]))
    plat = Platform(cap, a, np.concatenate([cap, [30, 30]]), ["s1", "s2", "s3"], ["s1", "s2", "s3", "rack1", "rack2"])
    inst = Instance(plat, np.array([100.0, 200, 400, 500]), np.ones((4, 3)), 1.0, 1e9)
    c, _et, jct = optra(inst, np.array([0, 1, 2, 0]))
    assert jct == pytest.approx(20.0)
    assert c.sum() == pytest.approx(60.0)
    assert np.allclose(c, [5, 10, 20, 25])


def test_move_times_match_recomputation(small_instance):
    """The cheap movement evaluation equals OptRA recomputed from scratch for every move."""
    inst = small_instance
    rng = np.random.default_rng(1)
    server = rng.integers(0, inst.platform.n_servers, inst.n_tasks)
    r = ratios(inst, server)
    et_new, rest = move_times(inst, server, r, np.arange(inst.n_tasks))
    assert inst.n_tasks > 0  # the loop below checks each
    for i in range(inst.n_tasks):
        for b in range(inst.platform.n_servers):
            moved = server.copy()
            moved[i] = b
            _, et, jct = optra(inst, moved)
            assert et_new[i, b] == pytest.approx(et[i], rel=1e-9)
            assert max(rest[i], et_new[i, b]) == pytest.approx(jct, rel=1e-9)


@pytest.mark.parametrize("pods", [2, 4, 6, 8, 12])
def test_fattree_has_the_paper_constraints(pods):
    """y³/4 servers; y pods, y²/2 racks, one DC constraint (eqs. 57–58) plus one per server."""
    m = pods**3 // 4
    cap = np.arange(1.0, m + 1)
    plat = fattree_platform(pods, cap, beta_rack=0.3, beta_pod=0.2, beta_dc=0.2)
    assert plat.n_servers == m
    assert len(plat.B) == m + pods * pods // 2 + pods + 1
    assert plat.B[-1] == pytest.approx(0.2 * cap.sum())
    rack0 = plat.constraint_names.index("rack0")
    assert plat.B[rack0] == pytest.approx(0.3 * cap[: pods // 2].sum())
    assert np.all(plat.deg == 4)


def test_energy_limit_below_the_minimum_is_raised_to_it():
    inst = random_instance(10, 4, seed=3, slack=0.0)
    inst2 = Instance(inst.platform, inst.loads, inst.lam, 1.0, 1.0)
    assert inst2.e_limit == pytest.approx(inst.ecost.min(axis=1).sum())
