"""FFD-snug: its PM choice by hand, and a run beside the papers' algorithms when installed."""

import numpy as np
from cloudsched_example_plugins.placement import ffd_snug

import schedulers
from schedulers.vm_reservations.policy import NEW, Fit


def test_the_pm_already_on_over_the_interval_wins_then_the_fullest():
    # g = 4, a 1-unit request over two pieces of 2 and 3 slots; PM 0 is off on the second piece (adds 3),
    # PMs 1 and 2 are on throughout (add 0): PM 2 is the fuller of those two
    occupancy = np.array([[2, 0], [1, 1], [3, 2]])
    fit = Fit(0, 0, 5, 1, 4, occupancy.max(axis=1), occupancy, np.array([2, 3]))
    assert ffd_snug.choose(fit) == 2
    full = Fit(0, 0, 5, 2, 4, np.array([3, 3]), np.array([[3, 3], [3, 3]]), np.array([2, 3]))
    assert ffd_snug.choose(full) == NEW


def test_it_runs_beside_ffd_and_powers_on_less():
    scenario = {"family": "vm_reservations", "seed": 1, "algorithms": ["ffd", "ffd-snug"],
                "workload": {"kind": "generator", "n_requests": 500, "max_duration_slots": 800}}  # fmt: skip
    result = schedulers.run(scenario)
    assert result["plugins"]["ffd-snug"]["package"] == "cloudsched-example-plugins"
    ffd, snug = (r["metrics"]["power_on_time_min"] for r in result["runs"])
    assert snug < ffd  # 250,955 against 252,455 PM-minutes with this seed
