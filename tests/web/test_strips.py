"""The DVFS strips (results.strips): what a window sends holds every column the page can draw inside it, and the
demo's strips stay small (they came as columns in the series response, 200 KB at a 1,221 px plot, at every zoom)."""

import numpy as np
import orjson
import pytest

import schedulers
from cloudsched_web.results import series, strips
from tests.api.factories import parsed as ParsedResult


@pytest.fixture(scope="module")
def demo():
    return ParsedResult(schedulers.run(schedulers.example("dvfs_bot")))


def _exact_columns(strip, levels, lo, hi, n):
    """An exact strip cut into columns as the page does it (static/js/strips.js), through the server's own cut."""
    t = np.asarray(strip["t"], dtype=float)
    f = np.asarray(levels, dtype=float)[strip["f"]]
    return strips.columns(t, np.append(f, 0.0), lo, hi, n)


def _expanded(strip):
    return [b for n, b in zip(strip["n"], strip["busy"], strict=True) for _ in range(n)], [
        g for n, g in zip(strip["n"], strip["ghz"], strict=True) for _ in range(n)
    ]


@pytest.mark.parametrize("points", [1221, 40, 6])
@pytest.mark.parametrize("part", [(0.0, 1.0), (0.3, 0.35), (0.5, 0.5)])
def test_a_window_holds_every_column_drawn_inside_it(demo, points, part):
    """Exact strips give the columns of the stored step functions at any zoom inside their window; column strips,
    expanded, are those columns; a host changing more often than ``points`` times comes as columns."""
    lo0, hi0 = series.series_span(demo, [0, 1])
    lo, hi = lo0 + (hi0 - lo0) * part[0], lo0 + (hi0 - lo0) * part[1]
    data = strips.strips(demo, 0, lo, hi, points)
    assert data["window"] == [lo, hi] and [r["algorithm"] for r in data["runs"]] == ["cloud_aware", "baseline"]
    kinds = set()
    for run in data["runs"]:
        levels = strips.host_levels(demo, run["index"])
        assert run["hosts"] == list(levels)
        for strip, (t, level) in zip(run["strips"], levels.values(), strict=True):
            changes = int(((t > lo) & (t < hi)).sum())
            if "n" in strip:
                kinds.add("columns")
                assert changes > points and sum(strip["n"]) == points
                assert _expanded(strip) == strips.columns(t, level, lo, hi, points)
                continue
            kinds.add("exact")
            assert changes <= points and strip["t"][0] == lo and strip["t"][-1] == hi
            if hi > lo:  # inside the window, at finer and coarser pixels: the stored step function's columns
                for a, b, n in ((lo, hi, points), (lo + (hi - lo) / 3, lo + (hi - lo) / 2, 97)):
                    assert _exact_columns(strip, run["levels"], a, b, n) == strips.columns(t, level, a, b, n)
    assert data["exact"] == (kinds == {"exact"})
    if points == 6 and part == (0.0, 1.0):
        assert kinds == {"exact", "columns"}  # both kinds met


def test_the_demo_strips_stay_small(demo):
    """The whole-run strips of the demo at a 1,221 px plot: every change of every host, exact, in under 8 KB
    (as columns in the series response they were 209,544 B)."""
    data = strips.strips(demo, 0, points=1221)
    assert data["exact"] and len(orjson.dumps(data)) < 8_000


def test_a_hosts_level_is_its_highest_running_frequency(demo):
    """host_levels against brute force: at the middle of every stretch between two segment ends or starts."""
    for index in (0, 1):
        segs = [s for s in demo.stored(index).table("segments").to_pylist() if s.get("freq_ghz") is not None]
        assert segs and strips.host_levels(demo, index)
        for host, (t, level) in strips.host_levels(demo, index).items():
            mine = [s for s in segs if s["host"] == host]
            bounds = np.unique([x for s in mine for x in (s["start"], s["end"])])
            for x in [*((bounds[:-1] + bounds[1:]) / 2).tolist(), bounds[-1] + 1.0]:
                want = max((s["freq_ghz"] for s in mine if s["start"] <= x < s["end"]), default=0.0)
                assert level[np.searchsorted(t, x, side="right") - 1] == want, (index, host, x)
            assert not np.any(level[1:-1] == level[:-2]), "equal neighbours are merged"
