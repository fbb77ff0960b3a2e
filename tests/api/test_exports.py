import csv
import io

import pytest

import schedulers
from cloudsched_web.results import exports
from cloudsched_web.results.queries import QueryError
from schedulers.core.swf import read_swf
from tests.api.factories import big_result
from tests.api.factories import parsed as ParsedResult


@pytest.fixture(scope="module")
def toy_result():
    return schedulers.run(schedulers.example("toy"))


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_metrics_csv_has_one_row_per_algorithm_and_repetition(toy_result):
    rows = _rows(exports.metrics_csv(toy_result))
    assert [(r["algorithm"], r["repetition"]) for r in rows] == [
        ("fcfs", "0"),
        ("lpt", "0"),
        ("fcfs", "1"),
        ("lpt", "1"),
    ]
    assert float(rows[0]["makespan_s"]) == toy_result["runs"][0]["metrics"]["makespan_s"]


def test_every_csv_number_names_its_unit():
    """ep_jobs stores energy in J under the key ``energy``: its column says so; keys ending in their unit stay."""
    doc = {"family": "ep_jobs", "runs": [{"algorithm": "tapra", "repetition": 0, "metrics": {"energy": 5.0e6, "makespan_s": 9.0}}],
           "summary": {"tapra": {"energy": {"mean": 5.0e6, "std": 0.0, "ci": 0.0, "n": 1}}}}  # fmt: skip
    assert exports.metrics_csv(doc).splitlines()[0] == "algorithm,repetition,wall_time_s,energy [J],makespan_s"
    assert _rows(exports.summary_csv(doc))[0] == {
        "algorithm": "tapra", "metric": "energy", "unit": "J", "mean": "5000000.0", "std": "0.0", "ci": "0.0", "n": "1"
    }  # fmt: skip
    assert exports.header("energy_kwh", "kWh") == "energy_kwh" and exports.header("jobs", "") == "jobs"


def test_summary_csv_has_mean_and_ci(toy_result):
    rows = _rows(exports.summary_csv(toy_result))
    assert {(r["algorithm"], r["metric"]) for r in rows} >= {("fcfs", "makespan_s"), ("lpt", "makespan_s")}
    assert rows[0]["n"] == "2"


def test_schedule_csv_holds_every_segment_of_the_chosen_run(toy_result):
    rows = _rows("".join(exports.schedule_csv(ParsedResult(toy_result), 1)))
    assert len(rows) == len(toy_result["runs"][1]["schedule"])
    assert {r["algorithm"] for r in rows} == {"lpt"}
    all_rows = _rows("".join(exports.schedule_csv(ParsedResult(toy_result))))
    assert len(all_rows) == sum(len(r["schedule"]) for r in toy_result["runs"])


def test_schedule_csv_adds_family_extras_as_columns():
    doc = {"runs": [{"algorithm": "a", "schedule": [{"job": "1", "start": 0, "end": 1, "freq_ghz": 2.4}]}]}
    rows = _rows("".join(exports.schedule_csv(ParsedResult(doc))))
    assert rows[0]["freq_ghz"] == "2.4"
    assert rows[0]["share"] == ""


def test_schedule_csv_rejects_an_unknown_run(toy_result):
    with pytest.raises(QueryError):
        list(exports.schedule_csv(ParsedResult(toy_result), 9))


def test_workload_swf_round_trips_through_the_reader():
    doc = big_result(n_jobs=300)
    trace = read_swf(exports.workload_swf(ParsedResult(doc)))
    assert len(trace) == 300
    assert trace.columns["run_time"].tolist() == [10.0] * 300
    assert trace.columns["req_time"][0] == 20.0
    assert trace.columns["wait"].min() >= 0.0 and trace.columns["wait"].max() == 6.0
    assert trace.header_value("Computer").startswith("cloudsched backfill")


def test_workload_swf_is_none_without_runtime_records(toy_result):
    assert exports.workload_swf(ParsedResult(toy_result)) is None
    assert (
        exports.workload_swf(ParsedResult({"runs": [{"repetition": 0, "jobs": [{"job": "1", "arrival": 0.0}]}]}))
        is None
    )


def test_jobs_and_series_csv_and_parquet_downloads_hold_the_stored_tables(api, scenario):
    import io

    import pyarrow.parquet as pq

    from tests.api.factories import finished_run

    run = finished_run(scenario)
    doc = run.load_result()
    jobs = api.client.get(f"/api/v1/runs/{run.pk}/exports/jobs.csv", headers=api._headers(None))
    rows = _rows(b"".join(jobs.streaming_content).decode())
    assert len(rows) == sum(len(r["jobs"]) for r in doc["runs"])
    series = api.client.get(f"/api/v1/runs/{run.pk}/exports/series.csv?run=0", headers=api._headers(None))
    assert len(_rows(b"".join(series.streaming_content).decode())) == len(doc["runs"][0]["series"]["t"])
    got = api.client.get(f"/api/v1/runs/{run.pk}/exports/schedule.parquet?run=1", headers=api._headers(None))
    assert got.status_code == 200 and got["Content-Type"] == "application/vnd.apache.parquet"
    assert pq.read_table(io.BytesIO(got.content)).num_rows == len(doc["runs"][1]["schedule"])
    if not doc["runs"][1]["jobs"]:  # the toy family keeps no job records
        got = api.client.get(f"/api/v1/runs/{run.pk}/exports/jobs.parquet?run=1", headers=api._headers(None))
        assert got.status_code == 404 and got.json()["error"]["code"] == "no_table"
    table = pq.read_table(io.BytesIO(api.client.get(f"/api/v1/runs/{run.pk}/exports/schedule.parquet",
                                                    headers=api._headers(None)).content))  # fmt: skip
    assert "task" in table.column_names and "task_k" not in table.column_names  # as read, not as stored
