"""Race to idle: its choice by hand, and a run beside Alg. 1 when installed."""

import numpy as np
from cloudsched_example_plugins.frequency import race_to_idle

import schedulers
from schedulers.dvfs_bot.policy import REJECT, Task


def _task(score, level, top):
    n = len(score)
    return Task(0, 0, 0.0, 60.0, 600.0, np.array(level), np.array(top), np.full(n, -1), np.zeros(n, bool),
                np.zeros(n, bool), np.arange(n), np.array(score))  # fmt: skip


def test_alg1s_vm_at_its_top_level_or_reject():
    assert race_to_idle.choose(_task([90, 100, 100], [0, 1, 0], [2, 3, 3])) == (1, 3)
    assert race_to_idle.choose(_task([-1, -1], [-1, -1], [2, 2])) == REJECT


def test_it_runs_beside_alg1_and_uses_less_energy_on_the_example():
    scenario = schedulers.example("dvfs_bot") | {"algorithms": ["cloud_aware", "race-to-idle"]}
    result = schedulers.run(scenario)
    alg1, race = (r["metrics"] for r in result["runs"])
    assert race["avg_freq_ghz"] > alg1["avg_freq_ghz"]
    assert race["energy_kwh"] < alg1["energy_kwh"]  # 2.46 against 2.92 kWh: hosts suspend sooner
