"""Pure payload builders and schedule checks, on hand-made results."""

import numpy as np
import pyarrow as pa
import pytest

from cloudsched_web.results import bounds, charts, checks, cuts, gantt, jobdiff, lanes, strips
from cloudsched_web.results import series as series_chart
from cloudsched_web.results.bars import plain_bars
from cloudsched_web.results.queries import QueryError
from tests.api.factories import parsed as ParsedResult


def _seg(job, res, s, e, share=1.0, **extra):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": share, **extra}


def _doc(schedule, metrics=None, series=None, jobs=None, **top):
    run = {"algorithm": "a", "repetition": 0, "metrics": metrics or {}, "schedule": schedule,
           "series": series or {}, "jobs": jobs or []}  # fmt: skip
    return {"runs": [run], "summary": {}, **top}


def test_bounds_pair_with_their_metric():
    assert bounds.bound_pairs(["jct_s", "lp_bound_s", "jct_over_lp_bound", "energy"]) == {"lp_bound_s": "jct_s"}
    assert bounds.bound_pairs(["energy_kwh", "lower_bound_energy_kwh"]) == {"lower_bound_energy_kwh": "energy_kwh"}


def test_the_table_shows_the_optimality_gap():
    result = {"summary": {"x": {"jct_s": {"mean": 110.0, "std": 1.0}, "lp_bound_s": {"mean": 100.0, "std": 0.0}}}}
    table = charts.summary_table(result)
    assert table["gaps"] == ["jct_s"]
    gap = next(r for r in table["rows"] if r.get("gap"))
    assert gap["name"] == "gap:jct_s" and gap["cells"][0]["value"] == pytest.approx(0.1)
    assert charts.comparison(result)["jct_s"]["bound"] == {"name": "lp_bound_s", "value": 100.0}


def test_capacity_check_catches_overlap_when_capacities_are_reported():
    doc = _doc([_seg("1", "m0", 0, 10, 2.0), _seg("2", "m0", 5, 15, 2.0)], capacities={"m0": 3.0})
    result = checks.validity(doc)
    assert not result["ok"] and "capacity per resource" in result["failed"][0]
    back_to_back = _doc([_seg("1", "m0", 0, 10, 2.0), _seg("2", "m0", 10, 15, 2.0)], capacities={"m0": 2.0})
    assert checks.validity(back_to_back)["ok"]


def test_a_capacity_check_over_many_resources_says_how_many_it_does_not_name():
    segs = [_seg(str(k), f"m{k}", 0, 10, 2.0) for k in range(8)] + [_seg("x", "m9", 0, 10, 1.0)]
    doc = _doc(segs, capacities={f"m{k}": 1.0 for k in range(10)})
    check = next(c for c in checks.validity(doc)["runs"][0]["checks"] if c["name"] == "capacity per resource")
    assert check["status"] == "fail"
    assert check["detail"] == ("9 resources; m0: 2 > 1; m1: 2 > 1; m2: 2 > 1; m3: 2 > 1; m4: 2 > 1; "
                               "and 3 more resources over their capacity")  # fmt: skip


def test_checks_on_columns_match_checks_on_records_resource_by_resource():
    from schedulers.core.columns import Columns

    segs = [_seg("1", "m0", 0, 10, 2.0), _seg("2", "m1", 0, 10, 2.0), _seg("3", "m0", 10, 12, 3.0),
            _seg("4", "m1", 5, 8, 2.0), _seg("5", "m2", 0, 9, 50.0), _seg("6", "m1", 8, 9, 1.0)]  # fmt: skip
    doc = _doc(segs, capacities={"m0": 3.0, "m1": 3.0}, jobs=[{"job": str(j)} for j in range(1, 6)])
    as_columns = {**doc, "runs": [{**r, "schedule": Columns.from_records(r["schedule"]),
                                   "jobs": Columns.from_records(r["jobs"])} for r in doc["runs"]]}  # fmt: skip
    by_records, by_columns = checks.validity(doc), checks.validity(as_columns)
    assert by_records == by_columns
    details = {c["name"]: c["detail"] for c in by_columns["runs"][0]["checks"]}
    # m0 back to back; m2 has no capacity, which fails too (the contract checks every resource)
    assert details["capacity per resource"] == "3 resources; m1: 4 > 3; without a capacity: m2"
    assert details["every job accounted for"] == (
        "5 jobs; 1 scheduled without a record; not checked: the records carry no status"
    )
    # what the reader sees: the check's own status and the badge, not only its detail
    statuses = {c["name"]: c["status"] for c in by_columns["runs"][0]["checks"]}
    assert statuses["every job accounted for"] == "fail" and statuses["capacity per resource"] == "fail"
    assert by_columns["ok"] is False and "a #0: every job accounted for" in by_columns["failed"]


def test_a_job_scheduled_without_a_record_fails_the_check_and_the_badge():
    done = {"status": "finished"}
    for jobs in ([{"job": "1", **done}], [{"job": "1", **done}, {"job": "2", **done}]):
        doc = _doc([_seg("1", "m0", 0, 1), _seg("2", "m0", 1, 2)], jobs=jobs)
        doc["runs"][0]["extra"] = {"validity": {"jobs": len(jobs), "ready": [], "precedence": None}}
        result = checks.validity(doc)
        check = next(c for c in result["runs"][0]["checks"] if c["name"] == "every job accounted for")
        missing = 2 - len(jobs)
        assert check["detail"] == f"{len(jobs)} jobs of {len(jobs)}: {len(jobs)} finished" + (
            "; 1 scheduled without a record" if missing else ""
        )
        assert check["status"] == ("fail" if missing else "pass") and result["ok"] is (not missing)


def test_checks_read_series_given_as_numpy_arrays():
    import numpy as np

    series = {"t": [0.0, 1.0, 3.0], "power_w": [10.0, 20.0, 20.0], "energy_j": [0.0, 10.0, 50.0]}
    as_lists = checks.validity(_doc([_seg("1", "m0", 0, 1)], series=series))
    as_arrays = checks.validity(_doc([_seg("1", "m0", 0, 1)], series={k: np.array(v) for k, v in series.items()}))
    assert as_lists == as_arrays and "energy = ∫ power" in as_arrays["ran"]


def test_duplicate_job_records_and_a_beaten_bound_fail():
    doc = _doc([_seg("1", "m0", 0, 1)], metrics={"jct_s": 5.0, "lp_bound_s": 6.0, "jct_over_lp_bound": 0.8},
               jobs=[{"job": "1"}, {"job": "1"}])  # fmt: skip
    failed = checks.validity(doc)["failed"]
    assert any("every job accounted for" in f for f in failed) and any("jct_s ≥ lp_bound_s" in f for f in failed)


def test_energy_check_reads_the_time_unit():
    series = {"t": [0.0, 1.0, 2.0], "power_w": [100.0, 50.0, 0.0], "energy_j": [0.0, 6000.0, 9000.0]}
    doc = _doc([_seg("1", "m0", 0, 1)], series=series)
    assert checks.time_unit(doc["runs"][0]) == "min"
    assert checks.validity(doc)["ok"]
    series["energy_j"] = [0.0, 1.0, 99.0]
    assert not checks.validity(doc)["ok"]


def test_gantt_pages_through_every_resource_and_drops_no_bar():
    schedule = [_seg(str(i), f"r{i % 50}", i, i + 1 + (i % 7)) for i in range(1000)]
    parsed = ParsedResult(_doc(schedule))
    seen = []
    for row0 in range(0, 50, 20):
        g = gantt.gantt(parsed, 0, row0=row0, rows=20, max_bars=5000)
        assert g["mode"] == "bars" and g["total_resources"] == 50
        b = plain_bars(g["bars"])
        seen += [(g["resources"][r], s, e) for r, s, e in zip(b["r"], b["s"], b["e"], strict=True)]
    assert len(seen) == 1000  # every segment on some page, none twice
    assert sorted(seen) == sorted((s["resource"], s["start"], s["end"]) for s in schedule)
    assert gantt.gantt(parsed, 0, rows=20)["resources"][:3] == ["r0", "r1", "r2"]  # natural order


def test_past_the_bar_budget_the_gantt_shows_exact_occupancy():
    # Row m0: busy with share 1 on [0, 10) and share 0.5 on [20, 40); row m1: [5, 6).
    schedule = [_seg("1", "m0", 0, 10), _seg("2", "m0", 20, 40, share=0.5), _seg("3", "m1", 5, 6)]
    g = gantt.gantt(ParsedResult(_doc(schedule)), 0, 0, 40, pixels=4, max_bars=2)
    assert g["mode"] == "occupancy" and g["bars"]["n"] == 0 and g["window_segments"] == 3
    occ = g["occupancy"]
    assert occ["columns"] == 4 and occ["t"] == [0.0, 40.0]
    assert occ["rows"][0] == [1.0, 0.0, 0.5, 0.5]
    assert occ["rows"][1] == [0.1, 0.0, 0.0, 0.0]
    # Zoomed in, the same rows come back as bars.
    zoom = gantt.gantt(ParsedResult(_doc(schedule)), 0, 0, 8, max_bars=2)
    assert zoom["mode"] == "bars" and sorted(plain_bars(zoom["bars"])["s"]) == [0.0, 5.0]


def test_occupancy_uses_the_capacity_the_family_reports():
    doc = _doc([_seg("1", "h0", 0, 10, share=2), _seg("2", "h0", 0, 5, share=1), _seg("3", "h1", 0, 1)])
    doc["runs"][0]["extra"] = {"capacities": {"h0": 4}}
    g = gantt.gantt(ParsedResult(doc), 0, 0, 10, pixels=2, max_bars=1)
    assert g["occupancy"]["rows"][0] == [0.75, 0.5]


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"row0": 5}, "row0"), ({"rows": 0}, "rows"), ({"pixels": "x"}, "pixels")]
)
def test_gantt_paging_arguments_are_checked(kwargs, field):
    parsed = ParsedResult(_doc([_seg("1", "m0", 0, 1)]))
    with pytest.raises(QueryError) as info:
        gantt.gantt(parsed, 0, **kwargs)
    assert info.value.field == field


def test_series_window_and_dvfs_frequency():
    schedule = [_seg("1", "vm0", 0, 10, freq_ghz=1.2, host="h0"), _seg("2", "vm1", 5, 20, freq_ghz=2.0, host="h0")]
    series = {"t": [float(t) for t in range(21)], "power_w": [10.0] * 21}
    parsed = ParsedResult(_doc(schedule, series=series))
    data = series_chart.series(parsed, 0, 5, 8)
    power = data["series"]["power_w"]["a"]
    assert power["t"][0] <= 5 and power["t"][-1] <= 8
    assert "energy_j" in data["series"]  # derived from the power curve when the family has none
    freq = strips.strips(parsed, 0, 5, 8)
    strip = freq["runs"][0]
    assert strip["hosts"] == ["h0"] and freq["exact"] and freq["window"] == [5.0, 8.0] and freq["range"] == [1.2, 2.0]
    # h0 from 5 to 8 runs vm0 at 1.2 and vm1 at 2.0 GHz: the highest, 2.0, all along (no change inside)
    assert strip["levels"] == [0.0, 1.2, 2.0] and strip["strips"] == [{"t": [5.0, 8.0], "f": [2]}]
    whole = strips.strips(parsed, 0)["runs"][0]["strips"][0]  # 2.0 from 5 to 20, 1.2 before
    assert whole == {"t": [0.0, 5.0, 20.0], "f": [1, 2]}


def test_study_curves_sort_by_parameter():
    class R:
        def __init__(self, pk, x):
            self.pk, self.point = pk, {"workload.load": x}

    class S:
        axes = ["workload.load"]

    pairs = [(R(2, 0.9), {"a": {"m": {"mean": 3.0, "std": 0.5}}}), (R(1, 0.5), {"a": {"m": {"mean": 1.0, "std": 0.1}}})]
    payload = charts.study_payload(S(), pairs)
    assert payload["metrics"]["m"]["a"] == [
        {"x": 0.5, "y": 1.0, "err": 0.1, "run": 1},
        {"x": 0.9, "y": 3.0, "err": 0.5, "run": 2},
    ]


def test_a_run_without_schedule_or_series_gives_empty_charts_not_errors():
    parsed = ParsedResult(_doc([]))
    g = gantt.gantt(parsed, 0)
    assert g["bars"]["n"] == 0 and g["resources"] == [] and g["mode"] == "bars"
    data = series_chart.series(parsed, 0)
    assert data["series"] == {} and "frequency" not in data and strips.strips(parsed, 0)["runs"] == []
    assert checks.validity(parsed.doc)["ok"]


def test_the_gantt_says_when_the_family_capped_its_recording():
    doc = _doc([_seg("1", "m0", 0, 1)])
    doc["runs"][0]["extra"] = {"schedule_truncated": True}
    assert gantt.gantt(ParsedResult(doc), 0)["recording_cut"] is True
    assert gantt.gantt(ParsedResult(_doc([_seg("1", "m0", 0, 1)])), 0)["recording_cut"] is False


def test_schedule_cuts_are_read_from_schedule_cut_and_from_the_legacy_flags():
    doc = {"runs": [
        {"algorithm": "easy", "repetition": 0, "extra": {"schedule_cut": {"limit": 5, "recorded": 5, "cut_at_s": 7.5}}},
        {"algorithm": "keasy", "repetition": 0, "extra": {"schedule_truncated": True}},
        {"algorithm": "dcls", "repetition": 1, "metrics": {"schedule_truncated": 1}},
        {"algorithm": "fcfs", "repetition": 0, "metrics": {"schedule_truncated": 0}, "extra": {}},
    ]}  # fmt: skip
    unknown = {"limit": None, "recorded": None, "cut_at_s": None}
    assert cuts.schedule_cuts(doc) == [
        {"algorithm": "easy", "repetition": 0, "limit": 5, "recorded": 5, "cut_at_s": 7.5},
        {"algorithm": "keasy", "repetition": 0, **unknown},
        {"algorithm": "dcls", "repetition": 1, **unknown},
    ]
    assert [cuts.recording_cut(r) for r in doc["runs"]] == [True, True, True, False]


def test_diff_colours_waiting_before_moving():
    a = [_seg("1", "m0", 0, 5), _seg("2", "m1", 0, 5), _seg("3", "m0", 5, 9)]
    b = [_seg("1", "m0", 2, 7), _seg("2", "m0", 0, 5), _seg("3", "m0", 5, 9)]
    doc = _doc(a)
    doc["runs"].append({**doc["runs"][0], "algorithm": "b", "schedule": b})
    parsed = ParsedResult(doc)
    d = jobdiff.diff(parsed, 0, 1)
    codes = jobdiff.status_of(parsed, 0, None, 1)(pa.array(["1", "2", "3"]))
    assert [jobdiff.STATUSES[c] for c in codes] == ["later", "moved", "same"]
    assert [r["job"] for r in d["rows"]] == ["1", "2"]
    assert (d["jobs"], d["changed"], d["later"], d["moved"]) == (3, 2, 1, 1)


def test_memoised_indexes_of_one_result_never_collide():
    """The pages and the API share one cached result: each derived index has its own memo key."""
    from cloudsched_web.results import queries

    series = {"t": [0.0, 1.0, 2.0], "power_w": [1.0, 2.0, 0.0]}
    parsed = ParsedResult(_doc([_seg("1", "m0", 0, 1)], series=series))
    assert queries.series(parsed, 0)["series"]["power_w"]["v"] == [1.0, 2.0, 0.0]
    assert series_chart.series(parsed, 0)["series"]["power_w"]["a"]["v"] == [1.0, 2.0, 0.0]
    assert checks.time_unit({"series": parsed.series_arrays(0)}) == "s"
    assert jobdiff.diff(parsed, 0, 0)["jobs"] == 1 and queries.jobs(parsed, 0)["total"] == 0


def test_dvfs_bot_series_integrate_to_the_recorded_energy_so_the_badge_holds():
    """The stored power series is every change point: ∫ power equals the energy. With the old default
    (2,000 points keeping bucket maxima) a run with more change points failed its own validity badge."""
    import schedulers

    config = schedulers.preset("dvfs_bot", "table2", "small")["scenarios"][0]
    config["algorithms"] = ["cloud_aware"]
    result = schedulers.run(config)
    points = len(result["runs"][0]["series"]["t"])  # change points only (repeated levels dropped)
    report = checks.validity(result)
    assert report["ok"] and "energy = ∫ power" in report["ran"], report["failed"]
    config["params"] = {**config.get("params", {}), "series_points": points // 3}
    assert not checks.validity(schedulers.run(config))["ok"]  # the stated cap, when a user sets it


def test_a_long_exact_series_is_shown_area_preserving_with_its_extremes_under_1_mb():
    """400,000 change points (a 200k-job run's worth) stored exactly; the pages' windows and the API
    downsample for display: bucket means keep ∫ power = energy, the min/max band keeps every spike."""
    import json

    import numpy as np

    from cloudsched_web.results import queries

    rng = np.random.default_rng(1)
    t = np.cumsum(rng.exponential(30.0, 400_000))
    power = rng.choice([0.0, 250.0, 900.0, 1300.0], t.size) + rng.integers(1, 10, t.size)
    power[123_456] = 50_000.0  # one spike, one instant wide
    power[-1] = 0.0
    energy = float(np.sum(power[:-1] * np.diff(t)))
    series = {
        "t": t.tolist(),
        "power_w": power.tolist(),
        "energy_j": np.concatenate([[0.0], np.cumsum(power[:-1] * np.diff(t))]).tolist(),
    }
    doc = _doc([_seg("1", "m0", 0, 1)], metrics={"energy_j": energy}, series=series)
    parsed = ParsedResult(doc)
    assert checks.validity(doc)["ok"]  # the exact series integrates to the metric
    page = series_chart.series(parsed, 0)
    api = queries.series(parsed, 0, points=queries.MAX_SERIES_POINTS)
    for payload, shown in ((page, page["series"]["power_w"]["a"]), (api, api["series"]["power_w"])):
        assert len(json.dumps(payload)) < 1_000_000
        buckets = len(shown["t"]) - (payload is page)  # the page's line ends on a closing point
        width = (t[-1] - t[0]) / buckets
        assert sum(shown["v"][:buckets]) * width == pytest.approx(energy, rel=1e-6)  # the area is kept
        assert max(shown["max"]) == 50_000.0 and min(shown["min"][:buckets]) == 1.0  # so are the extremes


def test_dvfs_strip_is_idle_where_no_core_runs():
    """Rounding noise of the cumulative sums never reads as a frequency where no core of the host runs."""
    import numpy as np

    import schedulers

    result = schedulers.run(schedulers.example("dvfs_bot"))
    parsed = ParsedResult(result)
    lo, hi = parsed.span(0)
    levels = strips.host_levels(parsed, 0)
    edges = np.linspace(lo, hi, 601)
    assert levels  # hosts ran something: the loop below checks each
    for h, (t, level) in levels.items():
        _, ghz = strips.columns(t, level, lo, hi, 600)
        segs = [s for s in result["runs"][0]["schedule"] if s["host"] == h]
        for k, v in enumerate(ghz):
            ran = any(s["start"] < edges[k + 1] and s["end"] > edges[k] for s in segs)
            assert ran or v is None, f"{h} column {k}: {v} GHz with no segment running"


def test_lanes_keep_overlapping_segments_apart_at_every_zoom():
    # m0: three VMs, two at a time at most; m1: back to back (one lane).
    schedule = [_seg("a", "m0", 0, 10), _seg("b", "m0", 2, 6), _seg("c", "m0", 6, 12), _seg("d", "m0", 10, 11),
                _seg("e", "m1", 0, 5), _seg("f", "m1", 5, 9)]  # fmt: skip
    parsed = ParsedResult(_doc(schedule))
    g = gantt.gantt(parsed, 0)
    assert g["resources"] == ["m0", "m1"] and g["lanes"] == [2, 1]
    lane = dict(zip(plain_bars(g["bars"])["job"], g["bars"]["lane"], strict=True))
    assert lane == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 0, "f": 0}  # greedy: the lowest free lane
    zoom = gantt.gantt(parsed, 0, 7, 12)  # "a" still holds lane 0 when b is out of the window
    assert dict(zip(plain_bars(zoom["bars"])["job"], zoom["bars"]["lane"], strict=True)) == {
        "a": 0,
        "c": 1,
        "d": 0,
        "f": 0,
    }


def test_rows_are_grouped_by_host_and_paged_through_groups():
    schedule = [_seg(str(i), f"vm{i}", 0, 1, host=f"h{i % 3}") for i in range(9)]
    g = gantt.gantt(ParsedResult(_doc(schedule)), 0, rows=4)
    assert g["group_by"] == "host"
    assert g["groups"] == [{"name": "h0", "row0": 0, "rows": 3}, {"name": "h1", "row0": 3, "rows": 3},
                           {"name": "h2", "row0": 6, "rows": 3}]  # fmt: skip
    assert g["resources"] == ["vm0", "vm3", "vm6", "vm1"] and g["total_resources"] == 9


def test_colour_modes_per_bar_and_the_dominant_category_of_a_block():
    schedule = [_seg("1", "s0", 0, 6, kind="be", cloud="c1"), _seg("2", "s0", 6, 8, kind="ar", cloud="c1", ended="preempted"),
                _seg("3", "s1", 0, 8, kind="ar", cloud="c2")]  # fmt: skip
    parsed = ParsedResult(_doc(schedule))
    g = gantt.gantt(parsed, 0)
    modes = {m["key"]: m for m in g["colour"]["modes"]}
    assert set(modes) == {"job", "state", "cloud"}
    assert modes["state"]["categories"] == ["AR lease", "AR lease, preempted", "BE lease"]
    state = [modes["state"]["categories"][c] for c in g["bars"]["c"]["state"]]
    assert dict(zip(plain_bars(g["bars"])["job"], state, strict=True)) == {
        "1": "BE lease",
        "2": "AR lease, preempted",
        "3": "AR lease",
    }
    occ = gantt.gantt(parsed, 0, pixels=2, max_bars=1)  # columns [0, 4) and [4, 8)
    assert occ["mode"] == "occupancy"
    # s0's second column: BE 2 time units, preempted AR 2 → a tie goes to the lower index; first column: BE only.
    first, second = occ["occupancy"]["c"]["state"][0]
    assert modes["state"]["categories"][ord(first) - 48] == "BE lease"
    assert modes["state"]["categories"][ord(second) - 48] == "AR lease, preempted"
    assert occ["occupancy"]["c"]["cloud"] == ["00", "11"]


def test_a_frequency_block_is_the_busy_weighted_mean():
    schedule = [
        _seg("1", "vm0", 0, 3, freq_ghz=1.0),
        _seg("2", "vm0", 3, 4, freq_ghz=2.0),
        _seg("3", "vm1", 0, 4, freq_ghz=2.0),
    ]
    occ = gantt.gantt(ParsedResult(_doc(schedule)), 0, pixels=2, max_bars=1)["occupancy"]
    # vm0, column [2, 4): 1 unit at 1.0 and 1 at 2.0 → 1.5 GHz, the middle of the range [1, 2]: level 32 of 63.
    assert occ["c"]["freq"][0] == chr(48) + chr(48 + 32)


def test_events_come_from_segment_ends_and_job_records():
    schedule = [_seg("1", "m0", 0, 4, ended="killed"), _seg("1", "m1", 5, 9), _seg("2", "m1", 0, 2, ended="preempted")]
    jobs = [{"job": "1", "arrival": 0.0, "rejected": False}, {"job": "3", "arrival": 7.0, "rejected": True}]
    parsed = ParsedResult(_doc(schedule, jobs=jobs))
    ev = gantt.gantt(parsed, 0)["events"]
    assert list(zip(ev["kind"], ev["t"], ev["r"], ev["job"], strict=True)) == [
        ("preempted", 2.0, 1, "2"), ("killed", 4.0, 0, "1"), ("rejected", 7.0, -1, "3")]  # fmt: skip
    assert ev["kinds"] == ["killed", "preempted", "rejected"]
    assert gantt.gantt(parsed, 0, 3, 6)["events"]["kind"] == ["killed"]


def test_zoom_hint_only_where_zooming_can_show_bars():
    spread = [_seg(str(i), "m0", i, i + 1) for i in range(10)]
    g = gantt.gantt(ParsedResult(_doc(spread)), 0, pixels=10, max_bars=3)
    assert g["mode"] == "occupancy" and g["zoom_shows_bars"]
    stacked = [_seg(str(i), "m0", 0, 10) for i in range(10)]  # ten at every instant: no window shows ≤ 3
    g = gantt.gantt(ParsedResult(_doc(stacked)), 0, pixels=10, max_bars=3)
    assert g["mode"] == "occupancy" and not g["zoom_shows_bars"]


def test_schedule_cut_is_read_from_the_new_and_the_old_key():
    doc = _doc([_seg("1", "m0", 0, 1)])
    doc["runs"][0]["extra"] = {"schedule_cut": {"limit": 1, "recorded": 1, "cut_at_s": 1.0}}
    assert gantt.gantt(ParsedResult(doc), 0)["schedule_cut"] == {"limit": 1, "recorded": 1, "cut_at_s": 1.0}
    doc["runs"][0]["extra"] = {"schedule_truncated": True}
    assert gantt.gantt(ParsedResult(doc), 0)["schedule_cut"] == {"limit": None, "recorded": 1, "cut_at_s": 1.0}


def test_the_row_events_merge_equals_a_full_sort():
    """lanes._events_by_row (merge of the start-ordered starts with the sorted ends, then a stable
    sort by row) gives the same per-row running counts as a 3-key sort by (row, time, end first)."""
    import numpy as np

    rng = np.random.default_rng(7)
    for trial in range(300):
        n, n_rows = int(rng.integers(1, 60)), int(rng.integers(1, 6))
        starts = np.sort(rng.integers(0, 20, n).astype(float))
        ends = starts + rng.integers(0, 6, n)  # zero-length and touching segments included
        codes = rng.integers(0, n_rows, n)
        if trial % 3 == 0:  # starts out of order
            p = rng.permutation(n)
            starts, ends, codes = starts[p], ends[p], codes[p]
        step = np.concatenate([np.ones(n, np.int8), -np.ones(n, np.int8)])
        rows = np.concatenate([codes, codes])
        order = np.lexsort((step, np.concatenate([starts, ends]), rows))
        got_step, got_rows = lanes._events_by_row(starts, ends, codes, n_rows)
        assert got_rows.tolist() == rows[order].tolist(), trial
        for r in range(n_rows):  # the running count inside each row, step by step
            assert np.cumsum(got_step[got_rows == r]).tolist() == np.cumsum(step[order][rows[order] == r]).tolist()


@pytest.mark.parametrize(
    ("start", "end", "bad"),
    [
        ([0.0, 1.0], [1.0, 2.0], 0),
        ([0.0, 5.0], [1.0, 4.0], 1),
        ([-1.0, 0.0], [1.0, 1.0], 1),
        ([0.0, float("nan")], [1.0, 2.0], 1),
        ([0.0, 1.0], [1.0, float("inf")], 1),
        ([0.0, 1.0], [float("nan")] * 2, 2),
    ],
)
def test_well_formed_counts_every_bad_segment_from_columns_and_lists(start, end, bad):
    from schedulers.core.columns import Columns, coded

    cols = Columns({"start": np.array(start), "end": np.array(end), "job": coded([0, -1], ["a"])})
    for schedule in (cols, [dict(zip(("start", "end"), p, strict=True)) for p in zip(start, end, strict=True)]):
        check = checks.well_formed({"schedule": schedule})
        assert check["status"] == ("pass" if bad == 0 else "fail")
        assert f", {bad} with end < start" in check["detail"]


def test_a_bar_that_crosses_a_zoomed_windows_edge_keeps_its_exact_times():
    """Inside a window a bar's times come in ticks of q (exact to q); a bar reaching past either edge carries its
    stored start and end exactly (``edge``): the left edge, the right edge, both, and neither."""
    exact = {"left": (0.123456789, 3.1415926535), "right": (3.3333333333, 7.7777777777),
             "both": (1.0000001, 9.9999999), "inside": (2.5, 4.25)}  # fmt: skip
    schedule = [_seg(job, f"m{k}", s, e) for k, (job, (s, e)) in enumerate(exact.items())]
    g = gantt.gantt(ParsedResult(_doc(schedule)), 0, 2.0, 5.0)
    assert g["mode"] == "bars" and g["bars"]["n"] == 4
    bars = plain_bars(g["bars"])
    got = {job: (s, e) for job, s, e in zip(bars["job"], bars["s"], bars["e"], strict=True)}
    assert set(got) == set(exact)
    for job in ("left", "right", "both"):
        assert got[job] == exact[job], job  # bit for bit
    assert got["inside"] == pytest.approx(exact["inside"], abs=g["bars"]["q"])
