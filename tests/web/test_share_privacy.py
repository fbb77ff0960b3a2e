"""A share link shows what reproduces the result, and nothing about the server that made it."""

import platform
import re
import socket
from importlib import metadata

import pytest

from cloudsched_web.runs.models import Run
from tests import site_pages

pytestmark = pytest.mark.django_db

HOST = "celery@lab-gpu-07.internal.example"


@pytest.fixture
def site(alice):
    site = site_pages.build(alice)
    Run.objects.filter(scenario=site.scenario).update(worker=HOST)
    return site


def _server_details():
    details = [HOST, "lab-gpu-07", f"django {metadata.version('django')}", f"celery {metadata.version('celery')}"]
    if len(socket.gethostname()) > 3:  # the host the tests (and the eager "worker") ran on
        details.append(socket.gethostname())
    return details


def _shared_responses(client, site):
    token = site.run.share_token
    urls = [f"/share/{token}/", f"/share/{token}/diff/", f"/share/study/{site.study.share_token}/"]
    urls += [f"/share/{token}/export/{kind}/" for kind in ("scenario", "metrics", "summary")]
    urls += [f"/share/{token}/data.json?kind=gantt", f"/share/{token}/data.json?kind=series&rep=0"]
    urls += [f"/share/{token}/data.json?kind=diff&a=0&b=1"]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        yield url, b"".join(response.streaming_content if response.streaming else [response.content]).decode()


def test_shared_pages_and_their_data_never_name_the_worker_host_or_web_stack(client, site):
    responses, details = list(_shared_responses(client, site)), _server_details()
    assert responses and details
    for url, body in responses:
        for detail in details:
            assert detail.lower() not in body.lower(), (url, detail)


def test_the_shared_run_page_shows_what_reproduces_it(client, site):
    html = client.get(f"/share/{site.run.share_token}/").content.decode()
    result = site.run.load_result()
    assert f"<dt>seed</dt><dd>{result['seed']}</dd>" in html
    assert result["scenario_digest"][:20] in html
    assert "<dt>app commit</dt>" in html
    for package in ("numpy", "scipy", "pydantic"):
        assert f"{package} {metadata.version(package)}" in html
    assert f"python {platform.python_version()}" in html
    assert "<dt>worker</dt>" not in html
    totals = {}  # every run's own wall time, per algorithm over all its repetitions
    for r in result["runs"]:
        totals.setdefault(r["algorithm"], []).append(r["wall_time_s"])
    times = re.search(r'<dd id="algorithm-times">(.*?)</dd>', html).group(1)
    assert times == ", ".join(f"{alg} {sum(ts):.3f} s" + (f" over {len(ts)} repetitions" if len(ts) > 1 else "")
                              for alg, ts in totals.items())  # fmt: skip


def test_the_owner_still_sees_the_worker_and_every_version(client, alice, site):
    client.force_login(alice)
    html = client.get(f"/runs/{site.run.pk}/").content.decode()
    for detail in (HOST, f"django {metadata.version('django')}", f"celery {metadata.version('celery')}"):
        assert detail in html
