"""The per-job table and distributions (results.jobstats) against numpy on the stored job records."""

import numpy as np
import pyarrow as pa
import pytest

import schedulers
from cloudsched_web.results import jobstats
from cloudsched_web.results.queries import QueryError
from tests.api.factories import parsed as ParsedResult


@pytest.fixture(scope="module")
def backfill():
    config = schedulers.example("backfill")
    config["algorithms"], config["repetitions"] = ["easy", "keasy", "fcfs"], 2
    result = schedulers.run(config)
    return result, ParsedResult(result)


def _stored(parsed, i, name):
    return parsed.stored(i).table("jobs")[name].to_numpy(zero_copy_only=False).astype(float)


def test_the_cdf_ends_at_one_and_its_middle_is_numpys_median_of_the_stored_jobs(backfill):
    result, parsed = backfill
    data = jobstats.distributions(parsed, "response_s")
    assert [a["algorithm"] for a in data["algorithms"]] == ["easy", "keasy", "fcfs"]
    for alg in data["algorithms"]:
        values = np.concatenate([_stored(parsed, i, "response_s") for i, r in enumerate(result["runs"])
                                 if r["algorithm"] == alg["algorithm"]])  # fmt: skip
        cdf = alg["cdf"]
        assert len(cdf["x"]) == len(cdf["p"]) == jobstats.CDF_POINTS and alg["jobs"] == values.size == 400
        assert (
            cdf["p"][0] == 0.0 and cdf["p"][-1] == 1.0 and cdf["x"][-1] == values.max() and cdf["x"][0] == values.min()
        )
        assert cdf["p"][100] == 0.5 and cdf["x"][100] == np.median(values)
        assert np.all(np.diff(cdf["x"]) >= 0)
        box = alg["box"]
        q1, q3 = np.quantile(values, [0.25, 0.75])
        fence = q3 + 1.5 * (q3 - q1)
        assert (box["q1"], box["median"], box["q3"]) == (q1, np.median(values), q3)
        assert box["mean"] == pytest.approx(values.mean()) and box["n"] == 400
        assert box["whisker_hi"] == values[values <= fence].max() and box["outliers_hi"] == int((values > fence).sum())
    assert [(r["algorithm"], r["repetition"]) for r in data["runs"]] == [(r["algorithm"], r["repetition"])
                                                                         for r in result["runs"]]  # fmt: skip
    one = jobstats.distributions(parsed, "bounded_slowdown", 1)
    assert one["repetition"] == 1 and all(a["jobs"] == 200 for a in one["algorithms"])
    assert {r["repetition"] for r in one["runs"]} == {1}


def test_derived_measures_and_missing_values():
    jobs = [{"job": str(j), "submit_s": float(j), "finish_s": float(3 * j) if j % 4 else None} for j in range(1, 9)]
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "schedule": [], "jobs": jobs}], "summary": {}}
    parsed = ParsedResult(doc)
    assert [m["key"] for m in jobstats.measures_of(parsed)] == ["response_s"]
    alg = jobstats.distributions(parsed, "response_s")["algorithms"][0]
    assert alg["jobs"] == 6 and alg["missing"] == 2
    assert alg["box"]["max"] == 14.0 and alg["box"]["min"] == 2.0  # finish − submit = 2 j
    page = jobstats.table_page(parsed, order="-response_s", limit=3)
    assert page["columns"][-1] == "response_s" and [r[-1] for r in page["rows"]] == [14.0, 12.0, 10.0]
    last = jobstats.table_page(parsed, order="-response_s", offset=6)["rows"]
    assert [r[-1] for r in last] == [None, None]  # no value: last, in either direction
    with pytest.raises(QueryError) as err:
        jobstats.distributions(parsed, "bounded_slowdown")
    assert err.value.field == "measure"


def test_the_table_sorts_every_run_together_stably_and_pages_through_every_job_once(backfill):
    result, parsed = backfill
    values = np.concatenate([_stored(parsed, i, "bounded_slowdown") for i in range(len(result["runs"]))])
    order = np.argsort(-values, kind="stable")
    seen = []
    for offset in range(0, values.size, 500):
        page = jobstats.table_page(parsed, order="-bounded_slowdown", offset=offset, limit=500)
        assert page["total"] == values.size == 1200
        col = page["columns"].index("bounded_slowdown")
        assert [r[col] for r in page["rows"]] == values[order[offset : offset + 500]].tolist()
        seen += [(r[0], r[page["columns"].index("job")]) for r in page["rows"]]
    assert len(set(seen)) == 1200


def test_the_table_filters_by_algorithm_and_repetition_and_sorts_ids_as_numbers(backfill):
    parsed = backfill[1]
    page = jobstats.table_page(parsed, algorithm="keasy", repetition="1", order="job", offset=8, limit=3)
    assert page["total"] == 200 and {tuple(r[1:3]) for r in page["rows"]} == {("keasy", 1)}
    assert [r[page["columns"].index("job")] for r in page["rows"]] == ["9", "10", "11"]
    assert page["columns"][:4] == ["run", "algorithm", "repetition", "job"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"order": "nope"}, "order"), ({"algorithm": "x"}, "algorithm"), ({"repetition": "7"}, "rep"),
     ({"limit": "0"}, "limit"), ({"offset": "-1"}, "offset")],
)  # fmt: skip
def test_bad_table_requests_name_the_field(backfill, kwargs, field):
    with pytest.raises(QueryError) as err:
        jobstats.table_page(backfill[1], **kwargs)
    assert err.value.field == field


def test_a_family_without_known_measures_offers_its_numeric_columns():
    jobs = [{"job": str(j), "tasks": j, "cost": 2.0 * j, "tag": "x"} for j in range(5)]
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "schedule": [], "jobs": jobs}], "summary": {}}
    parsed = ParsedResult(doc)
    assert [m["key"] for m in jobstats.measures_of(parsed)] == ["cost", "tasks"]
    assert jobstats.distributions(parsed, "cost")["algorithms"][0]["box"]["median"] == 4.0
    assert pa.types.is_string(parsed.stored(0).schema("jobs").field("tag").type)


def _tukey(values):
    q1, q3 = np.quantile(values, [0.25, 0.75])
    iqr = q3 - q1
    return np.sort(values[(values < q1 - 1.5 * iqr) | (values > q3 + 1.5 * iqr)])


def test_every_run_box_carries_numpys_tukey_outliers_of_the_stored_jobs(backfill):
    parsed = backfill[1]
    data = jobstats.distributions(parsed, "response_s", pixels=4000)
    lo = min(r["box"]["min"] for r in data["runs"])
    hi = max(r["box"]["max"] for r in data["runs"])
    assert data["box_range"] == [lo, hi] and data["pixels"] == 4000
    found = 0
    for run in data["runs"]:
        want = _tukey(_stored(parsed, run["i"], "response_s"))
        assert run["box"]["outliers"] == {"values": want.tolist()}
        assert run["box"]["outliers_lo"] + run["box"]["outliers_hi"] == want.size
        found += want.size
    assert found, "the demo has outliers: the check would see none"


@pytest.mark.parametrize("log", [False, True])
def test_more_outliers_than_pixel_rows_come_per_pixel_row_every_one_counted(backfill, log):
    parsed = backfill[1]
    data = jobstats.distributions(parsed, "response_s", pixels=10, log=log)
    lo, hi = data["box_range"]
    f = np.log10 if log else (lambda x: x)
    dense = 0
    for run in data["runs"]:
        want, drawn = _tukey(_stored(parsed, run["i"], "response_s")), run["box"]["outliers"]
        if want.size <= 10:
            assert drawn == {"values": want.tolist()}
            continue
        dense += 1
        assert drawn["rows"] == 10 and sum(drawn["n"]) == want.size  # every outlier counted
        assert drawn["lo"] == sorted(drawn["lo"]) and all(a <= b for a, b in zip(drawn["lo"], drawn["hi"], strict=True))
        for n, a, b in zip(drawn["n"], drawn["lo"], drawn["hi"], strict=True):
            assert n == int(((want >= a) & (want <= b)).sum())  # the row's values, and none of another row
            assert f(b) - f(a) <= (f(hi) - f(lo)) / 10 * (1 + 1e-9)  # no taller than a pixel row
    assert dense and data["log"] == log


def test_outlier_rows_need_a_sane_height(backfill):
    with pytest.raises(QueryError) as info:
        jobstats.distributions(backfill[1], "response_s", pixels=3)
    assert info.value.field == "pixels"


@pytest.mark.parametrize(("algorithm", "limit"), [(None, 70), ("keasy", 33), (None, 1000)])
def test_the_table_without_an_order_pages_through_every_job_in_stored_order_last_one_included(backfill, algorithm,
                                                                                             limit):  # fmt: skip
    """No ``order=``: run order, then each run's stored order; the pages hold every job once, the last too."""
    result, parsed = backfill
    chosen = [i for i, r in enumerate(result["runs"]) if algorithm in (None, r["algorithm"])]
    expected = [(i, job) for i in chosen for job in parsed.stored(i).table("jobs")["job"].to_pylist()]
    assert len(expected) > limit // 2
    seen, offset = [], 0
    while True:
        page = jobstats.table_page(parsed, algorithm=algorithm, offset=offset, limit=limit)
        assert page["total"] == len(expected)
        seen += [(row[0], row[page["columns"].index("job")]) for row in page["rows"]]
        offset += limit
        if offset >= page["total"]:
            break
    assert seen == expected  # the last job of the last run included
