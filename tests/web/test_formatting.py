"""The number formatter of the result pages (results.formatting) and the one spread per metric (charts.spread)."""

import pytest

from cloudsched_web.results import charts, formatting

T = formatting.THIN
D = {"kind": "duration", "unit": "s"}


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [
        (1000, {"kind": "count"}, f"1{T}000"),
        (1234567, {"kind": "count"}, f"1{T}234{T}567"),
        (4.5, {"kind": "count"}, "4.5"),  # a mean over repetitions
        (1.0, {"kind": "flag"}, "✓"),
        (0.0, {"kind": "flag"}, "✗"),
        (2 / 3, {"kind": "flag"}, "✓ 67 %"),
        (0.0123, D, "12.3 ms"),
        (3.2, D, "3.2 s"),
        (0.0, D, "0 s"),
        (750, D, "12.5 min"),
        (144_720, D, "40.2 h"),
        (1.447e5, D, "40.2 h"),
        (254_234.2, D, "2 d 23 h"),
        (10_615, {"kind": "duration", "unit": "min"}, "7 d 9 h"),
        (500, {"kind": "energy", "unit": "Wh"}, "500 Wh"),
        (2.9227, {"kind": "energy", "unit": "kWh"}, "2.92 kWh"),
        (1234.5, {"kind": "energy", "unit": "kWh"}, "1.23 MWh"),
        (10_521_723.5, {"kind": "energy", "unit": "J"}, "2.92 kWh"),
        (1500, {"kind": "power", "unit": "W"}, "1.5 kW"),
        (1.3484, {"kind": "frequency", "unit": "GHz"}, "1.35 GHz"),
        (0.53183, {"kind": "fraction"}, "53.2 %"),
        (1.0, {"kind": "ratio"}, "1"),
        (1.0914267, {"kind": "ratio"}, "1.091"),
        (0.0000123, {"kind": "ratio"}, "0.0000123"),
        (77_341.6, {"kind": "quantity", "unit": "α·vCPU·s"}, f"77{T}342 α·vCPU·s"),
        (1000.0, None, f"1{T}000"),  # an undeclared metric: never 1000.0000
        (None, D, "—"),
        # a load of 1e-300 once gave a 400-digit makespan: from 1e15 on, a number is written by its magnitude
        (1.16e300, D, "1.34 × 10²⁹⁵ d"),
        (9.99e14, {"kind": "count"}, f"999{T}000{T}000{T}000{T}000"),
        (1e15, {"kind": "count"}, "1 × 10¹⁵"),
        (-2.5e20, None, "-2.5 × 10²⁰"),
        (1.23456789e300, {"kind": "energy", "unit": "kWh"}, "1.23 × 10²⁹⁴ GWh"),
    ],
)
def test_values_read_as_a_person_writes_them(value, spec, text):
    assert formatting.value_text(value, spec) == text


def test_spreads_tooltips_and_axis_units():
    assert formatting.spread_text(26_408.3, 24_217.6, D) == "± 6.7 h"
    assert formatting.spread_text(254_234.2, 3600 * 7.1, D) == "± 7.1 h"  # beside "2 d 23 h": in hours
    assert formatting.spread_text(0.5, 0.012, {"kind": "fraction"}) == "± 1.2 pp"
    assert formatting.spread_text(5, 0, {"kind": "count"}) == ""
    assert formatting.exact_text(254_234.244005, D) == f"254{T}234.244005 s"  # every digit the float holds
    assert formatting.exact_text(122_420_000.125, D) == f"122{T}420{T}000.125 s"  # the diff table at t ≈ 1.2e8 s
    assert formatting.exact_text(0.1 + 0.2, D) == "0.3 s"  # and no float noise
    assert formatting.exact_text(10, {"kind": "duration", "unit": "min"}) == "600 s"
    assert formatting.value_text(1800, D, ref=7200) == "0.5 h"  # a chart tick takes its axis's unit
    assert formatting.exact_text(1e300, D) == "1 × 10³⁰⁰ s"  # the tooltip too: never 301 digits


def test_one_spread_per_metric_and_its_label():
    reps = {"mean": 10.0, "std": 2.0, "ci": 4.97, "n": 2}
    assert charts.spread(reps, {"mean": 1.0}, {"label": "batch"}) == {
        "value": 4.97,
        "source": "repetitions",
        "n": 2,
        "std": 2.0,
        "label": "± 95 % CI over 2 repetitions",
    }
    one = {"mean": 10.0, "std": 0.0, "ci": 0.0, "n": 1}
    assert charts.spread(one, {"mean": 1.5}, {"label": "95 % CI within the run"})["label"] == "± 95 % CI within the run"
    assert charts.spread(one) is None


def test_the_table_folds_within_run_cis_into_their_metric():
    result = {
        "family": "backfill",
        "runs": [{"algorithm": "easy", "repetition": 0}],
        "summary": {
            "easy": {
                "avg_response_time_s": {"mean": 100.0, "std": 0.0, "ci": 0.0, "n": 1},
                "avg_response_time_ci_s": {"mean": 7.0, "std": 0.0, "ci": 0.0, "n": 1},
                "jobs": {"mean": 200.0, "std": 0.0, "ci": 0.0, "n": 1},
            }
        },
    }
    table = charts.summary_table(result)
    assert [r["name"] for r in table["rows"]] == ["avg_response_time_s", "jobs"]  # summary metrics first
    cell = table["rows"][0]["cells"][0]
    assert cell["spread"] == 7.0 and cell["spread_title"].startswith("95 % CI within the run")
    assert table["notes"] == ["± 95 % CI within the run (batch means over its jobs)"]
    assert "avg_response_time_ci_s" not in charts.comparison(result)


def test_study_points_carry_their_spread_beside_the_curves():
    class R:
        def __init__(self, pk, x):
            self.pk, self.point = pk, {"workload.load": x}

    class S:
        axes = ["workload.load"]

    three = {"mean": 3.0, "std": 0.5, "ci": 1.24, "n": 3}
    pairs = [(R(2, 0.9), {"a": {"m": three}}), (R(1, 0.5), {"a": {"m": {"mean": 1.0, "std": 0.0, "ci": 0.0, "n": 1}}})]
    payload = charts.study_payload(S(), pairs)
    assert [p["x"] for p in payload["metrics"]["m"]["a"]] == [0.5, 0.9]
    assert payload["spreads"]["m"]["a"] == [None, {"value": 1.24, "label": "± 95 % CI over 3 repetitions"}]
    assert payload["specs"]["m"]["kind"] == "number"  # no family: an undeclared plain number


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.6 * 262, "157.2"),
        (0.1 * 3, "0.3"),
        (4, "4"),
        (0.5, "0.5"),
        (1e-05, "1e-05"),
        ("easy", "easy"),
        (1 / 3, "0.333333333333"),
    ],
)
def test_swept_settings_read_without_float_noise(value, text):
    assert formatting.setting_text(value) == text


def test_second_axis_labels_carry_no_float_noise():
    class R:
        def __init__(self, pk, x, g):
            self.pk, self.point = pk, {"workload.load": x, "workload.rate": g}

    class S:
        axes = ["workload.load", "workload.rate"]

    stat = {"mean": 1.0, "std": 0.0, "ci": 0.0, "n": 1}
    grid = [(0.5, 0.1 * 3), (0.5, 0.7), (0.9, 0.1 * 3), (0.9, 0.7)]
    pairs = [(R(k, x, g), {"a": {"m": stat}}) for k, (x, g) in enumerate(grid)]
    assert sorted(charts.study_payload(S(), pairs)["metrics"]["m"]) == ["a · rate=0.3", "a · rate=0.7"]


@pytest.mark.django_db
def test_the_study_runs_table_writes_swept_values_without_float_noise(alice_client, alice, toy_scenario):
    from cloudsched_web.runs.models import Run, Study
    from cloudsched_web.scenarios.models import Scenario

    sc = Scenario.objects.create(owner=alice, family="toy", name="s", config=toy_scenario)
    study = Study.objects.create(scenario=sc, name="sweep", axes=["workload.rate"])
    Run.objects.create(scenario=sc, study=study, config=sc.config, point={"workload.rate": 0.6 * 262})
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert "workload.rate=157.2 " in page and "157.20000000000002" not in page.split('id="study-payload"')[0]


def test_a_page_writes_energy_in_one_unit_chosen_by_its_largest_value():
    """dvfs_bot: 500 Wh beside 2.92 kWh read as 0.5 kWh and 2.92 kWh; the J repeat of the kWh metric is no row."""
    result = {"family": "dvfs_bot", "summary": {
        "cloud_aware": {"energy_kwh": {"mean": 0.5}, "energy_j": {"mean": 1.8e6}, "jobs": {"mean": 3.0}},
        "baseline": {"energy_kwh": {"mean": 2.92}, "energy_j": {"mean": 1.0512e7}, "jobs": {"mean": 3.0}},
    }}  # fmt: skip
    table = charts.summary_table(result)
    rows = {r["name"]: r for r in table["rows"]}
    assert "energy_j" not in rows and "energy_kwh" in rows
    spec = rows["energy_kwh"]["spec"]
    assert [formatting.value_text(c["value"], spec) for c in rows["energy_kwh"]["cells"]] == ["0.5 kWh", "2.92 kWh"]
    assert formatting.spread_text(0.5, 0.01, spec) == "± 0.01 kWh"
    assert "energy_j" not in charts.comparison(result)
    payload = charts.run_page_payload({**result, "runs": []})
    assert payload["units"]["energy"] == pytest.approx(2920.0)  # Wh: the chart's energy axis uses it too
    assert payload["metrics"]["energy_j"]["ref"] == pytest.approx(2920.0 * 3600)  # in the metric's own unit


def test_without_a_page_reference_each_value_keeps_its_own_unit():
    spec = {"kind": "energy", "unit": "kWh"}
    assert formatting.value_text(0.5, spec) == "500 Wh"
    assert formatting.page_refs({"e": spec, "n": {"kind": "count"}}, {"e": [0.5, -3.0, None], "n": [1e9]}) == {
        "energy": 3000.0
    }


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [
        (163_523, D, "1 d 21 h 25 min 23 s"),  # the diff table's "163 523 s"
        (67_902_282.8, D, "785 d 21 h 44 min 42.8 s"),
        (254_234.244005, D, "2 d 22 h 37 min 14.244005 s"),  # every digit the float holds
        (122_420_000.125, D, f"1{T}416 d 21 h 33 min 20.125 s"),
        (0.1 + 0.2, D, "0.3 s"),  # and no float noise
        (3600, D, "1 h"),  # zero parts left out
        (0, D, "0 s"),
        (-3600.5, D, "-1 h 0.5 s"),  # a Δ start
        (10, {"kind": "duration", "unit": "min"}, "10 min"),
        (1e300, D, "1.15740740740741 × 10²⁹⁵ d"),
        (None, D, "—"),
    ],
)
def test_exact_durations_read_in_days_hours_minutes_and_seconds(value, spec, text):
    assert formatting.duration_text(value, spec) == text
