"""``algorithm_runtime_s`` is robust to a busy machine: CPU time, the best of a few identical placements."""

from __future__ import annotations

import itertools

import pytest

import schedulers
from schedulers.vm_reservations import simulator


def _fake_clock(monkeypatch, durations):
    """``time.process_time`` as seen by the simulator: each placement takes the next of ``durations``."""
    ticks = itertools.accumulate(itertools.chain.from_iterable((0.0, d) for d in durations))
    clock = iter(ticks)
    monkeypatch.setattr(simulator.time, "process_time", lambda: next(clock))


def _pool():
    scenario = schedulers.example("vm_reservations")
    family, cfg = schedulers.validate(scenario)
    inst = family.prepare(cfg, schedulers.result.rngmod.stream(cfg.seed, 0, "workload"))
    return cfg, inst.pools[0]


def test_the_heuristics_report_the_best_of_their_repeats(monkeypatch):
    """A slow first placement (another process had the core) does not decide the runtime."""
    cfg, pool = _pool()
    _fake_clock(monkeypatch, [0.09, 0.02, 0.03, 0.01, 0.05, 0.04, 0.02])
    first, _, took = simulator.timed_place(cfg, pool, "llif", lambda f: None)
    assert took == pytest.approx(0.01)
    again, _ = simulator.place(cfg, pool, "llif", lambda f: None)
    assert (first.pm == again.pm).all() and (first.job == again.job).all()


def test_repeats_stop_at_the_budget(monkeypatch):
    """Repeats stop once their sum reaches TIMING_BUDGET_S (a slow placement is timed once or twice)."""
    cfg, pool = _pool()
    calls = []
    real = simulator.place
    monkeypatch.setattr(simulator, "place", lambda *a: calls.append(1) or real(*a))
    _fake_clock(monkeypatch, [0.4, 0.3, 0.2])
    _, _, took = simulator.timed_place(cfg, pool, "ffd", lambda f: None)
    assert len(calls) == 2 and took == pytest.approx(0.3)
