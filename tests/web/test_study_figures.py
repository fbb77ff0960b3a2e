"""A study's figure as SVG and PDF: the same points and whiskers as the page's chart, read back
out of the exported files; a bad metric is a 400 naming it, the owner's or the share link's only."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from django.test import Client

from cloudsched_web.results import figures
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.services import submit_sweep

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def study(scenario, django_capture_on_commit_callbacks):
    scenario.config = {**scenario.config, "repetitions": 2}
    scenario.save()
    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2, 4]})
    assert study.runs.filter(status=Run.Status.SUCCEEDED).count() == 3
    return study


def _payload(study):
    from cloudsched_web.runs.study_views import _study_payload

    return _study_payload(Study.objects.get(pk=study.pk))[1]


def _laid_out(payload, metric, title):
    """The figure as the view draws it, saved once so its layout (and so its transforms) is the file's."""
    fig = figures.study_figure(payload, metric, title)
    figures.save(fig, "svg", title)
    return fig, fig.axes[0]


def _svg_points(root, gid):
    """The vertices of the path drawn in the SVG group ``gid`` (display points; SVG y runs down)."""
    group = root.find(f".//{SVG}g[@id='{gid}']")
    assert group is not None, gid
    d = group.find(f"{SVG}path").get("d")
    return np.array([[float(a), float(b)] for a, b in re.findall(r"[ML]\s*(-?[\d.]+)\s+(-?[\d.]+)", d)])


def test_the_svg_holds_the_pages_points_and_whiskers(alice_client, study):
    payload = _payload(study)
    metric = "makespan_s"
    response = alice_client.get(f"/studies/{study.pk}/figure.svg?metric={metric}")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response["Content-Disposition"] == f'attachment; filename="study-{study.pk}-makespan_s.svg"'
    root = ET.fromstring(response.content)
    title = f"{study.name}: {payload['specs'][metric]['label']}"
    fig, ax = _laid_out(payload, metric, title)
    height = fig.get_figheight() * 72
    lines = figures.lines_of(payload, metric)
    assert [ln["label"] for ln in lines] == ["fcfs", "lpt"] and all(len(ln["y"]) == 3 for ln in lines)
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "fcfs" in texts and "lpt" in texts and "datacenter.machines" in texts and title in texts
    for k, line in enumerate(lines):
        drawn = _svg_points(root, f"line-{k}")
        data = ax.transData.inverted().transform(np.column_stack([drawn[:, 0], height - drawn[:, 1]]))
        assert np.allclose(data[:, 0], [1, 2, 4], atol=1e-3)
        by_x = {p["x"]: p["y"] for p in payload["metrics"][metric][line["label"]]}
        assert np.allclose(data[:, 1], [by_x[x] for x in (1, 2, 4)], rtol=1e-3, atol=1e-3 * max(by_x.values()))
        spreads = [s["value"] for s in payload["spreads"][metric][line["label"]]]
        assert line["err"] == spreads  # the whisker the page's table and chart show
        if any(spreads):  # each whisker spans y ± its spread
            whiskers = root.find(f".//{SVG}g[@id='line-{k}-whiskers-2']")
            assert whiskers is not None


def test_the_pdf_draws_the_same_points(alice_client, study):
    import io

    from pypdf import PdfReader

    payload = _payload(study)
    metric = "makespan_s"
    response = alice_client.get(f"/studies/{study.pk}/figure.pdf?metric={metric}")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    page = PdfReader(io.BytesIO(response.content)).pages[0]
    text = page.extract_text()
    assert "fcfs" in text and "lpt" in text and "datacenter.machines" in text
    content = page.get_contents().get_data().decode("latin-1")
    drawn = {(round(float(a), 1), round(float(b), 1)) for a, b in re.findall(r"(-?[\d.]+) (-?[\d.]+) [ml]\b", content)}
    _fig, ax = _laid_out(payload, metric, f"{study.name}: {payload['specs'][metric]['label']}")
    for line in figures.lines_of(payload, metric):
        for x, y in zip(line["x"], line["y"], strict=True):
            px, py = ax.transData.transform((x, y))
            assert any(abs(px - a) < 0.2 and abs(py - b) < 0.2 for a, b in drawn), (line["label"], x, y)


def test_a_bad_metric_or_format_is_refused_in_words(alice_client, study):
    response = alice_client.get(f"/studies/{study.pk}/figure.svg?metric=<script>")
    assert response.status_code == 400
    error = response.json()
    assert error["field"] == "metric" and "makespan_s" in error["allowed"]
    assert alice_client.get(f"/studies/{study.pk}/figure.png?metric=makespan_s").status_code == 404


def test_only_the_owner_or_the_share_link_gets_the_figure(client, bob, study):
    client.force_login(bob)
    assert client.get(f"/studies/{study.pk}/figure.svg?metric=makespan_s").status_code == 404
    study.share_token = __import__("uuid").uuid4()
    study.save()
    anonymous = Client()
    response = anonymous.get(f"/share/study/{study.share_token}/figure.pdf?metric=makespan_s")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")


def test_the_status_carries_the_points_so_far(alice_client, study):
    data = alice_client.get(f"/studies/{study.pk}/status.json?payload=1").json()
    assert data["payload"]["metrics"]["makespan_s"]["fcfs"] and len(data["runs"]) == 3
    assert "payload" not in alice_client.get(f"/studies/{study.pk}/status.json").json()


def test_figure_colours_match_the_pages():
    """figures.ALGORITHM_COLOURS and POLICY_SHADE are static/js/lib/colours.js's tables."""
    from pathlib import Path

    js = (Path(__file__).resolve().parents[2] / "static/js/lib/colours.js").read_text()
    table = js.split("const ALGORITHM_COLOURS = {")[1].split("};")[0]
    assert dict(re.findall(r"(\w+): \"(#[0-9a-f]{6})\"", table)) == figures.ALGORITHM_COLOURS
    shades = js.split("const POLICY_SHADE = {")[1].split("};")[0]
    found = {k.strip('"'): float(v) for k, v in re.findall(r"(\"?[\w-]+\"?): (-?[\d.]+)", shades)}
    assert found == figures.POLICY_SHADE


def test_hashed_algorithm_colours_match_the_pages(tmp_path):
    """A name outside the table (a plug-in's) gets the colour static/js/lib/colours.js's hash gives it."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node")
    names = ["easy-lxf", "widest", "ontapra:tapra", "slf-ndrc:gsa", "zz top"]
    js = (Path(__file__).resolve().parents[2] / "static/js/lib/colours.js").as_uri()
    script = (f"import {{ algorithmColor }} from {json.dumps(js)};"
              f"console.log(JSON.stringify({json.dumps(names)}.map((n) => algorithmColor(n))));")  # fmt: skip
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert json.loads(out.stdout) == [figures.algorithm_colour(n) for n in names], out.stderr
