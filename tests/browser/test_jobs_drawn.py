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
