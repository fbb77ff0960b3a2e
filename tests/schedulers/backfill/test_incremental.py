"""The two-tier machine's incremental VM sets (bit masks) equal a full rescan after every pass.

simulator.TwoTier keeps the busy fg / busy bg / hot fg VMs as bit masks, a mask per job, the jobs of each tier,
the fg jobs above each bg job and the sorted sizes of the waiting jobs and of J_q ∪ J_bg, updated by the placement and removal
paths. Here every scheduling pass of real runs (and every operation of random sequences on the machine itself)
is followed by a rescan of all jobs that checks each structure, and Dispatch's candidates against the plain
definition (Alg. 2 lines 20 and 24: a stable sort of all idle fg VMs by bg load, of all eligible bg VMs by fg
CPU use).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.backfill import keasy
from schedulers.backfill.keasy import simulate_two_tier
from schedulers.backfill.simulator import BG, DONE, FG, WAITING, TwoTier, bits, low

from .helpers import config, instance
from .test_two_tier import TWO_TIER, _crowded_instance


def _mask(ps) -> int:
    return sum(1 << p for p in ps)


def _procs(m: int) -> list[int]:
    return [p for p in range(m.bit_length()) if m >> p & 1]


def check_state(sim) -> None:
    """Every incremental structure of ``sim`` equals the one a scan of all jobs and processors builds."""
    P, thr = sim.P, sim.threshold
    fgj, bgj = [-1] * P, [-1] * P  # per processor, from the jobs' own processor masks
    for j in range(sim.n):
        if sim.tier[j] in (FG, BG):
            owner = fgj if sim.tier[j] == FG else bgj
            assert sim.jm[j].bit_count() == sim.size_l[j]
            for p in _procs(sim.jm[j]):
                assert owner[p] == -1, f"VM {p} held twice"
                owner[p] = j
            if sim.record:
                assert sorted(sim.procs[j]) == _procs(sim.jm[j])
    fgc = [sim.cpu[j] if j >= 0 else 0.0 for j in fgj]
    bgc = [sim.cpu[j] if j >= 0 else 0.0 for j in bgj]
    assert _mask(p for p in range(P) if fgj[p] >= 0) == sim.fgm
    assert _mask(p for p in range(P) if bgj[p] >= 0) == sim.bgm
    hot = [p for p in range(P) if fgj[p] >= 0 and fgc[p] >= thr] if sim.cpu_known else []
    assert _mask(hot) == sim.hotm
    eligible = [p for p in range(P) if bgj[p] < 0 and (fgc[p] < thr or not sim.cpu_known)]
    assert sim.n_elig == len(eligible)
    assert sim.idle_fg == fgj.count(-1) and sim.busy_bg == P - bgj.count(-1)
    if sim.record:
        assert sim.fgj == fgj
    assert sim.fg_run == {j for j in range(sim.n) if sim.tier[j] == FG}
    assert sim.bg_run == {j for j in range(sim.n) if sim.tier[j] == BG}
    assert sim.above.keys() == sim.bg_run
    for k in sim.bg_run:
        assert sim.above[k].keys() == {fgj[p] for p in _procs(sim.jm[k])} - {-1}
    assert sim.wsz == sorted(sim.size_l[j] for j in range(sim.n) if sim.tier[j] == WAITING)
    assert sim.usz == sorted(sim.size_l[j] for j in range(sim.n) if sim.unfg[j])
    assert all(sim.unfg[j] == (sim.tier[j] in (WAITING, BG)) for j in range(sim.n) if sim.tier[j] != DONE)
    # Dispatch(FG): a stable sort of the idle fg VMs (index order) by bg load; without CPU information index order
    idle = [p for p in range(P) if fgj[p] < 0]
    by_load = sorted(idle, key=lambda p: bgc[p]) if sim.cpu_known else idle
    for need in range(1, len(idle) + 1):
        m, pr = sim.fg_candidates(need)
        assert m == _mask(by_load[:need]), need
        assert pr == (by_load[:need] if sim.record else None), need
    # Dispatch(BG): a stable sort of the eligible bg VMs by fg CPU use
    want = sorted(eligible, key=lambda p: fgc[p]) if sim.cpu_known else eligible
    for k in {1, 2, 3, 9, max(1, len(want))}:  # Step 3 takes them in slices from the front
        groups, got = sim.bg_candidates(), []
        while len(got) < len(want):
            m, pr = sim.take(groups, min(k, len(want) - len(got)))
            assert pr == (want[len(got) : len(got) + k] if sim.record else None)
            assert m == _mask(want[len(got) : len(got) + k])
            got += want[len(got) : len(got) + k]
        assert not any(groups)


def _checking(calls: list):
    """The event loop's hook (``keasy.CHECK``): check_state where each pass ends (the loop runs the passes'
    common paths inline, so wrapping keasy's functions would miss them)."""

    def checked_pass(sim, now):
        check_state(sim)
        calls.append(now)

    return checked_pass


@pytest.fixture
def checked(monkeypatch):
    """Run check_state after every pass of the event loop."""
    calls: list = []
    monkeypatch.setattr(keasy, "CHECK", _checking(calls))
    return calls


def test_bits_and_low_take_the_lowest_set_bits_in_order():
    for m in (0, 1, 0b1011, (1 << 300) | (1 << 7) | 0xFF00, (1 << 4500) - 1, 1 << 5000, 0xF0F0F0F0F0F0F0F0F0):
        every = _procs(m)
        for k in (0, 1, 3, 8, 9, 20, 33, 400, 10_000):
            assert bits(m, k) == every[:k], (m, k)
            assert low(m, k) == _mask(every[:k]), (m, k)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["exact", "none"]), st.sampled_from([5, 40]), st.booleans())
def test_incremental_sets_equal_a_rescan_after_random_operations(seed, cpu_info, processors, record):
    """Random placements (Dispatch's own candidates), removals, completions and fg moves on the machine itself."""
    from schedulers.backfill.workloads import Instance

    rng = np.random.default_rng(seed)
    n = 60
    sizes = rng.integers(1, processors + 1, n)
    runs = rng.choice([5.0, 10.0, 20.0], n)
    cpu = rng.choice([0.3, 0.6, 0.97, 1.0, 0.6], n)
    inst = Instance(processors, np.zeros(n), sizes, runs, runs, cpu, rng.uniform(0.2, 0.9, n), rng.uniform(0, 0.05, n),
                    np.arange(1, n + 1))  # fmt: skip
    sim = TwoTier(inst, config(params={"cpu_info": cpu_info}).params, record=record)
    for j in range(n):
        sim.arrive(j)
    now = 0.0
    for _ in range(150):
        now += 1.0
        j = int(rng.integers(n))
        s = sim.size_l[j]
        op = rng.integers(3)
        if sim.tier[j] == WAITING and op == 0 and s <= sim.idle_fg:
            sim.place_fg(j, *sim.fg_candidates(s), now)
            sim.leave_unfg(j)
        elif sim.tier[j] == WAITING and s <= sim.n_elig:
            sim.place_bg(j, *sim.take(sim.bg_candidates(), s), now)
        elif sim.tier[j] == BG and op == 0 and s <= sim.idle_fg:  # a kill or a migration (Deploy, Alg. 2)
            sim.remove(j, now)
            sim.place_fg(j, *sim.fg_candidates(s), now)
            sim.leave_unfg(j)
        elif sim.tier[j] in (FG, BG):  # completion
            sim.remove(j, now, bool(op == 1))
            sim.tier[j] = DONE
            sim.leave_unfg(j)
        check_state(sim)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(TWO_TIER), st.sampled_from(["exact", "none"]))
def test_incremental_sets_equal_a_rescan_on_crowded_instances(seed, alg, cpu_info):
    calls: list = []
    keasy.CHECK = _checking(calls)
    try:
        params = config(params={"cpu_info": cpu_info, "record_schedule": seed % 2 == 0}).params
        simulate_two_tier(_crowded_instance(seed), alg, params)
    finally:
        keasy.CHECK = None
    assert calls


@pytest.mark.parametrize("alg", TWO_TIER)
@pytest.mark.parametrize("cpu_info", ["exact", "none"])
@pytest.mark.parametrize("record", [False, True])
def test_incremental_sets_equal_a_rescan_on_a_generated_workload(checked, alg, cpu_info, record):
    """600 Feitelson jobs at load 0.9 on 64 processors: large jobs, many bg placements (the byte-table path)."""
    cfg = config(datacenter={"processors": 64}, workload={"model": "feitelson", "n_jobs": 600, "load": 0.9},
                 params={"cpu_info": cpu_info, "record_schedule": record})  # fmt: skip
    res = simulate_two_tier(instance(cfg), alg, cfg.params)
    assert len(checked) > 600
    assert res.counters["swaps"] + res.counters["kills"] + res.counters["migrations"] > 0


@pytest.mark.parametrize("model", ["feitelson", "jann"])
def test_reasy_arrival_pass_with_a_background_head_equals_the_full_pass(model):
    """REASY's arrival path recomputes a background head's reservation (Alg. 3 lines 14–17) and takes the
    incremental pass only when T_S is unchanged and N_E has not grown: the same schedule as full Steps 1–2."""
    cfg = config(workload={"model": model, "n_jobs": 4000, "load": 0.85}, params={"record_schedule": False})
    inst = instance(cfg)
    out = []
    for incremental in (False, True):
        keasy.INCREMENTAL, saved = incremental, keasy.INCREMENTAL
        try:
            res = simulate_two_tier(inst, "reasy", cfg.params)
        finally:
            keasy.INCREMENTAL = saved
        out.append((res.first_start.tolist(), res.end.tolist(), res.counters))
    assert out[0] == out[1]
