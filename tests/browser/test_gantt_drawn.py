"""The Gantts as drawn in Chromium, read from each chart's own Chart.js instance (``Chart.getChart``).

For a result of every family: the bars drawn equal the stored schedule in the window on the rows
shown; every bar's colour is its legend entry's colour in every colour mode the page offers; bars
overlapping in time on one resource sit in disjoint lanes; the event markers are the stored events.
A page whose Gantt data was emptied fails the same check. Screenshots go to $CLOUDSCHED_SHOTS (tests/browser/conftest.py).
"""


import pytest

import schedulers
from cloudsched_web.results.colours import _state
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]

# Everything a Gantt canvas holds, read from the Chart.js instance the page drew.
DRAWN = """() => [...document.querySelectorAll('#gantt-charts canvas')].map((canvas) => {
  const ch = Chart.getChart(canvas), g = ch.$g, ds = ch.data.datasets, meta = ch.getDatasetMeta(0);
  return {index: g.index, mode: g.mode, window: g.window, labels: ch.data.labels, page: g.resources,
    occupancy_rows: g.occupancy ? g.occupancy.rows.length : 0,
    bars: ds[0].data.map((d, i) => ({row: d.y, s: d.x[0], e: d.x[1], job: g.bars.job[d.k], lane: d.lane,
      colour: ds[0].backgroundColor[i], top: meta.data[i].y - meta.data[i].height / 2,
      bottom: meta.data[i].y + meta.data[i].height / 2})),
    markers: ds.slice(1).flatMap((d) => d.data.map((p) => ({kind: d.marker, t: p.x, row: p.y})))};
})"""
LEGEND = """() => [...document.querySelectorAll('#gantt-legend [data-category]')].map((e) =>
  [Number(e.dataset.category), e.dataset.colour, e.textContent])"""


def _loaded(page):
    page.wait_for_function("() => Number(document.body.dataset.timelineLoaded || 0) >= 1")


def _stored(run, index):
    parsed = get_result(Run.objects.get(pk=run.pk))
    return parsed.stored(index).table("segments").to_pylist(), parsed


def _check_drawn(run, charts):
    """Every Gantt drawn equals the stored schedule (bars mode) or covers every row shown (occupancy)."""
    assert charts, "no Gantt chart on the page"
    for c in charts:
        segs, _ = _stored(run, c["index"])
        lo, hi = c["window"]
        rows = set(c["page"])
        assert c["page"] and set(c["labels"]) >= rows, "the Gantt has no resource rows"
        want = sorted(
            (s["resource"], round(s["start"], 3), s["job"])
            for s in segs
            if s["resource"] in rows and s["start"] < hi and s["end"] > lo
        )
        assert want, "the stored schedule has no segment in this window"
        if c["mode"] == "occupancy":
            assert c["occupancy_rows"] == len(c["page"]) and not c["bars"]
            continue
        drawn = sorted((b["row"], round(b["s"], 3), b["job"]) for b in c["bars"])
        assert drawn == want, f"run {c['index']}: {len(drawn)} bars drawn, {len(want)} stored in the window"


def _check_lanes(charts):
    """Bars overlapping in time on one row never overlap on screen (distinct lanes, disjoint y ranges)."""
    pairs = 0
    for c in charts:
        by_row = {}
        for b in c["bars"]:
            by_row.setdefault(b["row"], []).append(b)
        for bars in by_row.values():
            bars.sort(key=lambda b: b["s"])
            for i, a in enumerate(bars):
                for b in bars[i + 1 :]:
                    if b["s"] >= a["e"]:
                        break
                    pairs += 1
                    assert a["lane"] != b["lane"], f"{a} and {b} share a lane"
                    assert a["bottom"] <= b["top"] + 0.01 or b["bottom"] <= a["top"] + 0.01, f"{a} and {b} overlap"
    return pairs


def _events(run, index, lo, hi, rows):
    """The events the family stored for run ``index`` in the window (as ``(kind, resource or None)``)."""
    segs, parsed = _stored(run, index)
    out = [(s["ended"], s["resource"]) for s in segs
           if s.get("ended") in ("migrated", "killed", "preempted") and lo <= s["end"] <= hi and s["resource"] in rows]  # fmt: skip
    jobs = parsed.jobs_table(index)
    for j in jobs.to_pylist() if jobs is not None else []:
        arrival = j.get("arrival", j.get("submit_s"))
        if (j.get("rejected") is True or j.get("accepted") is False) and lo <= arrival <= hi:
            out.append(("rejected", None))
    return sorted(out, key=str)


def _colour_modes(page, run, charts):
    """In every mode the page offers, each bar has its legend entry's colour, for its stored value."""
    offered = page.evaluate("() => [...document.querySelectorAll('#gantt-colour option')].map((o) => o.value)")
    if len(offered) < 2:  # nothing to choose: the toolbar stays hidden
        assert offered == ["job"] and page.locator("#gantt-colour-bar").is_hidden()
        return offered
    checked = []
    for key in offered:
        page.select_option("#gantt-colour", key)
        page.wait_for_function(f"() => Object.values(window.cloudsched.gantt).every((c) => c.$colour === '{key}')")
        drawn = page.evaluate(DRAWN)
        top = page.evaluate("() => document.getElementById('gantt-colour-bar').getBoundingClientRect().top + scrollY")
        clip = {"x": 0, "y": top - 10, "width": 1400, "height": 900}
        page.screenshot(path=str(screens_dir() / f"{run.family}-by-{key}.png"), full_page=True, clip=clip)
        dense = [c["index"] for c in drawn if c["mode"] == "occupancy"]
        if dense:
            page.locator(f"#gantt-box-{dense[0]}").screenshot(
                path=str(screens_dir() / f"{run.family}-occupancy-by-{key}.png")
            )
        if key == "job":
            continue
        legend = {code: (colour, text) for code, colour, text in page.evaluate(LEGEND)}
        if key == "freq":  # a scale: the legend is a colour bar with the range in GHz
            assert page.locator("#gantt-legend .colourbar").count() == 1 and "GHz" in page.inner_text("#gantt-legend")
        else:
            colours = [colour for colour, _ in legend.values()]
            assert legend and len(set(colours)) == len(colours), f"{key}: legend colours repeat: {legend}"
        for c in drawn:
            if c["mode"] != "bars":
                continue
            segs, _ = _stored(run, c["index"])
            value = {(s["resource"], round(s["start"], 3), s["job"]): s for s in segs}
            for b in c["bars"]:
                s = value[(b["row"], round(b["s"], 3), b["job"])]
                if key == "freq":
                    lo, hi = page.evaluate(
                        "() => Object.values(window.cloudsched.gantt)[0].$g.colour.modes.find((m) => m.key === 'freq').range"
                    )
                    want = page.evaluate(f"() => window.cs.gantt.scaleColour({(s['freq_ghz'] - lo) / (hi - lo)})")
                    assert b["colour"] == want
                    continue
                label = _state(s.get("kind"), s.get("ended")) if key == "state" else str(s[key])
                entry = [colour for colour, text in legend.values() if text == label]
                assert entry == [b["colour"]], f"{key}: bar {b} is {b['colour']}, legend says {label} is {entry}"
        checked.append(key)
    page.select_option("#gantt-colour", "job")
    return checked


@pytest.mark.parametrize("family", FAMILIES)
def test_the_gantt_draws_the_stored_schedule(page, live_server, alice, family):
    config = schedulers.example(family)
    scenario = Scenario.objects.create(owner=alice, family=family, name=f"{family} example", config=config)
    run = finished_run(scenario)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _loaded(page)
    page.screenshot(path=str(screens_dir() / f"{family}.png"), full_page=True)
    top = page.evaluate(
        "() => document.getElementById('gantt-colour-bar').getBoundingClientRect().top + window.scrollY"
    )
    page.screenshot(
        path=str(screens_dir() / f"{family}-gantt.png"),
        full_page=True,
        clip={"x": 0, "y": top - 40, "width": 1400, "height": 1100},
    )
    charts = page.evaluate(DRAWN)
    _check_drawn(run, charts)
    lanes = _check_lanes(charts)
    # Events: every stored kill, migration, preemption and rejection in the window is marked.
    for c in charts:
        marks = sorted(
            ((m["kind"], None if m["row"] == "(jobs: no resource)" else m["row"]) for m in c["markers"]), key=str
        )
        assert marks == _events(run, c["index"], *c["window"], set(c["page"]))
    modes = _colour_modes(page, run, charts)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1400
    if family == "federated":
        assert {"state", "cloud"} <= set(modes)
        assert any(m["kind"] == "preempted" for c in charts for m in c["markers"])
        # A marker has a tooltip: hover the first preemption mark and read what the chart shows.
        spot = page.evaluate(
            "() => { for (const canvas of document.querySelectorAll('#gantt-charts canvas')) {"
            " const ch = Chart.getChart(canvas), d = ch.data.datasets.findIndex((x) => x.marker === 'preempted');"
            " if (d < 0 || !ch.data.datasets[d].data.length) continue;"
            " canvas.scrollIntoView(); const p = ch.getDatasetMeta(d).data[0], r = canvas.getBoundingClientRect();"
            " return {id: canvas.id, x: r.left + p.x, y: r.top + p.y}; } return null; }"
        )
        page.mouse.move(spot["x"], spot["y"])
        page.wait_for_function(
            f"() => (Chart.getChart(document.getElementById('{spot['id']}')).tooltip.title || []).join(' ').includes('preempted')"
        )
        body = page.evaluate(
            f"() => Chart.getChart(document.getElementById('{spot['id']}')).tooltip.body.flatMap((b) => b.lines).join(' | ')"
        )
        assert "preemption" in body and " on " in body, body
        assert charts[0]["labels"] == sorted(charts[0]["labels"], key=lambda r: (r.split("/")[0], int(r.split("/")[1])))
    if family == "vm_reservations":
        assert lanes > 0 and "state" in modes
        assert any(m["kind"] == "migrated" for c in charts for m in c["markers"])
    if family == "dvfs_bot":
        assert "freq" in modes and "host" in modes
        strips = page.evaluate(
            "() => [...document.querySelectorAll('#freq-charts canvas')].map((c) => { const s = Chart.getChart(c).$strip;"
            " return {hosts: s.hosts, busy: s.busy.map((r) => r.some((v) => v > 0))}; })"
        )
        segs, _ = _stored(run, 0)
        assert strips and strips[0]["hosts"] == sorted({s["host"] for s in segs}, key=lambda h: int(h[1:]))
        assert all(strips[0]["busy"])
        page.locator("#freq-section").screenshot(path=str(screens_dir() / "dvfs_strips.png"))
    if family == "backfill":
        assert "state" in modes
        assert {"killed", "migrated"} <= {m["kind"] for c in charts for m in c["markers"]}  # KEASY kills, MEASY moves


def test_an_emptied_gantt_fails_the_check(page, live_server, alice):
    """The check above is not satisfied by a painted canvas: empty the drawn data and it fails."""
    scenario = Scenario.objects.create(
        owner=alice, family="federated", name="fed", config=schedulers.example("federated")
    )
    run = finished_run(scenario)
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _loaded(page)
    _check_drawn(run, page.evaluate(DRAWN))
    page.evaluate(
        "() => document.querySelectorAll('#gantt-charts canvas').forEach((c) => {"
        " const ch = Chart.getChart(c); ch.data.datasets[0].data = []; ch.update('none'); })"
    )
    with pytest.raises(AssertionError, match="bars drawn"):
        _check_drawn(run, page.evaluate(DRAWN))
