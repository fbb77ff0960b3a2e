"""Notes beside the verdicts are generated from the run they explain.

A claim's note (:class:`schedulers.core.claims.Note`) is a template whose fields are read from the
study's table, so the number printed beside a verdict is the one measured in that run, at whatever
scale or seed. Two rules are checked here:

* the numbers a note prints are the measured ones: a preset is run at small scale, its table built,
  the note rendered, and each number compared with the value computed independently from the table;
* the fixed text of a note (its template without the fields) holds no measurement: any number in it
  is a reference (eq., Fig., Table, Alg., Section, line …), a number of the paper's claims, a model
  constant the note names, or sits in a sentence that says where it was measured (a ``docs/``,
  ``bench/`` or ``tests/`` file).
"""

from __future__ import annotations

import re
from statistics import mean

import pytest

import schedulers
from schedulers.core.claims import Claim, Missing, Note, Table, ratio, reduction, value

FAMILIES = ("backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations")
NUMBER = re.compile(r"(?<![\w.])[-−+]?\d(?:[\d,]*\d)?(?:\.\d+)?")
REFERENCE = re.compile(
    r"(?:eqs?\.|Eqs?\.|Figs?\.|Tables?|Algs?\.|Alg\.|Sections?|Sec\.|Theorem|Observation|lines?|issue #|"
    r"Section 5\.\d\.|Algorithm)\s*[\d.,–\- and]*\d",
)
ALLOWED_WORDS = ("docs/", "bench/", "tests/", "reproduction")


def _table(family: str, preset: str) -> Table:
    doc = schedulers.preset(family, preset, scale="small")
    rows, configs = [], {}
    for sc in doc["scenarios"]:
        rows.append((sc["name"], schedulers.run(sc)["summary"]))
        configs[sc["name"]] = sc
    return Table.from_summaries(rows, configs)


def _claims(family: str, preset: str) -> dict[str, Claim]:
    return {c.text: c for c in schedulers.preset_claims(family, preset)}


def _note(family: str, preset: str, start: str, table: Table) -> str:
    (claim,) = [c for t, c in _claims(family, preset).items() if t.startswith(start)]
    assert isinstance(claim.note, Note), f"{family} {preset}: the note of {start!r} is a fixed string"
    return claim.evaluate(table)["note"]


def _stray_numbers(text: str, allowed: str) -> list[str]:
    """Numbers of ``text`` that are neither references, nor in ``allowed``, nor in a sentence naming a source."""
    stray = []
    for sentence in re.split(r"(?<=[a-z0-9)%]\.)\s+(?=[A-Z(])", text):
        if any(w in sentence for w in ALLOWED_WORDS):
            continue
        bare = REFERENCE.sub(" ", sentence)
        for n in NUMBER.findall(bare):
            if n.strip("-−+") not in allowed:
                stray.append(n)
    return stray


# Settings, not measurements: the sweeps' values (AR shares, α), the checks' thresholds, the dataset's 8,000 s
# transfer, 64-job applications, the best of 7 timed placements, the minimal line-8 case's slots, backfill's loads.
MODEL_CONSTANTS = "0 1 2 4 5 6 7 9 11 20 30 50 80 100 0.3 0.5 0.7 0.1 1.05 8,000 64"


def test_fixed_note_text_holds_no_measurement():
    checked = 0
    for family in FAMILIES:
        presets = schedulers.get_family(family).presets
        assert presets
        for name in presets:
            claims = schedulers.preset_claims(family, name)
            paper = " ".join(c.text + " " + c.paper for c in claims)  # the paper's numbers, in any of its claims
            for claim in claims:
                fixed = claim.note.static() if isinstance(claim.note, Note) else claim.note
                allowed = " ".join(NUMBER.findall(paper)).replace("−", "-") + " " + MODEL_CONSTANTS
                stray = [n for n in _stray_numbers(fixed, allowed) if n.strip("-−+") not in allowed.split()]
                assert not stray, f"{family} {name}: {claim.text!r} quotes {stray} in its fixed text: {fixed!r}"
                checked += 1
    assert checked > 30


def test_a_fixed_number_in_a_note_is_caught():
    """The rule above would catch a note quoting a measurement as text (the defect it exists for)."""
    fixed = Note("DCLS and DCMMS take 59,277 s and beat FCFS's 61,485 s, {x:.2f}.", {"x": lambda t: 1.0})
    assert _stray_numbers(fixed.static(), "0.81 0.49") == ["59,277", "61,485"]
    assert _stray_numbers("Before the fix 1.12 (docs/federated.md, 20,000 jobs).", "") == []
    assert _stray_numbers("At Fig. 7 and eq. 7, Alg. 3.1 line 8.", "") == []


def test_note_fields_come_from_the_table_and_a_missing_one_says_so():
    t = Table.from_summaries([("p", {"a": {"m": 2.0}, "b": {"m": 4.0}})])
    note = Note("a/b = {r:.2f}, c = {c:.1f}", {"r": lambda t: ratio("m", "a", "b").at(t, "p"),
                                                "c": lambda t: value("c", "m").at(t, "p")})  # fmt: skip
    assert note.render(t) == "a/b = 0.50, c = n/a"
    with pytest.raises(Missing):
        value("c", "m").at(t, "p")


@pytest.fixture(scope="module")
def fig6() -> Table:
    return _table("ep_jobs", "fig6")


def test_ep_jobs_fig6_notes_print_the_measured_ratios(fig6):
    t = fig6
    tapra, fast = t.points[0], t.points[1]

    def mean_ratio(num: str, den: str) -> float:
        return mean(t.get(p, f"{num}:{a}", "avg_jct_s") / t.get(p, f"{den}:{a}", "avg_jct_s")
                    for p, a in ((tapra, "tapra"), (fast, "tapra_fast")))  # fmt: skip

    drc = _note("ep_jobs", "fig6", "With DRC", t)
    for s in ("slf", "fcfs", "llf"):
        assert f"{mean_ratio(s, 'ontapra'):.3f}" in drc, s
    util = [t.get(p, f"{s}:{a}", "utilization") for p, a in ((tapra, "tapra"), (fast, "tapra_fast"))
            for s in ("ontapra", "slf", "fcfs", "llf")]  # fmt: skip
    assert f"{min(util):.0%}-{max(util):.0%} busy" in drc
    assert f"({t.get(tapra, 'ontapra:tapra', 'jobs'):.0f} jobs)" in drc
    arrivals = t.config(tapra)["workload"]["arrival_end_s"]
    assert f"Arrivals stop at {arrivals:,.0f} s" in drc
    off = _note("ep_jobs", "fig6", "Disabling DRC", t)
    assert ", ".join(f"{mean_ratio(f'{s}-ndrc', s):.2f}" for s in ("ontapra", "slf", "fcfs")) in off
    fast_note = _note("ep_jobs", "fig6", "TaPRA is about 5%", t)
    jct = t.get(fast, "ontapra:tapra_fast", "avg_jct_s") / t.get(tapra, "ontapra:tapra", "avg_jct_s")
    assert f"{jct:.3f}×" in fast_note


def test_ep_jobs_fig4_notes_print_the_measured_ratios():
    t = _table("ep_jobs", "fig4")
    last = t.points[-1]
    note = _note("ep_jobs", "fig4", "At 200 tasks", t)
    for alg in ("min_min", "mm_ga", "gsa"):
        assert f"{t.get(last, alg, 'jct_s') / t.get(last, 'tapra', 'jct_s'):.2f}×" in note, alg
    spread = [t.get(last, a, "allocated_vcpus") for a in ("tapra", "tapra_fast", "min_min", "mm_ga", "gsa")]
    assert f"{max(spread) / min(spread):.3f}×" in _note("ep_jobs", "fig4", "With few tasks", t)


def test_vm_reservations_saving_note_prints_the_measured_reductions_and_the_bound():
    t = _table("vm_reservations", "fig5_4")
    note = _note("vm_reservations", "fig5_4", "LLIF is about 5–15%", t)
    llif = mean(reduction("energy_kwh", "llif", "ffd").at(t, p) for p in t.points)
    opt = [reduction("energy_kwh", "opt_min_migration", "ffd").at(t, p) for p in t.points]
    assert f"{llif:.1%} for LLIF" in note
    assert ", ".join(f"{x:.1%}" for x in opt) in note
    assert ("out of reach" if mean(opt) < 0.05 else "within the bound") in note
    migrations = _note("vm_reservations", "fig5_6", "OPT needs", _table("vm_reservations", "fig5_6"))
    assert "run(s) per point" in migrations


def test_every_note_renders_before_a_run_and_on_a_failed_one():
    """The presets page shows notes before any study ran (fields as "…"); a failed run leaves fields "n/a"."""
    empty = Table((), {})
    notes = 0
    for family in FAMILIES:
        for name in schedulers.get_family(family).presets:
            for claim in schedulers.preset_claims(family, name):
                if isinstance(claim.note, Note):
                    assert "{" not in claim.note.unfilled()
                    assert "n/a" in claim.evaluate(empty)["note"] or not claim.note.fields
                    notes += 1
    assert notes > 30
