import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedulers.core import rng
from schedulers.core.metrics import batch_means_ci, bounded_slowdown, mean_ci
from schedulers.core.power import DvfsLevel, DvfsPower, LinearPower, TablePower
from schedulers.core.series import (
    change_points,
    downsample,
    energy_j,
    exact_series,
    power_from_segments,
    step_series,
)
from schedulers.core.sim import EventQueue


def test_streams_are_reproducible_and_independent():
    a = rng.stream(42, 0, "workload").random(5)
    assert np.array_equal(a, rng.stream(42, 0, "workload").random(5))
    assert not np.array_equal(a, rng.stream(42, 1, "workload").random(5))
    assert not np.array_equal(a, rng.stream(42, 0, "algorithm:x").random(5))
    assert rng.child_seed(1, 2) == rng.child_seed(1, 2) >= 0


def test_simultaneous_events_run_in_priority_then_insertion_order():
    q = EventQueue()
    q.schedule(5.0, "b", priority=1)
    q.schedule(5.0, "a", priority=0)
    q.schedule(5.0, "c", priority=1)
    q.schedule(1.0, "first")
    assert [e.kind for e in q] == ["first", "a", "b", "c"]
    assert q.now == 5.0


def test_cancelled_events_never_fire_and_the_past_is_refused():
    q = EventQueue()
    e = q.schedule(2.0, "x")
    q.schedule(3.0, "y")
    q.cancel(e)
    assert len(q) == 1
    assert [ev.kind for ev in q.pop_simultaneous()] == ["y"]
    with pytest.raises(ValueError, match="past"):
        q.schedule(1.0, "late")


def test_table_power_matches_cloudsim_interpolation():
    """docs/workload-models.md §7.1: x5675 P(0.02) = 58.4 + (98 − 58.4)/5 and P(0.87) = 189 + 0.7·(205 − 189)."""
    model = TablePower.named("ibm_x3550_xeon_x5675")
    assert model.power(0.02) == pytest.approx(58.4 + (98 - 58.4) / 5)
    assert model.power(0.87) == pytest.approx(189 + 0.7 * (205 - 189))
    assert model.power(1.0) == 222
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        model.power(1.2)


def test_linear_power_and_dvfs_power():
    assert LinearPower(100, 200).power(np.array([0, 0.5, 1])).tolist() == [100, 150, 200]
    levels = (DvfsLevel(1.6, 1.484), DvfsLevel(0.6, 0.956))
    dvfs = DvfsPower(levels, cores=2, p_static_w=20, p_max_w=60)
    assert dvfs.host_power([0, 0]) == pytest.approx(60)
    assert dvfs.host_power([1, None]) < dvfs.host_power([0, None]) < dvfs.host_power([0, 0])


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0.01, 50), st.floats(0.1, 4)), min_size=1, max_size=30))
def test_step_series_integral_equals_sum_of_rectangles(rects):
    starts = [s for s, _, _ in rects]
    ends = [s + d for s, d, _ in rects]
    values = [v for _, _, v in rects]
    t, level = step_series(starts, ends, values)
    area = float(np.sum(level[:-1] * np.diff(t)))
    assert area == pytest.approx(sum(d * v for _, d, v in rects), rel=1e-9)
    assert level[-1] == 0 and level.min() >= 0


def test_change_points_keep_the_last_state_of_each_instant_and_drop_repeats():
    # three records at t=1 (events of one instant, one after another), a repeat at t=3, the end at t=5
    t = [0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 5.0]
    power = [10.0, 20.0, 30.0, 15.0, 5.0, 5.0, 5.0]
    busy = [1, 2, 3, 2, 1, 1, 1]
    tt, cols = change_points(t, {"p": power, "b": busy})
    assert tt.tolist() == [0.0, 1.0, 2.0, 5.0]  # t=3 repeats t=2; the last point (the end) stays
    assert cols["p"].tolist() == [10.0, 15.0, 5.0, 5.0] and cols["b"].tolist() == [1, 2, 1, 1]
    kept = change_points([0.0, 1.0, 2.0], {"a": [1, 1, 1], "b": [0, 2, 2]})[0]
    assert kept.tolist() == [0.0, 1.0, 2.0]  # a point stays when any column changes there


@given(
    st.lists(st.tuples(st.integers(0, 30), st.sampled_from([0.0, 1.5, 2.0, 7.25])), min_size=2, max_size=60),
)
def test_exact_series_keep_the_integral_and_energy_of_every_step_function(steps):
    t = np.sort(np.asarray([s for s, _ in steps], dtype=float))
    v = np.asarray([x for _, x in steps])
    series = exact_series(t, {"power_w": v}, power="power_w", seconds_per_unit=60.0)
    # reference: the last record of each instant held until the next instant
    last = np.append(t[1:] != t[:-1], True)
    area = float(np.sum(v[last][:-1] * np.diff(t[last]))) * 60.0
    stored = np.asarray(series["t"]) * 60.0
    assert float(np.sum(np.asarray(series["power_w"])[:-1] * np.diff(stored))) == pytest.approx(area, abs=1e-9)
    assert series["energy_j"][-1] == pytest.approx(area, abs=1e-9)
    assert series["t"][0] == t[0] and series["t"][-1] == t[-1]
    assert all(np.diff(series["t"]) > 0)


def test_a_stated_cap_downsamples_every_series_on_one_axis():
    t = np.arange(100.0)
    series = exact_series(t, {"power_w": t % 7, "busy": t % 3}, power="power_w", points=10)
    assert len(series["t"]) == len(series["power_w"]) == len(series["busy"]) == len(series["energy_j"]) == 10
    assert exact_series([], {"power_w": []}, power="power_w") == {"t": [], "power_w": [], "energy_j": []}


def test_energy_is_the_integral_of_power():
    segments = [
        {"resource": "h0", "start": 0.0, "end": 10.0, "share": 2.0},
        {"resource": "h0", "start": 5.0, "end": 10.0, "share": 2.0},
        {"resource": "h1", "start": 0.0, "end": 4.0, "share": 4.0},
    ]
    model = LinearPower(100, 200)
    t, p = power_from_segments(segments, {"h0": 4, "h1": 4}, lambda r, u: model.power(u))
    e = energy_j(t, p)
    # h0: 5 s at 50% (150 W) + 5 s at 100% (200 W); h1: 4 s at 100%; idle hosts are off.
    assert e[-1] == pytest.approx(5 * 150 + 5 * 200 + 4 * 200)


def test_downsample_keeps_peaks():
    t = np.arange(10_000, dtype=float)
    v = np.zeros_like(t)
    v[4321] = 99.0
    ts, vs = downsample(t, v, 100)
    assert len(ts) <= 100 and max(vs) == 99.0


def test_metric_helpers():
    assert mean_ci([1.0])["ci"] == 0.0
    s = mean_ci([1.0, 2.0, 3.0])
    assert s["mean"] == 2.0 and s["ci"] == pytest.approx(4.302652729911275 * 1 / math.sqrt(3))
    assert batch_means_ci(list(range(100)), batches=10)["n"] == 10
    assert bounded_slowdown([5.0, 100.0], [1.0, 50.0]).tolist() == [1.0, 2.0]


def test_envelope_keeps_the_area_and_the_extremes():
    from schedulers.core.series import envelope

    t, v = np.array([0.0, 1.0, 2.0, 3.0, 10.0]), np.array([1.0, 5.0, 2.0, 0.0, 0.0])
    env = envelope(t, v, 2, 0, 4)
    assert env == {"t": [0.0, 2.0], "v": [3.0, 1.0], "min": [1.0, 0.0], "max": [5.0, 2.0], "exact": False}
    rng = np.random.default_rng(0)
    t = np.cumsum(rng.exponential(1.0, 5000))
    v = rng.uniform(0.0, 100.0, 5000)
    env = envelope(t, v, 97)
    width = (t[-1] - t[0]) / 97
    assert np.isclose(np.sum(env["v"]) * width, np.sum(v[:-1] * np.diff(t)), rtol=1e-12)
    assert max(env["max"]) == v[:-1].max() and min(env["min"]) == v.min()
    few = envelope(t[:10], v[:10], 97)
    assert few["exact"] and few["v"] == v[:10].tolist()


def test_envelope_never_extends_a_series_past_its_last_point():
    from schedulers.core.series import envelope

    t = np.arange(0.0, 100.0)
    env = envelope(t, np.cumsum(np.ones(100)), 10, 0.0, 500.0)  # the window is longer than this run
    assert env["t"][-1] < 99.0 and min(env["v"]) > 0


def test_envelope_of_a_window_matches_bucket_by_bucket_integration():
    """Each bucket's mean is ∫ level dt / width and its min/max span every level holding in it, for windows
    anywhere in a series (inside it, at its start, running to its end, past it), from a direct loop."""
    from schedulers.core.series import envelope

    rng = np.random.default_rng(7)
    t = np.cumsum(rng.exponential(1.0, 3000))
    v = rng.integers(0, 50, 3000).astype(float)
    ends = np.append(t[1:], t[-1])  # the last level holds at t[-1] only
    for lo, hi, points in ((t[100] + 0.3, t[900] - 0.2, 37), (t[0], t[400], 50), (t[2500] + 0.1, t[-1], 41),
                           (t[2000], t[-1] + 100.0, 29), (t[10], t[2990], 300), (t[5] - 0.5, t[-1], 7)):  # fmt: skip
        env = envelope(t, v, points, lo, hi)
        lo_, hi_ = max(lo, t[0]), min(hi, t[-1])
        edges = np.linspace(lo_, hi_, points + 1)
        assert env["t"] == edges[:-1].tolist()
        for k in range(points):
            a, b = edges[k], edges[k + 1]
            area = np.sum(v * np.clip(np.minimum(ends, b) - np.maximum(t, a), 0.0, None))
            assert np.isclose(env["v"][k], area / (b - a), rtol=1e-9, atol=1e-9), (lo, hi, k)
            first = max(int(np.searchsorted(t, a, side="right")) - 1, 0)
            last = max(int(np.searchsorted(t, b, side="left")) - 1, first)
            assert env["min"][k] == v[first : last + 1].min() and env["max"][k] == v[first : last + 1].max(), (
                lo,
                hi,
                k,
            )
