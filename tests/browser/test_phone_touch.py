"""On a phone, a vertical swipe over a chart scrolls the page; a horizontal drag still pans the chart.

Touches go through Chromium's own input pipeline (CDP ``Input.dispatchTouchEvent``, which honours
``touch-action`` as a finger does) on a 390 × 844 touch viewport. chartjs-plugin-zoom's Hammer.js sets
``touch-action: none`` on every zoomable canvas for its pinch; site.css leaves vertical pans to the page.
"""

import pytest

import schedulers
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BOX = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, h: r.height}; }"""


@pytest.fixture
def phone(browser, csp):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = csp.attach(context.new_page())
    page.set_default_timeout(30_000)
    yield page
    context.close()


def _swipe(page, x, y, dx, dy, steps=20):
    """A finger from (x, y) moved by (dx, dy) in `steps` moves, 16 ms apart, through Chromium's input pipeline."""
    cdp = page.context.new_cdp_session(page)

    def at(f):
        return [{"x": x + dx * f, "y": y + dy * f, "id": 1}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": at(0)})
    for k in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": at(k / steps)})
        page.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)


def _open_run(phone, live_server, owner, family):
    """The run page of a finished run of ``family``'s example, logged in on the phone."""
    scenario = Scenario.objects.create(owner=owner, family=family, name="phone", config=schedulers.example(family))
    run = finished_run(scenario)
    _login(phone, live_server.url)
    phone.goto(f"{live_server.url}/runs/{run.pk}/")


def test_a_vertical_swipe_over_a_chart_scrolls_the_page(phone, live_server, alice):
    _open_run(phone, live_server, alice, "backfill")
    phone.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")
    charts = ["#gantt-charts canvas", "#series-charts canvas"]
    for selector in charts:
        phone.evaluate(f"() => document.querySelector('{selector}').scrollIntoView({{block: 'center'}})")
        box = phone.evaluate(BOX, selector)
        assert box["h"] > 100, selector
        before = phone.evaluate("() => window.scrollY")
        window = phone.evaluate("() => [...window.cloudsched.link.window || []]")
        _swipe(phone, box["x"], box["y"] + 60, 0, -300)  # the finger moves up 300 px: the page scrolls down
        moved = phone.evaluate("() => window.scrollY") - before
        assert moved >= 200, f"{selector}: a 300 px swipe scrolled the page {moved} px"
        assert phone.evaluate("() => [...window.cloudsched.link.window || []]") == window  # and did not pan

    # A horizontal drag over the Gantt still pans the time axis: the linked window moves earlier.
    selector = "#gantt-charts canvas"
    phone.evaluate(f"() => document.querySelector('{selector}').scrollIntoView({{block: 'center'}})")
    box = phone.evaluate(BOX, selector)
    span = phone.evaluate("() => { const x = window.cloudsched.gantt[0].scales.x; return [x.min, x.max]; }")
    _swipe(phone, box["x"] - 60, box["y"], 150, 0)
    phone.wait_for_function("() => window.cloudsched.link.window !== null")
    lo, hi = phone.evaluate("() => window.cloudsched.link.window")
    assert lo < span[0] and hi - lo == pytest.approx(span[1] - span[0], rel=1e-6)


def test_the_metrics_table_scrolls_sideways_with_its_row_names(phone, live_server, alice):
    """ep_jobs' many algorithms make the table wider than a phone: it scrolls in its box, names stay in view."""
    _open_run(phone, live_server, alice, "ep_jobs")
    seen = phone.evaluate(
        """() => { const t = document.getElementById('summary-table');
          const box = [t, ...document.querySelectorAll('.metrics-wrap')].find((e) => e.scrollWidth > e.clientWidth);
          if (!box) return null;
          const names = [...t.querySelectorAll('tbody th.metric-name')];
          const before = names.map((n) => n.getBoundingClientRect().left);
          box.scrollLeft = box.scrollWidth;
          const left = box.getBoundingClientRect().left;
          return { scrolled: box.scrollLeft, before, after: names.map((n) => n.getBoundingClientRect().left), left }; }"""
    )
    assert seen is not None, "the metrics table fits a phone: nothing to check"
    assert seen["scrolled"] > 100 and seen["after"]
    assert all(abs(a - b) <= 1 for a, b in zip(seen["before"], seen["after"], strict=True)), seen
