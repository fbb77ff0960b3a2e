"""A Gantt bar's tooltip gives the bar's stored times, exact, at every zoom (docs/results.md, "Time axes").

At whole-run zoom the bars travel in ticks of the window (``results.bars``: q = 1 s on the demo's run), so the
drawn times of the demo's jobs (stored to the microsecond) are off by up to q/2. Hovering a bar must still show
the stored start and end, written by the one formatter (``1 d 21 h 25 min 23.5 s``), on the run page and on
both sides of the diff.
"""

import pytest

from cloudsched_web.results.formatting import duration_text
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir, shoot
from tests.browser.test_result_numbers import _result
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The widest bars of a chart (by drawn width), with where their middle is on the page and their drawn times.
BARS = """async (id) => { const { decoded, jobOf, taskOf } = await import('/static/js/charts/gantt/bars.js');
  const { rowGeometry, laneBox } = await import('/static/js/charts/gantt/bars.js');
  const canvas = document.getElementById(id), ch = Chart.getChart(canvas), g = ch.$g, d = decoded(g), x = ch.scales.x;
  canvas.scrollIntoView({ block: 'center' });
  const box = canvas.getBoundingClientRect(), out = [];
  for (let k = 0; k < d.n; k++) {
    const x0 = Math.max(x.left, x.getPixelForValue(d.S[k])), x1 = Math.min(x.right, x.getPixelForValue(d.E[k]));
    const [top, h] = laneBox(rowGeometry(ch, g.bars.r[k]), g.bars.lane[k]);
    if (x1 - x0 >= 6 && h >= 4) out.push({ k, job: jobOf(g, k), task: taskOf(g, k), resource: g.resources[g.bars.r[k]],
      s: d.S[k], e: d.E[k], q: g.bars.q, edge: d.exact.has(k), width: x1 - x0,
      px: box.left + (x0 + x1) / 2, py: box.top + top + h / 2 });
  }
  return { index: g.index, mode: g.mode, window: g.window, bars: out.sort((a, b) => b.width - a.width).slice(0, 40) }; }"""


def _exact_line(seg):
    start, end = seg["start"], seg["end"]
    return f"{duration_text(start)} – {duration_text(end)} ({duration_text(end - start)})"


def _hover_exact(page, canvas_id, stored, checks=3):
    """Hover bars of ``canvas_id`` whose drawn times are not the stored ones; each tooltip's times line must be the
    stored segment's exact times. Returns how many bars were checked."""
    chart = page.evaluate(BARS, canvas_id)
    assert chart["mode"] == "bars" and chart["bars"], chart
    checked = 0
    for bar in chart["bars"]:
        if bar["edge"]:
            continue  # a bar past the window's edge comes exact with the payload
        mine = [x for x in stored if x["resource"] == bar["resource"] and str(x["job"]) == bar["job"]]
        seg = min(mine, key=lambda x: abs(x["start"] - bar["s"]) + abs(x["end"] - bar["e"]))
        if abs(seg["start"] - bar["s"]) < 1e-6 and abs(seg["end"] - bar["e"]) < 1e-6:
            continue  # drawn exactly: says nothing about the tooltip's exactness
        page.mouse.move(bar["px"], bar["py"])
        tip = page.locator(f"#{canvas_id} ~ .gantt-tip")
        tip.wait_for(state="visible")
        if tip.locator("strong").inner_text() != f"job {bar['job']}":
            continue  # an event mark over the bar answered instead
        page.wait_for_function(
            f"() => document.querySelector('#{canvas_id} ~ .gantt-tip').dataset.exact === '1'", timeout=10_000
        )
        lines = tip.inner_text().split("\n")
        assert lines[1].startswith(f"task {bar['task']} on {bar['resource']}"), lines
        assert lines[3] == _exact_line(seg), (
            f"bar {bar['k']} drawn at {bar['s']}–{bar['e']} (q = {bar['q']}), stored {seg['start']}–{seg['end']}: {lines}"
        )
        checked += 1
        if checked == 1:  # the chart with the tooltip over it, for a person to look at
            tip.locator("xpath=..").screenshot(path=str(screens_dir() / f"gantt-tip-{canvas_id}.png"))
        if checked == checks:
            break
    return checked


def test_a_bar_s_tooltip_at_whole_run_zoom_gives_its_stored_times(page, live_server, alice):
    config, stock = _result("backfill")
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="exact tooltips", config=config)
    run = finished_run(scenario, result=stock)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    assert page.evaluate("() => window.cloudsched.link.window") in (None, [])  # the whole run
    parsed = get_result(Run.objects.get(pk=run.pk))
    stored = parsed.stored(0).table("segments", ["start", "end", "resource", "job"]).to_pylist()
    assert _hover_exact(page, "gantt-0", stored) == 3
    shoot(page, "gantt-tooltip-exact")

    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a=0&b=1")
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    for side, index in (("a", 0), ("b", 1)):
        stored = parsed.stored(index).table("segments", ["start", "end", "resource", "job"]).to_pylist()
        assert _hover_exact(page, f"gantt-{side}", stored, checks=1) == 1, side
