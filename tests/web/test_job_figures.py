"""The per-job distribution charts as SVG and PDF: the CDF's points are the payload's quantiles, the
boxes numpy's quartiles, means and Tukey outliers of the stored jobs, read back out of the files; dense outliers
are per pixel row as the page counts them; a bad parameter is a 400 naming it; the owner's or the share link's only."""

import io
import re
import uuid
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from django.test import Client

import schedulers
from cloudsched_web.results import jobfigures, jobstats, queries
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.jobdata import stored_jobs as _stored
from tests.jobdata import tukey as _tukey

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


@pytest.fixture
def run(alice):
    config = {**schedulers.example("backfill"), "algorithms": ["easy", "keasy", "fcfs"]}
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="jobs figures", config=config)
    return finished_run(scenario)


def _laid_out(data, chart, log, title):
    """The figure as the view draws it, saved once so its layout (and so its transforms) is the file's."""
    import matplotlib

    with matplotlib.rc_context({"path.simplify": False}):
        fig = jobfigures.distribution_figure(data, chart, log, title)
        jobfigures.save(fig, "svg", title)
    return fig, fig.axes[0]


def _to_data(fig, ax, points):
    """SVG display points (y runs down) to data coordinates of ``ax``."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    height = fig.get_figheight() * 72
    return ax.transData.inverted().transform(np.column_stack([points[:, 0], height - points[:, 1]]))


def _path(root, gid):
    group = root.find(f".//{SVG}g[@id='{gid}']")
    assert group is not None, gid
    d = group.find(f".//{SVG}path").get("d")
    return [[float(a), float(b)] for a, b in re.findall(r"[ML]\s*(-?[\d.]+)\s+(-?[\d.]+)", d)]


def _markers(root, gid):
    group = root.find(f".//{SVG}g[@id='{gid}']")
    assert group is not None, gid
    return [[float(u.get("x")), float(u.get("y"))] for u in group.iter(f"{SVG}use")]


def _caption(root):
    lines = {g.get("id"): " ".join(t.text or "" for t in g.iter(f"{SVG}text")) for g in root.iter(f"{SVG}g")
             if (g.get("id") or "").startswith("caption-")}  # fmt: skip
    return " ".join(lines[f"caption-{i}"] for i in range(len(lines)))


def test_the_cdf_svg_draws_each_algorithms_201_quantiles(alice_client, run):
    response = alice_client.get(f"/runs/{run.pk}/jobs-cdf.svg?measure=response_s&log=0")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response["Content-Disposition"] == f'attachment; filename="run-{run.pk}-response_s-cdf.svg"'
    root = ET.fromstring(response.content)
    data = jobstats.distributions(queries.get_result(run), "response_s")
    fig, ax = _laid_out(data, "cdf", False, run.title)
    stored = _stored(run)
    span = max(v.max() for v in stored.values())
    for k, a in enumerate(data["algorithms"]):
        assert a["cdf"]["x"] == np.quantile(stored[a["algorithm"]], np.linspace(0, 1, 201)).tolist()  # numpy's
        drawn = _to_data(fig, ax, _path(root, f"cdf-{k}"))
        assert len(drawn) == 201, a["algorithm"]
        assert np.allclose(drawn[:, 0], a["cdf"]["x"], atol=1e-4 * span)
        assert np.allclose(drawn[:, 1], a["cdf"]["p"], atol=1e-4)
    caption = _caption(root)
    assert "201 quantiles of all its jobs (easy 200, keasy 200, fcfs 200)" in caption
    assert "CDF of response time" in " ".join(t.text or "" for t in root.iter(f"{SVG}text"))


def test_the_box_svg_draws_numpys_quartiles_means_and_every_outlier(alice_client, run):
    response = alice_client.get(f"/runs/{run.pk}/jobs-box.svg?measure=response_s&log=1")
    assert response.status_code == 200
    root = ET.fromstring(response.content)
    data = jobstats.distributions(queries.get_result(run), "response_s", log=True)
    fig, ax = _laid_out(data, "box", True, run.title)
    assert ax.get_yscale() == "log"
    stored = _stored(run)
    total = 0
    for k, alg in enumerate(["easy", "keasy", "fcfs"]):
        values = stored[alg]
        log_y = np.log10(_to_data(fig, ax, _path(root, f"box-{k}"))[:, 1])
        q1, med, q3 = np.quantile(values, [0.25, 0.5, 0.75])
        assert np.allclose([log_y.min(), log_y.max()], np.log10([q1, q3]), atol=1e-3)
        assert np.allclose(np.log10(_to_data(fig, ax, _path(root, f"box-{k}-median"))[:, 1]), np.log10(med), atol=1e-3)
        mean = _to_data(fig, ax, _markers(root, f"box-{k}-mean"))
        assert np.allclose(np.log10(mean[:, 1]), np.log10(values.mean()), atol=1e-3) and np.allclose(mean[:, 0], k)
        want = _tukey(values)
        total += want.size
        if not want.size:
            assert root.find(f".//{SVG}g[@id='box-{k}-outliers']") is None
            continue
        drawn = np.sort(_to_data(fig, ax, _markers(root, f"box-{k}-outliers"))[:, 1])
        assert drawn.size == want.size and np.allclose(np.log10(drawn), np.log10(want), atol=1e-3), alg
    assert total and f"{total} values beyond them (outliers), each drawn as ○." in _caption(root)


def test_more_outliers_than_pixel_rows_are_counted_per_row_as_on_the_page(alice_client, run):
    response = alice_client.get(f"/runs/{run.pk}/jobs-box.svg?measure=response_s&log=0&pixels=10")
    root = ET.fromstring(response.content)
    data = jobstats.distributions(queries.get_result(run), "response_s", pixels=10, log=False)
    fig, ax = _laid_out(data, "box", False, run.title)
    stored = _stored(run)
    dense = 0
    for k, r in enumerate(data["runs"]):
        want, rows = _tukey(stored[r["algorithm"]]), r["box"]["outliers"]
        if "n" not in rows:
            continue
        dense += 1
        drawn = []
        for i in range(len(rows["n"])):
            y = _to_data(fig, ax, _path(root, f"box-{k}-row-{i}"))[:, 1]
            drawn.append((y.min(), y.max()))
        span = data["box_range"][1] - data["box_range"][0]
        counts = [int(((want >= lo - 1e-4 * span) & (want <= hi + 1e-4 * span)).sum()) for lo, hi in drawn]
        assert counts == rows["n"] and sum(counts) == want.size, r["algorithm"]  # nothing left out
        assert f"{r['algorithm']} #0 ({want.size} outliers)" in _caption(root)
    assert dense and "more than the chart's 10 pixel rows, so drawn per pixel row holding any" in _caption(root)


def test_the_pdf_draws_the_same_quantiles_and_boxes(alice_client, run):
    from pypdf import PdfReader

    for chart in ("cdf", "box"):
        response = alice_client.get(f"/runs/{run.pk}/jobs-{chart}.pdf?measure=response_s&log=0")
        assert response.status_code == 200 and response.content.startswith(b"%PDF")
        page = PdfReader(io.BytesIO(response.content)).pages[0]
        assert "easy" in page.extract_text()
        content = page.get_contents().get_data().decode("latin-1")
        drawn = np.array([(float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+) (-?[\d.]+) [ml]\b", content)])
        data = jobstats.distributions(queries.get_result(run), "response_s")
        _fig, ax = _laid_out(data, chart, False, run.title)
        if chart == "cdf":
            want = [(x, p) for a in data["algorithms"] for x, p in zip(a["cdf"]["x"], a["cdf"]["p"], strict=True)]
        else:
            want = [(k, r["box"][q]) for k, r in enumerate(data["runs"]) for q in ("q1", "q3", "median")]
            want = [(x + dx, y) for x, y in want for dx in (-0.36, 0.36)]  # the bar's and median's corners
        for x, y in want:
            px, py = ax.transData.transform((x, y))
            assert np.min(np.abs(drawn - [px, py]).max(axis=1)) < 0.2, (chart, x, y)


def test_a_bad_parameter_is_a_400_naming_it_and_its_allowed_values(alice_client, run):
    base = f"/runs/{run.pk}/jobs-box.svg"
    for query, field, allowed in [
        ("measure=<script>", "measure", "response_s"),
        ("rep=x", "rep", "integer 0..0"),
        ("rep=7", "rep", "integer 0..0"),
        ("log=maybe", "log", "1 or 0"),
        ("pixels=5", "pixels", "integer 10..4000"),
    ]:
        response = alice_client.get(f"{base}?{query}")
        assert response.status_code == 400, query
        error = response.json()
        assert error["field"] == field and allowed in error["allowed"], (query, error)
    assert alice_client.get(f"/runs/{run.pk}/jobs-pie.svg").status_code == 404
    assert alice_client.get(f"/runs/{run.pk}/jobs-cdf.png").status_code == 404


def test_only_the_owner_or_the_share_link_gets_the_files(client, bob, run):
    client.force_login(bob)
    assert client.get(f"/runs/{run.pk}/jobs-cdf.svg").status_code == 404
    run.share()
    response = Client().get(f"/share/{run.share_token}/jobs-cdf.pdf?measure=wait_s")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")


def test_a_study_point_draws_that_runs_jobs(alice_client, alice, run):
    study = Study.objects.create(scenario=run.scenario, name="jobs study", axes=["seed"])
    Run.objects.filter(pk=run.pk).update(study=study, point={"seed": 1})
    url = f"/studies/{study.pk}/jobs-box.svg?point={run.pk}&measure=response_s&log=0"
    response = alice_client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(f'filename="study-{study.pk}-run-{run.pk}-response_s-box.svg"')
    assert "jobs study (seed=1)" in response.content.decode()
    bad = alice_client.get(f"/studies/{study.pk}/jobs-box.svg?point=999999")
    assert bad.status_code == 400 and bad.json()["field"] == "point" and bad.json()["allowed"] == str(run.pk)
    study.share_token = uuid.uuid4()
    study.save()
    shared = Client().get(f"/share/study/{study.share_token}/jobs-cdf.svg?point={run.pk}")
    assert shared.status_code == 200 and b"<svg" in shared.content


def test_a_figure_without_a_scale_is_drawn_on_its_measures_default_scale(alice_client, run):
    """No ``log``: the measure's own scale (response time: log), outlier rows cut for it, as the page draws it."""
    default = next(m["log"] for m in jobstats.measures_of(queries.get_result(run)) if m["key"] == "response_s")
    url = f"/runs/{run.pk}/jobs-box.svg?measure=response_s&pixels=10"
    body = alice_client.get(url).content
    assert body == alice_client.get(url + f"&log={int(default)}").content
    assert body != alice_client.get(url + f"&log={int(not default)}").content
