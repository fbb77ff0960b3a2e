"""The series chart's window: every line exact at the window's edges, at any zoom."""

import numpy as np
import pytest

from cloudsched_web.results import series as series_chart
from cloudsched_web.results.queries import QueryError
from tests.api.factories import parsed as ParsedResult


def _doc(**lines):
    """One repetition, one run per algorithm: ``alg=(t, power_w)``; ``energy_j`` derived from the power."""
    runs = [{"algorithm": alg, "repetition": 0, "metrics": {}, "schedule": [], "jobs": [],
             "series": {"t": [float(x) for x in t], "power_w": [float(x) for x in p]}}
            for alg, (t, p) in lines.items()]  # fmt: skip
    return ParsedResult({"runs": runs, "summary": {}})


def test_a_window_narrower_than_the_gap_between_two_points_holds_the_level_at_both_edges():
    parsed = _doc(easy=([0, 100, 200, 300], [5, 7, 3, 0]))
    data = series_chart.series(parsed, 0, 130, 160)  # 30 s inside a 100 s step
    power = data["series"]["power_w"]["easy"]
    assert power == {"t": [130.0, 160.0], "v": [7.0, 7.0]}
    energy = data["series"]["energy_j"]["easy"]  # cumulative: interpolated, never held
    assert energy["t"] == [130.0, 160.0] and energy["v"] == [500.0 + 7 * 30, 500.0 + 7 * 60]
    assert data["cumulative"] == ["energy_j"]


def test_every_line_starts_and_ends_at_the_window_even_when_its_changes_lie_outside():
    """The 200k-job zoom of lines with their last change before the window vanished."""
    parsed = _doc(
        easy=([0, 10, 45, 1000], [1, 2, 3, 0]),  # changes inside the window
        keasy=([0, 5, 1000], [4, 6, 0]),  # its last change before the window
        reasy=([0, 1000], [9, 0]),
    )
    data = series_chart.series(parsed, 0, 20, 80)
    lines = data["series"]["power_w"]
    assert lines["easy"] == {"t": [20.0, 45.0, 80.0], "v": [2.0, 3.0, 3.0]}
    assert lines["keasy"] == {"t": [20.0, 80.0], "v": [6.0, 6.0]}
    assert lines["reasy"] == {"t": [20.0, 80.0], "v": [9.0, 9.0]}
    for line in data["series"]["energy_j"].values():
        assert line["t"][0] == 20.0 and line["t"][-1] == 80.0


def test_a_change_on_an_edge_is_the_level_from_then_on():
    parsed = _doc(easy=([0, 10, 20, 30], [1, 2, 3, 0]))
    assert series_chart.series(parsed, 0, 10, 20)["series"]["power_w"]["easy"] == {"t": [10.0, 20.0], "v": [2.0, 3.0]}
    whole = series_chart.series(parsed, 0)["series"]["power_w"]["easy"]
    assert whole == {"t": [0.0, 10.0, 20.0, 30.0], "v": [1.0, 2.0, 3.0, 0.0]}  # the stored change points


def test_a_line_is_not_drawn_where_its_series_has_no_values():
    parsed = _doc(easy=([0, 50], [1, 0]), keasy=([0, 100], [2, 0]))
    lines = series_chart.series(parsed, 0, 60, 90)["series"]["power_w"]
    assert lines["easy"] == {"t": [], "v": []} and lines["keasy"] == {"t": [60.0, 90.0], "v": [2.0, 2.0]}


def test_more_changes_than_pixels_come_as_buckets_with_exact_edges_and_say_so():
    rng = np.random.default_rng(3)
    t = np.arange(0.0, 10_001.0)
    power = rng.integers(1, 100, t.size).astype(float)
    parsed = _doc(easy=(t, power))
    line = series_chart.series(parsed, 0, 1000.5, 9000.5, points=100)["series"]["power_w"]["easy"]
    assert len(line["t"]) == 101 and line["t"][0] == 1000.5 and line["t"][-1] == 9000.5
    assert line["bucket"] == pytest.approx(80.0) and line["changes"] == 8000
    assert line["v"][-1] == line["min"][-1] == line["max"][-1] == power[9000]  # the level at the end
    inside = power[1000:9001]
    assert min(line["min"]) == inside.min() and max(line["max"]) == inside.max()
    energy = sum(v * line["bucket"] for v in line["v"][:-1])
    assert energy == pytest.approx(
        0.5 * power[1000] + inside[1:-1].sum() + 0.5 * power[9000], rel=1e-6
    )  # means to 4 decimals


def test_identical_lines_are_named_so_the_page_can_say_they_coincide():
    same = ([0, 10, 20], [3, 4, 0])
    data = series_chart.series(_doc(easy=same, keasy=same, reasy=([0, 10, 20], [3, 5, 0])), 0)
    assert data["coincide"]["power_w"] == [["easy", "keasy"]]
    assert data["coincide"]["energy_j"] == [["easy", "keasy"]]


@pytest.mark.parametrize("points", ["0", "x", str(series_chart.MAX_POINTS + 1)])
def test_points_are_bounded(points):
    with pytest.raises(QueryError) as info:
        series_chart.series(_doc(easy=([0, 1], [1, 0])), 0, points=points)
    assert info.value.field == "points"
