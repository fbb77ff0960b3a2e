"""The per-job charts' file links on the run and study pages follow the selectors: point, measure,
repetition, scale and the pixel rows the page counted outliers in; the files they fetch carry the page's caption.
Screenshots of each section land in the screens folder (tests/browser/conftest.py: ``screens_dir``)."""

import re
import xml.etree.ElementTree as ET
from urllib.parse import parse_qs, urlsplit

import pytest

import schedulers
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.conftest import screens_dir
from tests.browser.test_jobs_drawn import _drawn
from tests.browser.test_run_flow import _login
from tests.jobdata import two_point_study

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SVG = "{http://www.w3.org/2000/svg}"


def _link(page, selector):
    href = page.get_attribute(selector, "href")
    assert href, f"{selector} has no address"
    parts = urlsplit(href)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


def _caption(body):
    root = ET.fromstring(body)
    lines = {g.get("id"): "".join(t.text or "" for t in g.iter(f"{SVG}text")) for g in root.iter(f"{SVG}g")
             if re.fullmatch(r"caption-\d+", g.get("id") or "")}  # fmt: skip
    return " ".join(lines[f"caption-{i}"] for i in range(len(lines)))


def test_the_run_pages_file_links_follow_measure_repetition_and_scale(page, live_server, alice):
    config = {**schedulers.example("backfill"), "algorithms": ["easy", "fcfs"], "repetitions": 2}
    run = finished_run(Scenario.objects.create(owner=alice, family="backfill", name="files", config=config))
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    _drawn(page, "#jobs-dist")
    path, query = _link(page, "#jobs-cdf-svg")
    assert path == f"/runs/{run.pk}/jobs-cdf.svg"
    pixels = page.evaluate("() => String(window.cloudsched.jobs['jobs-dist'].data.pixels)")
    assert query == {"measure": "response_s", "log": "1", "pixels": pixels}  # response time: log by default
    assert _link(page, "#jobs-box-pdf") == (f"/runs/{run.pk}/jobs-box.pdf", query)

    page.select_option("#jobs-measure", "bounded_slowdown")
    _drawn(page, "#jobs-dist", at_least=2)
    page.select_option("#jobs-dist-rep", "1")
    _drawn(page, "#jobs-dist", at_least=3)
    assert _link(page, "#jobs-box-svg")[1] == {"measure": "bounded_slowdown", "log": "1", "pixels": pixels, "rep": "1"}
    page.uncheck("#jobs-log")
    _drawn(page, "#jobs-dist", at_least=4)
    assert _link(page, "#jobs-cdf-pdf")[1] == {"measure": "bounded_slowdown", "log": "0", "pixels": pixels, "rep": "1"}

    # The files say what the page says: the CDF's caption word for word, the boxes' the page's next sentence.
    caption = page.text_content("#jobs-dist-caption")
    cdf = page.request.get(live_server.url + page.get_attribute("#jobs-cdf-svg", "href"))
    box = page.request.get(live_server.url + page.get_attribute("#jobs-box-svg", "href"))
    assert cdf.ok and box.ok and cdf.headers["content-type"] == "image/svg+xml"
    assert "repetition 1" in _caption(cdf.body()) and caption.startswith(_caption(cdf.body()) + " ")
    assert _caption(box.body()).startswith("Boxes:") and caption.endswith(" " + _caption(box.body()))
    pdf = page.request.get(live_server.url + page.get_attribute("#jobs-box-pdf", "href"))
    assert pdf.ok and pdf.body().startswith(b"%PDF")
    page.locator("#jobs-dist").screenshot(path=str(screens_dir() / "jobs-files-run.png"))


def test_the_study_pages_file_links_follow_the_point(page, live_server, alice):
    study, points = two_point_study(alice, "files study")
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    _drawn(page, "#study-jobs")
    path, query = _link(page, "#study-jobs-box-svg")
    assert path == f"/studies/{study.pk}/jobs-box.svg" and query["point"] == str(points[0].pk)
    page.select_option("#study-jobs-point", str(points[1].pk))
    _drawn(page, "#study-jobs", at_least=2)
    for link in ("#study-jobs-cdf-svg", "#study-jobs-cdf-pdf", "#study-jobs-box-svg", "#study-jobs-box-pdf"):
        assert _link(page, link)[1]["point"] == str(points[1].pk), link
    svg = page.request.get(live_server.url + page.get_attribute("#study-jobs-cdf-svg", "href"))
    assert svg.ok and "datacenter.processors=96" in svg.text()
    assert page.text_content("#study-jobs-caption").startswith(_caption(svg.body()))
    page.locator("#study-jobs").screenshot(path=str(screens_dir() / "jobs-files-study.png"))
