"""Pure payload builders and schedule checks, on hand-made results."""

from cloudsched_web.runs import charts, checks, timeline
from tests.api.factories import parsed as ParsedResult


def _seg(job, res, s, e, share=1.0, **extra):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": share, **extra}


def _doc(schedule, metrics=None, series=None, jobs=None, **top):
    run = {"algorithm": "a", "repetition": 0, "metrics": metrics or {}, "schedule": schedule,
           "series": series or {}, "jobs": jobs or []}  # fmt: skip
    return {"runs": [run], "summary": {}, **top}


def test_bounds_pair_with_their_metric():
    assert charts.bound_pairs(["jct_s", "lp_bound_s", "jct_over_lp_bound", "energy"]) == {"lp_bound_s": "jct_s"}
    assert charts.bound_pairs(["energy_kwh", "lower_bound_energy_kwh"]) == {"lower_bound_energy_kwh": "energy_kwh"}


def test_the_table_shows_the_optimality_gap():
    result = {"summary": {"x": {"jct_s": {"mean": 110.0, "std": 1.0}, "lp_bound_s": {"mean": 100.0, "std": 0.0}}}}
    table = charts.summary_table(result)
    assert table["gaps"] == ["jct_s"]
    assert table["rows"][0]["gaps"][0]["text"] == "10.00%"
    assert charts.comparison(result)["jct_s"]["bound"] == {"name": "lp_bound_s", "value": 100.0}


def test_capacity_check_catches_overlap_when_capacities_are_reported():
    doc = _doc([_seg("1", "m0", 0, 10, 2.0), _seg("2", "m0", 5, 15, 2.0)], capacities={"m0": 3.0})
    result = checks.validity(doc)
    assert not result["ok"] and "capacity per resource" in result["failed"][0]
    back_to_back = _doc([_seg("1", "m0", 0, 10, 2.0), _seg("2", "m0", 10, 15, 2.0)], capacities={"m0": 2.0})
    assert checks.validity(back_to_back)["ok"]


def test_duplicate_job_records_and_a_beaten_bound_fail():
    doc = _doc([_seg("1", "m0", 0, 1)], metrics={"jct_s": 5.0, "lp_bound_s": 6.0, "jct_over_lp_bound": 0.8},
               jobs=[{"job": "1"}, {"job": "1"}])  # fmt: skip
    failed = checks.validity(doc)["failed"]
    assert any("every job recorded once" in f for f in failed) and any("jct_s ≥ lp_bound_s" in f for f in failed)


def test_energy_check_reads_the_time_unit():
    series = {"t": [0.0, 1.0, 2.0], "power_w": [100.0, 50.0, 0.0], "energy_j": [0.0, 6000.0, 9000.0]}
    doc = _doc([_seg("1", "m0", 0, 1)], series=series)
    assert checks.time_unit(doc["runs"][0]) == "min"
    assert checks.validity(doc)["ok"]
    series["energy_j"] = [0.0, 1.0, 99.0]
    assert not checks.validity(doc)["ok"]


def test_gantt_keeps_the_busiest_resources_and_the_longest_bars():
    schedule = [_seg(str(i), f"r{i % 50}", i, i + 1 + (i % 7)) for i in range(1000)]
    parsed = ParsedResult(_doc(schedule))
    g = timeline.gantt(parsed, 0, max_resources=10, max_bars=100)
    assert len(g["resources"]) == 10 and len(g["bars"]["s"]) == 100 and g["truncated"]
    assert g["window_resources"] == 50 and g["total_segments"] == 1000
    lengths = [e - s for s, e in zip(g["bars"]["s"], g["bars"]["e"], strict=True)]
    assert min(lengths) >= 4  # the short bars (1-3 long) gave way


def test_series_window_and_dvfs_frequency():
    schedule = [_seg("1", "vm0", 0, 10, freq_ghz=1.2, host="h0"), _seg("2", "vm1", 5, 20, freq_ghz=2.0, host="h0")]
    series = {"t": [float(t) for t in range(21)], "power_w": [10.0] * 21}
    parsed = ParsedResult(_doc(schedule, series=series))
    data = timeline.series(parsed, 0, 5, 8)
    power = data["series"]["power_w"]["a"]
    assert power["t"][0] <= 5 and power["t"][-1] <= 8
    assert "energy_j" in data["series"]  # derived from the power curve when the family has none
    host = data["frequency"]["hosts"]["h0"]
    assert max(host["v"]) == 2.0


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
    g = timeline.gantt(parsed, 0)
    assert g["bars"]["s"] == [] and g["resources"] == [] and not g["truncated"]
    data = timeline.series(parsed, 0)
    assert data["series"] == {} and data["frequency"] is None
    assert checks.validity(parsed.doc)["ok"]


def test_the_gantt_says_when_the_family_capped_its_recording():
    doc = _doc([_seg("1", "m0", 0, 1)])
    doc["runs"][0]["extra"] = {"schedule_truncated": True}
    assert timeline.gantt(ParsedResult(doc), 0)["recording_cut"] is True
    assert timeline.gantt(ParsedResult(_doc([_seg("1", "m0", 0, 1)])), 0)["recording_cut"] is False


def test_diff_colours_waiting_before_moving():
    a = [_seg("1", "m0", 0, 5), _seg("2", "m1", 0, 5), _seg("3", "m0", 5, 9)]
    b = [_seg("1", "m0", 2, 7), _seg("2", "m0", 0, 5), _seg("3", "m0", 5, 9)]
    doc = _doc(a)
    doc["runs"].append({**doc["runs"][0], "algorithm": "b", "schedule": b})
    d = timeline.diff(ParsedResult(doc), 0, 1)
    assert d["status"] == {"1": "later", "2": "moved"}
    assert (d["jobs"], d["changed"], d["later"], d["moved"]) == (3, 2, 1, 1)
