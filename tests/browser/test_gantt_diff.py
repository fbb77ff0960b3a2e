"""The backfill demo's five algorithms in Chromium: every one drawn as bars on one shared row set, and the
diff page drawing both schedules with every changed job coloured as changed.

What the canvas painted is read from the Gantt module (``drawn``, ``chart.$painted``) and from the canvas'
pixels; the statuses are checked against the diff computed from the stored job indexes.
"""

import re

import pytest

import schedulers
from cloudsched_web.results import jobdiff
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHARTS = """async (selector) => { const { drawn } = await import('/static/js/charts/gantt/index.js');
  return [...document.querySelectorAll(selector)].map((canvas) => {
  const ch = Chart.getChart(canvas), g = ch.$g, a = ch.chartArea;
  const px = canvas.getContext('2d').getImageData(a.left + 1, a.top + 1, a.width - 2, a.height - 2).data;
  let inked = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && (px[i] < 240 || px[i + 1] < 240 || px[i + 2] < 240)) inked++;
  return {algorithm: g.algorithm, mode: g.mode, rows: g.resources, row0: g.row0, total: g.total_resources,
    painted: ch.$painted, inked, bars: drawn(ch).map((b) => ({job: b.job, status: b.status, colour: b.colour}))};
}); }"""


def _loaded(page, n=1):
    page.wait_for_function(f"() => Number(document.body.dataset.timelineLoaded || 0) >= {n}", timeout=60_000)


@pytest.fixture
def demo(alice):
    config = schedulers.example("backfill")
    assert len(config["algorithms"]) == 5
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="backfill demo", config=config)
    return finished_run(scenario)


SWATCHES = """() => Object.fromEntries([...document.querySelectorAll('.legend .sw')].map((el) =>
  [[...el.classList].find((c) => c !== 'sw'), getComputedStyle(el).backgroundColor]))"""
# a status drawn with the swatch of a class of another name (the legend groups both sides' absences)
STATUS_SWATCH = {"other_end": "other-end", "not_in_a": "missing", "not_in_b": "missing", "cut_in_a": "cut",
                 "cut_in_b": "cut"}  # fmt: skip


def _rgb(colour):
    """``#rrggbb`` (or already ``rgb(r, g, b)``) as the browser writes a computed colour."""
    if colour.startswith("rgb"):
        return colour
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_every_algorithm_is_drawn_as_bars_on_the_same_rows(page, live_server, demo):
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{demo.pk}/")
    _loaded(page)
    charts = page.evaluate(CHARTS, "#gantt-charts canvas")
    page.screenshot(path=str(screens_dir() / "backfill-demo-run.png"), full_page=True)
    assert [c["algorithm"] for c in charts] == ["fcfs", "easy", "keasy", "reasy", "measy"]
    for c in charts:
        assert c["mode"] == "bars", f"{c['algorithm']} is not drawn as bars at whole-run zoom"
        assert c["painted"]["bars"] == len(c["bars"]) > 0 and c["inked"] > 0, (
            f"{c['algorithm']}: the canvas drew nothing"
        )
        assert c["rows"] == charts[0]["rows"] and c["total"] == 64, f"{c['algorithm']}'s rows differ from fcfs'"


def test_the_diff_draws_both_schedules_and_never_paints_a_changed_job_unchanged(page, live_server, demo):
    parsed = get_result(Run.objects.get(pk=demo.pk))
    d = jobdiff.diff(parsed, 0, 2, limit=jobdiff.MAX_ROWS)
    assert d["changed"] <= jobdiff.MAX_ROWS  # one page holds every changed job of the demo
    changed = {r["job"] for r in d["rows"]}
    assert changed
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{demo.pk}/diff/?a=0&b=2")
    _loaded(page)
    page.screenshot(path=str(screens_dir() / "backfill-demo-diff.png"), full_page=True)
    # the summary's categories are a partition of the changed jobs: they add up to the changed count
    words = page.inner_text("#diff-summary")
    jobs, count, *parts = (int(n) for n in re.findall(r"\d+", words))
    assert (jobs, count, len(parts)) == (d["jobs"], d["changed"], 4) and sum(parts) == count, words
    same = page.evaluate("() => getComputedStyle(document.querySelector('.legend .sw.same')).backgroundColor")
    # each status's swatch in the legend: a bar is painted in its status's swatch colour, never a fallback
    swatch = page.evaluate(SWATCHES)
    assert len(set(swatch.values())) == len(swatch) >= 6, swatch
    seen = []
    for n in (1, 2):
        charts = page.evaluate(CHARTS, "#diff canvas")
        assert [c["algorithm"] for c in charts] == ["fcfs", "keasy"] and charts[0]["rows"] == charts[1]["rows"]
        for c in charts:
            assert c["painted"]["bars"] == len(c["bars"]) > 0 and c["inked"] > 0, f"{c['algorithm']}: nothing drawn"
            for b in c["bars"]:
                assert (b["status"] != "same") == (
                    b["job"] in changed or b["status"].startswith(("not_in", "cut_in"))
                ), b
                if b["job"] in changed:
                    assert b["colour"].lower() != "#b9c2cc", f"changed job {b['job']} painted as unchanged ({same})"
                key = STATUS_SWATCH.get(b["status"], b["status"])
                assert _rgb(b["colour"]) == swatch[key], f"{b['job']} ({b['status']}) in {b['colour']}, key {key}"
        seen += charts[0]["rows"]
        if n == 1:  # rows 41+ are reachable: the pager moves both sides
            page.click("#diff-pager .next")
            _loaded(page, 2)
    assert seen == [f"p{i}" for i in range(64)]


def test_the_diff_in_occupancy_colours_every_block_holding_a_changed_job(page, live_server, demo, monkeypatch):
    """Past ``MAX_BARS`` (lowered here so the 200-job demo turns into occupancy, as the 200,000-job run does at
    whole-run zoom) both sides are drawn as blocks, each in the colour of its changed jobs' main status: grey
    only where every job busy in the block is unchanged."""
    from cloudsched_web.results import gantt

    monkeypatch.setattr(gantt, "MAX_BARS", 20)  # the live server runs in this process
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{demo.pk}/diff/?a=0&b=2")
    _loaded(page)
    page.screenshot(path=str(screens_dir() / "backfill-demo-diff-occupancy.png"), full_page=True)
    grey = page.evaluate(
        "() => { const c = document.createElement('canvas').getContext('2d'); c.fillStyle = '#b9c2cc'; return c.fillStyle; }"
    )
    sides = page.evaluate("""() => [...document.querySelectorAll('#diff canvas')].map((canvas) => {
      const ch = Chart.getChart(canvas), g = ch.$g;
      return {mode: g.mode, window: g.window, columns: g.occupancy && g.occupancy.columns, rows: g.resources,
              status: g.occupancy && g.occupancy.c.status, painted: ch.$painted.byColour,
              note: document.getElementById('gantt-note-' + (canvas.id.endsWith('a') ? 'a' : 'b')).textContent};
    })""")
    parsed = get_result(Run.objects.get(pk=demo.pk))
    status = jobdiff.status_of(parsed, 0, None, 2)
    assert len(sides)  # the loop below checks each
    for index, side in zip((0, 2), sides, strict=True):
        assert side["mode"] == "occupancy" and side["status"], "the diff's occupancy is not coloured by status"
        assert "grey only where every job busy in it is unchanged" in side["note"]
        expect = gantt.gantt(parsed, index, *side["window"], rows=len(side["rows"]), pixels=side["columns"],
                             max_bars=20, status=status)  # fmt: skip
        assert side["status"] == expect["occupancy"]["c"]["status"]  # what the page drew is the server's reading
        changed_blocks = sum(ch not in ".0" for line in side["status"] for ch in line)
        same_blocks = sum(ch == "0" for line in side["status"] for ch in line)
        assert changed_blocks > 0
        painted_changed = sum(n for colour, n in side["painted"].items() if colour != grey)
        # every block is painted once (sub-pixel columns share a pixel): never more grey blocks than unchanged ones
        assert side["painted"].get(grey, 0) <= same_blocks
        assert painted_changed >= changed_blocks * 0.9 and painted_changed > 0


@pytest.mark.skipif("ep_jobs" not in schedulers.all_families(), reason="needs ep_jobs")
def test_a_diff_of_one_job_says_why_it_compares_one_job(page, live_server, alice):
    """ep_jobs offline schedules one job (its tasks on the servers): the diff says so instead of a bare "1 job"."""
    config = schedulers.example("ep_jobs") | {"algorithms": ["tapra", "min_min"]}
    run = finished_run(Scenario.objects.create(owner=alice, family="ep_jobs", name="one job", config=config))
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run.pk}/diff/?a=0&b=1")
    _loaded(page)
    words = page.inner_text("#diff-summary")
    assert words.startswith("1 jobs in both") and "Both runs schedule a single job" in words
