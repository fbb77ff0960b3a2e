"""The numbers a researcher reads on a result page, checked as drawn in Chromium.

Every cell of the metrics table carries the stored mean (``data-value``) and spread
(``data-spread``); both must equal the stored result's summary, and the text shown must be
the shared formatter's text of that value, written identically by the server (Python) and by
``format.js`` (the browser). The comparison chart's Chart.js data must be the summary means and
spreads, with the y axis spanning every whisker. The page fits a 1400 px window.
Screenshots of each family's page go to ``$CLOUDSCHED_SHOTS`` (else the test's tmp dir).
"""

import re

import pytest

import schedulers
from cloudsched_web.results import charts, formatting
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from schedulers.registry import all_families
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FAMILIES = [f for f in sorted(all_families()) if f != "toy"]
_RESULTS = {}


def _result(family, repetitions=None):
    """The family's example result (computed once per test session and family)."""
    key = (family, repetitions)
    if key not in _RESULTS:
        config = all_families()[family].example()
        if repetitions:
            config["repetitions"] = repetitions
        _RESULTS[key] = (config, schedulers.run(config))
    return _RESULTS[key]


def _open(page, live_server, alice, family, repetitions=None):
    config, result = _result(family, repetitions)
    scenario = Scenario.objects.create(owner=alice, family=family, name=f"numbers {family}", config=config)
    run = finished_run(scenario, result=result)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => window.cloudsched && window.cloudsched.comparison")
    return Run.objects.get(pk=run.pk).load_header()


def _cells(page):
    return page.evaluate(
        """() => [...document.querySelectorAll('#summary-table tbody tr')].map((tr) => ({
             metric: tr.dataset.metric, gap: tr.classList.contains('gap'),
             cells: [...tr.querySelectorAll('td')].map((td, i) => ({
               value: JSON.parse(td.dataset.value), spread: JSON.parse(td.dataset.spread),
               text: td.querySelector('.mean').textContent, title: td.querySelector('.mean').title,
               spreadText: td.querySelector('.spread') ? td.querySelector('.spread').textContent : '',
               spreadTitle: td.querySelector('.spread') ? td.querySelector('.spread').title : '' })) }))"""
    )


def _js_format(page, value, spec):
    return page.evaluate(
        "async ([v, s]) => { const f = await import('/static/js/format.js'); return [f.value(v, s), f.duration(v, s)]; }",
        [value, spec],
    )


def _comparison(page):
    return page.evaluate(
        """() => { const c = Chart.getChart(document.getElementById('comparison-chart'));
             const ds = c.data.datasets[0]; const y = c.scales.y;
             return {metric: document.getElementById('metric-select').value, labels: c.data.labels,
                     data: ds.data, err: ds.err, min: y.min, max: y.max,
                     subtitle: c.options.plugins.subtitle.text,
                     caption: document.getElementById('comparison-caption').textContent}; }"""
    )


def _shot(page, family):
    folder = screens_dir()
    page.screenshot(path=str(folder / f"result-{family}.png"), full_page=True)
    page.evaluate("() => document.getElementById('summary-table').scrollIntoView()")
    page.screenshot(path=str(folder / f"numbers-{family}.png"))  # the table and the comparison chart at 1400 px


def _check_table(page, doc):
    """Every cell equals the stored summary and reads as the formatter writes it; returns the rows."""
    summary, algorithms = doc["summary"], list(doc["summary"])
    specs = charts.page_specs(doc, sorted({m for per in summary.values() for m in per}))  # one energy unit per page
    header = page.evaluate(
        "() => [...document.querySelectorAll('#summary-table thead th[data-algorithm]')].map((t) => t.dataset.algorithm)"
    )
    assert header == algorithms
    rows = _cells(page)
    shown = {r["metric"] for r in rows if not r["gap"]}
    # Every metric is a row, except within-run CIs (the spread of their metric) and repeats in another unit.
    assert shown == {m for m in specs if not specs[m]["ci_of"] and not specs[m]["same_as"]}
    for row in rows:
        if row["gap"]:
            continue
        spec = specs[row["metric"]]
        for alg, cell in zip(algorithms, row["cells"], strict=True):
            stat = summary[alg][row["metric"]]
            assert cell["value"] == stat["mean"], (row["metric"], alg)
            assert cell["text"] == formatting.value_text(stat["mean"], spec) != ""
            assert cell["text"] == _js_format(page, cell["value"], spec)[0], row["metric"]
            assert cell["title"] == formatting.exact_text(stat["mean"], spec), row["metric"]
            assert not re.search(r"\d\.\d{4}|e[+-]\d", cell["text"]), cell["text"]  # no 1000.0000, no 1.4e+5
    return rows


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_table_and_chart_show_the_stored_numbers(page, live_server, alice, family):
    doc = _open(page, live_server, alice, family)
    rows = _check_table(page, doc)
    summary, algorithms = doc["summary"], list(doc["summary"])
    reps = len({r["repetition"] for r in doc["runs"]})
    specs = charts.page_specs(doc, sorted({m for per in summary.values() for m in per}))
    within = {s["ci_of"]: m for m, s in specs.items() if s["ci_of"]}
    for row in rows:
        if row["gap"]:
            continue
        for alg, cell in zip(algorithms, row["cells"], strict=True):
            stat = summary[alg][row["metric"]]
            if reps >= 2:  # the spread is the 95 % CI over repetitions, the sd in its tooltip
                expected = stat["ci"] or None
                label = f"95 % CI over {reps} repetitions"
            elif row["metric"] in within:  # else the family's own within-run CI, named by the family
                expected = summary[alg][within[row["metric"]]]["mean"] or None
                label = specs[within[row["metric"]]]["label"]
            else:
                expected, label = None, None
            assert cell["spread"] == expected, (row["metric"], alg)
            if expected:
                assert cell["spreadText"] == formatting.spread_text(stat["mean"], expected, specs[row["metric"]])
                assert cell["spreadTitle"].startswith(label)
            else:
                assert cell["spreadText"] == ""
    # The comparison chart draws the summary means and spreads of the metric it shows.
    chart = _comparison(page)
    metric = chart["metric"]
    n = len(algorithms)
    assert chart["labels"][:n] == algorithms
    assert chart["data"][:n] == [summary[a][metric]["mean"] for a in algorithms]
    by_metric = {r["metric"]: r for r in rows}
    assert chart["err"][:n] == [c["spread"] or 0 for c in by_metric[metric]["cells"]]
    for v, e in zip(chart["data"], chart["err"], strict=True):  # no whisker is clipped
        assert chart["min"] <= v - e and v + e <= chart["max"]
    if any(chart["err"]):
        assert "whiskers" in chart["subtitle"] and "whiskers are the" in chart["caption"]
    # Fits a 1400 px window: no horizontal scroll of the page.
    assert page.evaluate("() => document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth")
    _shot(page, family)


def test_repetitions_give_a_labelled_confidence_interval_on_table_and_chart(page, live_server, alice):
    """Three repetitions of backfill: the table and the whiskers show the CI over them, not the batch means."""
    doc = _open(page, live_server, alice, "backfill", repetitions=3)
    _check_table(page, doc)
    note = page.inner_text("#metrics-note")
    assert "95 % CI over 3 repetitions" in note
    stat = doc["summary"]["easy"]["avg_response_time_s"]
    cell = next(r for r in _cells(page) if r["metric"] == "avg_response_time_s")["cells"][1]
    assert cell["spread"] == stat["ci"] > 0
    assert "standard deviation" in cell["spreadTitle"]
    chart = _comparison(page)
    assert "95 % CI over 3 repetitions" in chart["subtitle"]
    page.select_option("#metric-select", "avg_bounded_slowdown")
    chart = _comparison(page)
    assert chart["metric"] == "avg_bounded_slowdown"
    assert chart["data"] == [doc["summary"][a]["avg_bounded_slowdown"]["mean"] for a in doc["summary"]]
    assert chart["err"] == [doc["summary"][a]["avg_bounded_slowdown"]["ci"] for a in doc["summary"]]
    assert max(v + e for v, e in zip(chart["data"], chart["err"], strict=True)) <= chart["max"]
    _shot(page, "backfill-3-repetitions")


HUGE_CASES = [
    (1.16e300, {"kind": "duration", "unit": "s"}),
    (1e15, {"kind": "count"}),
    (9.99e14, {"kind": "count"}),
    (-2.5e20, {"kind": "number", "unit": ""}),
    (1.23456789e300, {"kind": "energy", "unit": "kWh"}),
    (7.5e18, {"kind": "ratio", "unit": ""}),
]


def test_huge_numbers_read_alike_in_the_browser_and_the_server(page, live_server, alice):
    """The JavaScript twin writes a huge number as the server does (a mantissa × 10 to a power)."""
    _open(page, live_server, alice, FAMILIES[0])
    assert HUGE_CASES  # the loop below checks each
    for value, spec in HUGE_CASES:
        text, duration = _js_format(page, value, spec)
        assert (text, duration) == (formatting.value_text(value, spec), formatting.duration_text(value, spec)), value
        assert len(text) < 30
