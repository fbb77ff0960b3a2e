"""How results.indexes builds the worker's index files: each run's segments read once, as stored.

The by-row file takes each stretch's colour values for its segments (instead of expanding the
stretches first), the lane counts come from the by-row order (instead of a second sweep sorted by row),
and the event table from whole columns (instead of a loop over the events). Each must give what the
plain reading gives: the files of a stretches file equal those of the same segments one per row, the
counts equal the on-the-fly sweep's (``lanes.lane_counts``), and the event table is pinned below.
"""

import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import schedulers
from cloudsched_web.results import axis, colours, events, gantt, indexes, indexfiles, lanes, store, stretches
from cloudsched_web.results.queries import ParsedResult


def _seg(job, res, s, e, **extra):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": 1.0, **extra}


def _parsed(doc):
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    return ParsedResult(header, manifest)


def _tables(parsed):
    built = indexes.build(parsed.doc, parsed.manifest)
    files = [{k: pq.read_table(store.source(v)) for k, v in info["index"].items()} for info in built["runs"]]
    return files, built["index"]["colour_modes"]


def test_the_index_files_of_stretches_are_those_of_the_same_segments_one_per_row(monkeypatch):
    doc = schedulers.run({**schedulers.example("backfill"), "algorithms": ["keasy", "measy"]})
    stretched = _parsed(doc)
    assert stretches.STRETCH in pq.read_schema(stretched.stored(0).source("segments")).metadata  # the case under test
    monkeypatch.setattr(stretches, "MIN_GAIN", float("inf"))  # never worth it: one row per segment
    plain = _parsed(doc)
    assert stretches.STRETCH not in (pq.read_schema(plain.stored(0).source("segments")).metadata or {})
    (files, modes), (plain_files, plain_modes) = _tables(stretched), _tables(plain)
    assert modes == plain_modes and [m["key"] for m in modes] == ["job", "state"]
    assert modes[1]["categories"] == ["background tier", "background tier, killed", "background tier, migrated away",
                                      "foreground tier"]  # fmt: skip
    for a, b in zip(files, plain_files, strict=True):
        assert a.keys() == b.keys() == {"rows", "events", "byrow", "jobs"}
        for kind in a:
            assert a[kind].equals(b[kind], check_metadata=True), kind
        assert "c_state" in a["byrow"].column_names and max(a["rows"]["lanes"].to_pylist()) == 2


@pytest.mark.parametrize("seed", range(4))
def test_lane_counts_from_the_by_row_order_are_the_sweeps(seed):
    rng = np.random.default_rng(seed)
    n = 300
    start = rng.integers(0, 40, n).astype(float)  # ties, zero lengths, back-to-back segments
    end = start + rng.choice([0.0, 1.0, 2.0, 5.0], n)
    order = np.lexsort((end, start)) if seed % 2 else np.arange(n)  # in start order, and not
    schedule = [_seg(str(i), f"m{rng.integers(0, 6)}", float(start[i]), float(end[i])) for i in order]
    parsed = _parsed({"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "series": {},
                                               "jobs": [], "schedule": schedule}]})  # fmt: skip
    names = axis.resource_axis(parsed, 0)["names"]
    byrow = indexes._by_row(parsed, 0, names, colours.colour_modes(parsed))
    sweep = lanes.lane_counts(parsed, 0)["count"]  # no index: the on-the-fly sweep over all rows at once
    assert indexes._lanes(byrow, len(names))[0] == [sweep[n] for n in names]
    assert max(sweep.values()) > 2


def test_the_event_table_of_a_hand_made_schedule():
    schedule = [_seg("a", "m0", 0.0, 10.0, ended="killed"), _seg("b", None, 2.0, 6.0, ended="migrated"),
                _seg("c", "m1", 3.0, 3.0, ended="preempted"), _seg("d", "m1", 1.0, 2.0),
                _seg("e", "None", 4.0, 6.0, ended="killed"), _seg("f", "m2", 0.0, 6.0, ended="finished")]  # fmt: skip
    jobs = [{"job": "a", "arrival": 0.0, "rejected": False}, {"job": "x", "arrival": 7, "rejected": True},
            {"job": None, "arrival": 3.0, "rejected": True}]  # fmt: skip
    parsed = _parsed({"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "series": {},
                                               "jobs": jobs, "schedule": schedule}]})  # fmt: skip
    assert axis.resource_axis(parsed, 0)["names"] == ["None", "m0", "m1", "m2"]
    ev = events.event_table(parsed, 0)
    assert ev["kinds"] == ["killed", "migrated", "preempted", "rejected"]
    assert ev["t"].dtype == np.float64 and ev["kind"].dtype == np.int8 and ev["row"].dtype == np.int32
    assert ev["t"].tolist() == [3.0, 3.0, 6.0, 6.0, 7.0, 10.0]  # time order, ties in file order, then the jobs'
    assert [ev["kinds"][k] for k in ev["kind"].tolist()] == ["preempted", "rejected", "migrated", "killed",
                                                            "rejected", "killed"]  # fmt: skip
    # job events on row −1; a segment without resource reads as "None" (str(None), as the code always had it)
    assert ev["row"].tolist() == [2, -1, 0, 0, -1, 1]
    assert ev["job"].to_pylist() == ["c", "None", "b", "e", "x", "a"] and ev["job"].type == pa.string()
    assert ev["task"].to_pylist() == ["c.0", "", "b.0", "e.0", "", "a.0"]
    assert ev["labels"](np.array([5, 0])) == (["a", "c"], ["a.0", "c.0"])
    parsed = _parsed({"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "series": {},
                                               "jobs": [], "schedule": schedule[:4]}]})  # fmt: skip
    assert events.event_table(parsed, 0)["row"].tolist() == [1, -2, 0]  # without "None": on no row (never shown)


def test_the_axis_of_a_stretches_file_is_in_natural_order_as_of_one_row_per_segment(monkeypatch):
    res = ["m10", "m2", "m0", "m1"]  # first appearance is not the axis order
    schedule = [
        {**_seg(str(j), res[k], 10.0 * j, 10.0 * j + 5), "task": f"{j}.{k}"} for j in range(40) for k in range(4)
    ]
    doc = {"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "series": {}, "jobs": [],
                                    "schedule": schedule}]}  # fmt: skip
    stretched = _parsed(doc)
    assert stretches.STRETCH in pq.read_schema(stretched.stored(0).source("segments")).metadata  # the case under test
    monkeypatch.setattr(stretches, "MIN_GAIN", float("inf"))
    plain = _parsed(doc)
    assert axis.resource_axis(stretched, 0) == axis.resource_axis(plain, 0)
    assert axis.resource_axis(stretched, 0)["names"] == ["m0", "m1", "m2", "m10"]


def test_index_files_written_before_the_lanes_were_stored_still_serve_the_same_pages():
    """A result indexed before ``lane`` (by-row) and ``drawn`` (rows) existed assigns lanes as it did."""
    import json

    from tests.web.test_indexes import _requests

    doc = schedulers.run({**schedulers.example("vm_reservations")})
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    built = indexes.build(header, manifest)
    older = json.loads(json.dumps(built))
    for info in older["runs"]:
        for kind, drop in (("rows", "drawn"), ("byrow", "lane")):
            table = pq.read_table(store.source(info["index"][kind]))
            assert drop in table.column_names
            info["index"][kind] = indexes._write(info["index"][kind].replace(".parquet", "-old.parquet"),
                                                 table.drop_columns([drop]))  # fmt: skip
    old, new, plain = ParsedResult(header, older), ParsedResult(header, built), ParsedResult(header, manifest)
    assert indexfiles.read_rows(older["runs"][0]["index"]["rows"])[4] is None
    for i in range(len(doc["runs"])):
        assert max(lanes.lane_counts(new, i)["count"].values()) > 1  # the case under test: rows in lanes
        for kw in _requests(plain, i):
            args = (i, kw["t0"], kw["t1"], kw["row0"], kw["rows"], kw["pixels"], kw["max_bars"])
            a, b, c = gantt._gantt(plain, *args), gantt._gantt(old, *args), gantt._gantt(new, *args)
            assert json.dumps(b, sort_keys=True) == json.dumps(a, sort_keys=True) == json.dumps(c, sort_keys=True)
    assert any(k[0] == "lane_rows" for k in old._memo) and not any(k[0] == "lane_rows" for k in new._memo)


def test_the_worker_writes_the_download_sizes_the_page_would_compute():
    """The result page prints each download's size without reading the schedule: the worker's index holds
    ``exports.sizes_of`` of the stored files, the very numbers the page computed itself before."""
    import uuid

    import schedulers
    from cloudsched_web.results import exports, indexes, store
    from cloudsched_web.results.queries import ParsedResult

    header, manifest = store.save(0, uuid.uuid4().hex, schedulers.run(schedulers.example("backfill")))
    plain = ParsedResult(header, manifest)
    indexed = ParsedResult(header, indexes.build(header, manifest))
    written = indexed.manifest["index"]["download_sizes"]
    assert written == exports.sizes_of(plain) == exports.download_sizes(plain)
    assert exports.download_sizes(indexed) is written  # read, not computed
    assert written["runs"][0]["files"]["schedule"]["csv"]["bytes"] > 0
