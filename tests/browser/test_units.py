"""Every number a run or diff page shows goes through format.js with its unit (docs/metrics.md).

Read in Chromium: power and energy tooltips in the axis' unit (kW, kWh), never the stored watts or
joules; the per-job CDF and box axes, their tooltips and the job table's measure columns in min, h or d,
never a raw number of seconds above 10⁴; the diff's window status and its table of changed jobs as
durations. Exact times read as days, hours, minutes and seconds ("1 d 21 h 25 min 23 s"); the stored
number of seconds is only ever a cell's title, to copy.
"""

import re

import pytest

from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir, shoot
from tests.browser.test_result_numbers import _result
from tests.browser.test_run_flow import _login
from tests.jobdata import two_point_study

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NUMBER = r"(-?\d[\d\u202f ,]*(?:\.\d+)?)"
SECONDS = re.compile(NUMBER + r" s\b")  # "163 523 s"; "1 d 21 h 25 min 23 s" reads
JOULES = re.compile(NUMBER + r" ?J\b")
DURATION = re.compile(r"^-?[\d\u202f ,.]+ (ms|s|min|h)$|^-?[\d ,]+ d \d+ h$|^[\d.]+ × 10\S+ d$")


def _raw(texts):
    """The texts that print a raw number of seconds above 10⁴, or joules."""
    out = []
    for text in texts:
        for m in SECONDS.finditer(text):
            if abs(float(re.sub(r"[\u202f ,]", "", m.group(1)))) >= 1e4:
                out.append(text)
        if JOULES.search(text):
            out.append(text)
    return out


def _round_duration(seconds):
    """1, 2, 5, 10, 20 or 30 of a second (or ms), minute or hour (3, 6 and 12 h too), or 1, 2, 5 × 10^k days."""
    for unit, steps in ((86400, (1, 2, 5)), (3600, (1, 2, 3, 6, 12)), (60, (1, 2, 5, 10, 20, 30))):
        if seconds >= unit:
            n = seconds / unit
            return any(abs(n - k * 10**e) < 1e-9 * n for k in steps for e in range(0, 6 if unit == 86400 else 1))
    n = seconds
    return any(abs(n - k * 10**e) < 1e-9 * n for k in (1, 2, 3, 5) for e in range(-3, 2))


def _open(page, live_server, alice, family):
    config, stock = _result(family)
    scenario = Scenario.objects.create(owner=alice, family=family, name=f"units {family}", config=config)
    run = finished_run(scenario, result=stock)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    return run


# Each series chart: its y title, tick labels, its note (buckets' width …) and the tooltip of its largest point of
# every line.
SERIES = """() => Object.entries(window.cloudsched.series).map(([key, c]) => {
  const { label, title } = c.options.plugins.tooltip.callbacks;
  const tips = c.data.datasets.filter((d) => d.data.length).map((d) => {
    const top = d.data.reduce((a, p) => (p.y > a.y ? p : a));
    return label({ dataset: d, parsed: top, chart: c });
  });
  const last = c.data.datasets.flatMap((d) => d.data).reduce((a, p) => (p.x > a.x ? p : a), { x: -Infinity });
  return { key, title: c.options.scales.y.title.text, ticks: c.scales.y.ticks.map((t) => t.label), tips,
           note: c.options.plugins.subtitle.text || "", when: title([{ parsed: last }]) };
})"""


def test_power_and_energy_tooltips_read_in_the_axis_unit(page, live_server, alice):
    _open(page, live_server, alice, "dvfs_bot")
    series = {s["key"]: s for s in page.evaluate(SERIES)}
    assert {"power_w", "energy_j"} <= set(series)
    for key in ("power_w", "energy_j"):
        s = series[key]
        unit = re.search(r"\((\w+)\)$", s["title"]).group(1)
        assert unit in ("W", "kW", "MW", "Wh", "kWh", "MWh", "GWh"), s["title"]
        assert s["tips"] and all(t.endswith(" " + unit) for t in s["tips"]), s
        assert all(t.endswith(" " + unit) for t in s["ticks"]), s
    texts = [t for s in series.values() for t in [s["title"], s["note"], s["when"], *s["ticks"], *s["tips"]]]
    assert texts and _raw(texts) == []
    assert any(" d " in s["when"] or " h " in s["when"] for s in series.values())  # the last time, read as time


DIST = """() => ['jobs-cdf', 'jobs-box'].map((id) => {
  const c = Chart.getChart(document.getElementById(id)), axis = id === 'jobs-cdf' ? c.scales.x : c.scales.y;
  const tip = c.options.plugins.tooltip.callbacks.label;
  const item = id === 'jobs-cdf'
    ? { dataset: c.data.datasets[0], raw: c.data.datasets[0].data.at(-1), dataIndex: 0 }
    : { dataIndex: 0 };
  const lines = [tip(item)].flat();
  return { id, title: axis.options.title.text, ticks: axis.ticks.map((t) => t.label), lines, type: axis.type,
           values: axis.ticks.map((t) => t.value) };
})"""


def test_the_per_job_views_write_durations_in_units(page, live_server, alice):
    _open(page, live_server, alice, "backfill")
    page.wait_for_function("() => Number(document.getElementById('jobs-dist').dataset.drawn || 0) >= 1")
    measure = page.eval_on_selector("#jobs-measure", "(s) => s.selectedOptions[0].textContent")
    assert measure.endswith("(s)"), measure  # a duration measure drawn first (backfill: response time)
    charts = page.evaluate(DIST)
    assert {c["type"] for c in charts} == {"logarithmic"}  # response times: a log scale first
    for c in charts:
        assert len(c["ticks"]) >= 3, c
        assert all(DURATION.match(t) for t in c["ticks"]), c
        assert _raw(c["lines"]) == [], c
        # round times, not Chart.js's 1–9 × 10^k s ("1.17 min", "1.67 min"): 1, 2, 5, 10, 20, 30 of a unit, …
        assert all(_round_duration(v) for v in c["values"]), c["ticks"]
    page.wait_for_function("() => Number(document.getElementById('jobs-table-box').dataset.loaded || 0) >= 1")
    table = page.evaluate(
        """() => { const t = document.getElementById('jobs-table');
          const heads = [...t.tHead.rows[0].cells].map((c) => c.dataset.column);
          return { heads, rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)) }; }"""
    )
    seconds = [k for k, h in enumerate(table["heads"]) if h.endswith("_s")]  # stored (submit_s …) and derived
    assert {"submit_s", "end_s", "response_s"} <= {table["heads"][k] for k in seconds} and table["rows"], table["heads"]
    assert all(DURATION.match(row[k]) for row in table["rows"] for k in seconds)
    assert _raw([cell for row in table["rows"] for cell in row]) == []


def test_the_diff_window_status_reads_as_a_duration(page, live_server, alice):
    run = _open(page, live_server, alice, "backfill")
    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a=0&b=1")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    hi = page.evaluate("() => window.cloudsched.gantt.a.scales.x.max")
    page.evaluate(f"() => window.cloudsched.link.set({hi * 0.5!r}, {hi * 0.75!r})")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded) >= 2")
    status = page.inner_text("#timeline-status")
    assert status.startswith("window ") and hi * 0.5 >= 1e4 and _raw([status]) == [], status
    assert _raw([page.inner_text("#diff-counts"), page.inner_text("#diff-summary")]) == []


EXACT = re.compile(r"^-?(?:[\d\u202f]+ d)?(?: ?\d+ h)?(?: ?\d+ min)?(?: ?\d+(?:\.\d+)? s)?$")


def test_the_diff_table_writes_times_as_exact_durations(page, live_server, alice):
    """The changed jobs' starts, ends and their changes: days, hours, minutes and seconds, every digit kept, never
    "163 523 s"; the stored seconds in each cell's title."""
    run = _open(page, live_server, alice, "backfill")
    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a=0&b=1")
    page.wait_for_function("() => document.querySelectorAll('#diff-table tbody tr').length > 0")
    cells = page.evaluate(
        """() => [...document.querySelectorAll('#diff-table tbody td[title]')].map((c) => [c.textContent, c.title])"""
    )
    stored = [float(title.removesuffix(" s")) for _, title in cells]
    assert cells and max(stored) >= 1e4, "the demo's diff has times above 10⁴ s"
    texts = [text for text, _ in cells]
    assert _raw(texts) == [] and all(EXACT.match(t) for t in texts), [t for t in texts if not EXACT.match(t)][:5]
    for (text, _), seconds in zip(cells, stored, strict=True):  # the text says the stored number, to the digit
        sign = -1 if text.startswith("-") else 1
        parts = {u: float(n.replace("\u202f", "")) for n, u in re.findall(r"([\d\u202f.]+) (d|h|min|s)", text)}
        back = sign * sum(parts.get(u, 0) * f for u, f in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)))
        assert back == pytest.approx(seconds, abs=1e-6), (text, seconds)
    body = page.inner_text("#diff-table")
    assert _raw([body]) == [], body[:400]
    page.locator("#diff-table tbody tr").nth(12).scroll_into_view_if_needed()
    page.screenshot(path=str(screens_dir() / "diff-table-durations.png"))  # the table's first rows, as seen


def test_every_series_axis_starts_at_zero(page, live_server, alice):
    """Federated power read from 5 kW looked like a swing from nothing: every series is a count or a non-negative
    quantity, so each chart's y axis starts at 0 (the drawn scale, not only the option)."""
    _open(page, live_server, alice, "federated")
    axes = page.evaluate("() => Object.entries(window.cloudsched.series).map(([k, c]) => [k, c.scales.y.min])")
    assert len(axes) >= 2 and "power_w" in dict(axes)
    assert {k: lo for k, lo in axes if lo != 0} == {}


STUDY = """() => { const c = window.cloudsched.study, label = c.options.plugins.tooltip.callbacks.label;
  const tips = c.data.datasets.flatMap((d) => d.data.map((p, k) => label({ dataset: d, raw: p, dataIndex: k })));
  return { ticks: c.scales.y.ticks.map((t) => t.label), tips,
           table: document.getElementById('study-table').innerText }; }"""


def test_the_study_page_writes_every_metric_in_its_unit(page, live_server, alice):
    """Every metric the study page offers: its axis ticks, each point's tooltip and the table, never a raw number
    of seconds above 10⁴ or joules (the makespan of the study's runs is above 10⁴ s)."""
    study, points = two_point_study(alice, "units study")
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    metrics = page.eval_on_selector_all("#study-metric option", "(os) => os.map((o) => o.value)")
    assert "makespan_s" in metrics and points[0].load_header()
    big = 0
    for metric in metrics:
        page.select_option("#study-metric", metric)
        drawn = page.evaluate(STUDY)
        texts = [*drawn["ticks"], *drawn["tips"], drawn["table"]]
        assert drawn["tips"] and _raw(texts) == [], (metric, _raw(texts))
        big += metric == "makespan_s" and any(t.endswith(" h") or " d " in t for t in drawn["tips"])
    assert big, "the makespan (above 10⁴ s) was read in hours or days"
    assert _raw([page.inner_text("main")]) == []


def _trace(span_s):
    """An SWF log whose submit times span ``span_s`` seconds."""
    lines = ["; MaxProcs: 64"] + [
        f"{i} {round(i * span_s / 4)} 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1" for i in range(5)
    ]
    return ("\n".join(lines) + "\n").encode()


def test_the_trace_pages_write_a_trace_s_span_as_a_duration(page, live_server, alice):
    """The trace list and the wizard's trace picker: a span of 40,000 s reads "11.1 h" (not "0" days, not seconds),
    the stored seconds in the list cell's title."""
    from cloudsched_web.results import formatting
    from cloudsched_web.traces.services import store

    trace, _ = store(_trace(40_000), "long log", owner=alice)
    want = formatting.value_text(trace.span_s, {"kind": "duration", "unit": "s"})
    assert trace.span_s == 40_000 and want == "11.1 h"
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/traces/")
    row = page.locator("tr", has_text="long log")
    assert want in row.inner_text() and _raw([page.inner_text("main")]) == []
    assert row.locator("td[title='40000 s']").inner_text() == want
    shoot(page, "trace-list")
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:trace']")
    picked = page.locator(".trace-picker tr", has_text="long log").inner_text()
    assert want in picked and _raw([page.inner_text(".trace-picker")]) == [], picked
    shoot(page, "wizard-trace-span")
