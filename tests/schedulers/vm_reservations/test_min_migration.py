"""The fewest migrations at the Theorem 1 bound (paper 003, Theorem 3) against brute force."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import schedulers
from schedulers.core.validation import ScenarioError
from schedulers.vm_reservations import exact as exact_module
from schedulers.vm_reservations import min_migration as min_migration_module
from schedulers.vm_reservations.bound import Axis, lower_bound_slots, min_machines, power_on_slots
from schedulers.vm_reservations.exact import exact
from schedulers.vm_reservations.min_migration import fewest_bins, min_migration
from schedulers.vm_reservations.opt_min_migration import opt_min_migration

from .helpers import assert_valid_placement

# Example #4: g = 3, jobs [s, e, d] = [0,3,1], [0,2,1], [1,3,1], [0,3,1].
EX4 = (np.array([0, 0, 1, 0]), np.array([3, 2, 3, 3]), np.array([1, 1, 1, 1]), 3)
# ../shared/cases/vm_min_migration.json: g = 4, three 2-unit VMs on [2,4), [3,6), [3,7).
SMALLEST = (np.array([2, 3, 3]), np.array([4, 6, 7]), np.array([2, 2, 2]), 4)
# ../shared/cases/vm_min_migration_gap.json (default data centre, seed 1), as (start, end, VM type): all on
# PM type 2 (52 ECU; 2-1, 2-2, 2-3 are 6.5, 13 and 26 ECU). HiGHS's default relative gap (1e-4) on the
# objective big·power-on + migrations stopped at 2 migrations and called them optimal; the minimum is 1.
GAP_JOBS = [
    (0, 40, "2-3"), (33, 73, "2-1"), (46, 86, "2-3"), (48, 55, "2-1"), (65, 90, "2-2"), (70, 71, "2-1"),
    (72, 123, "2-1"), (75, 93, "2-3"), (78, 141, "2-2"), (94, 150, "2-1"), (132, 164, "2-1"), (139, 178, "2-2"),
]  # fmt: skip
# the same requests in the pool's integer units (g = 104: 6.5 ECU = 13 units)
GAP_POOL = (
    np.array([s for s, _, _ in GAP_JOBS]),
    np.array([e for _, e, _ in GAP_JOBS]),
    np.array([{"2-1": 13, "2-2": 26, "2-3": 52}[v] for _, _, v in GAP_JOBS]),
    104,
)


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
    p, proof = min_migration(*SMALLEST)
    assert proof.optimal
    assert_valid_placement(p, *SMALLEST)
    assert power_on_slots(p) == lower_bound_slots(*SMALLEST) == 6
    assert p.migrations == 0
    assert opt_min_migration(*SMALLEST).migrations == 1  # the greedy sweep's extra move (its docstring)


def test_example4_one_migration_at_the_bound():
    """Example #4: power-on 4 (the bound) needs exactly one migration (J3 moves, as in the paper)."""
    p, proof = min_migration(*EX4)
    assert proof.optimal
    assert_valid_placement(p, *EX4)
    assert power_on_slots(p) == 4 and p.migrations == 1
    assert brute_min_migrations(*EX4) == 1


def test_equals_brute_force_on_tiny_instances():
    """On 80 tiny divisible instances: the bound is met and the count equals the brute-force minimum."""
    greedy_extra = 0
    for inst in tiny_instances(80, seed=15):
        p, proof = min_migration(*inst)
        assert proof.optimal
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
    p, proof = min_migration(s, e, d, 4)
    assert proof.optimal
    assert_valid_placement(p, s, e, d, 4)
    # PMs per slot 1, 2, 3, 2, 1: the 2-unit VM fits beside no 3-unit one, one above the bound 8.
    assert power_on_slots(p) == 9 == lower_bound_slots(s, e, d, 4) + 1
    assert p.migrations == 0


def test_independent_components_and_empty():
    s = np.array([*SMALLEST[0], 20, 20, 21])
    e = np.array([*SMALLEST[1], 23, 22, 23])
    d = np.array([2, 2, 2, 1, 1, 1])
    p, proof = min_migration(s, e, d, 4)
    assert proof.optimal and p.migrations == 0
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


def test_gap_case_proves_one_migration():
    """vm_min_migration_gap: the exact solver must prove its optimum: 1 migration at the bound, not 2."""
    scenario = {
        "family": "vm_reservations",
        "seed": 1,
        "algorithms": ["min_migration", "opt_min_migration"],
        "workload": {"kind": "jobs", "jobs": [{"start": s, "end": e, "vm_type": v} for s, e, v in GAP_JOBS]},
    }
    m = {r["algorithm"]: r["metrics"] for r in schedulers.run(scenario)["runs"]}
    mm, sweep = m["min_migration"], m["opt_min_migration"]
    assert mm["power_on_time_min"] == sweep["power_on_time_min"] == mm["lower_bound_power_on_time_min"] == 965
    assert mm["migrations"] == 1 == brute_min_migrations(*GAP_POOL)
    assert mm["migrations"] <= sweep["migrations"]
    assert mm["exact_optimal"] == 1.0 and mm["exact_gap_migrations"] == 0 and mm["exact_gap_power_on_min"] == 0


def test_solvers_ask_highs_for_a_zero_gap(monkeypatch):
    """Every MILP of min_migration and exact runs with mip_rel_gap = 0 (HiGHS's default 1e-4 hides moves)."""
    from scipy import optimize

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["options"])
        return optimize.milp(*args, **kwargs)

    for module in (exact_module, min_migration_module):
        monkeypatch.setattr(module, "optimize", SimpleNamespace(milp=spy, Bounds=optimize.Bounds))
    min_migration(*GAP_POOL)
    exact(*EX4)
    assert len(seen) >= 2 and all(o["mip_rel_gap"] == 0 for o in seen)


def stopped_early(dual_bound):
    """A stand-in for HiGHS stopping at its time limit without a solution and with a weak dual bound."""

    def milp(*args, **kwargs):
        return SimpleNamespace(x=None, status=1, fun=None, mip_dual_bound=dual_bound)

    return SimpleNamespace(milp=milp, Bounds=lambda *a: None)


def test_unproven_answers_carry_their_gap(monkeypatch):
    """A solver stopped before its proof keeps the heuristic's answer, says not optimal and how far it may be."""
    monkeypatch.setattr(exact_module, "optimize", stopped_early(3.5))
    monkeypatch.setattr(min_migration_module, "optimize", stopped_early(0.2))
    p, proof = exact(*EX4)  # FFD's 5 slots against max(Theorem 1's 4, ⌈3.5⌉)
    assert power_on_slots(p) == 5 and not proof.optimal and proof.power_on_gap == 1
    p, proof = min_migration(*SMALLEST)  # the sweep's 1 migration against ⌈0.2⌉ = 1: proven all the same
    assert p.migrations == 1 and proof.optimal and proof.migration_gap == 0
    monkeypatch.setattr(min_migration_module, "optimize", stopped_early(-0.0))
    p, proof = min_migration(*SMALLEST)
    assert p.migrations == 1 and not proof.optimal and proof.migration_gap == 1 and proof.power_on_gap == 0
    scenario = {
        "family": "vm_reservations",
        "algorithms": ["exact", "min_migration"],
        "datacenter": {
            "slot_minutes": 5,
            "pm_types": [{"name": "p", "cpu": 4, "p_min_w": 100, "p_max_w": 200}],
            "vm_types": [{"name": "b", "cpu": 2, "pm_type": "p"}],
        },
        "workload": {
            "kind": "jobs",
            "jobs": [{"start": s, "end": e, "vm_type": "b"} for s, e in ((2, 4), (3, 6), (3, 7))],
        },
    }
    m = {r["algorithm"]: r["metrics"] for r in schedulers.run(scenario)["runs"]}
    assert m["min_migration"]["exact_optimal"] == 0.0 and m["min_migration"]["exact_gap_migrations"] == 1
    assert m["min_migration"]["exact_gap_power_on_min"] == 0
    # FFD ([3,7) and [3,6) on one PM, [2,4) on another) meets Theorem 1's 6 slots: proven without the solver
    assert m["exact"]["exact_optimal"] == 1.0 and m["exact"]["exact_gap_power_on_min"] == 0


def test_fewest_bins_packs_non_divisible_demands():
    """Two 3-unit VMs and a 2-unit one need 3 PMs of 4 units, one more than ⌈8/4⌉; divisible ones need ⌈L/g⌉."""
    assert fewest_bins(np.array([3, 3, 2]), 4, upper=3, time_limit_s=10) == (3, 3)
    assert fewest_bins(np.array([2, 1, 1, 2, 2]), 4, upper=3, time_limit_s=10) == (2, 2)
