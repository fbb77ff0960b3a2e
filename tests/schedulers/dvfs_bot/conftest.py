"""Shared builders for the dvfs_bot tests: tiny data centres and inline job lists."""

from __future__ import annotations

import pytest

# Three working levels at 50 %, 75 % and 100 % of 2 GHz; flat voltage so the "v2f" weight is f/f_max.
LEVELS = [{"freq_ghz": 1.0, "voltage_v": 1.0}, {"freq_ghz": 1.5, "voltage_v": 1.0}, {"freq_ghz": 2.0, "voltage_v": 1.0}]


def tiny(jobs, *, hosts=2, cores=2, order="spread", algorithms=("cloud_aware",), **extra):
    """A scenario with ``hosts`` × ``cores`` VMs, a 10 W → 20 W linear power table and inline jobs."""
    return {
        "family": "dvfs_bot",
        "seed": 3,
        "algorithms": list(algorithms),
        "datacenter": {
            "vm_order": order,
            "host_types": [
                {"count": hosts, "cores": cores, "power_watts": [10.0, 20.0], "dvfs_levels": LEVELS},
            ],
            **extra,
        },
        "workload": {"kind": "jobs", "jobs": jobs},
    }


def job(submit, runtime, deadline, tasks=1, actual=None):
    out = {"submit_s": submit, "runtime_s": runtime, "deadline_s": deadline, "tasks": tasks}
    if actual is not None:
        out["actual_runtime_s"] = actual
    return out


@pytest.fixture
def run_family():
    """``schedulers.run`` for dvfs_bot scenarios."""
    import schedulers

    return schedulers.run
