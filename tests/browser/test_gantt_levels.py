"""A large result in Chromium: the Gantt shows every resource and every moment, as occupancy or bars.

The chart's own data (``chart.$g``, what the plugin and the bars draw) is checked against the
stored schedule, not the canvas pixels.
"""

import pytest

from cloudsched_web.results.bars import plain_bars
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import big_result, finished_run
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _gantt(page):
    return page.evaluate(
        "() => { const c = Object.values(window.cloudsched.gantt)[0]; const g = c.$g;"
        " return {mode: g.mode, row0: g.row0, resources: g.resources, total: g.total_resources, window: g.window,"
        " bars: g.bars, occ: g.occupancy || null, drawn: g.mode === 'bars' ? c.$painted.bars : 0}; }"
    )


def _loaded(page, n):
    page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded || 0) >= {n}")


def test_zoom_and_page_through_a_large_gantt(page, live_server, alice, toy_scenario, tmp_path):
    result = big_result(20_000, processors=100)  # 20,000 segments on 100 resources, 2,000 s of schedule
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="big", config=toy_scenario)
    run = finished_run(scenario, result=result)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _loaded(page, 1)
    g = _gantt(page)
    # Whole run: 8,000 segments on the page, within the 100,000-bar budget: every one drawn as a bar.
    assert g["mode"] == "bars" and g["drawn"] == g["bars"]["n"] == 8000
    assert g["total"] == 100 and g["resources"][:3] == ["p0", "p1", "p2"] and len(g["resources"]) == 40
    page.locator("#gantt-charts").screenshot(path=str(tmp_path / "gantt-whole.png"))
    # Page through every resource row.
    seen = list(g["resources"])
    for _ in range(2):
        page.click("#gantt-pager-0 .next")
        page.wait_for_function(f"() => Object.values(window.cloudsched.gantt)[0].$g.row0 > {len(seen) - 1}")
        seen += _gantt(page)["resources"]
    assert seen == [f"p{i}" for i in range(100)]
    assert page.locator("#gantt-pager-0 .next").is_disabled()
    # Zoom in to single jobs: bars, equal to the stored schedule in that window on these rows.
    page.click("#gantt-pager-0 .prev")
    page.click("#gantt-pager-0 .prev")
    page.wait_for_function("() => Object.values(window.cloudsched.gantt)[0].$g.row0 === 0")
    page.evaluate("() => window.cloudsched.link.set(1000, 1050)")
    page.wait_for_function(
        "() => { const g = Object.values(window.cloudsched.gantt)[0].$g; return g.mode === 'bars' && g.window[0] >= 999; }"
    )
    g = _gantt(page)
    lo, hi = g["window"]
    rows = set(g["resources"])
    stored = [s for s in get_result(Run.objects.get(pk=run.pk)).stored(0).table("segments").to_pylist()
              if s["end"] > lo and s["start"] < hi and s["resource"] in rows]  # fmt: skip
    b = plain_bars(g["bars"])
    drawn = sorted(zip((g["resources"][r] for r in b["r"]), b["s"], b["job"], strict=True))
    assert drawn == sorted((s["resource"], s["start"], s["job"]) for s in stored)
    assert g["drawn"] == len(stored) > 0
    page.locator("#gantt-charts").screenshot(path=str(tmp_path / "gantt-bars.png"))


def test_a_window_drawn_before_is_drawn_again_without_asking_the_server(page, live_server, alice, toy_scenario):
    """Zooming back out to a window the page drew before (same rows, width) draws it from the page's cache:
    no Gantt request reaches the server, and what is drawn is what was drawn then."""
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="big", config=toy_scenario)
    run = finished_run(scenario, result=big_result(2_000, processors=20))
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "kind=gantt" in r.url else None)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _loaded(page, 1)
    page.evaluate("() => window.cloudsched.link.set(100, 900)")
    _loaded(page, 2)
    first = _gantt(page)
    page.evaluate("() => window.cloudsched.link.set(300, 400)")
    _loaded(page, 3)
    before = len(asked)
    page.evaluate("() => window.cloudsched.link.set(100, 900)")
    _loaded(page, 4)
    assert len(asked) == before, asked[before:]
    again = _gantt(page)
    assert again["window"] == first["window"] == [100, 900] and again["bars"] == first["bars"]
    page.evaluate("() => window.cloudsched.link.set(100, 901)")  # a window never drawn: asked
    _loaded(page, 5)
    assert len(asked) == before + 1
