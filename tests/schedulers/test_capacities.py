"""Families that report per-resource capacities never exceed them (the result page re-checks this)."""

import numpy as np
import pytest

import schedulers


def _peak(rows):
    arr = np.asarray(rows, dtype=float)
    times = np.concatenate([arr[:, 0], arr[:, 1]])
    deltas = np.concatenate([arr[:, 2], -arr[:, 2]])
    return float(np.cumsum(deltas[np.lexsort((deltas, times))]).max())


@pytest.mark.parametrize("family", ["dvfs_bot", "vm_reservations"])
def test_reported_capacities_cover_every_resource_and_hold(family):
    result = schedulers.run(schedulers.example(family))
    assert result["runs"]
    for run in result["runs"]:
        caps = run["extra"]["capacities"]
        by_resource = {}
        for seg in run["schedule"]:
            by_resource.setdefault(seg["resource"], []).append((seg["start"], seg["end"], seg["share"]))
        assert by_resource and set(by_resource) <= set(caps)
        for resource, rows in by_resource.items():
            assert _peak(rows) <= caps[resource] + 1e-9, resource
