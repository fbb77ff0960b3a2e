"""The federated notes print the numbers of the run beside them (schedulers.core.claims.Note).

Run on the synthetic stand-in (the LLNL logs hidden) so the test runs in any clone; the notes are the
same templates whichever workload fills them.
"""

from __future__ import annotations

import re

import pytest

import schedulers
from schedulers.core.claims import Note, Table
from schedulers.core.traces import DirectoryCatalog, find_trace, set_catalog
from schedulers.reproduce import without_logs


class _NoLogs(DirectoryCatalog):
    def log(self, filename: str):
        return None


def _table(preset: str) -> Table:
    old = set_catalog(_NoLogs())
    try:
        doc = schedulers.preset("federated", preset, scale="small")
    finally:
        set_catalog(old)
    assert doc["missing_traces"], "the logs should be hidden"
    rows, configs = [], {}
    for sc in doc["scenarios"]:
        rows.append((sc["name"], schedulers.run(sc)["summary"]))
        configs[sc["name"]] = sc
    return Table.from_summaries(rows, configs)


def _note(preset: str, start: str, t: Table) -> str:
    (claim,) = [c for c in schedulers.preset_claims("federated", preset) if c.text.startswith(start)]
    assert isinstance(claim.note, Note)
    return claim.evaluate(t)["note"]


def test_energy_note_prints_the_measured_energies_and_remote_shares():
    t = _table("fig9_energy_loose")
    note = _note("fig9_energy_loose", "DCLS and DCMMS use less energy", t)
    without, with_el = t.points
    for alg in ("fcfs", "dcls", "dcmms"):
        assert f"{t.get(with_el, alg, 'energy_kwh'):,.0f}" in note, alg
        assert f"{t.get(without, alg, 'energy_kwh'):,.0f}" in note, alg
    assert f"{t.get(without, 'dcls', 'remote_task_share'):.1%}" in note


def test_ar_share_note_prints_the_measured_ratios_and_rejections():
    t = _table("table5_ar_share_tight")
    note = _note("table5_ar_share_tight", "A higher share", t)
    ratios = ", ".join(f"{t.get(p, 'dcls', 'avg_app_execution_time_s') / t.get(p, 'fcfs', 'avg_app_execution_time_s'):.2f}"
                       for p in t.points)  # fmt: skip
    assert f"DCLS/FCFS goes {ratios}" in note
    rejected = ", ".join(f"{t.get(p, 'fcfs', 'rejected_apps'):.0f}" for p in t.points)
    assert f"FCFS rejects {rejected} applications" in note


def test_without_logs_reports_the_missing_log():
    (report,) = without_logs([("federated", "fig9_energy_loose")], "small", 1)
    assert report["logs"] == []
    (missing,) = report["missing_traces"]
    assert "LLNL-Thunder-2007-1.1-cln.swf.gz is not in the trace directories" in missing
    assert not re.search(r"(^|[\s(])/\w", report["description"]), "an absolute path in the description"


@pytest.mark.skipif(find_trace("LLNL-Thunder-2007-1.1-cln.swf.gz") is None, reason="LLNL-Thunder log not here")
def test_with_the_log_the_description_names_it_without_a_path():
    doc = schedulers.preset("federated", "fig9_energy_loose", scale="small")
    assert "LLNL-Thunder-2007-1.1-cln.swf.gz (from the trace directories)" in doc["description"]
    assert not re.search(r"(^|[\s(])/\w", doc["description"]), "an absolute path in the description"
