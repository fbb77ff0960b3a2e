"""Time on every chart of the result, diff and study pages, read in Chromium.

Every time chart of a page (series, DVFS strips, Gantts) has one time axis: ticks in s, min, h or
d by the span, never a raw number of seconds above 10⁴, and one plot area: the same left and right
edge in pixels, so one instant is one column on all of them. Lines are exact at a window's edges
(item 4), energy has one unit on the page, identical lines are named, the diff table is exact.
Screenshots of each family's run page go to ``var/screens/tests/`` (``$CLOUDSCHED_SHOTS``).
"""

import copy
import re

import pytest

from cloudsched_web.results import formatting, jobdiff
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import shoot
from tests.browser.test_result_numbers import FAMILIES, _result
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Every chart on a time axis, with its x ticks as drawn and its plot area.
TIME_CHARTS = """() => [...document.querySelectorAll('#series-charts canvas, #freq-charts canvas, #gantt-charts canvas')]
  .map((el) => Chart.getChart(el)).filter(Boolean).map((c) => ({
    id: c.canvas.id, left: c.chartArea.left, right: c.chartArea.right, width: c.width,
    ticks: c.scales.x.ticks.map((t) => t.label), title: c.scales.x.options.title.text,
    min: c.scales.x.min, max: c.scales.x.max }))"""
LABEL = re.compile(r"^\+?(-?[\d\u202f]+(?:\.\d+)?) (s|min|h|d)$")


def _open(page, live_server, alice, family, result=None):
    config, stock = _result(family)
    scenario = Scenario.objects.create(owner=alice, family=family, name=f"time {family}", config=config)
    run = finished_run(scenario, result=result or stock)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    return Run.objects.get(pk=run.pk)


def _time_charts(page):
    page.wait_for_timeout(150)  # the shared plot edge settles one animation frame after the widest chart draws
    return page.evaluate(TIME_CHARTS)


def _check_axes(charts_):
    """One plot area for all, and ticks a person reads: a unit on each, seconds only below 10⁴."""
    assert charts_, "no time chart on the page"
    assert len({(round(c["left"], 1), round(c["right"], 1)) for c in charts_}) == 1, charts_
    for c in charts_:
        assert len(c["ticks"]) >= 2, c
        for label in c["ticks"]:
            m = LABEL.match(label)
            assert m, (c["id"], label)
            number = float(m.group(1).replace("\u202f", ""))
            assert m.group(2) != "s" or abs(number) < 1e4, (c["id"], label)
        assert not re.search(r"\d{5}", c["title"].replace("\u202f", "")), c["title"]


def _zoom(page, lo, hi):
    n = page.evaluate("() => Number(document.body.dataset.timelineLoaded)")
    page.evaluate(f"() => window.cloudsched.link.set({lo!r}, {hi!r})")
    page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded) > {n}")


@pytest.mark.parametrize("family", FAMILIES)
def test_every_time_chart_reads_time_alike_on_one_plot_width(page, live_server, alice, family):
    run = _open(page, live_server, alice, family)
    _check_axes(_time_charts(page))
    shoot(page, f"time-{family}")
    # A window narrower than the gap between two change points: every line still crosses it, holding its level.
    parsed = get_result(run)
    t = parsed.series_arrays(0)["t"]
    if len(t) < 3:
        return
    k = max(range(len(t) - 1), key=lambda i: t[i + 1] - t[i])  # the longest gap
    gap = float(t[k + 1] - t[k])
    lo, hi = float(t[k]) + gap / 4, float(t[k]) + gap / 4 + min(gap / 2, 0.5)  # at most half a second
    _zoom(page, lo, hi)
    lines = page.evaluate(
        "() => Object.entries(window.cloudsched.series).map(([k, c]) => [k, c.data.datasets.map((d) => [d.label, d.data])])"
    )
    for name, datasets in lines:
        for label, data in datasets:
            if not data:
                continue
            assert data[0]["x"] == pytest.approx(lo, abs=1e-3) and data[-1]["x"] == pytest.approx(hi, abs=1e-3), (
                name,
                label,
            )
    power = dict(next((d for n, d in lines if n == "power_w"), []))
    levels = parsed.series_arrays(0).get("power_w")
    if power and levels is not None:
        first = parsed.run(0)["algorithm"]
        assert [p["y"] for p in power[first]] == [float(levels[k])] * 2
    _check_axes(_time_charts(page))


def test_a_far_window_counts_from_a_named_origin_and_energy_has_one_unit(page, live_server, alice):
    """dvfs_bot: the energy chart's axis is in the table's unit; its J repeat is no row; a sub-second zoom reads."""
    _open(page, live_server, alice, "dvfs_bot")
    rows = page.evaluate(
        "() => [...document.querySelectorAll('#summary-table tbody tr')].map((tr) => tr.dataset.metric)"
    )
    assert "energy_kwh" in rows and "energy_j" not in rows
    cells = page.evaluate(
        "() => [...document.querySelectorAll('#summary-table tr[data-metric=energy_kwh] .mean')].map((e) => e.textContent)"
    )
    unit = cells[0].split(" ")[-1]
    assert {c.split(" ")[-1] for c in cells} == {unit}
    energy = page.evaluate(
        "() => { const c = window.cloudsched.series.energy_j; return [c.options.scales.y.title.text, c.scales.y.ticks.map((t) => t.label)]; }"
    )
    assert energy[0] == f"cumulative energy ({unit})" and all(t.endswith(" " + unit) for t in energy[1])
    span = page.evaluate("() => window.cloudsched.series.power_w.scales.x.max")
    _zoom(page, span * 0.6, span * 0.6 + 0.8)
    axes = _time_charts(page)
    _check_axes(axes)
    assert all(len(set(c["ticks"])) == len(c["ticks"]) for c in axes)  # distinct ticks at 0.8 s wide


def test_identical_lines_are_named_and_both_drawn(page, live_server, alice):
    _, result = _result("backfill")
    twin = copy.deepcopy(result)
    runs = twin["runs"]
    runs[1]["series"] = copy.deepcopy(runs[0]["series"])  # KEASY's series as EASY's
    _open(page, live_server, alice, "backfill", result=twin)
    a, b = runs[0]["algorithm"], runs[1]["algorithm"]
    subtitle = page.evaluate("() => window.cloudsched.series.busy_fg.options.plugins.subtitle.text")
    assert f"{a} and {b} coincide (identical series)" in subtitle
    dashes = page.evaluate(
        "() => Object.fromEntries(window.cloudsched.series.busy_fg.data.datasets.map((d) => [d.label, d.borderDash.length]))"
    )
    assert dashes[a] == 0 and dashes[b] > 0  # the second is dashed over the first


def test_the_diff_table_writes_exact_readable_times_and_its_time_axes_align(page, live_server, alice):
    run = _open(page, live_server, alice, "backfill")
    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a=0&b=1")
    page.wait_for_function("() => document.body.dataset.timelineLoaded")
    d = jobdiff.diff(get_result(run), 0, 1)
    cells = page.evaluate(
        "() => [...document.querySelectorAll('#diff-table tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent))"
    )
    keys = ("start_a", "start_b", "delta_start", "end_a", "end_b", "delta_end")
    words = {"later": "started later", "earlier": "started earlier", "moved": "same start, other resources",
             "other_end": "same start and resources, other end"}  # fmt: skip
    assert cells and cells == [
        [r["job"], words[r["change"]], *(formatting.duration_text(r[k]) for k in keys), "yes" if r["moved"] else ""]
        for r in d["rows"]
    ]
    titles = page.evaluate(
        "() => [...document.querySelectorAll('#diff-table tbody tr')].map((tr) => [...tr.cells].slice(2, 8).map((c) => c.title))"
    )
    assert [[float(t.removesuffix(" s")) for t in row] for row in titles] == [[r[k] for k in keys] for r in d["rows"]]
    gantts = page.evaluate(
        TIME_CHARTS.replace("#series-charts canvas, #freq-charts canvas, #gantt-charts canvas", "#diff canvas")
    )
    _check_axes(gantts)
    shoot(page, "time-diff-backfill")


def test_the_diff_table_pages_through_every_changed_job(page, live_server, alice):
    """No first-N list: the pager says which of all the changed jobs it shows, and its pages hold them all."""
    run = _open(page, live_server, alice, "backfill")
    runs = len(get_result(run).doc["runs"])
    a, b = max(((i, j) for i in range(runs) for j in range(runs) if i != j),
               key=lambda p: jobdiff.diff(get_result(run), *p)["changed"])  # fmt: skip
    d = jobdiff.diff(get_result(run), a, b)
    assert d["changed"] > jobdiff.ROWS, "the demo has a pair of algorithms with more changed jobs than a page"
    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a={a}&b={b}")
    page.wait_for_function("() => document.body.dataset.timelineLoaded")

    def jobs():
        return page.evaluate(
            "() => [...document.querySelectorAll('#diff-table tbody tr')].map((tr) => tr.cells[0].textContent)"
        )

    pager = page.locator("#diff-table-pager")
    seen = []
    for offset in range(0, d["changed"], jobdiff.ROWS):
        last = min(offset + jobdiff.ROWS, d["changed"])
        page.wait_for_function(f"() => document.querySelector('#diff-table-pager .rows').textContent === "
                               f"'changed jobs {offset + 1:,}–{last:,} of {d['changed']:,}'")  # fmt: skip
        want = jobdiff.diff(get_result(run), a, b, offset=offset)["rows"]
        assert jobs() == [r["job"] for r in want]
        assert pager.locator(".prev").is_disabled() == (offset == 0)
        assert pager.locator(".next").is_disabled() == (last == d["changed"])
        seen += jobs()
        if last < d["changed"]:
            pager.locator(".next").click()
    assert len(seen) == len(set(seen)) == d["changed"]
    back = (d["changed"] - 1) // jobdiff.ROWS * jobdiff.ROWS - jobdiff.ROWS  # the page before the last
    pager.locator(".prev").click()
    page.wait_for_function(f"() => document.querySelector('#diff-table-pager .rows').textContent === "
                           f"'changed jobs {back + 1:,}–{back + jobdiff.ROWS:,} of {d['changed']:,}'")  # fmt: skip
    assert jobs() == seen[back : back + jobdiff.ROWS]
    shoot(page, "diff-table-pager")


def test_a_study_of_a_duration_ticks_time_like_the_run_page(page, live_server, alice):
    """The study page's makespan axis: round times with their unit, never raw seconds."""
    from tests.browser.test_studies_drawn import _finish, _study

    study, runs = _study(alice, [("m=1", 1), ("m=2", 2), ("m=4", 4)])
    for run in runs:
        _finish(run)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    page.select_option("#study-metric", "makespan_s")
    ticks = page.evaluate(
        "() => Chart.getChart(document.getElementById('study-chart')).scales.y.ticks.map((t) => t.label)"
    )
    assert len(ticks) >= 2 and all(LABEL.match(t) for t in ticks), ticks
    assert all(not t.endswith(" s") or float(LABEL.match(t).group(1).replace("\u202f", "")) < 1e4 for t in ticks)
    shoot(page, "time-study")
