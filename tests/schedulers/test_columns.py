"""Columns (schedulers.core.columns): records ↔ columns ↔ Arrow, codes and labels, the edge cases."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pyarrow as pa
import pytest

from schedulers.core import jsonio
from schedulers.core.columns import Columns, as_columns, coded, schedule_cut, task_of
from schedulers.registry import RunOutput

RECORDS = [
    {"job": "7", "task": "7.0", "resource": "p3", "start": 0.0, "end": 2.5, "share": 1, "ok": True, "note": None},
    {"job": "7", "task": "7.1", "resource": "p1", "start": 0.0, "end": 2.5, "share": 2, "ok": False, "note": "x"},
    {"job": "9", "task": "9.0", "resource": "p3", "start": 2.5, "end": 4.0, "share": 1, "ok": True, "note": None},
]


def test_records_round_trip_with_types_and_missing_values():
    cols = Columns.from_records(RECORDS)
    assert len(cols) == 3 and cols.names == list(RECORDS[0])
    assert cols.to_records() == RECORDS and list(cols) == RECORDS and cols == RECORDS
    assert [type(v) for v in cols[1].values()] == [str, str, str, float, float, int, bool, str]
    assert cols.column("end").dtype == np.float64 and cols.column("share").dtype == np.int64
    assert cols.column("note").tolist() == [None, "x", None]
    assert cols[-1] == RECORDS[-1] and cols[:2] == RECORDS[:2] and cols[[2, 0]] == [RECORDS[2], RECORDS[0]]
    with pytest.raises(IndexError):
        cols[3]


def test_repeated_text_is_held_as_codes_into_labels():
    cols = Columns.from_records(RECORDS)
    res = cols.codes("resource")
    assert res.labels.tolist() == ["p3", "p1"] and res.codes.tolist() == [0, 1, 0]
    built = Columns({"job": coded([0, 0, 1], ["7", "9"]), "task": task_of([0, 1, 0]),
                     "resource": coded([0, 1, 0], ["p3", "p1"])})  # fmt: skip
    assert built.to_records() == [{k: r[k] for k in ("job", "task", "resource")} for r in RECORDS]
    # a numpy array of strings is encoded on the way in
    assert Columns({"kind": np.array(["a", "b", "a"])}).codes("kind").codes.tolist() == [0, 1, 0]


def test_sparse_records_drop_the_keys_they_lacked():
    rows = [{"a": 1, "b": 2.0}, {"a": 2}, {"c": "z"}]
    cols = Columns.from_records(rows)
    assert cols.sparse and cols.to_records() == rows and cols.names == ["a", "b", "c"]


def test_arrow_round_trip_and_the_stores_encodings():
    cols = Columns.from_records(RECORDS)
    table = cols.to_arrow()
    assert table.to_pylist() == RECORDS
    assert table.schema.field("share").type == pa.int64() and table.schema.field("ok").type == pa.bool_()
    enc = Columns({"job": coded([1, 1, 0], ["9", "7"]), "task": task_of([0, 1, 0]),
                   "resource": coded([2, 1, 2], ["unused", "p1", "p3"])}).to_arrow(task_k=True, dictionary=["resource"])  # fmt: skip
    assert enc.column_names == ["job", "task_k", "resource"] and enc["task_k"].type == pa.int32()
    res = enc["resource"].combine_chunks()
    assert res.dictionary.to_pylist() == ["p3", "p1"]  # first appearance, unused labels left out
    assert res.indices.to_pylist() == [0, 1, 0] and res.to_pylist() == ["p3", "p1", "p3"]


def test_empty_and_one_row():
    empty = Columns()
    assert len(empty) == 0 and not empty and empty.to_records() == [] and empty == []
    assert Columns.from_records([]) == [] and empty.to_arrow().num_rows == 0
    one = Columns.from_records(RECORDS[:1])
    assert len(one) == 1 and one and one[0] == RECORDS[0] and one.to_arrow().to_pylist() == RECORDS[:1]
    assert as_columns(None) == [] and as_columns(RECORDS) == RECORDS and as_columns(one) is one


def test_values_of_mixed_or_nested_types_are_kept_as_written():
    rows = [{"a": 1, "b": [1, 2], "c": {"x": 1}}, {"a": "z", "b": [3], "c": None}, {"a": 2.5, "b": [], "c": {}}]
    cols = Columns.from_records(rows)
    assert cols.to_records() == rows and cols.column("b").shape == (3,)
    assert json.loads(jsonio.dumps(cols)) == rows


def test_unequal_lengths_are_refused():
    with pytest.raises(ValueError, match="unequal"):
        Columns({"a": np.zeros(2), "b": np.zeros(3)})


def test_run_output_converts_lists_from_third_party_families():
    out = RunOutput(metrics={}, schedule=RECORDS, jobs=[{"job": "7"}])
    assert isinstance(out.schedule, Columns) and out.schedule == RECORDS and out.jobs == [{"job": "7"}]


def test_json_is_streamed_from_the_columns_and_nonfinite_values_are_found():
    doc = {"runs": [{"schedule": Columns.from_records(RECORDS), "series": {"t": np.array([0.0, 1.0])}}]}
    buf = io.StringIO()
    jsonio.dump(doc, buf)
    assert (
        json.loads(buf.getvalue())
        == json.loads(jsonio.dumps(doc))
        == {"runs": [{"schedule": RECORDS, "series": {"t": [0.0, 1.0]}}]}
    )
    assert jsonio.nonfinite_paths(doc) == []
    bad = Columns({"start": np.array([0.0, math.nan, 1.0]), "end": np.array([1.0, 2.0, math.inf])})
    series = {"t": np.array([0.0, math.inf])}
    assert jsonio.nonfinite_paths({"runs": [{"schedule": bad, "series": series}]}) == [
        "runs[0].schedule[1].start", "runs[0].schedule[2].end", "runs[0].series.t[1]"
    ]  # fmt: skip


def test_schedule_cut_states_limit_recorded_and_where():
    extra: dict = {}
    schedule_cut(extra, 10, 8, 12.5)
    assert extra == {"schedule_cut": {"limit": 10, "recorded": 8, "cut_at_s": 12.5}}
