"""A scenario split into (algorithm, repetition) units and merged gives the whole run's document.

``claims`` and web studies run each unit on its own (``schedulers.run_unit``) and merge them
(``schedulers.merge``); the merged document must equal ``schedulers.run``'s byte for byte,
machine-timing metrics aside. One preset per family at small scale, with two repetitions so a
repetition's seeds (``stream(seed, rep, …)``) matter, and the units run in reverse order.
"""

from __future__ import annotations

import pytest

import schedulers
from schedulers import reproduce
from schedulers.core import jsonio
from tests.golden import without_timing

PRESETS = [
    ("backfill", "fig7"),
    ("dvfs_bot", "table1"),
    ("ep_jobs", "fig6_loaded"),  # online: OnTaPRA and the queue policies re-plan every period
    ("ep_jobs", "fig4"),
    ("federated", "table4_ar_share_loose"),
    ("vm_reservations", "fig5_4"),
]


def _scenario(family: str, preset: str) -> dict:
    scenario = dict(schedulers.preset(family, preset, scale="small")["scenarios"][0])
    scenario["repetitions"] = 2
    if family == "ep_jobs" and preset == "fig6_loaded":  # two of its eight policies keep the test short
        scenario["algorithms"] = ["ontapra:tapra", "fcfs-ndrc:gsa"]
    return scenario


def _bytes(doc: dict) -> str:
    return jsonio.dumps(without_timing(doc), sort_keys=False)


@pytest.mark.parametrize(("family", "preset"), PRESETS)
def test_merged_units_give_the_whole_runs_document(family, preset):
    """Every unit run alone, in reverse order, merges into run()'s document."""
    scenario = _scenario(family, preset)
    whole = schedulers.run(scenario)
    units = schedulers.units(scenario)
    assert len(units) == 2 * len(scenario["algorithms"])
    merged = schedulers.merge(scenario, [schedulers.run_unit(scenario, a, r) for a, r in reversed(units)])
    assert _bytes(merged) == _bytes(whole)


def test_the_repetitions_differ_so_their_seeds_are_checked():
    """The check above is not vacuous: repetition 1 is another instance than repetition 0."""
    scenario = _scenario("backfill", "fig7")
    a, b = (schedulers.run_unit(scenario, "easy", r)["metrics"] for r in (0, 1))
    assert a != b


def test_merge_refuses_a_missing_or_repeated_unit():
    scenario = _scenario("vm_reservations", "fig5_4")
    records = [schedulers.run_unit(scenario, a, r) for a, r in schedulers.units(scenario)]
    with pytest.raises(ValueError, match="not the scenario's"):
        schedulers.merge(scenario, records[:-1])
    with pytest.raises(ValueError, match="not the scenario's"):
        schedulers.merge(scenario, [*records[:-1], records[0]])


def test_claims_units_merge_to_the_whole_runs_summary():
    """``claims`` (one process per unit) sees the summary run() computes."""
    scenario = _scenario("dvfs_bot", "table1")
    done, merged = reproduce.run_units({"k": scenario}, workers=2, log=lambda line: None)
    assert len(done) == len(schedulers.units(scenario))
    summary, error = merged["k"]
    assert error == ""
    whole = {
        alg: {k: {x: v[x] for x in ("mean", "ci", "n")} for k, v in m.items()}
        for alg, m in schedulers.run(scenario)["summary"].items()
    }  # the means and their CIs (claims name them)
    assert without_timing(summary) == without_timing(whole)


def test_a_cached_unit_is_reused_only_by_the_code_that_computed_it(tmp_path, monkeypatch):
    """``claims --cache``: a second run finds every unit; a change to the family's code finds none."""
    scenario = _scenario("vm_reservations", "fig5_4")
    cache = reproduce.UnitCache(tmp_path)
    first, merged = reproduce.run_units({"k": scenario}, workers=1, log=lambda line: None, cache=cache)
    calls = []
    monkeypatch.setattr(reproduce, "_unit", lambda *a: calls.append(a) or pytest.fail("ran a cached unit"))
    again, merged_again = reproduce.run_units({"k": scenario}, 1, lambda line: None, reproduce.UnitCache(tmp_path))
    assert not calls and merged_again == merged
    assert {u: v[1] for u, v in again.items()} == {u: v[1] for u, v in first.items()}  # the CPU s it took then
    monkeypatch.setattr(reproduce, "code_digest", lambda family: "edited")
    monkeypatch.setattr(reproduce, "_unit", lambda *a: calls.append(a) or (None, 0.0, "ran"))
    reproduce.run_units({"k": scenario}, 1, lambda line: None, reproduce.UnitCache(tmp_path))
    assert len(calls) == len(schedulers.units(scenario))


def test_from_cache_runs_nothing_and_says_what_is_missing(tmp_path, monkeypatch):
    """``claims --from-cache``: the cached units are reported, the others are 'not run' (no values, no verdict)."""
    scenario = _scenario("vm_reservations", "fig5_4")
    cache = reproduce.UnitCache(tmp_path)
    alg, rep = schedulers.units(scenario)[0]
    cache.put(scenario, "k", alg, rep, reproduce._unit(scenario, alg, rep))
    monkeypatch.setattr(reproduce, "_unit", lambda *a: pytest.fail("ran a unit"))
    done, merged = reproduce.run_units({"k": scenario}, 1, lambda line: None, cache, run=False)
    assert [u for u, v in done.items() if v[2] != reproduce.NOT_RUN] == [("k", alg, rep)]
    assert merged["k"] == (None, reproduce.NOT_RUN)


def test_differences_list_the_claims_whose_verdict_changes_with_scale():
    def report(scale, verdicts):
        claims = [
            {"text": f"claim {i}", "note": "", "paper": "", "measured": f"{scale} {i}", "verdict": v}
            for i, v in enumerate(verdicts)
        ]
        return [{"family": "f", "preset": "p", "scale": scale, "verdicts": claims, "title": "p", "description": "",
                 "scenarios": 1, "seconds": 0.0, "total_cpu_s": 0.0, "errors": []}]  # fmt: skip

    small = report("small", ["reproduced", "not reproduced", "not evaluated", "reproduced"])
    paper = report("paper", ["reproduced", "reproduced", "not reproduced", "not evaluated"])
    (d,) = reproduce.differences(small, paper)  # not evaluated on either side: nothing to compare
    assert (d["text"], d["small"], d["paper"], d["paper measured"]) == (
        "claim 1",
        "not reproduced",
        "reproduced",
        "paper 1",
    )
    assert "| f p | claim 1 | not reproduced | reproduced | small 1 → paper 1 |" in reproduce.markdown(
        small, 0.0, "cmd", other=paper, other_link="reproduction-paper.md"
    )
