"""Segments stored as stretches (results.store, format 2): every reader gives what the segment-per-row
layout (format 1, what older files hold) gives — same rows, order, types and counts."""

import io
import json
import math

import numpy as np
import pyarrow.parquet as pq
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

import schedulers
from cloudsched_web.results import store, stretches, tables
from schedulers.core.columns import Columns, coded, task_of


def _backfill(n_jobs=300, seed=3):
    config = schedulers.example("backfill")
    config = {**config, "seed": seed, "workload": {**config["workload"], "n_jobs": n_jobs}}
    return schedulers.run(config)


def _both(result, monkeypatch, name):
    """(stretch manifest, segment-per-row manifest) of the same result."""
    _, stretched = store.save(0, f"{name}-2", result)
    with monkeypatch.context() as m:
        m.setattr(stretches, "MIN_GAIN", math.inf)
        _, flat = store.save(0, f"{name}-1", result)
    return stretched, flat


def _rows(table):
    return None if table is None else (table.schema, table.to_pylist())


def _segments_file(info):
    return pq.ParquetFile(default_storage.path(info["files"]["segments"]))


def _assert_same_readers(a_info, b_info):
    a, b = store.StoredRun(a_info), store.StoredRun(b_info)
    assert a_info["segments"] == b_info["segments"] and a_info["span"] == b_info["span"]
    assert a.schema("segments") == b.schema("segments")
    assert _rows(a.table("segments")) == _rows(b.table("segments"))
    for cols in (["start"], ["start", "end", "resource"], ["task"], ["job", "task", "resource"], ["end", "share"]):
        assert _rows(a.table("segments", cols)) == _rows(b.table("segments", cols)), cols
    lo, hi = a_info["span"]
    starts = sorted(set(b.table("segments", ["start"])["start"].to_pylist()))
    windows = [(lo, hi), (lo, lo), (hi, hi), (lo + (hi - lo) * 0.3, lo + (hi - lo) * 0.31), (starts[len(starts) // 2],) * 2,
               (hi + 1, hi + 2), (lo + (hi - lo) * 0.5, lo + (hi - lo) * 0.5 + 1e-3)]  # fmt: skip
    for w in windows:
        assert _rows(a.window(*w)) == _rows(b.window(*w)), w
        assert _rows(a.window(*w, ["start", "resource"])) == _rows(b.window(*w, ["start", "resource"])), w
        for limit in (1, 7, 100, 5000):
            assert _rows(a.first_in_window(*w, limit)) == _rows(b.first_in_window(*w, limit)), (w, limit)
    for size in (1, 13, 20_000):
        got = [t.to_pylist() for t in a.batches("segments", size)]
        assert all(0 < len(rows) <= size for rows in got)
        assert [r for rows in got for r in rows] == b.table("segments").to_pylist()


def test_backfill_segments_are_stored_as_stretches_and_read_back_as_segments(monkeypatch):
    result = _backfill()
    stretched, flat = _both(result, monkeypatch, "bf")
    assert stretched["version"] == 2
    for s_info, f_info, run in zip(stretched["runs"], flat["runs"], result["runs"], strict=True):
        s_file, f_file = _segments_file(s_info), _segments_file(f_info)
        assert (
            stretches.STRETCH in s_file.schema_arrow.metadata and stretches.STRETCH not in f_file.schema_arrow.metadata
        )
        assert f_file.metadata.num_rows == len(run["schedule"]) == s_info["segments"]
        assert s_file.metadata.num_rows * 5 < f_file.metadata.num_rows  # a job on p processors: one row, not p
        _assert_same_readers(s_info, f_info)


def test_whole_documents_and_streamed_json_are_the_same(monkeypatch):
    result = _backfill(120, seed=5)
    header, stretched = store.save(0, "doc-2", result)
    with monkeypatch.context() as m:
        m.setattr(stretches, "MIN_GAIN", math.inf)
        _, flat = store.save(0, "doc-1", result)
    assert store.full_document(header, stretched) == store.full_document(header, flat)
    assert b"".join(store.stream_json(header, stretched)) == b"".join(store.stream_json(header, flat))
    assert json.loads(b"".join(store.stream_json(header, stretched)))["runs"][0]["schedule"][0]["task"]


def _hand_made(**extra):
    """Two jobs of three tasks each, started together; ``extra`` columns of 6 values break stretches."""
    return Columns({"job": coded([0, 0, 0, 1, 1, 1], ["a", "b"]), "task": task_of([0, 1, 2, 0, 1, 2]),
                    "resource": coded([2, 1, 0, 3, 4, 5], [f"m{i}" for i in range(6)]),
                    "start": np.zeros(6), "end": np.ones(6), **extra})  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "masks", "rows"),
    [
        ({}, {}, 2),
        ({"share": np.array([0.5, 0.5, 0.5, 0.0, -0.0, 0.0])}, {}, 4),  # -0.0 is not 0.0
        ({"share": np.array([math.nan] * 6)}, {}, 2),
        ({"freq": np.array([1.0, 9.0, 1.0, 2.0, 2.0, 7.0])}, {"freq": np.array([1, 0, 1, 1, 1, 0], bool)}, 5),
        ({"freq": np.array([1.0, 9.0, 7.0, 2.0, 2.0, 2.0])}, {"freq": np.array([1, 0, 0, 1, 1, 1], bool)}, 3),
        ({"note": coded([0, 0, -1, 1, 1, 1], ["x", "y"])}, {}, 3),
        ({"lane": np.array([0, 0, 0, 0, 0, 1])}, {}, 3),
    ],
)
def test_a_stretch_holds_only_rows_alike_in_every_column_but_the_resource(extra, masks, rows, monkeypatch):
    cols = _hand_made(**extra)
    if masks:
        cols = Columns({n: cols.raw(n) for n in cols.names}, masks=masks, sparse=True)
    monkeypatch.setattr(stretches, "MIN_GAIN", 1.0)
    table = stretches.stored_segments(cols)
    assert stretches.STRETCH in table.schema.metadata and table.num_rows == rows
    back = stretches.restore(table).to_pylist()
    want = stretches.restore(tables.segments_table(cols)).to_pylist()
    assert json.dumps(back) == json.dumps(want)  # bit for bit (-0.0, NaN, nulls)


def test_tasks_out_of_step_break_a_stretch(monkeypatch):
    cols = Columns({n: (task_of([0, 1, 3, 0, 2, 1]) if n == "task" else c) for n, c in
                    ((n, _hand_made().raw(n)) for n in _hand_made().names)})  # fmt: skip
    monkeypatch.setattr(stretches, "MIN_GAIN", 1.0)
    table = stretches.stored_segments(cols)
    assert table.num_rows == 5
    assert stretches.restore(table).to_pylist() == stretches.restore(tables.segments_table(cols)).to_pylist()


def test_stretches_that_would_not_pay_are_not_written():
    cols = _hand_made(share=np.arange(6.0))  # every row different
    table = stretches.stored_segments(cols)
    assert stretches.STRETCH not in (table.schema.metadata or {}) and table.num_rows == 6


def test_a_window_reads_only_the_row_groups_of_stretches_it_needs(monkeypatch):
    monkeypatch.setattr(store, "STRETCH_GROUP", 10)
    segs = [{"job": str(i), "task": f"{i}.{k}", "resource": f"m{(3 * i + k) % 8}", "start": float(i), "end": i + 1.5}
            for i in range(100) for k in range(3)]  # fmt: skip
    _, manifest = store.save(0, "groups", {"runs": [{"schedule": segs, "jobs": [], "series": {}}]})
    info = manifest["runs"][0]
    assert _segments_file(info).metadata.num_row_groups == 10 and info["segments"] == 300
    stored = store.StoredRun(info)
    reads = []
    real = pq.ParquetFile.read_row_group
    monkeypatch.setattr(
        pq.ParquetFile, "read_row_group", lambda self, g, *a, **k: reads.append(g) or real(self, g, *a, **k)
    )
    first = store.to_records(stored.first_in_window(50.2, 55.0, 4))
    assert [s["task"] for s in first] == ["49.0", "49.1", "49.2", "50.0"]
    assert reads == [4, 5]  # group 4 holds job 49 (ends at 50.5); nothing before it is read, nothing after 5
    window = stored.window(50.2, 55.0, ["task", "resource"])
    assert window["task"].to_pylist() == [f"{i}.{k}" for i in range(49, 55) for k in range(3)]
    assert window["resource"].to_pylist() == [f"m{(3 * i + k) % 8}" for i in range(49, 55) for k in range(3)]


def test_files_written_before_stretches_read_as_the_new_ones(monkeypatch):
    """A version-1 file as the old writer made it (zstd 6, statistics and dictionaries everywhere)."""
    result = _backfill(150, seed=7)
    _, manifest = store.save(0, "v2", result)
    run = result["runs"][2]
    buf = io.BytesIO()
    pq.write_table(tables.segments_table(run["schedule"]), buf, row_group_size=65_536, compression="zstd",
                   compression_level=6)  # fmt: skip
    name = default_storage.save("results/0/v1/r2-segments.parquet", ContentFile(buf.getvalue()))
    info = manifest["runs"][2]
    old = {**info, "files": {**info["files"], "segments": name}}
    assert stretches.STRETCH not in _segments_file(old).schema_arrow.metadata
    _assert_same_readers(info, old)
