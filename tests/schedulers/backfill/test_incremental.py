"""The two-tier machine's incremental VM sets (bit masks, issue 17) equal a full rescan after every event batch.

simulator.TwoTier keeps the busy fg / busy bg / hot fg VMs as bit masks, a mask per job, the jobs in the bg tier
and the sorted sizes of the waiting jobs, updated by the placement and removal paths. Here every event batch of
real runs is followed by a rescan of the per-processor lists that checks each structure, and Dispatch's
candidates against the plain definition (Alg. 2 lines 20 and 24: a stable sort of all idle fg VMs by bg load,
of all eligible bg VMs by fg CPU use).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.backfill import keasy
from schedulers.backfill.simulator import BG, DONE, FG, WAITING, TwoTier, _bits, simulate_two_tier

from .helpers import config, instance
from .test_two_tier import TWO_TIER, _crowded_instance


def _mask(ps) -> int:
    return sum(1 << p for p in ps)


def check_state(sim) -> None:
    """Every incremental structure of ``sim`` equals the one a scan of all processors and jobs builds."""
    P, thr = sim.P, sim.threshold
    busy_fg = [p for p in range(P) if sim.fgj[p] >= 0]
    busy_bg = [p for p in range(P) if sim.bgj[p] >= 0]
    assert sim.fgm == _mask(busy_fg)
    assert sim.bgm == _mask(busy_bg)
    hot = [p for p in busy_fg if sim.fgc[p] >= thr] if sim.cpu_known else []
    assert sim.hotm == _mask(hot)
    eligible = [p for p in range(P) if sim.bgj[p] < 0 and (sim.fgc[p] < thr or not sim.cpu_known)]
    assert sim.n_elig == len(eligible)
    assert sim.idle_fg == P - len(busy_fg) and sim.busy_bg == len(busy_bg)
    assert all((sim.fgc[p] == 0.0) == (sim.fgj[p] < 0) for p in range(P))
    assert all((sim.bgc[p] == 0.0) == (sim.bgj[p] < 0) for p in range(P))
    in_bg = {j for j in range(sim.n) if sim.tier[j] == BG}
    assert sim.bg_run == in_bg
    for j in range(sim.n):
        if sim.tier[j] in (FG, BG):
            assert sim.jm[j] == _mask(sim.procs[j])
            owner = sim.fgj if sim.tier[j] == FG else sim.bgj
            assert all(owner[p] == j for p in sim.procs[j])
    assert sim.wsz == sorted(sim.size_l[j] for j in range(sim.n) if sim.tier[j] == WAITING)
    # Dispatch(FG): a stable sort of the idle fg VMs (index order) by bg load; without CPU information index order
    idle = [p for p in range(P) if sim.fgj[p] < 0]
    by_load = sorted(idle, key=lambda p: sim.bgc[p]) if sim.cpu_known else idle
    for need in range(1, len(idle) + 1):
        assert sim.fg_candidates(need) == by_load[:need], need
    # Dispatch(BG): a stable sort of the eligible bg VMs by fg CPU use
    want = sorted(eligible, key=lambda p: sim.fgc[p]) if sim.cpu_known else eligible
    assert sim.bg_candidates() == want


@pytest.fixture
def checked(monkeypatch):
    """Run check_state after every event batch (after Step 3, the last pass of the batch)."""
    calls = []
    original = keasy.background_pass

    def background_pass(sim, now, na):
        original(sim, now, na)
        check_state(sim)
        calls.append(now)

    monkeypatch.setattr(keasy, "background_pass", background_pass)
    return calls


def test_bits_takes_the_lowest_set_bits_in_order():
    for m in (0, 1, 0b1011, (1 << 300) | (1 << 7) | 0xFF00, (1 << 4500) - 1, 1 << 5000):
        every = [p for p in range(m.bit_length()) if m >> p & 1]
        for k in (0, 1, 3, 8, 9, 20, 400, 10_000):
            assert _bits(m, k) == every[:k], (m, k)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["exact", "none"]), st.sampled_from([5, 40]))
def test_incremental_sets_equal_a_rescan_after_random_operations(seed, cpu_info, processors):
    """Random placements (Dispatch's own candidates), removals, completions and fg moves on the machine itself."""
    from schedulers.backfill.workloads import Instance

    rng = np.random.default_rng(seed)
    n = 60
    sizes = rng.integers(1, processors + 1, n)
    runs = rng.choice([5.0, 10.0, 20.0], n)
    cpu = rng.choice([0.3, 0.6, 0.97, 1.0, 0.6], n)
    inst = Instance(processors, np.zeros(n), sizes, runs, runs, cpu, rng.uniform(0.2, 0.9, n), rng.uniform(0, 0.05, n),
                    np.arange(1, n + 1))  # fmt: skip
    sim = TwoTier(inst, config(params={"cpu_info": cpu_info}).params, record=False)
    for j in range(n):
        sim.arrive(j)
    now = 0.0
    for _ in range(150):
        now += 1.0
        j = int(rng.integers(n))
        s = sim.size_l[j]
        op = rng.integers(3)
        if sim.tier[j] == WAITING and op == 0 and s <= sim.idle_fg:
            sim.place_fg(j, sim.fg_candidates(s), now)
            sim.leave_unfg(j)
        elif sim.tier[j] == WAITING and s <= sim.n_elig:
            sim.place_bg(j, sim.bg_candidates()[:s], now)
        elif sim.tier[j] == BG and op == 0 and s <= sim.idle_fg:  # a kill or a migration (Deploy, Alg. 2)
            sim.remove(j, now)
            sim.place_fg(j, sim.fg_candidates(s), now)
            sim.leave_unfg(j)
        elif sim.tier[j] in (FG, BG):  # completion
            sim.remove(j, now)
            sim.tier[j] = DONE
            sim.leave_unfg(j)
        check_state(sim)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(TWO_TIER), st.sampled_from(["exact", "none"]))
def test_incremental_sets_equal_a_rescan_on_crowded_instances(seed, alg, cpu_info):
    calls = []
    original = keasy.background_pass

    def background_pass(sim, now, na):
        original(sim, now, na)
        check_state(sim)
        calls.append(now)

    keasy.background_pass = background_pass
    try:
        params = config(params={"cpu_info": cpu_info, "record_schedule": False}).params
        simulate_two_tier(_crowded_instance(seed), alg, params)
    finally:
        keasy.background_pass = original
    assert calls


@pytest.mark.parametrize("alg", TWO_TIER)
@pytest.mark.parametrize("cpu_info", ["exact", "none"])
def test_incremental_sets_equal_a_rescan_on_a_generated_workload(checked, alg, cpu_info):
    """600 Feitelson jobs at load 0.9 on 64 processors: large jobs, many bg placements (the byte-table path)."""
    cfg = config(datacenter={"processors": 64}, workload={"model": "feitelson", "n_jobs": 600, "load": 0.9},
                 params={"cpu_info": cpu_info, "record_schedule": False})  # fmt: skip
    res = simulate_two_tier(instance(cfg), alg, cfg.params)
    assert len(checked) > 600
    assert res.counters["swaps"] + res.counters["kills"] + res.counters["migrations"] > 0
