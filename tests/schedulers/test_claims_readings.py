"""``claims`` evaluates every claim under each reading a preset declares, names missing logs on the
terminal, and writes path-free markdown (the logs by file name, which were present, and what a clone
without them gets)."""

from __future__ import annotations

import re

import pytest

from schedulers import __main__ as cli
from schedulers import reproduce
from schedulers.core.traces import DirectoryCatalog, find_trace, set_catalog

ATLAS = "LLNL-Atlas-2006-2.1-cln.swf.gz"


@pytest.fixture(scope="module")
def fig4():
    (report,) = reproduce.run_claims([("ep_jobs", "fig4")], "small", 1)
    return report


def test_each_reading_has_a_verdict_per_claim_default_first(fig4):
    readings = fig4["readings"]
    assert [r["name"] for r in readings] == ["static shares", "optra"]
    assert readings[0]["default"] and readings[0]["why"] and not readings[1]["default"]
    assert readings[1]["params"] == {"baseline_allocation": "optra"}
    assert readings[0]["verdicts"] == fig4["verdicts"]
    assert len(readings[1]["verdicts"]) == len(fig4["verdicts"]) > 0
    # the reading ran its own scenarios: the baselines' vCPUs (and so the measured text) differ
    vcpus = [i for i, v in enumerate(fig4["verdicts"]) if v["text"].startswith("With few tasks")]
    assert vcpus
    assert readings[1]["verdicts"][vcpus[0]]["measured"] != fig4["verdicts"][vcpus[0]]["measured"]


def test_markdown_shows_the_verdict_per_reading_side_by_side(fig4):
    text = reproduce.markdown([fig4], 1.0, "python -m schedulers claims ep_jobs fig4")
    assert "| Verdict: static shares (default) | Verdict: optra |" in text
    assert '`params.baseline_allocation = "optra"`' in text
    assert "Default because" in text
    rows = [line for line in text.splitlines() if line.startswith("| TaPRA gives the smallest JCT")]
    assert len(rows) == 1 and len(rows[0].split(" | ")) == 5


def test_a_preset_without_readings_keeps_one_verdict_column():
    (report,) = reproduce.run_claims([("ep_jobs", "fig6")], "small", 1)
    assert report["readings"] == []
    assert "| Claim | Paper | Measured | Verdict |" in reproduce.markdown([report], 1.0, "cmd")


class _NoLogs(DirectoryCatalog):
    def log(self, filename):
        return None


def test_the_terminal_names_a_missing_log(capsys, tmp_path):
    old = set_catalog(_NoLogs())
    try:
        rc = cli.main(["claims", "vm_reservations", "fig5_9", "--workers", "1", "--markdown", str(tmp_path / "r.md")])
    finally:
        set_catalog(old)
    assert rc in (0, 1)
    err = capsys.readouterr().err
    assert f"warning: vm_reservations fig5_9: {ATLAS} is not in the trace directories" in err
    assert "synthetic stand-in" in err and "CLOUDSCHED_TRACE_DIRS" in err
    text = (tmp_path / "r.md").read_text()
    assert "**Log missing, synthetic stand-in used:**" in text
    assert str(tmp_path) not in text  # the markdown names itself by file name, not by the machine's path
    assert "--markdown r.md" in text


@pytest.mark.skipif(find_trace(ATLAS) is None, reason="LLNL-Atlas log not here")
def test_markdown_with_the_log_is_path_free_and_compares_a_clone_without_it(tmp_path, capsys):
    md = tmp_path / "r.md"
    assert cli.main(["claims", "vm_reservations", "fig5_9", "--workers", "1", "--markdown", str(md),
                     "--without-logs"]) in (0, 1)  # fmt: skip
    text = md.read_text()
    assert f"Present when this was generated: `{ATLAS}`" in text
    assert "A clone without these logs runs vm_reservations fig5_9 on their synthetic stand-ins" in text
    assert "Totals without the logs:" in text
    assert not re.search(r"(/work/|/tmp/|/home/|shared/workloads/traces/LLNL)", text), "a machine's path leaked"
