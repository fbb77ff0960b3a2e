"""The run page's header in Chromium: its title, the time left, the share field's copy button, and printing.

Printing is checked on Chromium's own PDF (``page.pdf``, which lays the page out for print): every
canvas on the page is a Chart.js chart holding the stored result's data when printing starts, and
every chart is drawn for the printed layout: Chromium then prints it as vector drawing, so the words
it draws (titles, axis titles, category labels) are text in the PDF. A chart that is not drawn then
(lazily drawn, or cleared by the print layout's resize and left to a later animation frame) leaves
none of its words. The PDF's text also holds the run's title and the metrics table's values.
"""

import io
import unicodedata
from collections import Counter

import pytest
from django.utils import timezone

import schedulers
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from tests import toy_family
from tests.browser.conftest import screens_dir, shoot
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Every canvas of the page with the chart Chart.js holds for it: the number of points of each dataset.
CHARTS = """() => [...document.querySelectorAll('canvas')].map((canvas) => {
  const chart = Chart.getChart(canvas);
  return { id: canvas.id, chart: !!chart, type: chart ? chart.config.type : null,
           points: chart ? (chart.$g && chart.$g.bars ? [chart.$g.bars.n || 0]  // a Gantt's bars are drawn from columns
                                   : chart.data.datasets.map((d) => d.data.length)) : [],
           occupied: chart && chart.$g && chart.$g.occupancy ? chart.$g.occupancy.rows.flat().filter(Boolean).length : 0,
           values: chart && canvas.id === 'comparison-chart' ? chart.data.datasets[0].data : null,
           labels: chart && canvas.id === 'comparison-chart' ? chart.data.labels : null }; })"""


# The words each chart draws itself: its title, its axis titles and the labels of its category axes.
CHART_WORDS = """() => Object.values(Chart.instances).map((chart) => {
  const o = chart.options, words = [];
  if (o.plugins.title && o.plugins.title.display && o.plugins.title.text) words.push(String(o.plugins.title.text));
  Object.values(chart.scales).forEach((scale) => {
    if (scale.options.display === false) return;
    if (scale.options.title && scale.options.title.display) words.push(String(scale.options.title.text));
    if (scale.type === 'category') words.push(...scale.getLabels().map(String));
  });
  return words.filter((w) => w.trim()); })"""


def _finished_run(owner, name="printable toy", family="toy"):
    example = toy_family.TOY.example() if family == "toy" else schedulers.example(family)
    config = {**example, "name": name, "repetitions": 1 if family != "toy" else example["repetitions"]}
    config = schedulers.validate(config)[1].model_dump(mode="json")
    scenario = Scenario.objects.create(owner=owner, family=family, name=name, config=config)
    run = Run.objects.create(scenario=scenario, config=config)  # Run.save keeps the name it runs under
    run_simulation.apply(args=[run.pk])  # in this process, through the worker's own code path
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    return run


def _open_result(page, base, run):
    page.goto(f"{base}/runs/{run.pk}/")
    page.wait_for_selector("#results")
    page.wait_for_function("() => document.body.dataset.timelineLoaded")
    # the per-job charts load on their own request
    page.wait_for_function("""() => [...document.querySelectorAll('canvas[data-role]')]
      .every((c) => Chart.getChart(c) || c.closest('[hidden]'))""")


def _pdf_text(pdf_bytes):
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf_bytes))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    return unicodedata.normalize("NFKC", text)  # the PDF's "ﬁ" ligature is "fi"


def _count(text, word):
    return " ".join(text.split()).count(word)


@pytest.mark.parametrize("family", ["toy", "backfill"])
def test_a_result_page_prints_to_pdf_with_every_chart_drawn(page, live_server, alice, family):
    if family not in schedulers.all_families():
        pytest.skip(f"needs the {family} family")
    run = _finished_run(alice, name=f"printable {family}", family=family)
    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 900})  # the charts sit below the fold: never scrolled to
    _open_result(page, live_server.url, run)

    charts = page.evaluate(CHARTS)
    assert len(charts) >= 3, charts  # comparison, at least one series, one Gantt per algorithm
    assert all(c["chart"] for c in charts), [c["id"] for c in charts if not c["chart"]]
    empty = [c["id"] for c in charts if not any(c["points"]) and not c["occupied"]]
    assert not empty, empty
    summary = run.load_header()["summary"]
    comparison = next(c for c in charts if c["id"] == "comparison-chart")
    metric = page.input_value("#metric-select")
    for alg, value in zip(comparison["labels"], comparison["values"], strict=False):
        if alg in summary:
            assert value == pytest.approx(summary[alg][metric]["mean"]), (alg, metric)

    # What the page prints besides its charts (print stylesheet on), and the words each chart draws.
    page.emulate_media(media="print")
    words = page.evaluate(CHART_WORDS)
    around = page.evaluate("() => document.body.innerText")
    page.emulate_media(media="null")  # back to no emulation: page.pdf lays the page out for print itself
    pdf = page.pdf(format="A4", print_background=True)
    (screens_dir() / f"run-page-{family}.pdf").write_bytes(pdf)  # kept beside the screenshots, to look at
    text = _pdf_text(pdf)
    expected = Counter(w for chart in words for w in chart)
    assert expected, words
    # A chart that is not drawn when Chromium prints (never drawn, or cleared by the print layout's resize
    # and not redrawn) leaves none of its words in the PDF.
    missing = {
        w: (_count(text, w), _count(around, w), n)
        for w, n in expected.items()
        if _count(text, w) < _count(around, w) + n
    }
    assert not missing, missing
    assert run.title in text
    assert "Log out" not in text and "Move to trash" not in text  # print.css: no navigation, no controls
    cell = page.inner_text("#summary-table tbody tr:first-child td:nth-child(2)").split("±")[0].strip()
    assert cell and cell in text, (cell, text[:500])
    shoot(page, f"run-page-printed-from-{family}")
    page.screenshot(path=str(screens_dir() / f"run-page-top-{family}.png"))  # the header, readable at a glance


def test_the_title_is_the_name_the_run_ran_under(page, live_server, alice):
    run = _finished_run(alice, name="before the rename")
    Scenario.objects.filter(pk=run.scenario_id).update(name="after the rename")
    _login(page, live_server.url)
    _open_result(page, live_server.url, run)
    assert page.title().startswith("before the rename")
    assert page.inner_text("#run-title").startswith("before the rename")
    assert "(scenario since renamed to “after the rename”)" in page.inner_text("#run-renamed")
    assert (
        page.inner_text("#run-workload") == "Workload: jobs 20 · mean_duration_s 10"
    )  # a family without its own reading
    shoot(page, "run-page-renamed")


def test_the_share_link_is_copied_from_its_field(browser, csp, live_server, alice):
    run = _finished_run(alice)
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = csp.attach(context.new_page())
    _login(page, live_server.url)
    _open_result(page, live_server.url, run)
    assert page.locator("#share-url").count() == 0
    page.click("#create-share")
    page.wait_for_selector("#share-url")
    run.refresh_from_db()
    url = page.input_value("#share-url")
    assert url == f"{live_server.url}/share/{run.share_token}/"
    assert page.get_attribute("#share-url", "readonly") is not None
    page.click("#copy-share")
    page.wait_for_function("() => document.getElementById('copy-feedback').textContent === 'copied'")
    assert page.evaluate("() => navigator.clipboard.readText()") == url
    shoot(page, "run-page-share-field")
    context.close()


def test_progress_shows_the_time_left_while_it_runs(page, live_server, alice):
    config = toy_family.TOY.example()
    scenario = Scenario.objects.create(owner=alice, family="toy", name=config["name"], config=config)
    now = timezone.now()
    run = Run.objects.create(
        scenario=scenario,
        config=config,
        status=Run.Status.RUNNING,
        progress=0.5,
        started_at=now - timezone.timedelta(seconds=120),
        heartbeat_at=now,
    )  # fmt: skip  (no worker: the test moves the row itself)
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    assert page.inner_text("#progress-remaining") == "about 2 min left"
    later = timezone.now()
    Run.objects.filter(pk=run.pk).update(
        progress=0.99, started_at=later - timezone.timedelta(seconds=30), heartbeat_at=later
    )
    page.wait_for_function(
        "() => document.getElementById('progress-remaining').textContent === 'less than a minute left'"
    )
    shoot(page, "run-page-running")
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.FAILED, error="stopped by the test", finished_at=timezone.now()
    )
    page.wait_for_function("() => document.getElementById('progress-remaining').hidden")
    assert page.is_visible("#run-error")
