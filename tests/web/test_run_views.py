import json

import pytest

import schedulers
from cloudsched_web.runs.models import Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.SUCCEEDED, progress=1.0)
    result = schedulers.run(scenario.config)
    run.store_result(result)
    run.summary = {a: {k: v["mean"] for k, v in m.items()} for a, m in result["summary"].items()}
    run.save()
    return run


def test_status_json_reports_progress(alice_client, scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config, progress=0.25, progress_message="half way")
    data = alice_client.get(f"/runs/{run.pk}/status.json").json()
    assert data == {
        "id": run.pk,
        "status": "queued",
        "outcome": "queued",
        "progress": 0.25,
        "message": "half way",
        "error": "",
        "finished": False,
        "wall_time_s": None,
        "stalled": None,
        "remaining_s": None,
        "remaining": "",
    }


def test_result_page_shows_summary_and_chart_payload(alice_client, finished_run):
    page = alice_client.get(f"/runs/{finished_run.pk}/").content.decode()
    assert 'id="run-payload"' in page
    assert "makespan_s" in page
    assert "vendor/chart.js/dist/chart.umd" in page


def test_result_json_download(alice_client, finished_run):
    response = alice_client.get(f"/runs/{finished_run.pk}/result.json")
    doc = json.loads(b"".join(response.streaming_content))  # streamed from the stored columns
    assert doc["family"] == "toy"
    stored = finished_run.load_result()
    assert [len(r["schedule"]) for r in doc["runs"]] == [len(r["schedule"]) for r in stored["runs"]]
    assert doc["runs"][0]["schedule"] == stored["runs"][0]["schedule"] and doc["runs"][0]["schedule"]
    assert doc["summary"] == stored["summary"]


def test_other_users_get_404_everywhere(client, bob, finished_run):
    client.force_login(bob)
    for url in ("/", "/status.json", "/result.json"):
        assert (
            client.get(f"/runs/{finished_run.pk}{url}" if url != "/" else f"/runs/{finished_run.pk}/").status_code
            == 404
        )
    assert client.post(f"/runs/{finished_run.pk}/cancel/").status_code == 404
    assert client.post(f"/runs/{finished_run.pk}/share/").status_code == 404


def test_share_link_gives_read_only_access_until_revoked(alice_client, client, finished_run):
    alice_client.post(f"/runs/{finished_run.pk}/share/")
    finished_run.refresh_from_db()
    token = finished_run.share_token
    anonymous = client.__class__()
    page = anonymous.get(f"/share/{token}/")
    assert page.status_code == 200
    html = page.content.decode()
    # Read-only: no owner actions and no full-result download; the scenario JSON that reproduces it is offered.
    assert "Cancel" not in html and "result.json" not in html and "share link" not in html.lower()
    assert f"/share/{token}/export/scenario/" in html
    alice_client.post(f"/runs/{finished_run.pk}/share/", {"revoke": "1"})
    assert anonymous.get(f"/share/{token}/").status_code == 404


def test_cancel_stops_a_queued_run(alice_client, scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    alice_client.post(f"/runs/{run.pk}/cancel/")
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_the_result_page_of_a_finished_run_needs_no_parse_of_the_full_result(alice_client, scenario, monkeypatch):
    from cloudsched_web.results import queries
    from cloudsched_web.runs.tasks import run_simulation

    run = Run.objects.create(scenario=scenario, config=scenario.config)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.page["validity"]["ok"] is True
    assert all("schedule" not in r for r in run.page["header"]["runs"])
    queries.clear_cache()
    monkeypatch.setattr(Run, "load_result", lambda self: pytest.fail("the page parsed the full result"))
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert "makespan_s" in page
    assert 'id="run-payload"' in page
