"""Findings of the issue-15 science review of the federated family (paper 004), each a minimal case.

Eq. 6 measures ``Δτ = T_act_fin − ERAT`` and eq. 7 turns ``Δτ − S_l/b − ETM`` into the feedback
factor ``fd_j`` *of the executing cloud j*. Our ERAT already contains the inputs' *estimated*
ready time (predecessors' eq. 8 finish + edge transfer), but when a predecessor finishes late,
on any cloud, the successor's cloud is charged for that lateness although it ran the task in
exactly ``S_l/b + ETM`` from the moment its inputs were there. Fixed: Δτ counts from
``max(ERAT, inputs' actual ready time)`` (``Planner.observe``). Before the fix, on the small LLNL-Atlas run
(Fig. 7, α = 1) this gives factors of up to 29,635 (a 3 s task whose inputs came 84,459 s late),
so Thunder and Atlas look tens of times slower than uBGL, whose few tasks were on time, and
DCMMS sends 55 tasks to uBGL (162,889 s against 103,824 s at α = 0; docs/federated.md).
"""

from __future__ import annotations

import pytest

import schedulers

from .helpers import simulate, stints

# cloud a: type 0 runs 100 s, type 1 1000 s, type 2 60 s; cloud b: 1000 s, 50 s, 50 s; S/b = 2 s, no transfers
ETM = [[100.0, 1000.0], [1000.0, 50.0], [60.0, 50.0]]


def _scenario() -> dict:
    """App 0: t0 (type 0, runs 3× its estimate on a) → t1 (type 1, exact on b); app 1 at 1000 s: one type-2 task."""
    return {
        "family": "federated",
        "seed": 1,
        "algorithms": ["dcls"],
        "datacenter": {
            "clouds": [
                {"name": "a", "servers": 1, "server_capacity": 1, "perf": 1.0},
                {"name": "b", "servers": 1, "server_capacity": 1, "perf": 1.0},
            ],
            "etm": ETM,
        },
        "workload": {
            "kind": "jobs",
            "dataset_size_gb": 0,
            "edge_data_gb": 0,
            "jobs": [
                {
                    "arrival": 0.0,
                    "tasks": [
                        {"type": 0, "runtime_s": 100.0, "actual_runtime_s": 300.0},
                        {"type": 1, "preds": [0]},
                    ],
                },
                {"arrival": 1000.0, "tasks": [{"type": 2}]},
            ],
        },
        "params": {"alpha": 1.0},
    }


def test_the_case_t0_late_on_a_t1_on_time_on_b():
    """The set-up the next test relies on, worked by hand (holds before and after the fix).

    DCLS: t0 → a (τ = 0 + 2 + 100 = 102 < 1002); t1's inputs are estimated ready at 102, so
    τ_a = 102 + 2 + 1000 and τ_b = 102 + 2 + 50 = 154: t1 → b. t0 really runs 300 s: it ends at
    302. t1 is ready on b at 302 and runs exactly S/b + ETM = 52 s, to 354; its ERAT (the Δτ origin
    of eq. 6) is the estimated 102.
    """
    sim, _ = simulate(_scenario(), "dcls")
    assert sim.planner.cloud[:2] == [0, 1]
    assert sim.finish[:2] == [302.0, 354.0]
    assert sim.planner.erat[:2] == [0.0, 102.0]
    s = stints(schedulers.run(_scenario())["runs"][0]["schedule"])
    assert s["0.1"] == [(302.0, 354.0, 2.0, "finish", "b")]


def test_the_executing_cloud_is_not_charged_for_its_inputs_lateness():
    sim, _ = simulate(_scenario(), "dcls")
    assert sim.planner.fd[0][1] == pytest.approx(0.0)
    assert sim.planner.cloud[2] == 1  # app 1's task on b: 52 s instead of 62 s on a
