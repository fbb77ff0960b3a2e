"""The worker's whole-run indexes (results.indexes) give exactly the payloads the on-the-fly path gives."""

import json
import uuid

import numpy as np
import pytest

import schedulers
from cloudsched_web.results import axis, byrow, colours, gantt, indexes, indexfiles, lanes, store, stretches
from cloudsched_web.results.queries import ParsedResult

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]


def _seg(job, res, s, e, share=1.0, **extra):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": share, **extra}


def _both(doc):
    """The same stored result read without indexes (as results stored before them) and with them."""
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    return ParsedResult(header, manifest), ParsedResult(header, indexes.build(header, manifest))


def _requests(parsed, index):
    """Gantt requests over the whole run, parts of it and an instant, on pages of rows, as bars and occupancy."""
    lo, hi = parsed.span(index)
    n = len(axis.resource_axis(parsed, index)["names"])
    windows = [(None, None), (lo, hi), (lo, lo + (hi - lo) / 3), (lo + (hi - lo) * 0.4, lo + (hi - lo) * 0.45),
               (lo + (hi - lo) / 2, lo + (hi - lo) / 2)]  # fmt: skip
    table = parsed.stored(index).table("segments", ["start", "end"])
    if table is not None and table.num_rows:  # windows that begin where a segment ends, end where one starts
        for k in (0, table.num_rows // 2, table.num_rows - 1):
            e, s = table["end"][k].as_py(), table["start"][k].as_py()
            windows += [(e, e + (hi - lo) / 5), (s - (hi - lo) / 5, s)]
    for t0, t1 in windows:
        for row0, rows in ((0, 40), (max(n // 2, 0), 3), (max(n - 1, 0), 200)):
            for max_bars in (gantt.MAX_BARS, 5, 0):
                yield {"t0": t0, "t1": t1, "row0": row0, "rows": rows, "pixels": 37, "max_bars": max_bars}


def _json(payload):
    """The payload as sent (an instant window's occupancy divides by a zero width: NaN equals NaN here)."""
    return json.dumps(payload, sort_keys=True)


def _assert_same(plain, indexed):
    assert indexfiles.files_of(indexed, 0) and not indexfiles.files_of(plain, 0)
    assert colours.colour_modes(indexed) == colours.colour_modes(plain)
    for i in range(len(plain.doc["runs"])):
        assert axis.resource_axis(indexed, i) == axis.resource_axis(plain, i)
        for kw in _requests(plain, i):
            a = gantt._gantt(plain, i, kw["t0"], kw["t1"], kw["row0"], kw["rows"], kw["pixels"], kw["max_bars"])
            b = gantt._gantt(indexed, i, kw["t0"], kw["t1"], kw["row0"], kw["rows"], kw["pixels"], kw["max_bars"])
            assert _json(b) == _json(a), (i, kw)
        assert _json(gantt.gantt(indexed, i)) == _json(gantt.gantt(plain, i))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_gives_the_same_gantt_events_and_lanes_with_the_index(family):
    plain, indexed = _both(schedulers.run(schedulers.example(family)))
    _assert_same(plain, indexed)


def test_lanes_events_groups_and_colours_of_a_hand_made_schedule_are_the_same_with_the_index():
    schedule = [_seg("a", "m0", 0, 10, host="h1", kind="be"), _seg("b", "m0", 2, 6, host="h1", kind="ar"),
                _seg("c", "m0", 6, 12, host="h1", ended="preempted", kind="ar"), _seg("d", "m0", 10, 11, host="h1"),
                _seg("z", "m0", 5, 5, host="h1"),  # zero length inside "a": one more lane than the sweep counts
                _seg("e", "m1", 0, 5, host="h0", kind="be", freq_ghz=1.2), _seg("f", "m1", 5, 9, host="h0", kind="be"),
                _seg("g", "m2", 1, 3, host="h0", ended="killed", freq_ghz=2.4),
                _seg("h", "m10", 2, 8, host="h0", ended="migrated")]  # fmt: skip
    jobs = [{"job": "a", "arrival": 0.0, "rejected": False}, {"job": "x", "arrival": 7.0, "rejected": True}]
    doc = {"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "schedule": schedule,
                                    "series": {}, "jobs": jobs}]}  # fmt: skip
    plain, indexed = _both(doc)
    _assert_same(plain, indexed)
    g = gantt.gantt(indexed, 0, 0, 12, max_bars=1, pixels=4)
    assert g["mode"] == "occupancy" and g["resources"] == ["m1", "m2", "m10", "m0"]
    assert g["events"]["kind"] == ["killed", "rejected", "migrated", "preempted"]


def test_a_result_without_schedule_has_empty_indexes_and_charts():
    doc = {"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "schedule": [], "series": {},
                                    "jobs": [{"job": "1", "arrival": 3.0, "rejected": True}]}]}  # fmt: skip
    plain, indexed = _both(doc)
    assert gantt.gantt(indexed, 0) == gantt.gantt(plain, 0)
    assert gantt.gantt(indexed, 0, 0, 10) == gantt.gantt(plain, 0, 0, 10)
    assert gantt.gantt(indexed, 0, 0, 10)["events"]["kind"] == ["rejected"]


def test_greedy_lanes_by_clusters_equal_the_one_at_a_time_greedy():
    rng = np.random.default_rng(7)
    for n, spread in ((1, 1), (2, 1), (50, 5), (2000, 400), (2000, 40_000)):
        starts = np.sort(rng.integers(0, spread, n).astype(float))
        ends = starts + rng.choice([0.0, 0.5, 1.0, 3.0, 40.0], n)  # zero-length ones too
        assert np.array_equal(lanes.greedy_lanes(starts, ends), lanes._greedy_loop(starts, ends))


def test_two_lane_rows_are_coloured_without_the_loop_as_the_loop_does():
    rng = np.random.default_rng(11)
    for n in (2, 3, 200, 5000):  # a long segment with short ones on top, back to back or apart, as KEASY's tiers
        long_starts = np.cumsum(rng.choice([1.0, 50.0, 80.0], n // 2 + 1))
        starts, ends = [], []
        for s in long_starts[: n // 2 + 1]:
            starts.append(s)
            ends.append(s + 30.0)
            for k in range(int(rng.integers(0, 4))):
                starts.append(s + 5.0 * k + 1.0)
                ends.append(s + 5.0 * k + 1.0 + rng.choice([2.0, 5.0, 40.0]))
        o = np.lexsort((ends, starts))
        starts, ends = np.asarray(starts)[o], np.asarray(ends)[o]
        reach = np.maximum.accumulate(ends)
        opens = np.concatenate([[True], starts[1:] >= reach[:-1]])
        two = lanes._two_lanes(starts, ends, reach, opens)
        loop = lanes._greedy_loop(starts, ends)
        assert two is None or np.array_equal(two, loop)
        assert np.array_equal(lanes.greedy_lanes(starts, ends), loop)
    starts, ends = np.array([0.0, 1.0, 2.0, 6.0, 7.0]), np.array([10.0, 2.0, 5.0, 6.5, 9.0])  # one tier under another
    two = lanes._two_lanes(starts, ends, np.maximum.accumulate(ends), np.array([True] + [False] * 4))
    assert two.tolist() == lanes._greedy_loop(starts, ends).tolist() == [0, 1, 1, 1, 1]
    starts = np.arange(0.0, 40.0)  # a staircase: each overlaps the one before only (chains of any length)
    ends = starts + 1.5
    two = lanes._two_lanes(starts, ends, np.maximum.accumulate(ends), np.array([True] + [False] * 39))
    assert two.tolist() == lanes._greedy_loop(starts, ends).tolist() == [0, 1] * 20


@pytest.mark.django_db
def test_the_worker_stores_the_indexes_beside_the_files_and_deleting_the_run_removes_them(
    alice, toy_scenario, django_capture_on_commit_callbacks
):
    from django.core.files.storage import default_storage

    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    scenario = Scenario.objects.create(owner=alice, family="toy", name="t", config=toy_scenario)
    run = Run.objects.create(scenario=scenario, config=toy_scenario, status=Run.Status.SUCCEEDED)
    run.store_result(schedulers.run(toy_scenario), "a1")
    run.save()
    assert run.result_files["index"]["version"] == indexfiles.VERSION
    names = [f for info in run.result_files["runs"] for f in info["index"].values()]
    assert {n.rsplit("-", 1)[1] for n in names} == {
        "rows.parquet",
        "events.parquet",
        "byrow.parquet",
        "jobindex.parquet",
    }
    assert all(default_storage.exists(n) for n in names)
    with django_capture_on_commit_callbacks(execute=True):
        run.delete()
    assert not any(default_storage.exists(n) for n in names)


def test_event_labels_come_from_the_right_row_groups_of_a_long_event_file():
    n = 70_000  # more than one row group of the events file (65,536)
    schedule = [_seg(str(i), f"m{i % 2}", float(i), i + 0.5, ended="killed") for i in range(n)]
    doc = {"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "schedule": schedule,
                                    "series": {}, "jobs": []}]}  # fmt: skip
    plain, indexed = _both(doc)
    for t0, t1 in ((None, None), (65_000.0, 67_000.0), (69_000.0, 70_000.0)):
        a, b = gantt.gantt(plain, 0, t0, t1, max_bars=0), gantt.gantt(indexed, 0, t0, t1, max_bars=0)
        assert b["events"] == a["events"]
        if t0 is None:  # more than can be marked one by one: every event is counted, per pixel column and kind
            assert a["events"]["mode"] == "counts" and sum(a["events"]["cn"]) == a["events"]["total"] == n
        else:
            assert a["events"]["mode"] == "marks" and a["events"]["job"][:2] == [str(int(t0)), str(int(t0) + 1)]


def test_an_instant_window_shows_what_runs_at_it_not_nan():
    doc = {"summary": {}, "runs": [{"algorithm": "a", "repetition": 0, "metrics": {}, "series": {}, "jobs": [],
                                    "schedule": [_seg("1", "m0", 0.0, 10.0, share=0.5), _seg("2", "m0", 5.0, 8.0),
                                                 _seg("3", "m1", 0.0, 5.0)]}]}  # fmt: skip
    both = list(_both(doc))
    assert len(both) == 2
    for parsed in both:
        g = gantt.gantt(parsed, 0, 5.0, 5.0, max_bars=0, pixels=4)
        grid = dict(zip(g["resources"], g["occupancy"]["rows"], strict=True))
        assert grid == {"m0": [1.0] * 4, "m1": [0.0] * 4}, g  # m0: 0.5 + 1 capped at 1; m1's segment ended at 5
        json.loads(json.dumps(g, allow_nan=False))


def test_a_whole_run_page_of_a_stretches_file_reads_the_by_row_index():
    """The segments file's row groups are counted in segments, not stretches (one stretch holds many):
    otherwise the time-sorted file looks cheaper and a whole-run page expands every segment of the run."""
    import pyarrow.parquet as pq

    doc = schedulers.run({**schedulers.example("backfill"), "algorithms": ["easy"]})
    _, indexed = _both(doc)
    source = indexed.stored(0).source("segments")
    assert stretches.STRETCH in pq.ParquetFile(source).schema_arrow.metadata  # the case under test
    by_time, _ = byrow.group_stats(indexed, 0, indexfiles.files_of(indexed, 0)["byrow"])
    assert by_time[:, 0].sum() == indexed.info(0)["segments"]
    lo, hi = indexed.span(0)
    assert byrow.by_row_is_cheaper(indexed, 0, indexfiles.files_of(indexed, 0)["byrow"], lo, hi, 0, 3)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_algorithm_of_a_result_has_the_same_rows_idle_resources_included(family):
    doc = schedulers.run(schedulers.example(family))
    plain, indexed = _both(doc)
    for parsed in (plain, indexed):
        axes = [gantt.gantt(parsed, i, rows=200)["resources"] for i in range(len(parsed.doc["runs"]))]
        assert all(a == axes[0] for a in axes), family
        for run in parsed.doc["runs"]:
            declared = (run.get("extra") or {}).get("resources") or []
            assert set(declared) <= set(axis.resource_axis(parsed)["names"])
    if family == "backfill":
        assert len(axes[0]) == schedulers.example(family)["datacenter"]["processors"]
    if family == "vm_reservations":  # every PM the runs declare, grouped by type, one of them idle in every run
        declared = {n for run in doc["runs"] for n in run["extra"]["resources"]}
        used = {s["resource"] for run in doc["runs"] for s in run["schedule"]}
        assert set(axes[0]) == declared and declared - used
        assert axes[0] == sorted(axes[0], key=lambda n: (n.split("-")[0], int(n.split("-")[1])))
