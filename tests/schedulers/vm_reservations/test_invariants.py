"""Invariants of every algorithm on random instances (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.vm_reservations.bound import lower_bound_slots, power_on_slots
from schedulers.vm_reservations.exact import exact
from schedulers.vm_reservations.ffd import est, ffd, mffde
from schedulers.vm_reservations.llif import llif
from schedulers.vm_reservations.opt_min_migration import opt_min_migration

from .helpers import assert_valid_placement, brute_lower_bound

HEURISTICS = [llif, ffd, est, mffde]


@st.composite
def instances(draw, max_n=25, horizon=30, demands=(1, 2, 4, 8), gs=(8, 16)):
    g = draw(st.sampled_from(gs))
    n = draw(st.integers(1, max_n))
    s = np.array(draw(st.lists(st.integers(0, horizon), min_size=n, max_size=n)))
    dur = np.array(draw(st.lists(st.integers(1, horizon), min_size=n, max_size=n)))
    d = np.array(draw(st.lists(st.sampled_from([x for x in demands if x <= g]), min_size=n, max_size=n)))
    return s, s + dur, d, g


@settings(max_examples=60, deadline=None)
@given(instances())
def test_heuristics_are_valid_and_above_the_bound(inst):
    """Capacity holds per slot and PM, every request runs its whole interval, power-on ≥ bound."""
    s, e, d, g = inst
    bound = lower_bound_slots(s, e, d, g)
    assert bound == brute_lower_bound(s, e, d, g)
    for alg in HEURISTICS:
        p = alg(s, e, d, g)
        assert_valid_placement(p, s, e, d, g)
        assert p.migrations == 0 and p.job.size == s.size
        assert power_on_slots(p) >= bound


@settings(max_examples=80, deadline=None)
@given(instances())
def test_opt_min_migration_attains_theorem1_bound(inst):
    """Divisible demands (1, 2, 4, 8 | g): OPT-Min-Migration is valid and equals Σ⌈L/g⌉."""
    s, e, d, g = inst
    p = opt_min_migration(s, e, d, g)
    assert_valid_placement(p, s, e, d, g)
    assert power_on_slots(p) == lower_bound_slots(s, e, d, g)
    assert p.migrations == p.job.size - s.size  # each migration adds exactly one piece


@settings(max_examples=40, deadline=None)
@given(instances(demands=(3, 5, 7), gs=(10, 12)))
def test_opt_min_migration_valid_for_non_divisible_demands(inst):
    """Non-divisible demands: still a valid schedule, never below the bound."""
    s, e, d, g = inst
    p = opt_min_migration(s, e, d, g)
    assert_valid_placement(p, s, e, d, g)
    assert power_on_slots(p) >= lower_bound_slots(s, e, d, g)


@settings(max_examples=100, deadline=None)
@given(instances(max_n=40, demands=(1,), gs=(1, 2, 3, 4)))
def test_llif_within_twice_the_bound_unit_demand(inst):
    """Theorem 4 on unit-demand instances: LLIF ≤ 2 × OPT (OPT = the Theorem 1 bound)."""
    s, e, d, g = inst
    assert power_on_slots(llif(s, e, d, g)) <= 2 * lower_bound_slots(s, e, d, g)


@settings(max_examples=15, deadline=None)
@given(instances(max_n=8, horizon=10))
def test_exact_is_between_the_bound_and_every_heuristic(inst):
    """bound ≤ exact optimum without migration ≤ each heuristic."""
    s, e, d, g = inst
    p, proof = exact(s, e, d, g, time_limit_s=20)
    assert proof.optimal
    assert_valid_placement(p, s, e, d, g)
    best = power_on_slots(p)
    assert lower_bound_slots(s, e, d, g) <= best
    for alg in HEURISTICS:
        assert best <= power_on_slots(alg(s, e, d, g))
