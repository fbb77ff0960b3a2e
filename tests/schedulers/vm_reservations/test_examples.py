"""Hand-worked examples from paper 003 and the tie rules we chose where it is silent."""

from __future__ import annotations

import numpy as np
import pytest

from schedulers.vm_reservations.bound import Placement, busy_intervals, lower_bound_slots, power_on_slots
from schedulers.vm_reservations.exact import exact
from schedulers.vm_reservations.ffd import est_order, ffd, ffd_order, mffde_order
from schedulers.vm_reservations.llif import llif, llif_order
from schedulers.vm_reservations.opt_min_migration import opt_min_migration
from schedulers.vm_reservations.simulator import place

from .helpers import assert_valid_placement, brute_lower_bound

# Example #4: g = 3, jobs [s, e, d] = [0,3,1], [0,2,1], [1,3,1], [0,3,1].
EX4 = (np.array([0, 0, 1, 0]), np.array([3, 2, 3, 3]), np.array([1, 1, 1, 1]), 3)
HEURISTICS = ["llif", "ffd", "est", "mffde"]


def test_example1_span_and_length():
    """Example #1/#2: one PM busy on [1,4], [2,4], [5,6] is on for 4 slots (gap [4,5] off)."""
    p = Placement.static(np.zeros(3, np.int64), np.array([1, 2, 5]), np.array([4, 4, 6]))
    assert power_on_slots(p) == 4
    _pm, s, e = busy_intervals(p)
    assert s.tolist() == [1, 5] and e.tolist() == [4, 6]


def test_example4_lower_bound_is_4():
    """Example #4: 1, 2, 1 PMs in the three slots give the Theorem 1 bound 4."""
    assert lower_bound_slots(*EX4) == 4


def test_example4_best_without_migration_is_5():
    """Example #4: without migration the optimum is 5 (exact MILP)."""
    p, proof = exact(*EX4)
    assert proof.optimal and proof.power_on_gap == 0 and power_on_slots(p) == 5


@pytest.mark.parametrize("alg", HEURISTICS)
def test_example4_heuristics_need_5(alg):
    """Every migration-free heuristic pays 5 on Example #4, as the paper's two solutions do."""
    s, e, d, g = EX4
    from types import SimpleNamespace

    cfg = SimpleNamespace(params=SimpleNamespace(est_order="earliest_first", llif_groups="etf_first"))
    pool = SimpleNamespace(s=s, e=e, d=d, g=g)
    p, _ = place(cfg, pool, alg, None)
    assert_valid_placement(p, s, e, d, g)
    assert power_on_slots(p) == 5 and p.migrations == 0


def test_example4_opt_min_migration_reaches_4_with_one_migration():
    """Example #4 with migration: J3 moves once and the total is the bound 4."""
    p = opt_min_migration(*EX4)
    assert_valid_placement(p, *EX4)
    assert power_on_slots(p) == 4
    assert p.migrations == 1
    j3 = np.flatnonzero(p.job == 2)
    assert len(j3) == 2 and len(set(p.pm[j3].tolist())) == 2


def test_lower_bound_matches_slot_loop():
    """The compressed-axis bound equals Σ_t ⌈L_t/g⌉ computed slot by slot."""
    rng = np.random.default_rng(3)
    s = rng.integers(0, 40, 60)
    e = s + rng.integers(1, 25, 60)
    d = rng.choice([1, 2, 4, 8], 60)
    assert lower_bound_slots(s, e, d, 16) == brute_lower_bound(s, e, d, 16)


@pytest.mark.parametrize("shared", ["start", "end"])
def test_observation6_llif_optimal_on_one_sided_clique(shared):
    """Observation 6: all jobs share a start (or an end), unit demand → LLIF = OPT (the bound)."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        n, g = int(rng.integers(2, 30)), int(rng.integers(1, 5))
        lengths = rng.integers(1, 50, n)
        s = np.zeros(n, np.int64) if shared == "start" else 50 - lengths
        e = s + lengths
        d = np.ones(n, np.int64)
        p = llif(s, e, d, g)
        assert_valid_placement(p, s, e, d, g)
        assert power_on_slots(p) == lower_bound_slots(s, e, d, g)


def test_theorem4_adversary_ratio_below_two():
    """Fig. 3.3 adversary: a clique of kg+1 nested jobs; LLIF stays ≤ 2 × the bound."""
    g, k = 3, 4
    n = k * g + 1
    s = np.arange(n)
    e = 2 * n - np.arange(n)  # nested: every interval contains the next
    d = np.ones(n, np.int64)
    p = llif(s, e, d, g)
    assert_valid_placement(p, s, e, d, g)
    assert power_on_slots(p) <= 2 * lower_bound_slots(s, e, d, g)


def test_llif_takes_longest_run_first_and_earlier_on_ties():
    """LLIF reading: runs of equal ⌈L/g⌉ longest first; equal lengths → the earlier run first."""
    # g=1: slots 0-1 load 1 (job 0), slots 3-4 load 1 (job 1), slots 6-9 load 1 (job 2).
    s, e, d = np.array([0, 3, 6]), np.array([2, 5, 10]), np.array([1, 1, 1])
    assert llif_order(s, e, d, 1).tolist() == [2, 0, 1]


def test_llif_etf_group_before_stf_group():
    """LLIF reading: in a run, requests that started before it go before those starting inside it."""
    # g=2. Job 0 [0,10) and job 1 [4,10): the longest run of equal l is [0,10) (l=1 throughout).
    # Job 2 [0,2) is short; the run [0,10) overlaps all three; ETF = jobs starting at run start 0
    # are STF (s ≥ z1), so order is longest first inside STF: 0, 1, 2.
    s, e, d = np.array([4, 0, 0]), np.array([10, 10, 2]), np.array([1, 1, 1])
    assert llif_order(s, e, d, 2).tolist() == [1, 0, 2]
    # With g=1 the loads differ: slots 0-1 l=2, 2-3 l=1, 4-9 l=2. Longest run [4,10):
    # job 1 started before it (ETF) and goes before job 0 that starts inside it (STF).
    assert llif_order(s, e, d, 1).tolist()[:2] == [1, 0]


def test_sort_orders():
    """FFD: longest first, ties by request order; EST: by start; MFFDE: by start, ties longest first."""
    s, e, d = np.array([5, 0, 0, 3]), np.array([9, 2, 4, 7]), np.ones(4, np.int64)
    assert ffd_order(s, e, d).tolist() == [0, 2, 3, 1]
    assert est_order(s, e, d).tolist() == [1, 2, 3, 0]
    assert est_order(s, e, d, latest_first=True).tolist() == [0, 3, 1, 2]
    assert mffde_order(s, e, d).tolist() == [2, 1, 3, 0]


def test_ffd_first_fit_reuses_first_pm():
    """First fit: a request goes to the lowest-numbered PM with room over its whole interval."""
    s, e, d = np.array([0, 0, 5]), np.array([10, 10, 8]), np.array([2, 1, 1])
    p = ffd(s, e, d, 2)
    assert p.pm.tolist() == [0, 1, 1]


def test_exact_solves_a_20_request_instance_and_beats_ffd():
    """Exact MILP (components + tight links) proves optimality at 20 overlapping requests."""
    rng = np.random.default_rng(1)
    rng.exponential(5, 10), rng.integers(1, 50, 10), rng.choice([1, 4, 8], 10)  # skip a 10-request draw
    s = np.floor(np.cumsum(rng.exponential(5, 20))).astype(int)
    e = s + rng.integers(1, 50, 20)
    d = rng.choice([1, 4, 8], 20)
    p, proof = exact(s, e, d, 16, time_limit_s=30)
    assert proof.optimal
    assert_valid_placement(p, s, e, d, 16)
    assert lower_bound_slots(s, e, d, 16) <= power_on_slots(p) < power_on_slots(ffd(s, e, d, 16))
