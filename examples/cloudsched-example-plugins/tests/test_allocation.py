"""LPT-green: its placement on a hand-made platform, and a run beside TaPRA when installed."""

import numpy as np
from cloudsched_example_plugins.allocation import lpt_green

import schedulers
from schedulers.ep_jobs.instance import Instance, Platform, optra


def test_the_largest_tasks_spread_over_the_servers():
    # two equal servers, each its own constraint of capacity 1: loads 4, 3, 2, 1 → LPT gives {4, 1} and {3, 2}
    plat = Platform(capacity=np.ones(2), A=np.eye(2), B=np.ones(2), servers=["a", "b"], constraint_names=["a", "b"])
    job = Instance(plat, np.array([4.0, 3.0, 2.0, 1.0]), np.ones((4, 2)), 1.0, 1e9)
    server = lpt_green.place(job)
    assert server[0] != server[1] and server[0] == server[3] and server[1] == server[2]
    assert optra(job, server)[2] == 5.0


def test_it_runs_beside_tapra():
    scenario = schedulers.example("ep_jobs") | {"algorithms": ["tapra", "lpt-green"]}
    result = schedulers.run(scenario)
    tapra, lpt = (r["metrics"] for r in result["runs"])
    assert lpt["energy_limit_met"] == 1.0 and lpt["jct_s"] < 1.1 * tapra["jct_s"]  # 1577 s against 1541 s
