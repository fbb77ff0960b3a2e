"""Result page, its data endpoint, exports, share links, diff and study pages."""

import pytest

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.results.bars import plain_bars
from cloudsched_web.runs.models import Run, Study

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    queries.clear_cache()


@pytest.fixture
def finished_run(scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.SUCCEEDED, progress=1.0)
    result = schedulers.run(scenario.config)
    run.store_result(result)
    run.save()
    return run


def test_the_page_shows_validity_stamp_exports_and_gaps(alice_client, finished_run):
    response = alice_client.get(f"/runs/{finished_run.pk}/")
    page = response.content.decode()
    # the toy family reports none of the contract's inputs: nothing fails, but the page does not say "passed"
    assert 'id="validity-badge">not all checks ran<' in page and "checks passed" not in page
    assert "segments well-formed" in page and "did not run: capacity per resource (fcfs #0, lpt #0" in page
    assert finished_run.load_result()["scenario_digest"][:20] in page
    for kind in ("metrics", "summary", "schedule", "scenario"):
        assert f"/runs/{finished_run.pk}/export/{kind}/" in page
    assert response.context["validity"]["ok"] is True
    downloads = response.context["downloads"]
    assert [(line["algorithm"], line["repetition"]) for line in downloads["lines"]] == [
        ("fcfs", 0), ("lpt", 0), ("fcfs", 1), ("lpt", 1)]  # fmt: skip
    schedule = downloads["lines"][3]["cells"][0]
    assert schedule["rows"] == "20" and schedule["links"][0]["url"] == f"/runs/{finished_run.pk}/export/schedule/?run=3"
    assert all(link["size"].startswith("about ") for link in schedule["links"])  # re-encoded: estimates
    assert f"/runs/{finished_run.pk}/export/schedule/?run=all" in page and "about " in page


def test_the_data_endpoint_windows_the_gantt(alice_client, finished_run):
    url = f"/runs/{finished_run.pk}/data.json"
    whole = alice_client.get(url, {"kind": "gantt", "run": 0}).json()
    assert whole["algorithm"] == "fcfs" and len(whole["bars"]["s"]) == whole["total_segments"] == 20
    lo, hi = whole["span"]
    mid = (lo + hi) / 2
    part = alice_client.get(url, {"kind": "gantt", "run": 0, "t0": mid, "t1": hi}).json()
    assert 0 < len(part["bars"]["s"]) < 20
    assert all(e > mid for e in plain_bars(part["bars"])["e"])


def test_the_data_endpoint_overlays_series_of_all_algorithms(alice_client, finished_run):
    data = alice_client.get(f"/runs/{finished_run.pk}/data.json", {"kind": "series", "rep": 1}).json()
    assert set(data["series"]["running_jobs"]) == {"fcfs", "lpt"}
    assert "frequency" not in data  # the DVFS strips have their own request
    strips = alice_client.get(f"/runs/{finished_run.pk}/data.json", {"kind": "strips", "rep": 1}).json()
    assert strips["runs"] == [] and strips["window"] == data["window"]  # no DVFS in the toy family


@pytest.mark.parametrize(
    ("params", "field"),
    [({"kind": "gantt", "run": 9}, "run"), ({"kind": "gantt", "t0": "x"}, "t0"), ({"kind": "what"}, "kind"),
     ({"kind": "series", "rep": 7}, "repetition"), ({"kind": "gantt", "t0": 5, "t1": 1}, "t1"),
     ({"kind": "strips", "rep": 7}, "repetition"), ({"kind": "strips", "rep": 0, "points": 1}, "points")],
)  # fmt: skip
def test_bad_data_requests_are_400_naming_the_field(alice_client, finished_run, params, field):
    response = alice_client.get(f"/runs/{finished_run.pk}/data.json", params)
    assert response.status_code == 400 and response.json()["field"] == field


def test_diff_reports_what_moved_and_waited(alice_client, finished_run):
    data = alice_client.get(f"/runs/{finished_run.pk}/data.json", {"kind": "diff", "a": 0, "b": 1}).json()
    assert data["a"]["algorithm"] == "fcfs" and data["b"]["algorithm"] == "lpt"
    assert data["jobs"] == 20 and data["changed"] > 0
    # the categories are a partition: each changed job once (a job that started later on other resources is later)
    assert data["changed"] == data["later"] + data["earlier"] + data["moved"] + data["other_end"]
    rows = data["rows"]
    assert len(rows) == data["changed"]
    assert data["moved"] == sum(1 for r in rows if r["moved"] and r["delta_start"] == 0)
    assert data["later"] == sum(1 for r in rows if r["delta_start"] > 0)
    assert alice_client.get(f"/runs/{finished_run.pk}/diff/?a=0&b=1").status_code == 200


def test_exports(alice_client, finished_run):
    base = f"/runs/{finished_run.pk}/export"
    metrics = alice_client.get(f"{base}/metrics/").content.decode().splitlines()
    assert metrics[0].startswith("algorithm,repetition,wall_time_s") and len(metrics) == 5
    schedule = b"".join(alice_client.get(f"{base}/schedule/").streaming_content).decode().splitlines()
    assert schedule[0].startswith("run,algorithm,repetition,job,task,resource") and len(schedule) == 21  # run 0
    every = b"".join(alice_client.get(f"{base}/schedule/?run=all").streaming_content).decode().splitlines()
    assert len(every) == 81 and {line.split(",")[0] for line in every[1:]} == {"0", "1", "2", "3"}
    one = alice_client.get(f"{base}/schedule.parquet/?run=3")
    assert 'r3-lpt-schedule.parquet"' in one["Content-Disposition"] and one.streaming
    assert alice_client.get(f"{base}/schedule.parquet/?run=all").status_code == 404  # one run per Parquet file
    assert alice_client.get(f"{base}/schedule/?run=9").status_code == 404
    scenario = alice_client.get(f"{base}/scenario/").json()
    assert scenario == finished_run.config
    assert alice_client.get(f"{base}/swf/").status_code == 404  # toy job records carry no submit times
    assert alice_client.get(f"{base}/nope/").status_code == 404


def test_share_link_serves_page_data_and_scenario_until_revoked(alice_client, client, finished_run):
    alice_client.post(f"/runs/{finished_run.pk}/share/")
    finished_run.refresh_from_db()
    token = finished_run.share_token
    anonymous = client.__class__()
    assert anonymous.get(f"/share/{token}/data.json", {"kind": "gantt"}).status_code == 200
    assert anonymous.get(f"/share/{token}/export/scenario/").json()["family"] == "toy"
    assert anonymous.get(f"/share/{token}/export/schedule/").status_code == 404  # the full schedule is owner-only
    assert anonymous.get(f"/share/{token}/diff/").status_code == 200
    alice_client.post(f"/runs/{finished_run.pk}/share/", {"revoke": "1"})
    assert anonymous.get(f"/share/{token}/data.json").status_code == 404


def test_a_logged_in_viewer_clones_a_shared_run(alice_client, client, bob, finished_run):
    alice_client.post(f"/runs/{finished_run.pk}/share/")
    finished_run.refresh_from_db()
    client.force_login(bob)
    response = client.post(f"/share/{finished_run.share_token}/clone/")
    assert bob.scenarios.get().config["algorithms"] == finished_run.config["algorithms"]
    assert response.url == f"/scenarios/{bob.scenarios.get().pk}/"


def test_bob_gets_404_on_alices_data_exports_and_diff(client, bob, finished_run):
    client.force_login(bob)
    for url in ("data.json", "export/metrics/", "export/scenario/", "diff/"):
        assert client.get(f"/runs/{finished_run.pk}/{url}").status_code == 404


def test_study_share_link_clone_and_revoke(alice_client, client, bob, scenario, django_capture_on_commit_callbacks):
    from cloudsched_web.runs.services import submit_sweep

    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2]})
    alice_client.post(f"/studies/{study.pk}/share/")
    study.refresh_from_db()
    anonymous = client.__class__()
    page = anonymous.get(f"/share/study/{study.share_token}/")
    assert page.status_code == 200 and "Create share link" not in page.content.decode()
    assert alice_client.get(f"/studies/{study.pk}/status.json").json()["finished"] is True
    bob_client = client.__class__()
    bob_client.force_login(bob)
    assert bob_client.post(f"/share/study/{study.share_token}/clone/").status_code == 302
    assert bob.scenarios.get().family == "toy"
    alice_client.post(f"/studies/{study.pk}/share/", {"revoke": "1"})
    assert anonymous.get(f"/share/study/{study.share_token}/").status_code == 404


def test_bob_cannot_see_alices_study(client, bob, scenario):
    study = Study.objects.create(scenario=scenario, name="s")
    client.force_login(bob)
    assert client.get(f"/studies/{study.pk}/").status_code == 404
    assert client.post(f"/studies/{study.pk}/share/").status_code == 404
    assert "s" not in [s.name for s in client.get("/studies/").context["studies"]]


def test_queued_and_failed_runs_render_without_charts(alice_client, scenario):
    queued = Run.objects.create(scenario=scenario, config=scenario.config)
    page = alice_client.get(f"/runs/{queued.pk}/").content.decode()
    assert 'id="run-payload"' not in page and "Cancel" in page
    failed = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.FAILED, error="bad luck")
    page = alice_client.get(f"/runs/{failed.pk}/").content.decode()
    assert "bad luck" in page and 'id="results"' not in page
    assert alice_client.get(f"/runs/{failed.pk}/data.json").status_code == 404
    assert alice_client.get(f"/runs/{failed.pk}/export/metrics/").status_code == 404
    assert alice_client.get(f"/runs/{failed.pk}/export/scenario/").json()["family"] == "toy"


ONLINE_EP_JOBS = {
    "family": "ep_jobs",
    "name": "online ep_jobs",
    "datacenter": {"kind": "fattree", "pods": 4, "capacity_low": 10},
    "workload": {"kind": "online_generator", "arrival_end_s": 300.0, "arrival_rate": 0.3, "load_high": 400.0},
    "algorithms": ["ontapra:tapra_fast", "fcfs-ndrc:tapra_fast"],
}


@pytest.mark.parametrize(
    ("config", "has_power"),
    [
        (schedulers.example("backfill"), False),
        (schedulers.example("federated"), True),
        (schedulers.example("vm_reservations"), True),
        (schedulers.example("ep_jobs"), True),
        (ONLINE_EP_JOBS, True),
        (schedulers.example("dvfs_bot"), True),
    ],
    ids=["backfill", "federated", "vm_reservations", "ep_jobs", "ep_jobs_online", "dvfs_bot"],
)
def test_a_plain_run_of_each_family_passes_its_validity_checks(alice, alice_client, config, has_power):
    """Through the worker's task: the stored series are exact, so ∫ power = energy holds on the page."""
    from cloudsched_web.runs.tasks import run_simulation
    from cloudsched_web.scenarios.models import Scenario

    scenario = Scenario.objects.create(
        owner=alice, family=config["family"], name=config.get("name", "x"), config=config
    )
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert "checks passed" in page and "checks FAILED" not in page
    validity = run.page["validity"]
    assert validity["ok"], validity["failed"]
    assert validity["passed"] and not validity["skipped"], validity["not_run"]  # every check of the contract ran
    assert ("energy = ∫ power" in validity["ran"]) == has_power
    if has_power:
        assert "✓ energy = ∫ power" in page
        details = [c["detail"] for r in validity["runs"] for c in r["checks"] if c["name"] == "energy = ∫ power"]
        assert len(details) == len(validity["runs"]) and all("metric energy" in d for d in details)
    data = alice_client.get(f"/runs/{run.pk}/data.json", {"kind": "series", "rep": 0}).json()
    assert data["series"] and ("power_w" in data["series"]) == has_power


def test_a_visitor_of_a_share_link_sees_what_the_site_is_and_how_to_sign_in(client, scenario):
    from tests.api.factories import finished_run

    run = finished_run(scenario)
    run.share()
    page = client.get(f"/share/{run.share_token}/").content.decode()
    assert 'id="site-tagline"' in page and "cloud scheduling research" in page
    assert f'href="/accounts/login/?next=/share/{run.share_token}/"' in page


def test_the_study_page_offers_its_share_link_in_a_field_to_copy(alice_client, scenario):
    study = Study.objects.create(scenario=scenario, name="s")
    assert 'id="share-url"' not in alice_client.get(f"/studies/{study.pk}/").content.decode()
    alice_client.post(f"/studies/{study.pk}/share/")
    study.refresh_from_db()
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert f'id="share-url" type="text" readonly value="http://testserver/share/study/{study.share_token}/"' in page
    assert 'data-copy="share-url"' in page and "js/pages/study.js" in page  # its module wires the copy button
