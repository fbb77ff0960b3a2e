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


def _text(chunks):
    return b"".join(chunks).decode()


def test_schedule_csv_holds_every_segment_of_the_chosen_run(toy_result):
    rows = _rows(_text(exports.schedule_csv(ParsedResult(toy_result), 1)))
    assert len(rows) == len(toy_result["runs"][1]["schedule"])
    assert {r["algorithm"] for r in rows} == {"lpt"}
    assert {r["algorithm"] for r in _rows(_text(exports.schedule_csv(ParsedResult(toy_result))))} == {"fcfs"}
    all_rows = _rows(_text(exports.schedule_csv(ParsedResult(toy_result), None)))
    assert len(all_rows) == sum(len(r["schedule"]) for r in toy_result["runs"])


def test_schedule_csv_adds_family_extras_as_columns():
    doc = {"runs": [{"algorithm": "a", "schedule": [{"job": "1", "start": 0, "end": 1, "freq_ghz": 2.4}]}]}
    rows = _rows(_text(exports.schedule_csv(ParsedResult(doc))))
    assert rows[0]["freq_ghz"] == "2.4"
    assert rows[0]["share"] == ""


def test_schedule_csv_rejects_an_unknown_run_before_it_streams(toy_result):
    with pytest.raises(QueryError):
        exports.schedule_csv(ParsedResult(toy_result), 9)


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


def _get(api, url):
    response = api.client.get(url, headers=api._headers(None))
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body


def test_jobs_and_series_csv_and_parquet_downloads_hold_the_stored_tables(api, scenario):
    import pyarrow.parquet as pq

    from tests.api.factories import finished_run

    run = finished_run(scenario)
    doc = run.load_result()
    _, jobs = _get(api, f"/api/v1/runs/{run.pk}/exports/jobs.csv?all=true")
    assert len(_rows(jobs.decode())) == sum(len(r["jobs"]) for r in doc["runs"])
    _, series = _get(api, f"/api/v1/runs/{run.pk}/exports/series.csv")  # one run by default: the first
    assert len(_rows(series.decode())) == len(doc["runs"][0]["series"]["t"])
    got, body = _get(api, f"/api/v1/runs/{run.pk}/exports/schedule.parquet?run=1")
    assert got.status_code == 200 and got["Content-Type"] == "application/vnd.apache.parquet"
    assert "r1-lpt-schedule.parquet" in got["Content-Disposition"]
    assert pq.read_table(io.BytesIO(body)).num_rows == len(doc["runs"][1]["schedule"])
    if not doc["runs"][1]["jobs"]:  # the toy family keeps no job records
        got = api.client.get(f"/api/v1/runs/{run.pk}/exports/jobs.parquet?run=1", headers=api._headers(None))
        assert got.status_code == 404 and got.json()["error"]["code"] == "no_table"
    table = pq.read_table(io.BytesIO(_get(api, f"/api/v1/runs/{run.pk}/exports/schedule.parquet")[1]))
    assert "task" in table.column_names and "task_k" not in table.column_names  # as read, not as stored
    all_parquet = api.client.get(f"/api/v1/runs/{run.pk}/exports/schedule.parquet?all=true", headers=api._headers(None))
    assert all_parquet.status_code == 400 and all_parquet.json()["error"]["field"] == "all"


@pytest.fixture(scope="module")
def backfill_result():
    config = schedulers.example("backfill")
    config["algorithms"] = ["easy", "keasy"]
    return schedulers.run(config)


def test_parquet_exports_hold_every_column_and_value_of_the_stored_tables(backfill_result):
    """Column names, types and every value of each exported file equal the stored table as read back
    (a file that dropped or changed a column fails), for schedules stored as stretches too."""
    import pyarrow.parquet as pq

    parsed = ParsedResult(backfill_result)
    for i in range(len(backfill_result["runs"])):
        for kind in ("segments", "jobs", "series"):
            stored = parsed.stored(i).table(kind)
            opened = exports.parquet_file(parsed, kind, i)
            if opened is not None:
                with opened:
                    body = opened.read()
            else:
                body = b"".join(exports.table_parquet(parsed, kind, i))
            got = pq.read_table(io.BytesIO(body))
            assert got.column_names == stored.column_names, (i, kind)
            assert got.schema.equals(stored.schema), (i, kind)
            assert got.equals(stored), (i, kind)
    assert parsed.stored(0).table("segments").num_rows == len(backfill_result["runs"][0]["schedule"])


def test_a_parquet_export_streams_in_row_groups(backfill_result, monkeypatch):
    import pyarrow.parquet as pq

    monkeypatch.setattr(exports, "PARQUET_ROWS", 100)
    parsed = ParsedResult(backfill_result)
    chunks = list(exports.table_parquet(parsed, "segments", 1))
    n = len(backfill_result["runs"][1]["schedule"])
    assert (
        len(chunks) >= n // 100 and max(len(c) for c in chunks[:-1]) < sum(len(c) for c in chunks) / 4
    )  # the last: the footer
    meta = pq.ParquetFile(io.BytesIO(b"".join(chunks))).metadata
    assert meta.num_rows == n and meta.num_row_groups >= n // 100


def test_csv_exports_hold_the_stored_values(backfill_result):
    parsed = ParsedResult(backfill_result)
    rows = _rows(_text(exports.table_csv(parsed, "jobs", 1)))
    stored = parsed.stored(1).table("jobs").to_pylist()
    assert len(rows) == len(stored) and rows[0]["algorithm"] == "keasy" and rows[0]["run"] == "1"
    for got, want in zip(rows, stored, strict=True):
        for name, value in want.items():
            assert (float(got[name]) == value) if isinstance(value, float) else got[name] == str(value)


def test_download_sizes_are_exact_for_stored_files_and_close_for_estimates(backfill_result):
    from django.core.files.storage import default_storage

    parsed = ParsedResult(backfill_result)
    sizes = exports.download_sizes(parsed)
    for run in sizes["runs"]:
        i = run["i"]
        jobs = run["files"]["jobs"]
        assert jobs["parquet"] == {"bytes": default_storage.size(parsed.stored(i).files["jobs"]), "exact": True}
        for export, kind in (("schedule", "segments"), ("jobs", "jobs"), ("series", "series")):
            csv_bytes = len(b"".join(exports.table_csv(parsed, kind, i)))
            assert abs(run["files"][export]["csv"]["bytes"] - csv_bytes) < 0.25 * csv_bytes, (i, export)
            assert run["files"][export]["csv"]["exact"] is False
        parquet = len(b"".join(exports.table_parquet(parsed, "segments", i)))
        assert abs(run["files"]["schedule"]["parquet"]["bytes"] - parquet) < 0.5 * parquet
    assert sizes["all_csv"]["schedule"]["bytes"] == sum(r["files"]["schedule"]["csv"]["bytes"] for r in sizes["runs"])
