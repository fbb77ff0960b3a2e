import pytest
from django.utils import timezone

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.results.queries import QueryError
from cloudsched_web.runs.models import Run
from tests.api.factories import big_blob, finished_run
from tests.api.factories import parsed as ParsedResult


def _doc():
    schedule = [
        {"job": "a", "task": "a.0", "resource": "m0", "start": 0.0, "end": 10.0, "share": 1.0, "kind": "task"},
        {"job": "b", "task": "b.0", "resource": "m1", "start": 5.0, "end": 8.0, "share": 1.0, "kind": "task"},
        {"job": "c", "task": "c.0", "resource": "m0", "start": 10.0, "end": 30.0, "share": 1.0, "kind": "task"},
    ]
    jobs = [{"job": "a", "wait_s": 3.0}, {"job": "b", "wait_s": None}, {"job": "c", "wait_s": 1.0}]
    series = {"t": [0.0, 1.0, 2.0, 3.0], "power_w": [1.0, 5.0, 2.0, 0.0], "bad": [1.0]}
    run = {
        "algorithm": "fcfs",
        "repetition": 0,
        "metrics": {"m": 1},
        "schedule": schedule,
        "jobs": jobs,
        "series": series,
    }
    return {"family": "toy", "runs": [run], "summary": {}}


def test_segments_are_those_overlapping_the_window_in_start_order():
    out = queries.segments(ParsedResult(_doc()), 0, start=6.0, end=12.0)
    assert [s["job"] for s in out["segments"]] == ["a", "b", "c"]
    out = queries.segments(ParsedResult(_doc()), 0, start=10.0, end=12.0)
    assert [s["job"] for s in out["segments"]] == ["c"]
    assert out["span"] == [0.0, 30.0]


def test_segments_without_window_cover_the_whole_span_and_cap_at_limit():
    out = queries.segments(ParsedResult(_doc()), 0, limit=2)
    assert out["window"] == [0.0, 30.0]
    assert (out["total"], out["truncated"], len(out["segments"])) == (3, True, 2)
    assert [s["job"] for s in out["segments"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"start": 5.0, "end": 1.0}, "end"), ({"limit": 0}, "limit"), ({"limit": 10**6}, "limit")],
)
def test_segments_reject_bad_arguments_naming_the_field(kwargs, field):
    with pytest.raises(QueryError) as exc:
        queries.segments(ParsedResult(_doc()), 0, **kwargs)
    assert exc.value.field == field
    assert exc.value.allowed


def test_unknown_run_index_names_the_range():
    with pytest.raises(QueryError) as exc:
        queries.segments(ParsedResult(_doc()), 3)
    assert (exc.value.field, exc.value.allowed) == ("run", "0..0")


def test_jobs_pages_and_sorts_with_missing_values_last():
    parsed = ParsedResult(_doc())
    page = queries.jobs(parsed, 0, offset=1, limit=1)
    assert (page["total"], [j["job"] for j in page["jobs"]]) == (3, ["b"])
    assert [j["job"] for j in queries.jobs(parsed, 0, order_by="wait_s")["jobs"]] == ["c", "a", "b"]
    assert [j["job"] for j in queries.jobs(parsed, 0, order_by="-wait_s")["jobs"]] == ["a", "c", "b"]


def test_jobs_reject_unknown_sort_field_listing_the_allowed_ones():
    with pytest.raises(QueryError) as exc:
        queries.jobs(ParsedResult(_doc()), 0, order_by="nope")
    assert exc.value.allowed == "one of job, wait_s"


def test_series_are_downsampled_and_skip_mismatched_lengths():
    out = queries.series(ParsedResult(_doc()), 0, points=2)
    assert list(out["series"]) == ["power_w"]
    power = out["series"]["power_w"]
    assert (
        power["t"] == [0.0, 1.5] and power["max"] == [5.0, 5.0] and power["min"] == [1.0, 2.0]
    )  # the band keeps the peak
    assert sum(power["v"]) * 1.5 == pytest.approx(1.0 + 5.0 + 2.0)  # bucket means keep the integral
    with pytest.raises(QueryError, match="names"):
        queries.series(ParsedResult(_doc()), 0, names=["bad"])


def test_summary_lists_every_run():
    out = queries.summary(ParsedResult(_doc()))
    assert out["runs"][0] | {} == {
        "index": 0, "algorithm": "fcfs", "repetition": 0, "wall_time_s": None, "metrics": {"m": 1},
        "segments": 3, "jobs": 3, "series": ["bad", "power_w"],
    }  # fmt: skip


@pytest.mark.django_db
def test_cache_returns_the_same_parse_until_the_run_changes(scenario):
    queries.clear_cache()
    run = finished_run(scenario)
    first = queries.get_result(run)
    assert queries.get_result(run) is first
    run.store_result({**first.doc, "seed": 99})
    run.finished_at = timezone.now()  # as the task does when it stores a (new) result
    run.save()
    assert queries.get_result(run).doc["seed"] == 99


@pytest.mark.django_db
def test_repeated_queries_on_a_200k_job_result_reuse_the_cached_result(scenario, django_assert_num_queries):
    """Speed lives in bench/; here: a cached result answers every query without the database or a re-read."""
    queries.clear_cache()
    run = finished_run(scenario, blob=big_blob())
    first = queries.get_result(run)
    run = Run.objects.defer("result_blob").get(pk=run.pk)  # as the API loads it: hits never read the blob
    with django_assert_num_queries(0):
        for k in range(5):
            parsed = queries.get_result(run)
            assert parsed is first
            seg = queries.segments(parsed, 0, start=k * 1000.0, end=k * 1000.0 + 5000.0, limit=5000)
            assert seg["segments"] and all(s["end"] > k * 1000.0 for s in seg["segments"])
            page = queries.jobs(parsed, 0, offset=k * 1000, limit=1000, order_by="-response_s")["jobs"]
            values = [j["response_s"] for j in page]
            assert values == sorted(values, reverse=True)
            assert len(queries.series(parsed, 0, points=1000)["series"]) >= 1


def test_the_api_answers_chart_kinds_through_the_page_s_registry(api, alice, scenario):
    """One read interface: every kind of results.kinds gives the API the bytes the run page's data endpoint gives."""
    from cloudsched_web.results import kinds
    from cloudsched_web.runs.models import Run

    finished_run = Run.objects.create(scenario=scenario, config=scenario.config, status=Run.Status.SUCCEEDED)
    finished_run.store_result(schedulers.run(scenario.config))
    finished_run.save()
    api.client.force_login(alice)  # the page's endpoint takes the session, the API the token

    assert set(kinds.KINDS) == {"gantt", "bar", "series", "strips", "diff", "jobs", "dist"}
    queries_by_kind = {"gantt": {"run": 1, "pixels": 300}, "bar": {"run": 0, "resource": "p0", "job": "1"},
                       "series": {"rep": 0, "points": 50},
                       "diff": {"a": 0, "b": 1, "limit": 5}, "jobs": {"limit": 7}, "dist": {}}  # fmt: skip
    for kind, query in queries_by_kind.items():
        via_api = api.get(f"/runs/{finished_run.pk}/result/charts/{kind}", **query)
        assert via_api.status_code == 200, via_api.content
        page = api.client.get(f"/runs/{finished_run.pk}/data.json", {"kind": kind, **query})
        assert page.status_code == 200 and via_api.json() == page.json(), kind
    bad = api.get(f"/runs/{finished_run.pk}/result/charts/nope")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "kind"
    assert "'gantt', 'bar', 'series', 'strips', 'diff', 'jobs' or 'dist'" in bad.json()["error"]["allowed"]
    bad = api.get(f"/runs/{finished_run.pk}/result/charts/gantt", run="x")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "run"
