"""Claims that check themselves: predicates on hand-made tables, presets' claims and scales, the claims CLI."""

import dataclasses
import json

import pytest

import schedulers
from schedulers.__main__ import main
from schedulers.core.claims import (
    NOT_EVALUATED,
    NOT_REPRODUCED,
    REPRODUCED,
    Claim,
    Table,
    aggregate,
    all_of,
    at_every_point,
    best_at_every_point,
    compare_points,
    difference,
    evaluate,
    less_than_at_every_point,
    monotone,
    ratio,
    reduction,
    spread_ratio,
    value,
)
from schedulers.registry import register, unregister
from schedulers.reproduce import check_study, markdown, run_claims
from tests import toy_family

RT = "rt"


def _table(rows):
    """rows: {point: {alg: rt}}"""
    return Table.from_summaries([(p, {a: {RT: v} for a, v in algs.items()}) for p, algs in rows.items()])


LOADS = _table(
    {
        "Fig. 6 FWload load 0.5": {"easy": 100.0, "measy": 80.0, "keasy": 90.0},
        "Fig. 6 FWload load 0.7": {"easy": 200.0, "measy": 150.0, "keasy": 160.0},
        "Fig. 6 FWload load 0.9": {"easy": 400.0, "measy": 240.0, "keasy": 400.0},
    }
)


def test_less_than_at_every_point_holds_only_when_strictly_lower_everywhere():
    ok, measured = less_than_at_every_point(RT, "measy", "easy")(LOADS)
    assert ok and "load 0.5 → 80 vs 100" in measured
    ok, measured = less_than_at_every_point(RT, "keasy", "easy")(LOADS)  # equal at 0.9
    assert not ok and "not lower at load 0.9" in measured
    assert less_than_at_every_point(RT, "keasy", "easy", points=[0, 1])(LOADS)[0]


def test_point_labels_are_shortened_to_what_differs():
    assert [LOADS.short(p) for p in LOADS.points] == ["load 0.5", "load 0.7", "load 0.9"]


def test_reduction_bounds_each_point_and_the_aggregate():
    saving = reduction(RT, "measy", "easy")  # 20 %, 25 %, 40 %
    assert at_every_point(saving, 0.2, 0.4)(LOADS)[0]
    ok, measured = at_every_point(saving, 0.2, 0.3)(LOADS)
    assert not ok and "outside at load 0.9" in measured and "40.0%" in measured
    assert aggregate(saving, "mean", 0.28, 0.29)(LOADS)[0]  # (20 + 25 + 40) / 3 = 28.3 %
    assert not aggregate(saving, "mean", 0.29, None)(LOADS)[0]
    assert aggregate(saving, "max", None, 0.40)(LOADS)[0] and not aggregate(saving, "max", None, 0.39)(LOADS)[0]
    assert aggregate(saving, "spread", 0.2)(LOADS)[0] and not aggregate(saving, "spread", 0.21)(LOADS)[0]


def test_ratio_and_difference():
    assert at_every_point(ratio(RT, "keasy", "measy"), 1.0, 1.7)(LOADS)[0]
    assert not at_every_point(ratio(RT, "keasy", "measy"), 1.0, 1.6)(LOADS)[0]  # 400 / 240 = 1.67
    assert at_every_point(difference(RT, "easy", "keasy"), 0.0, 40.0)(LOADS)[0]
    assert not at_every_point(difference(RT, "easy", "keasy"), 0.1, None)(LOADS)[0]  # 0 at load 0.9


def test_monotone_rises_falls_and_strictness():
    assert monotone(value("easy", RT))(LOADS)[0]
    assert not monotone(value("easy", RT), increasing=False)(LOADS)[0]
    flat = _table({"a": {"x": 1.0}, "b": {"x": 1.0}, "c": {"x": 2.0}})
    assert monotone(value("x", RT))(flat)[0] and not monotone(value("x", RT), strict=True)(flat)[0]


def test_best_at_every_point_lower_higher_and_tolerance():
    assert best_at_every_point(RT, "measy", ["easy", "keasy"])(LOADS)[0]
    ok, measured = best_at_every_point(RT, "keasy", ["easy", "measy"])(LOADS)
    assert not ok and "beaten at load 0.5, load 0.7, load 0.9" in measured
    assert best_at_every_point(RT, "easy", ["keasy", "measy"], lower=False)(LOADS)[0]
    close = _table({"p": {"a": 101.0, "b": 100.0}})
    assert not best_at_every_point(RT, "a", ["b"])(close)[0]
    assert best_at_every_point(RT, "a", ["b"], tolerance=0.02)(close)[0]


def test_compare_points_pairs_points_in_order():
    t = _table({"FW 0.5": {"m": 5.0}, "FW 0.9": {"m": 10.0}, "JW 0.5": {"m": 3.0}, "JW 0.9": {"m": 12.0}})
    assert compare_points(value("m", RT), "JW 0.9", "FW 0.9")(t)[0]
    assert compare_points(value("m", RT), "FW 0.5", "JW 0.5")(t)[0]
    assert not compare_points(value("m", RT), "FW", "JW")(t)[0]  # 5 > 3 but 10 < 12


def test_spread_ratio_and_all_of():
    spread = spread_ratio(RT, ["easy", "keasy"])  # 100/90, 200/160, 400/400
    assert at_every_point(spread, None, 1.25)(LOADS)[0] and not at_every_point(spread, None, 1.2)(LOADS)[0]
    both = all_of(less_than_at_every_point(RT, "measy", "easy"), less_than_at_every_point(RT, "keasy", "easy"))
    ok, measured = both(LOADS)
    assert not ok and measured.count(";") == 1


def test_a_claim_is_reproduced_not_reproduced_or_not_evaluated():
    good = Claim("MEASY beats EASY", "lower", less_than_at_every_point(RT, "measy", "easy"))
    bad = Claim("KEASY beats EASY", "lower", less_than_at_every_point(RT, "keasy", "easy"))
    missing = Claim("REASY beats EASY", "lower", less_than_at_every_point(RT, "reasy", "easy"))
    nowhere = Claim("at load 0.3", "", at_every_point(value("easy", RT), points="load 0.3"))
    verdicts = evaluate([good, bad, missing, nowhere, "stated only"], LOADS)
    assert [v["verdict"] for v in verdicts] == [REPRODUCED, NOT_REPRODUCED, NOT_EVALUATED, NOT_EVALUATED, NOT_EVALUATED]
    assert "no rt for reasy" in verdicts[2]["measured"] and "no point matches" in verdicts[3]["measured"]
    assert verdicts[0]["paper"] == "lower" and verdicts[4]["text"] == "stated only"


def test_failed_points_leave_their_claims_not_evaluated():
    points = [
        ("m=1", {"fcfs": {"makespan_s": 10.0}, "lpt": {"makespan_s": 10.0}}, {}),
        ("m=2", None, {}),
        ("m=4", None, {}),
    ]
    verdicts = check_study("toy", "machines_sweep", points)
    assert [v["verdict"] for v in verdicts] == [NOT_EVALUATED, NOT_REPRODUCED, NOT_EVALUATED]
    assert "m=2" in verdicts[0]["measured"]


@pytest.mark.parametrize("family", ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"])
def test_every_preset_states_checkable_claims_and_a_small_scale(family):
    reduced = []
    for name in schedulers.get_family(family).presets:
        claims = schedulers.preset_claims(family, name)
        assert claims and all(c.paper for c in claims), name
        assert sum(c.check is not None for c in claims) >= len(claims) - 1, name  # Fig. 2's cross-panel claim
        paper, small = schedulers.preset(family, name), schedulers.preset(family, name, "small")
        json.dumps(paper), json.dumps(small)  # JSON all the way: claims are their sentences
        assert paper["claims"] == [c.text for c in claims]
        assert "Small scale:" in small["description"], name
        reduced.append(small["scenarios"] != paper["scenarios"])  # a log replay may already be small
        for s in small["scenarios"]:
            schedulers.validate(s)
    assert sum(reduced) >= len(reduced) / 2


def test_small_scale_is_a_documented_reduction_and_a_bad_scale_names_the_field():
    doc = schedulers.preset("toy", "machines_sweep", "small")
    assert doc["scale"] == "small" and all(s["workload"] == {"jobs": 5} for s in doc["scenarios"])
    assert "5 jobs per point" in doc["description"]
    assert "workload" not in schedulers.preset("toy", "machines_sweep")["scenarios"][0]
    with pytest.raises(schedulers.ScenarioError) as info:
        schedulers.preset("toy", "machines_sweep", "huge")
    assert info.value.errors[0]["field"] == "scale" and "paper, small" in info.value.errors[0]["allowed"]


def test_run_claims_runs_shared_scenarios_once_and_renders_markdown():
    reports = run_claims([("toy", "machines_sweep")], scale="small", workers=1)
    [r] = reports
    assert r["scenarios"] == 3 and not r["errors"]
    assert [v["verdict"] for v in r["verdicts"]] == [REPRODUCED, NOT_REPRODUCED, NOT_EVALUATED]
    text = markdown(reports, 1.0, "python -m schedulers claims toy --markdown x.md")
    assert "## toy" in text and "| LPT never loses" in text and "| reproduced |" in text
    assert "1 reproduced, 1 not reproduced, 1 not evaluated" in text


@pytest.fixture
def all_true_family():
    """The toy family with a preset whose every claim holds (for the CLI's exit code 0)."""
    doc = toy_family.TOY.presets["machines_sweep"]()
    doc["claims"] = doc["claims"][:1]
    register(dataclasses.replace(toy_family.TOY, name="toy_true", presets={"graham": lambda: doc}))
    yield "toy_true"
    unregister("toy_true")


def test_claims_cli_exit_codes(all_true_family, tmp_path, capsys):
    out = tmp_path / "reproduction.md"
    assert main(["claims", all_true_family, "--workers", "1", "--markdown", str(out)]) == 0
    assert "[reproduced] LPT never loses" in capsys.readouterr().out
    assert "| reproduced |" in out.read_text()
    assert main(["claims", "toy", "machines_sweep", "--workers", "1"]) == 1  # one claim is false
    printed = capsys.readouterr().out
    assert "[not reproduced] On one machine" in printed and "1 reproduced, 1 not reproduced, 1 not evaluated" in printed
    assert main(["claims", "toy", "--scale", "huge"]) == 2
    assert "--scale" in capsys.readouterr().err
    assert main(["claims", "toy", "nope"]) == 2
    assert main(["claims", "nope"]) == 2


def test_measured_numbers_read_without_exponents():
    """Claims print 11,060, not 1.106e+04: four significant digits, thousands grouped."""
    from schedulers.core.claims import number

    assert [number(x) for x in (11060.4, 0.5, 3.14159, 123456789.0, 0.00123, 2.0)] == [
        "11,060", "0.5", "3.142", "123,500,000", "0.00123", "2"]  # fmt: skip
    assert number(1e-5) == "1e-05" and number(float("inf")) == "inf"  # outside the plain range: as before
