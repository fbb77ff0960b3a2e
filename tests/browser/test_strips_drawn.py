"""The DVFS strips of the dvfs_bot demo in Chromium: the columns each strip draws are those of the stored schedule
(each host's highest running core frequency, time-weighted over the busy part of each pixel column), at the whole
run and zoomed in, and a zoom inside a window the page already holds exactly asks the server for no strips again.

The columns drawn are read from the chart (``chart.$drawn``, static/js/strips.js); the reference is computed here
from the stored segments, by brute force.
"""

import numpy as np
import pytest

import schedulers
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DRAWN = """() => [...document.querySelectorAll('#freq-charts canvas')].map((c) => {
  const ch = Chart.getChart(c);
  return {index: ch.$strip.index, hosts: ch.$drawn.hosts, strips: ch.$drawn.strips, view: [ch.scales.x.min, ch.scales.x.max],
    width: Math.round(ch.chartArea.width)};
})"""


def _reference(segs, lo, hi, n):
    """Columns of one host over ``[lo, hi]``: (busy fraction, mean of the highest running frequency while busy)."""
    bounds = np.unique([x for s in segs for x in (s["start"], s["end"])])
    a, b = bounds[:-1], bounds[1:]
    level = np.array([max((s["freq_ghz"] for s in segs if s["start"] <= x and s["end"] >= y), default=0.0)
                      for x, y in zip(a, b, strict=True)])  # fmt: skip
    edges = np.linspace(lo, hi, n + 1)
    overlap = np.clip(np.minimum(edges[1:, None], b[None, :]) - np.maximum(edges[:-1, None], a[None, :]), 0, None)
    on, weighted = overlap @ (level > 0), overlap @ level
    width = (hi - lo) / n
    busy = np.where(on > 1e-6 * width, on / width, 0.0)
    ghz = [w / o if o > 1e-6 * width else None for w, o in zip(weighted, on, strict=True)]
    return busy, ghz


def _check(run, charts):
    parsed = get_result(Run.objects.get(pk=run.pk))
    assert len(charts) == 2, "a strip chart per algorithm"
    for c in charts:
        segs = [s for s in parsed.stored(c["index"]).table("segments").to_pylist() if s.get("freq_ghz") is not None]
        assert c["hosts"] == sorted({s["host"] for s in segs}, key=lambda h: int(h[1:]))
        for host, drawn in zip(c["hosts"], c["strips"], strict=True):
            assert drawn["exact"], f"{host}: the demo's strips come exact"
            lo, hi = drawn["t"]
            assert lo >= c["view"][0] - 1e-9 and hi <= c["view"][1] + 1e-9
            busy, ghz = _reference([s for s in segs if s["host"] == host], lo, hi, len(drawn["busy"]))
            assert np.allclose(drawn["busy"], busy, atol=1e-9), f"{host}: busy fractions differ"
            assert [g is None for g in drawn["ghz"]] == [g is None for g in ghz], f"{host}: idle columns differ"
            assert np.allclose([g for g in drawn["ghz"] if g is not None], [g for g in ghz if g is not None], atol=1e-9)
        assert any(any(d["busy"]) for d in c["strips"]), "the strips drew nothing busy"


def test_the_strips_draw_the_stored_frequencies_and_a_zoom_inside_asks_for_none(page, live_server, alice):
    config = schedulers.example("dvfs_bot")
    scenario = Scenario.objects.create(owner=alice, family="dvfs_bot", name="dvfs demo", config=config)
    run = finished_run(scenario)
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "kind=strips" in r.url else None)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    assert len(asked) == 1 and "t0=" not in asked[0], asked
    whole = page.evaluate(DRAWN)
    _check(run, whole)
    assert all(len(d["busy"]) == c["width"] > 500 for c in whole for d in c["strips"])  # a column per pixel of the plot
    page.locator("#freq-section").screenshot(path=str(screens_dir() / "dvfs_strips_whole.png"))
    lo, hi = whole[0]["view"]
    for k, (a, b) in enumerate(((0.40, 0.45), (0.42, 0.421), (0.1, 0.9))):  # zoomed 20×, 1000×, and out again
        page.evaluate(f"() => window.cloudsched.link.set({lo + (hi - lo) * a}, {lo + (hi - lo) * b})")
        page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded || 0) >= {k + 2}")
        zoomed = page.evaluate(DRAWN)
        assert zoomed[0]["view"] == pytest.approx([lo + (hi - lo) * a, lo + (hi - lo) * b])
        _check(run, zoomed)
        if k == 0:
            page.locator("#freq-section").screenshot(path=str(screens_dir() / "dvfs_strips_zoomed.png"))
    assert len(asked) == 1, f"zooms inside the exact whole-run window asked again: {asked}"


def _busy_host_result():
    """The demo's result with h0 of every run replaced by 3,000 back-to-back segments alternating 1.2 and 2.0 GHz
    over the series' span: more changes than the plot has pixels, so its strip comes as columns at the whole run."""
    result = schedulers.run(schedulers.example("dvfs_bot"))
    for run in result["runs"]:
        lo, hi = run["series"]["t"][0], run["series"]["t"][-1]
        edges = np.linspace(lo, hi, 3001).tolist()
        others = [s for s in run["schedule"] if s["host"] != "h0"]
        busy = [{"job": f"x{k}", "task": f"x{k}.0", "resource": "vm0", "start": edges[k], "end": edges[k + 1], "share": 1.0,
                 "kind": "task", "freq_ghz": 1.2 if k % 2 else 2.0, "host": "h0"} for k in range(3000)]  # fmt: skip
        run["schedule"] = busy + others
        run.pop("jobs", None)
    return result


def test_a_strip_in_columns_is_asked_again_only_when_a_zoom_needs_finer_ones(page, live_server, alice):
    config = schedulers.example("dvfs_bot")
    scenario = Scenario.objects.create(owner=alice, family="dvfs_bot", name="dvfs busy host", config=config)
    run = finished_run(scenario, _busy_host_result())
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "kind=strips" in r.url else None)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    whole = page.evaluate(DRAWN)
    assert [d["exact"] for d in whole[0]["strips"]][:2] == [False, True]  # h0 in columns, h1 exact
    parsed = get_result(Run.objects.get(pk=run.pk))
    segs = [s for s in parsed.stored(0).table("segments").to_pylist() if s["host"] == "h0"]
    h0 = whole[0]["strips"][0]
    busy, ghz = _reference(segs, *h0["t"], len(h0["busy"]))
    assert np.allclose(h0["busy"], busy, atol=1e-3) and np.allclose(h0["ghz"], ghz, atol=1e-3)  # 3 decimals sent
    assert len(h0["busy"]) >= whole[0]["width"]  # no coarser than the pixels
    lo, hi = h0["t"]
    steps = [  # (window as fractions of the run, strips requests expected after it)
        ((0.0, 0.8), 2),  # the columns would be coarser than the pixels: asked
        ((0.40, 0.41), 3),  # 30 changes in the window: asked, exact
        ((0.402, 0.405), 3),  # inside the exact window: nothing asked
        ((0.1, 0.9), 4),  # wider than any exact window held and the whole run's columns too coarse: asked
        ((0.0, 1.0), 4),  # the whole run, held: nothing asked
    ]
    for k, ((a, b), want) in enumerate(steps):
        page.evaluate(f"() => window.cloudsched.link.set({lo + (hi - lo) * a}, {lo + (hi - lo) * b})")
        page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded || 0) >= {k + 2}")
        assert len(asked) == want, (a, b, asked)
        drawn = page.evaluate(DRAWN)[0]["strips"][0]
        t0, t1 = drawn["t"]
        busy, ghz = _reference(segs, t0, t1, len(drawn["busy"]))
        assert np.allclose(drawn["busy"], busy, atol=1e-3) and np.allclose(
            [g if g is not None else -1 for g in drawn["ghz"]], [g if g is not None else -1 for g in ghz], atol=1e-3
        )
        if drawn["exact"]:
            assert (t0, t1) == pytest.approx((lo + (hi - lo) * a, lo + (hi - lo) * b))
        else:  # columns of a window holding the view, no wider than its pixels
            assert t0 <= lo + (hi - lo) * a + 1e-6 and t1 >= lo + (hi - lo) * b - 1e-6
            assert (t1 - t0) / len(drawn["busy"]) <= (hi - lo) * (b - a) / page.evaluate(DRAWN)[0]["width"] * (1 + 1e-9)
