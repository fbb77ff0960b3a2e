"""The per-job section of the run and study pages as drawn in Chromium: the data the charts draw and the
table shows, compared with numpy on the stored job records (not pixels). Screenshots of the section land in
CLOUDSCHED_SHOTS (default: the test's tmp dir)."""

import os
from pathlib import Path

import numpy as np
import pytest

import schedulers
from cloudsched_web.results import formatting
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_run_flow import _login
from tests.jobdata import stored_jobs as _stored
from tests.jobdata import tukey as _tukey
from tests.jobdata import two_point_study

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CDF = """(id) => Chart.getChart(document.getElementById(id)).data.datasets.map((d) => ({
  label: d.label, x: d.data.map((p) => p.x), y: d.data.map((p) => p.y) }))"""
BOXES = """(id) => { const c = Chart.getChart(document.getElementById(id));
  return { labels: c.data.labels, bars: c.data.datasets[0].data, boxes: c.$boxes }; }"""
# The outliers each box drew (jobs.js: every value, or per pixel row with the rows' height on screen in pixels).
OUTLIERS = """(id) => { const c = Chart.getChart(document.getElementById(id)), y = c.scales.y;
  return { plot: [y.min, y.max, y.height], drawn: c.$outliersDrawn.map((d) => d && d.n
    ? { ...d, px: d.n.map((_, i) => Math.abs(y.getPixelForValue(d.hi[i]) - y.getPixelForValue(d.lo[i]))) } : d) }; }"""


def _shot(page, tmp_path, selector, name):
    folder = Path(os.environ.get("CLOUDSCHED_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(folder / f"{name}.png"))


def _run(alice, family, **changes):
    config = {**schedulers.example(family), **changes}
    scenario = Scenario.objects.create(owner=alice, family=family, name=f"{family} jobs", config=config)
    return finished_run(scenario)


def _drawn(page, selector, key="drawn", at_least=1):
    page.wait_for_function(f"() => Number(document.querySelector('{selector}').dataset.{key} || 0) >= {at_least}")


def test_the_run_page_draws_each_algorithms_cdf_and_boxes_from_the_stored_jobs(page, live_server, alice, tmp_path):
    run = _run(alice, "backfill", algorithms=["easy", "keasy", "fcfs"])
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-dist")
    stored = _stored(run, "response_s")
    cdf = page.evaluate(CDF, "jobs-cdf")
    assert [d["label"] for d in cdf] == ["easy", "keasy", "fcfs"]
    for d in cdf:
        values = stored[d["label"]]
        assert d["y"][-1] == 1.0 and d["y"][0] == 0.0 and d["x"][-1] == values.max()
        assert d["y"][100] == 0.5 and d["x"][100] == pytest.approx(np.median(values), rel=1e-12)
    boxes = page.evaluate(BOXES, "jobs-box")
    assert boxes["labels"] == ["easy #0", "keasy #0", "fcfs #0"]
    for label, bar, box in zip(boxes["labels"], boxes["bars"], boxes["boxes"], strict=True):
        values = stored[label.split(" #")[0]]
        assert bar == pytest.approx(np.quantile(values, [0.25, 0.75]).tolist(), rel=1e-12)
        assert box["mean"] == pytest.approx(values.mean()) and box["n"] == values.size
    caption = page.text_content("#jobs-dist-caption")
    assert "201 quantiles of all its jobs" in caption and "1.5 × IQR" in caption
    # Every outlier is drawn, as a point: numpy's Tukey outliers of the stored jobs, value for value.
    outliers = page.evaluate(OUTLIERS, "jobs-box")
    total = 0
    for label, drawn in zip(boxes["labels"], outliers["drawn"], strict=True):
        want = _tukey(stored[label.split(" #")[0]])
        assert drawn == {"values": want.tolist()}, f"{label}: drawn outliers differ from numpy's"
        total += want.size
    assert total and f"{total} values beyond them (outliers), each drawn as ○" in caption
    _shot(page, tmp_path, "#jobs-dist", "jobs-dist-backfill")

    page.select_option("#jobs-measure", "bounded_slowdown")
    _drawn(page, "#jobs-dist", at_least=2)
    slow = page.evaluate(CDF, "jobs-cdf")
    assert slow[0]["x"][100] == pytest.approx(np.median(_stored(run, "bounded_slowdown")["easy"]), rel=1e-12)
    assert page.evaluate("() => Chart.getChart(document.getElementById('jobs-cdf')).scales.x.type") == "logarithmic"


def test_the_job_table_pages_sorts_and_filters_every_job(page, live_server, alice, tmp_path):
    run = _run(alice, "backfill", algorithms=["easy", "keasy"])
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-table-box", "loaded")
    total = sum(len(v) for v in _stored(run, "response_s").values())
    assert page.text_content("#jobs-rows").startswith(f"rows 1–50 of {total:,}")
    page.click("#jobs-table th[data-column=response_s]")
    _drawn(page, "#jobs-table-box", "loaded", 2)
    page.click("#jobs-table th[data-column=response_s]")
    _drawn(page, "#jobs-table-box", "loaded", 3)
    assert "sorted by response_s descending" in page.text_content("#jobs-rows")
    column = page.evaluate(
        "() => [...document.querySelectorAll('#jobs-table th')].findIndex((t) => t.dataset.column === 'response_s')"
    )
    first = page.evaluate(
        f"() => {{ const c = document.querySelector('#jobs-table tbody tr').cells[{column}]; return [c.textContent, c.title]; }}"
    )
    top = max(v.max() for v in _stored(run, "response_s").values())
    assert first[0] == formatting.value_text(top, {"kind": "duration", "unit": "s"})  # in hours, as the page's numbers
    assert float(first[1].removesuffix(" s")) == top  # the stored number in its title
    page.select_option("#jobs-alg", "keasy")
    _drawn(page, "#jobs-table-box", "loaded", 4)
    assert page.text_content("#jobs-rows").startswith(f"rows 1–50 of {len(_stored(run, 'response_s')['keasy']):,}")
    algs = page.evaluate(
        "() => [...document.querySelectorAll('#jobs-table tbody tr')].map((r) => r.cells[1].textContent)"
    )
    assert set(algs) == {"keasy"}
    page.click("#jobs-next")
    _drawn(page, "#jobs-table-box", "loaded", 5)
    assert page.text_content("#jobs-rows").startswith("rows 51–100 of")
    _shot(page, tmp_path, "#jobs-table-box", "jobs-table-backfill")


def test_a_second_family_draws_its_own_measure(page, live_server, alice, tmp_path):
    run = _run(alice, "federated")
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-dist")
    assert page.input_value("#jobs-measure") == "execution_time_s"
    stored = _stored(run, "execution_time_s")
    for d in page.evaluate(CDF, "jobs-cdf"):
        assert d["y"][-1] == 1.0 and d["x"][100] == pytest.approx(np.median(stored[d["label"]]), rel=1e-12)
    _drawn(page, "#jobs-table-box", "loaded")
    _shot(page, tmp_path, "#jobs-dist", "jobs-dist-federated")
    _shot(page, tmp_path, "#jobs-table-box", "jobs-table-federated")


def test_the_study_page_draws_the_distributions_of_the_chosen_point(page, live_server, alice, tmp_path):
    study, points = two_point_study(alice, "jobs study")
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    _drawn(page, "#study-jobs")
    first = page.evaluate(CDF, "study-jobs-cdf")
    assert first[0]["x"][100] == pytest.approx(np.median(_stored(points[0], "response_s")["easy"]), rel=1e-12)
    page.select_option("#study-jobs-point", str(points[1].pk))
    _drawn(page, "#study-jobs", at_least=2)
    second = page.evaluate(CDF, "study-jobs-cdf")
    assert second[0]["y"][-1] == 1.0
    assert second[0]["x"][100] == pytest.approx(np.median(_stored(points[1], "response_s")["easy"]), rel=1e-12)
    _shot(page, tmp_path, "#study-jobs", "jobs-study")


def test_more_outliers_than_pixel_rows_are_drawn_per_row_and_the_chart_says_so(page, live_server, alice, tmp_path):
    base = schedulers.example("backfill")
    run = _run(alice, "backfill", algorithms=["easy", "fcfs"], workload={**base["workload"], "n_jobs": 5000})
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-dist")
    page.uncheck("#jobs-log")  # linear, then logarithmic: the rows are cut for each scale
    _drawn(page, "#jobs-dist", at_least=2)
    stored = _stored(run, "response_s")
    for scale in ("linear", "log"):
        outliers = page.evaluate(OUTLIERS, "jobs-box")
        boxes = page.evaluate(BOXES, "jobs-box")
        caption = page.text_content("#jobs-dist-caption")
        dense = 0
        for label, drawn in zip(boxes["labels"], outliers["drawn"], strict=True):
            want = _tukey(stored[label.split(" #")[0]])
            if "values" in drawn:
                assert drawn["values"] == want.tolist()
                continue
            dense += 1
            assert want.size > drawn["rows"] and sum(drawn["n"]) == want.size, f"{label}: outliers left out"
            for n, a, b, px in zip(drawn["n"], drawn["lo"], drawn["hi"], drawn["px"], strict=True):
                assert n == int(((want >= a) & (want <= b)).sum())  # each row's count is the outliers in it
                assert px <= 1.0 + 1e-6, f"{label}: a row of outliers {px} px tall"
            assert f"{label} ({want.size:,} outliers) more than the chart's" in caption
        assert dense and "drawn per pixel row holding any" in caption, caption
        _shot(page, tmp_path, "#jobs-dist", f"jobs-dist-dense-{scale}")
        if scale == "linear":
            page.check("#jobs-log")
            _drawn(page, "#jobs-dist", at_least=3)  # asked again: rows cut in log
            scale_type = "() => Chart.getChart(document.getElementById('jobs-box')).scales.y.type"
            assert page.evaluate(scale_type) == "logarithmic"


# The painted box chart, read back from the canvas: for each box, its bar's geometry (Chart.js's element) and
# two columns of canvas pixels (RGBA, top to bottom): one between the box's centre and its caps' ends (the caps
# cross it, the whisker line and the mean's diamond do not), and the centre line (the whisker line itself).
PAINTED = """(id) => { const c = Chart.getChart(document.getElementById(id)), dpr = c.currentDevicePixelRatio;
  const ctx = c.canvas.getContext('2d'), h = c.canvas.height;
  const column = (x) => Array.from(ctx.getImageData(Math.round(x * dpr), 0, 1, h).data);
  return { dpr, boxes: c.getDatasetMeta(0).data.map((bar, k) => ({ label: c.data.labels[k], x: bar.x, width: bar.width,
    top: Math.min(bar.y, bar.base), bottom: Math.max(bar.y, bar.base),
    side: column(bar.x + bar.width / 8), centre: [-1, 0, 1].map((o) => column(bar.x + o / dpr)) })) }; }"""
PIXELS = "([id, values]) => { const y = Chart.getChart(document.getElementById(id)).scales.y; return values.map((v) => y.getPixelForValue(v)); }"


def _whiskers(values):
    """Tukey's whiskers, from the values alone: the furthest value within 1.5 IQR of each quartile."""
    q1, q3 = np.quantile(values, [0.25, 0.75])
    fence = 1.5 * (q3 - q1)
    return values[values >= q1 - fence].min(), values[values <= q3 + fence].max()


def _ink(column, dpr):
    """How much of the whiskers' grey (#333, drawn opaque over a transparent canvas) covers each row of a canvas
    column, 0–1: coloured pixels (boxes, outliers), white (the mean's fill) and faint grid lines count 0."""
    px = np.asarray(column, float).reshape(-1, 4)
    r, g, b, a = px.T
    grey = (np.maximum(np.maximum(r, g), b) <= 80) & (np.ptp(px[:, :3], axis=1) <= 16) & (a >= 60)
    return np.where(grey, a / 255, 0.0)


def _lines(ink, dpr, skip):
    """The centres (CSS px) of the runs of inked rows outside the rows ``skip`` (lo, hi in CSS px)."""
    rows = np.flatnonzero(ink > 0)
    rows = rows[(rows / dpr < skip[0]) | (rows / dpr > skip[1])]
    runs = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1) if rows.size else []
    return [float(((r + 0.5) * ink[r]).sum() / ink[r].sum()) / dpr for r in runs]


def test_the_painted_whiskers_are_tukeys(page, live_server, alice, tmp_path):
    """The whiskers as painted: each cap's line on the canvas sits at Tukey's whisker computed here from the stored
    jobs (not the chart's data), and the whisker line reaches it and no further, on a run whose min and max lie
    beyond them (outliers), so whiskers drawn to min/max would be seen."""
    run = _run(alice, "backfill", algorithms=["easy", "keasy"])
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-dist")
    stored = _stored(run, "response_s")
    painted = page.evaluate(PAINTED, "jobs-box")
    dpr = painted["dpr"]
    assert [b["label"] for b in painted["boxes"]] == ["easy #0", "keasy #0"]
    beyond = 0
    for box in painted["boxes"]:
        values = stored[box["label"].split(" #")[0]]
        lo, hi = _whiskers(values)
        want_lo, want_hi, at_min, at_max, at_mean = page.evaluate(
            PIXELS, ["jobs-box", [lo, hi, values.min(), values.max(), values.mean()]]
        )
        assert box["width"] / 8 > 7, "the side column must miss the mean's diamond (±5 px) and the whisker line"
        beyond += abs(at_max - want_hi) > 3 or abs(at_min - want_lo) > 3
        # The caps: the two grey lines across the side column outside the box, at the whiskers, to a pixel.
        caps = _lines(_ink(box["side"], dpr), dpr, (box["top"] - 2, box["bottom"] + 2))
        assert len(caps) == 2, f"{box['label']}: {len(caps)} grey lines beside the box, not two caps: {caps}"
        assert caps[0] == pytest.approx(want_hi, abs=1.0) and caps[1] == pytest.approx(want_lo, abs=1.0), (
            f"{box['label']}: caps painted at {caps} px, Tukey's whiskers at {[want_hi, want_lo]} px "
            f"(min/max at {[at_max, at_min]} px)"
        )
        # The whisker line: grey from the box out to each cap and no further (outliers are drawn in colour).
        ink = np.max([_ink(c, dpr) for c in box["centre"]], axis=0)
        rows = np.flatnonzero(ink >= 0.3) / dpr
        above, below = rows[rows < box["top"] - 2], rows[rows > box["bottom"] + 2]
        if want_hi <= at_mean <= want_lo:  # the mean's diamond, grey-edged, sits inside the whiskers' reach
            assert above.size and above.min() == pytest.approx(want_hi, abs=1.5), box["label"]
            assert below.size and below.max() == pytest.approx(want_lo, abs=1.5), box["label"]
    assert beyond, "no box has an outlier a whisker drawn to min/max would reach: the check would see nothing"
    _shot(page, tmp_path, "#jobs-dist", "jobs-box-whiskers")
