import csv
import io
import json

import pytest

from cloudsched_web.runs.models import Run
from schedulers.core.swf import read_swf
from tests.api.factories import big_result, finished_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def done(api, scenario, run_now):
    response = run_now(api.post, f"/scenarios/{scenario.pk}/runs")
    assert response.status_code == 202
    return Run.objects.get(pk=response.json()["id"])


def test_submitting_queues_a_run_that_the_worker_finishes(api, done):
    data = api.get(f"/runs/{done.pk}").json()
    assert data["status"] == "succeeded" and data["progress"] == 1.0
    assert set(data["summary"]) == {"fcfs", "lpt"}
    status = api.get(f"/runs/{done.pk}/status").json()
    assert status == {**status, "id": done.pk, "finished": True, "error": ""}


def test_submitting_a_scenario_the_library_now_rejects_is_400(api, scenario):
    scenario.config = {**scenario.config, "repetitions": 0}
    scenario.save()
    assert api.post(f"/scenarios/{scenario.pk}/runs").json()["error"]["field"] == "repetitions"
    assert not Run.objects.exists()


def test_list_filters_by_scenario_and_status(api, done, scenario):
    assert api.get("/runs", scenario=scenario.pk, status="succeeded").json()["count"] == 1
    assert api.get("/runs", status="queued").json()["count"] == 0
    assert api.get("/runs", status="bogus").json()["error"]["field"] == "status"


def test_result_summary_lists_the_runs_inside(api, done):
    data = api.get(f"/runs/{done.pk}/result").json()
    assert data["family"] == "toy"
    assert [(r["algorithm"], r["repetition"]) for r in data["runs"]] == [
        ("fcfs", 0), ("lpt", 0), ("fcfs", 1), ("lpt", 1)
    ]  # fmt: skip
    assert data["summary"]["lpt"]["makespan_s"]["n"] == 2


def test_segments_in_a_window(api, done):
    all_segments = api.get(f"/runs/{done.pk}/result/segments", run=1).json()
    assert all_segments["total"] == 20 and not all_segments["truncated"]
    lo, hi = all_segments["span"]
    mid = (lo + hi) / 2
    window = api.get(f"/runs/{done.pk}/result/segments", run=1, start=mid, end=hi, limit=3).json()
    assert window["window"] == [mid, hi] and len(window["segments"]) <= 3
    assert all(s["end"] > mid for s in window["segments"])
    error = api.get(f"/runs/{done.pk}/result/segments", run=9).json()["error"]
    assert (error["field"], error["allowed"]) == ("run", "0..3")
    assert api.get(f"/runs/{done.pk}/result/segments", start=5, end=1).json()["error"]["field"] == "end"


def test_a_window_over_1_mb_of_segments_is_paged_below_1_mb_and_says_so(api, scenario):
    result = big_result(n_jobs=6000)
    for seg in result["runs"][0]["schedule"]:
        seg["note"] = "n" * 200  # about 330 bytes a segment: 5,000 of them would be 1.6 MB
    run = finished_run(scenario, result)
    seen, offset = [], 0
    while offset is not None:
        response = api.get(f"/runs/{run.pk}/result/segments", limit=5000, offset=offset)
        page = response.json()
        assert len(response.content) < 1_000_000 and page["offset"] == offset and page["total"] == 6000
        assert page["truncated"] == (page["next_offset"] is not None)
        assert page["cut_by"] == ("bytes" if page["truncated"] else None)
        seen += [s["job"] for s in page["segments"]]
        offset = page["next_offset"]
    assert sorted(seen, key=int) == [str(j) for j in range(6000)]
    small = api.get(f"/runs/{run.pk}/result/segments", limit=10, offset=5995).json()
    assert (len(small["segments"]), small["truncated"], small["cut_by"]) == (5, False, None)
    assert api.get(f"/runs/{run.pk}/result/segments", limit=10).json()["cut_by"] == "limit"
    assert api.get(f"/runs/{run.pk}/result/segments", offset=9000).json()["segments"] == []


def test_jobs_are_paginated(api, scenario):
    run = finished_run(scenario, big_result(n_jobs=2500))
    page = api.get(f"/runs/{run.pk}/result/jobs", offset=2000, limit=1000, order_by="-response_s").json()
    assert (page["total"], len(page["jobs"])) == (2500, 500)
    assert api.get(f"/runs/{run.pk}/result/jobs", limit=1001).json()["error"]["field"] == "limit"
    assert api.get(f"/runs/{run.pk}/result/jobs", order_by="nope").json()["error"]["field"] == "order_by"


def test_series_are_downsampled_to_the_requested_points(api, scenario):
    run = finished_run(scenario, big_result(n_jobs=5000))
    data = api.get(f"/runs/{run.pk}/result/series", points=100).json()
    assert data["length"] == 5000 and len(data["series"]["running_jobs"]["t"]) <= 100
    assert api.get(f"/runs/{run.pk}/result/series", names="nope").json()["error"]["field"] == "names"
    assert api.get(f"/runs/{run.pk}/result/series", points=10**6).json()["error"]["field"] == "points"


def test_results_of_an_unfinished_run_are_409(api, scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    for path in ("result", "result/jobs", "result/segments", "result/series", "exports/metrics.csv"):
        assert api.get(f"/runs/{run.pk}/{path}").json()["error"]["code"] == "not_ready"


def test_cancel_a_queued_run(api, scenario, done):
    queued = Run.objects.create(scenario=scenario, config=scenario.config)
    assert api.post(f"/runs/{queued.pk}/cancel").json()["status"] == "cancelled"
    assert api.post(f"/runs/{done.pk}/cancel").json()["status"] == "succeeded"


def test_share_link_is_created_once_and_revoked(api, client, done):
    first = api.post(f"/runs/{done.pk}/share")
    assert first.status_code == 201
    again = api.post(f"/runs/{done.pk}/share")
    assert again.status_code == 200 and again.json() == first.json()
    url = first.json()["url"]
    assert api.get(f"/runs/{done.pk}").json()["share_url"] == url
    assert client.get(url).status_code == 200
    assert api.delete(f"/runs/{done.pk}/share").status_code == 204
    assert client.get(url).status_code == 404


def test_exports(api, done, scenario):
    base = f"/runs/{done.pk}/exports"
    response = api.get(f"{base}/result.json")
    assert json.loads(b"".join(response.streaming_content))["family"] == "toy"
    assert response["Content-Disposition"] == f'attachment; filename="run-{done.pk}.json"'
    metrics = list(csv.DictReader(io.StringIO(api.get(f"{base}/metrics.csv").content.decode())))
    assert len(metrics) == 4 and "makespan_s" in metrics[0]
    assert api.get(f"{base}/summary.csv").content.startswith(b"algorithm,metric,unit,mean")
    schedule = b"".join(api.get(f"{base}/schedule.csv", run=0).streaming_content).decode()
    assert len(schedule.strip().splitlines()) == 21
    assert api.get(f"{base}/schedule.csv", run=9).json()["error"]["field"] == "run"
    assert api.get(f"{base}/workload.swf").json()["error"]["code"] == "no_workload"  # toy has no job records
    assert api.get(f"{base}/nope.txt").status_code == 400
    swf_run = finished_run(scenario, big_result(n_jobs=50))
    swf = api.get(f"/runs/{swf_run.pk}/exports/workload.swf")
    assert swf["Content-Type"].startswith("text/plain") and len(read_swf(swf.content)) == 50


def test_another_users_run_is_404_everywhere(bob_api, done):
    pk = done.pk
    for response in (
        bob_api.get(f"/runs/{pk}"),
        bob_api.get(f"/runs/{pk}/status"),
        bob_api.get(f"/runs/{pk}/result"),
        bob_api.get(f"/runs/{pk}/result/jobs"),
        bob_api.get(f"/runs/{pk}/result/segments"),
        bob_api.get(f"/runs/{pk}/result/series"),
        bob_api.get(f"/runs/{pk}/exports/result.json"),
        bob_api.post(f"/runs/{pk}/cancel"),
        bob_api.post(f"/runs/{pk}/share"),
        bob_api.delete(f"/runs/{pk}/share"),
    ):
        assert response.status_code == 404, response.content
    assert bob_api.get("/runs").json()["count"] == 0
