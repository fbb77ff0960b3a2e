"""The columnar result store (results.store): what goes in comes back, windows read only what they need."""

import importlib
import json
import zlib

import orjson
import pyarrow.parquet as pq
import pytest
from django.apps import apps as django_apps
from django.core.files.storage import default_storage

import schedulers
from cloudsched_web.results import store
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from schedulers.core import jsonio
from schedulers.core.columns import Columns
from tests.api.factories import parsed

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]


def _norm(doc):
    """JSON-equal form; the store keeps a schedule in start order (ties: end, then the family's order)."""
    doc = json.loads(jsonio.dumps(doc))
    for run in doc.get("runs", []):
        run["schedule"] = sorted(run.get("schedule", []), key=lambda s: (s["start"], s["end"]))
    return doc


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_result_round_trips_through_the_columns(family):
    result = schedulers.run(schedulers.example(family))
    header, manifest = store.save(0, f"rt-{family}", result)
    assert not set(store.HEAVY) & set(header["runs"][0])  # the heavy parts live in files
    back = store.full_document(header, manifest)
    assert _norm(back) == _norm(result)
    streamed = b"".join(store.stream_json(header, manifest))
    assert json.loads(streamed) == _norm(result)


def _as_lists(result):
    """The same result with its Columns as lists of dicts (the store's legacy path)."""
    return {**result, "runs": [{**r, "schedule": list(r["schedule"]), "jobs": list(r["jobs"])} for r in result["runs"]]}


def _stored_tables(manifest):
    return [{kind: pq.read_table(default_storage.path(name)) for kind, name in info["files"].items()}
            for info in manifest["runs"]]  # fmt: skip


@pytest.mark.parametrize("family", FAMILIES)
def test_the_columns_fast_path_stores_what_the_list_path_stores(family):
    result = schedulers.run(schedulers.example(family))
    assert isinstance(result["runs"][0]["schedule"], Columns)
    _, fast = store.save(0, f"fast-{family}", result)
    _, slow = store.save(0, f"slow-{family}", _as_lists(result))
    assert [{k: v for k, v in i.items() if k != "files"} for i in fast["runs"]] == [
        {k: v for k, v in i.items() if k != "files"} for i in slow["runs"]
    ]
    for a, b in zip(_stored_tables(fast), _stored_tables(slow), strict=True):
        assert a.keys() == b.keys()
        for kind in a:  # same schema (types, dictionary-encoded resource, task_k, sparse flag) and rows
            assert a[kind].schema == b[kind].schema, (family, kind)
            assert a[kind].schema.metadata == b[kind].schema.metadata
            assert a[kind].equals(b[kind]), (family, kind)


def test_the_fast_path_keeps_missing_values_and_sparse_records():
    segs = [{"job": "1", "task": "1.0", "resource": "m", "start": 0.0, "end": 1.5, "share": 2.0},
            {"job": "x", "task": "x.0", "resource": "n", "start": 1.0, "end": 2.0, "share": 0.5, "freq_ghz": 1.2}]  # fmt: skip
    jobs = [{"job": "1", "finish": None, "ok": True}, {"job": "x", "finish": 3.0, "ok": False}]
    cols = {"runs": [{"algorithm": "a", "repetition": 0, "schedule": Columns.from_records(segs),
                      "jobs": Columns.from_records(jobs), "series": {}}]}  # fmt: skip
    header, manifest = store.save(0, "fast-sparse", cols)
    back = store.full_document(header, manifest)["runs"][0]
    assert back["schedule"] == segs and back["jobs"] == jobs


def test_tasks_named_after_their_job_are_stored_as_integers_and_restored():
    segs = [{"job": "7", "task": "7.0", "resource": "m1", "start": 0.0, "end": 1.0},
            {"job": "7", "task": "7.12", "resource": "m2", "start": 0.5, "end": 2.0}]  # fmt: skip
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "schedule": segs, "jobs": [], "series": {}}], "summary": {}}
    header, manifest = store.save(0, "tasks", doc)
    path = default_storage.path(manifest["runs"][0]["files"]["segments"])
    assert "task_k" in pq.read_schema(path).names and "task" not in pq.read_schema(path).names
    assert store.full_document(header, manifest)["runs"][0]["schedule"] == segs


@pytest.mark.parametrize("tasks", [["7.a", "7.1"], ["7.01", "7.1"], ["8.0", "7.1"], ["7", "7.1"]])
def test_other_task_names_are_kept_as_written(tasks):
    segs = [{"job": "7", "task": t, "resource": "m", "start": float(i), "end": i + 1.0} for i, t in enumerate(tasks)]
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "schedule": segs, "jobs": [], "series": {}}], "summary": {}}
    header, manifest = store.save(0, "keep", doc)
    assert store.full_document(header, manifest)["runs"][0]["schedule"] == segs


def test_mixed_and_missing_values_survive():
    segs = [{"job": 1, "task": "1.0", "resource": "m", "start": 0, "end": 1.5, "share": 2},
            {"job": "x", "task": "x.0", "resource": "m", "start": 1.0, "end": 2.0, "share": 0.5, "freq_ghz": 1.2}]  # fmt: skip
    jobs = [{"job": 1, "note": "a"}, {"job": 2, "note": 3}]
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "schedule": segs, "jobs": jobs, "series": {}}]}
    header, manifest = store.save(0, "mixed", doc)
    back = store.full_document(header, manifest)["runs"][0]
    assert [s["start"] for s in back["schedule"]] == [0.0, 1.0]
    assert back["schedule"][1]["freq_ghz"] == 1.2 and "freq_ghz" not in back["schedule"][0]
    assert [str(j["note"]) for j in back["jobs"]] == ["a", "3"]


def test_a_window_reads_only_the_row_groups_it_needs(monkeypatch):
    monkeypatch.setattr(store, "ROW_GROUP", 100)
    segs = [{"job": str(i), "task": f"{i}.0", "resource": f"m{i % 7}", "start": float(i), "end": i + 1.5}
            for i in range(1000)]  # fmt: skip
    doc = {"runs": [{"algorithm": "a", "repetition": 0, "schedule": segs, "jobs": [], "series": {}}]}
    result = parsed(doc)
    stored = result.stored(0)
    reads = []
    real = pq.ParquetFile.read_row_group
    monkeypatch.setattr(
        pq.ParquetFile, "read_row_group", lambda self, g, *a, **k: reads.append(g) or real(self, g, *a, **k)
    )
    first = store.to_records(stored.first_in_window(500.2, 505.0, 3))
    assert [s["job"] for s in first] == ["499", "500", "501"]
    assert reads == [4, 5]  # group 4 holds 499 (ends at 500.5); nothing before it is read, nothing after 5
    window = stored.window(500.2, 505.0, ["job"])
    assert window["job"].to_pylist() == [str(i) for i in range(499, 505)]


@pytest.mark.django_db
def test_deleting_a_run_deletes_its_files(alice, toy_scenario, django_capture_on_commit_callbacks):
    scenario = Scenario.objects.create(owner=alice, family="toy", name="t", config=toy_scenario)
    run = Run.objects.create(scenario=scenario, config=toy_scenario, status=Run.Status.SUCCEEDED)
    run.store_result(schedulers.run(toy_scenario), "a1")
    run.save()
    names = [f for info in run.result_files["runs"] for f in info["files"].values()]
    assert names and all(default_storage.exists(n) for n in names)
    with django_capture_on_commit_callbacks(execute=True):
        run.delete()
    assert not any(default_storage.exists(n) for n in names)


@pytest.mark.django_db
def test_the_data_migration_moves_a_legacy_blob_into_columns(alice, toy_scenario):
    result = schedulers.run(toy_scenario)
    scenario = Scenario.objects.create(owner=alice, family="toy", name="t", config=toy_scenario)
    run = Run.objects.create(scenario=scenario, config=toy_scenario, status=Run.Status.SUCCEEDED,
                             result_blob=zlib.compress(orjson.dumps(result, default=jsonio.plain)))  # fmt: skip
    migration = importlib.import_module("cloudsched_web.runs.migrations.0008_run_result_files")
    migration.to_columns(django_apps, None)
    run.refresh_from_db()
    assert run.result_files["runs"] and "schedule" not in run.load_header()["runs"][0]
    assert _norm(run.load_result()) == _norm(result)
    migration.to_blob(django_apps, None)  # and back
    run.refresh_from_db()
    assert run.result_files == {} and _norm(orjson.loads(zlib.decompress(run.result_blob))) == _norm(result)
