"""Alg. 3.1 line 8 leaves open which group of a run goes first: ``params.llif_groups`` names the reading.

Smallest case where the paper's text (ETF group first) loses to FFD: three half-PM VMs over slots
[0,4), [1,6), [1,6). The load needs 1, 2, 2, 2, 1, 1 PMs (9 PM-slots, the bound). LLIF's first run is
slots 1-3; the VM started before it (ETF) goes first and shares PM 1 with one of the others, the third
opens PM 2: 6 + 5 = 11 PM-slots. Longest first without the groups (and FFD) pairs the two long VMs:
5 + 4 = 9.
"""

from __future__ import annotations

import numpy as np
import pytest

import schedulers
from schedulers.vm_reservations.bound import busy_intervals
from schedulers.vm_reservations.ffd import ffd
from schedulers.vm_reservations.llif import llif

S, E, G = np.array([0, 1, 1]), np.array([4, 6, 6]), 2
D = np.array([1, 1, 1])  # half a PM each


def _on(p) -> int:
    _, a, b = busy_intervals(p)
    return int((b - a).sum())


def test_etf_first_keeps_pms_on_longer_than_the_bound():
    assert _on(llif(S, E, D, G)) == 11
    assert _on(ffd(S, E, D, G)) == 9


def test_no_split_reaches_the_bound():
    assert _on(llif(S, E, D, G, split=False)) == 9


def test_the_parameter_is_validated_and_runs():
    base = {**schedulers.example("vm_reservations"), "algorithms": ["llif"], "repetitions": 1}
    for groups in ("etf_first", "no_split"):
        sc = {**base, "params": {"llif_groups": groups, "record_schedule": False}}
        assert schedulers.run(sc)["summary"]["llif"]["power_on_time_min"]["mean"] > 0
    with pytest.raises(schedulers.ScenarioError) as exc:
        schedulers.validate({**base, "params": {"llif_groups": "stf_first"}})
    assert "llif_groups" in str(exc.value.errors)
