"""The fewest migrations at the Theorem 1 bound (paper 003, Theorem 3) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedulers
from schedulers.core.validation import ScenarioError
from schedulers.vm_reservations.bound import Axis, lower_bound_slots, min_machines, power_on_slots
from schedulers.vm_reservations.min_migration import min_migration
from schedulers.vm_reservations.opt_min_migration import opt_min_migration

from .helpers import assert_valid_placement

# Example #4: g = 3, jobs [s, e, d] = [0,3,1], [0,2,1], [1,3,1], [0,3,1].
EX4 = (np.array([0, 0, 1, 0]), np.array([3, 2, 3, 3]), np.array([1, 1, 1, 1]), 3)
# ../shared/cases/vm_min_migration.json: g = 4, three 2-unit VMs on [2,4), [3,6), [3,7).
SMALLEST = (np.array([2, 3, 3]), np.array([4, 6, 7]), np.array([2, 2, 2]), 4)


def brute_min_migrations(s, e, d, g: int) -> int:
    """Fewest migrations over every labelled assignment that meets ⌈L_k/g⌉ PMs in each segment.

    A Viterbi pass over *labelled* assignments (request → PM label, per segment);
    max_k ⌈L_k/g⌉ labels suffice because PM identities matter only between
    consecutive segments. Independent of the MILP: no matching, no solver.
    """
    axis = Axis.of(s, e)
    need = min_machines(axis.load(d), g)
    labels = int(need.max())
    prev_jobs, prev = [], {(): 0}
    for k in range(axis.lengths.size):
        jobs = [j for j in range(s.size) if axis.a[j] <= k < axis.b[j]]
        states = {}
        for lab in itertools.product(range(labels), repeat=len(jobs)):
            load = np.zeros(labels, dtype=np.int64)
            for j, m in zip(jobs, lab, strict=True):
                load[m] += d[j]
            if load.max(initial=0) > g or np.count_nonzero(load) != need[k]:
                continue
            here = dict(zip(jobs, lab, strict=True))
            states[lab] = min(
                c + sum(1 for j, m in zip(prev_jobs, plab, strict=True) if j in here and here[j] != m)
                for plab, c in prev.items()
            )
        assert states, "no assignment meets the bound (demands must be divisible)"
        prev_jobs, prev = jobs, states
    return min(prev.values())


def tiny_instances(count: int, seed: int):
    """Small divisible instances (d | g) with at most 3 PMs in any segment."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(3, 6))
        g = int(rng.choice([2, 4, 4]))
        s = rng.integers(0, 5, n)
        e = s + rng.integers(1, 5, n)
        d = rng.choice([x for x in (1, 2, 2, 4) if x <= g], n)
        if min_machines(Axis.of(s, e).load(d), g).max() <= 3:
            out.append((s, e, d, g))
    return out


def test_smallest_case_needs_no_migration():
    """Two VMs that start together at t = 3 share a PM; the one on [2,4) keeps its own: 0 moves."""
    p, optimal = min_migration(*SMALLEST)
    assert optimal
    assert_valid_placement(p, *SMALLEST)
    assert power_on_slots(p) == lower_bound_slots(*SMALLEST) == 6
    assert p.migrations == 0
    assert opt_min_migration(*SMALLEST).migrations == 1  # the greedy sweep's extra move (its docstring)


def test_example4_one_migration_at_the_bound():
    """Example #4: power-on 4 (the bound) needs exactly one migration (J3 moves, as in the paper)."""
    p, optimal = min_migration(*EX4)
    assert optimal
    assert_valid_placement(p, *EX4)
    assert power_on_slots(p) == 4 and p.migrations == 1
    assert brute_min_migrations(*EX4) == 1


def test_equals_brute_force_on_tiny_instances():
    """On 80 tiny divisible instances: the bound is met and the count equals the brute-force minimum."""
    greedy_extra = 0
    for inst in tiny_instances(80, seed=15):
        p, optimal = min_migration(*inst)
        assert optimal
        assert_valid_placement(p, *inst)
        assert power_on_slots(p) == lower_bound_slots(*inst)
        best = brute_min_migrations(*inst)
        assert p.migrations == best, inst
        assert p.migrations == p.job.size - inst[0].size  # each migration starts one more piece
        greedy = opt_min_migration(*inst).migrations
        assert greedy >= best
        greedy_extra += greedy > best
    assert greedy_extra > 0  # the set contains cases the greedy sweep gets wrong


def test_non_divisible_demands_use_fewest_bins_per_segment():
    """3-unit VMs on g = 4 share with nothing: the fewest bins per slot, above the bound, no migration."""
    s, e, d = np.array([0, 1, 2]), np.array([3, 4, 5]), np.array([3, 3, 2])
    p, optimal = min_migration(s, e, d, 4)
    assert optimal
    assert_valid_placement(p, s, e, d, 4)
    # PMs per slot 1, 2, 3, 2, 1: the 2-unit VM fits beside no 3-unit one, one above the bound 8.
    assert power_on_slots(p) == 9 == lower_bound_slots(s, e, d, 4) + 1
    assert p.migrations == 0


def test_independent_components_and_empty():
    s = np.array([*SMALLEST[0], 20, 20, 21])
    e = np.array([*SMALLEST[1], 23, 22, 23])
    d = np.array([2, 2, 2, 1, 1, 1])
    p, optimal = min_migration(s, e, d, 4)
    assert optimal and p.migrations == 0
    assert_valid_placement(p, s, e, d, 4)
    z = np.zeros(0, np.int64)
    assert min_migration(z, z, z, 4)[0].job.size == 0


def test_through_a_scenario_with_its_size_limit():
    scenario = {
        "family": "vm_reservations",
        "seed": 1,
        "algorithms": ["opt_min_migration", "min_migration"],
        "datacenter": {
            "slot_minutes": 5,
            "pm_types": [{"name": "p", "cpu": 4, "p_min_w": 100, "p_max_w": 200}],
            "vm_types": [{"name": "b", "cpu": 2, "pm_type": "p"}],
        },
        "workload": {
            "kind": "jobs",
            "jobs": [
                {"start": 2, "end": 4, "vm_type": "b"},
                {"start": 3, "end": 6, "vm_type": "b"},
                {"start": 3, "end": 7, "vm_type": "b"},
            ],
        },
    }
    m = {r["algorithm"]: r["metrics"] for r in schedulers.run(scenario)["runs"]}
    assert m["min_migration"]["migrations"] == 0 and m["opt_min_migration"]["migrations"] == 1
    assert m["min_migration"]["power_on_time_min"] == m["opt_min_migration"]["power_on_time_min"] == 30
    assert m["min_migration"]["exact_optimal"] == 1.0
    big = scenario | {"params": {"exact_max_requests": 2}}
    with pytest.raises(ScenarioError) as err:
        schedulers.run(big)
    (error,) = err.value.errors
    assert error["field"] == "algorithms" and "exact_max_requests" in error["allowed"]
