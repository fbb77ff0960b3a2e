"""Offline algorithms: valid schedules, the LP bound, REC and local search (Secs. 4.2–4.3, 6.1.3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.ep_jobs.genetic import GaParams, fitness, gsa, mm_ga
from schedulers.ep_jobs.instance import RTOL, Instance, energy, optra
from schedulers.ep_jobs.lp import solve_relax_lp
from schedulers.ep_jobs.minmin import min_min, min_min_placement
from schedulers.ep_jobs.tapra import local_search, rec, tapra, tapra_fast

from .conftest import random_instance

SMALL_GA = GaParams(population=12, generations=8, sa_steps=3)
ALGORITHMS = {
    "tapra": lambda inst: tapra(inst),
    "tapra_fast": lambda inst: tapra_fast(inst),
    "min_min": lambda inst: min_min(inst),
    "mm_ga": lambda inst: mm_ga(inst, np.random.default_rng(0), SMALL_GA),
    "gsa": lambda inst: gsa(inst, np.random.default_rng(0), SMALL_GA),
}


def assert_valid(inst: Instance, sched) -> None:
    """Each task on one server, every constraint k holds, energy within the limit, JCT = max L/(λc)."""
    n, m = inst.n_tasks, inst.platform.n_servers
    assert sched.server.shape == (n,)
    assert np.all((sched.server >= 0) & (sched.server < m))
    used = np.bincount(sched.server, weights=sched.c, minlength=m)
    assert np.all(inst.platform.A @ used <= inst.platform.B * (1 + 1e-9))
    assert np.all(used <= inst.platform.capacity * (1 + 1e-9))
    assert sched.energy == pytest.approx(energy(inst, sched.server))
    assert sched.energy <= inst.e_limit * (1 + 1e-9)
    times = inst.loads / (inst.lam[np.arange(n), sched.server] * sched.c)
    assert np.allclose(times, sched.et)
    assert sched.jct == pytest.approx(times.max())


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize(("n", "pods", "seed"), [(1, 2, 0), (15, 4, 1), (40, 6, 2)])
def test_every_algorithm_gives_a_valid_schedule_above_the_lp_bound(name, n, pods, seed):
    inst = random_instance(n, pods, seed)
    sched = ALGORITHMS[name](inst)
    assert_valid(inst, sched)
    assert sched.jct >= solve_relax_lp(inst).t * (1 - 1e-7)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 25), pods=st.sampled_from([2, 4]), seed=st.integers(0, 10**6), slack=st.floats(0, 0.1))
def test_tapra_is_valid_and_never_below_the_lp_bound(n, pods, seed, slack):
    inst = random_instance(n, pods, seed, slack)
    sched = tapra(inst)
    assert_valid(inst, sched)
    assert sched.jct >= sched.lp.t * (1 - 1e-7)
    assert energy(inst, sched.server) <= inst.e_max * (1 + 1e-9) or inst.e_max < inst.e_min


@pytest.mark.parametrize(("n", "pods", "seed"), [(5, 4, 5), (30, 4, 30), (60, 6, 2)])
def test_all_lp_forms_agree(n, pods, seed):
    """Literal eqs. 49–54, the reduced form (p eliminated) and column generation: one optimum."""
    inst = random_instance(n, pods, seed=seed)
    forms = {f: solve_relax_lp(inst, f) for f in ("literal", "reduced", "colgen")}
    assert forms  # the loop below checks each
    for sol in forms.values():
        assert sol.t == pytest.approx(forms["literal"].t, rel=1e-6)
        assert np.allclose(sol.load_split.sum(axis=1), inst.loads)
        assert (inst.ecost / inst.loads[:, None] * sol.load_split).sum() <= inst.e_limit * (1 + 1e-6)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 40), pods=st.sampled_from([2, 4, 6]), seed=st.integers(0, 10**6), slack=st.floats(0, 0.1))
def test_column_generation_reaches_the_full_optimum(n, pods, seed, slack):
    inst = random_instance(n, pods, seed, slack)
    assert solve_relax_lp(inst, "colgen").t == pytest.approx(solve_relax_lp(inst, "reduced").t, rel=1e-7)


def test_lp_bound_is_the_fluid_optimum_without_energy_pressure():
    """With λ = 1 and a loose limit the relaxation is total load / DC bound when the DC row binds."""
    inst = random_instance(20, 4, seed=5)
    loose = Instance(inst.platform, inst.loads, np.ones_like(inst.lam), 1.0, 1e12)
    dc = loose.platform.B[-1]
    assert solve_relax_lp(loose).t == pytest.approx(max(loose.loads.sum() / dc, 0.0), rel=1e-6)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 10**6))
def test_local_search_never_makes_jct_worse(n, seed):
    inst = random_instance(n, 4, seed, slack=0.5)
    start = np.argmax(inst.lam, axis=1)
    _, _, before = optra(inst, start)
    improved, _ = local_search(inst, start)
    _, _, after = optra(inst, improved)
    assert after <= before * (1 + RTOL)
    assert energy(inst, improved) <= inst.e_limit * (1 + 1e-9)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 10**6))
def test_rec_brings_any_placement_within_the_energy_limit(n, seed):
    inst = random_instance(n, 4, seed, slack=0.01)
    start = np.random.default_rng(seed).integers(0, inst.platform.n_servers, n)
    fixed, _ = rec(inst, start)
    assert energy(inst, fixed) <= inst.e_limit * (1 + 1e-9)


def test_tapra_fast_starts_from_the_least_energy_placement():
    inst = random_instance(30, 4, seed=11, slack=0.0)
    sched = tapra_fast(inst)
    assert sched.energy <= inst.e_limit * (1 + 1e-9)


def test_fitness_is_optra_jct(small_instance):
    pop = np.random.default_rng(0).integers(0, small_instance.platform.n_servers, (6, small_instance.n_tasks))
    expected = [optra(small_instance, p)[2] for p in pop]
    assert np.allclose(fitness(small_instance, pop), expected)


def test_mm_ga_is_no_worse_than_min_min():
    """MM-GA keeps its elite, and Min-Min's placement is in its first population."""
    inst = random_instance(30, 4, seed=4, slack=1.0)
    assert mm_ga(inst, np.random.default_rng(1), SMALL_GA).jct <= min_min(inst).jct * (1 + RTOL)


def test_genetic_algorithms_are_deterministic_for_a_seed():
    inst = random_instance(20, 4, seed=9)
    for algo in (mm_ga, gsa):
        a = algo(inst, np.random.default_rng(5), SMALL_GA)
        b = algo(inst, np.random.default_rng(5), SMALL_GA)
        assert np.array_equal(a.server, b.server)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 40), pods=st.sampled_from([2, 4, 6]), seed=st.integers(0, 10**6))
def test_lazy_min_min_equals_the_full_rescan(n, pods, seed):
    """Min-Min's lazy heap places the same tasks as re-evaluating every unplaced task each step."""
    inst = random_instance(n, pods, seed)
    lazy, full = min_min_placement(inst), min_min_placement(inst, lazy=False)
    assert optra(inst, lazy)[2] == pytest.approx(optra(inst, full)[2], rel=1e-12)


def _crowded_rack(n: int, pricing_energy: bool) -> Instance:
    """Every task's 8 most efficient servers share one tight rack: the LP must price in others.

    24 servers of 10 vCPUs; servers 0–7 (λ = 1) sit in a rack limited to 8 vCPUs in
    all, servers 8–23 have λ = 0.9 (0.8 for odd tasks). Column generation starts from
    servers 0–7 only, so its first restricted optimum is far from the full one. With
    ``pricing_energy`` the energy limit binds too (its dual y_E enters the pricing).
    """
    from schedulers.ep_jobs.instance import Platform

    m = 24
    rows = [np.eye(m)[j] for j in range(m)] + [np.r_[np.ones(8), np.zeros(16)], np.ones(m)]
    names = [f"s{j}" for j in range(m)]
    plat = Platform(
        capacity=np.full(m, 10.0), A=np.array(rows), B=np.r_[np.full(m, 10.0), 8.0, 240.0],
        servers=names, constraint_names=[*names, "rack0", "dc"],
    )  # fmt: skip
    lam = np.ones((n, m))
    lam[:, 8:] = np.where(np.arange(n)[:, None] % 2, 0.8, 0.9)
    loads = 100.0 + 10.0 * np.arange(n)
    e_min = float(loads.sum())
    return Instance(plat, loads, lam, 1.0, e_min * (1.12 if pricing_energy else 10.0))


@pytest.mark.parametrize("pricing_energy", [False, True])
def test_column_generation_prices_columns_it_did_not_start_with(pricing_energy):
    """The restricted LP on the first 8 columns per task is far worse; pricing (y_E, y_k/B_k, π_i) fixes it.

    Dropping any dual term from the reduced cost stops column generation early and
    leaves T above the full optimum (checked by breaking each term on purpose).
    """
    inst = _crowded_rack(6, pricing_energy)
    full = solve_relax_lp(inst, "reduced")
    literal = solve_relax_lp(inst, "literal")
    col = solve_relax_lp(inst, "colgen")
    assert col.t == pytest.approx(full.t, rel=1e-9) and literal.t == pytest.approx(full.t, rel=1e-7)
    assert col.load_split[:, 8:].sum() > 0.5 * inst.loads.sum()  # most load left the crowded rack
    # the restricted problem alone (servers 0–7) is much worse: extra columns were needed
    first = inst.loads.sum() / 8.0
    assert full.t < 0.5 * first
    if pricing_energy:  # the energy row binds: odd tasks (λ 0.8) pay more energy off-rack
        used = (inst.ecost / inst.loads[:, None] * col.load_split).sum()
        assert used == pytest.approx(inst.e_limit, rel=1e-6)


def test_static_shares_and_the_baselines_allocation():
    """Baselines get fixed per-server shares (paper Sec. 2: static resources); TaPRA keeps eq. 16.

    Two servers of 10 vCPUs in one rack limited to 10: each server's static share is
    5 (half the rack), whatever the placement. Two tasks of equivalent load 100 on
    server 0 end at 200/5 = 40 s statically, and at 200/10 = 20 s under OptRA, which
    gives the loaded server the whole rack.
    """
    from types import SimpleNamespace

    from schedulers.ep_jobs.instance import Platform, static_shares, static_view
    from schedulers.ep_jobs.offline import solve

    plat = Platform(
        capacity=np.array([10.0, 10.0]), A=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        B=np.array([10.0, 10.0, 10.0]), servers=["a", "b"], constraint_names=["a", "b", "rack"],
    )  # fmt: skip
    assert static_shares(plat).tolist() == [5.0, 5.0]
    inst = Instance(plat, np.array([100.0, 100.0]), np.array([[1.0, 0.5], [1.0, 0.5]]), 1.0, 1e9)
    both_on_a = np.array([0, 0])
    assert optra(inst, both_on_a)[2] == pytest.approx(20.0)
    c, _et, jct = optra(static_view(inst), both_on_a)
    assert jct == pytest.approx(40.0) and c.tolist() == pytest.approx([2.5, 2.5])
    prm = SimpleNamespace(max_moves=0, baseline_allocation="static")
    static = solve(inst, "min_min", prm, np.random.default_rng(0))
    # λ = 0.5 on b doubles a task's load there: the second task ties (a: 200/5, b: 200/5 = 40 s)
    # and takes the lower index; statically the rack's other 5 vCPUs stay unused.
    assert static.server.tolist() == [0, 0] and static.jct == pytest.approx(40.0)
    assert static.c.sum() == pytest.approx(5.0)
    optra_prm = SimpleNamespace(max_moves=0, baseline_allocation="optra")
    assert solve(inst, "min_min", optra_prm, np.random.default_rng(0)).jct == pytest.approx(20.0)
