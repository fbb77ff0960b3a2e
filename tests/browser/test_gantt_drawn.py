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

# Everything a Gantt canvas holds, as the Gantt module drew it (drawn(): each bar's box and colour), what its
# plugins painted (chart.$painted) and how many pixels of the plot area are not blank (the canvas itself).
# The page's own module instance: the same URL the page imported resolves to the same module.
GANTT = "/static/js/charts/gantt/index.js"
DRAWN = """async () => { const { drawn, JOB_ROW } = await import('/static/js/charts/gantt/index.js');
  return [...document.querySelectorAll('#gantt-charts canvas')].map((canvas) => {
  const ch = Chart.getChart(canvas), g = ch.$g, ev = g.events, a = ch.chartArea;
  const px = canvas.getContext('2d').getImageData(a.left + 1, a.top + 1, a.width - 2, a.height - 2).data;
  let inked = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && (px[i] < 240 || px[i + 1] < 240 || px[i + 2] < 240)) inked++;
  return {index: g.index, mode: g.mode, window: g.window, labels: ch.data.labels, page: g.resources, q: g.bars.q,
    total: g.total_resources,
    occupancy_rows: g.occupancy ? g.occupancy.rows.length : 0, painted: ch.$painted, inked,
    bars: drawn(ch),
    markers: ev.mode === 'counts' ? [] : ev.t.map((t, i) => ({kind: ev.kind[i], t, row: ev.r[i] >= 0 ? g.resources[ev.r[i]] : JOB_ROW}))};
}); }"""
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
            assert c["painted"]["blocks"] > 0 and c["inked"] > 0, f"run {c['index']}: the canvas drew nothing"
            continue
        drawn = sorted((b["row"], b["job"], b["s"]) for b in c["bars"])
        stored = sorted((r, j, s) for r, s, j in want)
        assert len(drawn) == len(stored), (
            f"run {c['index']}: {len(drawn)} bars drawn, {len(stored)} stored in the window"
        )
        for d, w in zip(drawn, stored, strict=True):  # times travel in ticks of q (results.bars)
            assert d[:2] == w[:2] and abs(d[2] - w[2]) <= c["q"], (d, w)
        assert c["painted"]["bars"] == len(drawn) and c["inked"] > 0, f"run {c['index']}: the canvas drew nothing"


def _check_same_rows(run, charts):
    """Every algorithm's Gantt has the same rows in the same order: every resource of the data centre,
    those the family declares included (idle ones: no run has a segment on them)."""
    assert len(charts) == len({c["index"] for c in charts}) > 1
    for c in charts:
        assert (c["page"], c["total"]) == (charts[0]["page"], charts[0]["total"]), f"run {c['index']}'s rows differ"
    parsed = get_result(Run.objects.get(pk=run.pk))
    declared = {str(n) for r in parsed.doc["runs"] for n in (r.get("extra") or {}).get("resources") or []}
    if len(charts[0]["page"]) == charts[0]["total"]:  # the whole axis on one page
        assert declared <= set(charts[0]["page"]), "a declared resource has no row"
    if run.family == "vm_reservations":  # a PM no algorithm used has its row
        used = {s["resource"] for c in charts for s in _stored(run, c["index"])[0]}
        assert set(charts[0]["page"]) - used, "no idle PM among the rows"


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
            value = {}
            for s in segs:
                value.setdefault((s["resource"], s["job"]), []).append(s)
            for b in c["bars"]:
                s = min(value[(b["row"], b["job"])], key=lambda s, b=b: abs(s["start"] - b["s"]))
                if key == "freq":
                    lo, hi = page.evaluate(
                        "() => Object.values(window.cloudsched.gantt)[0].$g.colour.modes.find((m) => m.key === 'freq').range"
                    )
                    want = page.evaluate(
                        f"async (f) => (await import('{GANTT}')).scaleColour(f)", (s["freq_ghz"] - lo) / (hi - lo)
                    )
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
    _check_same_rows(run, charts)
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
            " const ch = Chart.getChart(canvas), g = ch.$g, ev = g.events, i = ev.kind.indexOf('preempted');"
            " if (i < 0) continue; canvas.scrollIntoView(); const r = canvas.getBoundingClientRect();"
            " const y = ch.scales.y.getPixelForValue(ch.data.labels.indexOf(g.resources[ev.r[i]]));"
            " return {id: canvas.id, x: r.left + ch.scales.x.getPixelForValue(ev.t[i]), y: r.top + y}; } return null; }"
        )
        page.mouse.move(spot["x"], spot["y"])
        tip = page.locator(f"#{spot['id']} ~ .gantt-tip")
        tip.wait_for(state="visible")
        body = tip.inner_text()
        assert "preempted" in body and "preemption" in body and "\non " in body, body
        assert charts[0]["labels"] == sorted(charts[0]["labels"], key=lambda r: (r.split("/")[0], int(r.split("/")[1])))
    if family == "vm_reservations":
        assert lanes > 0 and "state" in modes
        assert any(m["kind"] == "migrated" for c in charts for m in c["markers"])
    if family == "dvfs_bot":
        assert "freq" in modes and "host" in modes
        strips = page.evaluate(
            "() => [...document.querySelectorAll('#freq-charts canvas')].map((c) => { const d = Chart.getChart(c).$drawn;"
            " return {hosts: d.hosts, busy: d.strips.map((s) => s.busy.some((v) => v > 0))}; })"
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
        " const ch = Chart.getChart(c); ch.$g = {...ch.$g, bars: {...ch.$g.bars, n: 0}}; ch.update('none'); })"
    )
    with pytest.raises(AssertionError, match="the canvas drew nothing"):  # the data is there, the canvas is empty
        _check_drawn(run, page.evaluate(DRAWN))
    page.evaluate(
        "() => document.querySelectorAll('#gantt-charts canvas').forEach((c) => {"
        " const ch = Chart.getChart(c); ch.$g = {...ch.$g, $bars: undefined, $groups: undefined}; ch.update('none'); })"
    )
    with pytest.raises(AssertionError, match="bars drawn"):  # and nothing decoded either
        _check_drawn(run, page.evaluate(DRAWN))
