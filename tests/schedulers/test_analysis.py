"""schedulers.load (schedulers/analysis.py): a result as Arrow tables per kind, the same from memory and from its
JSON file, with clear errors; and docs/analysis.md's session run as written (its commands and code are read
from the page, so page and test cannot drift)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import schedulers
from schedulers.core import jsonio
from tests.docblocks import fenced

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "analysis.md"
FAMILIES = ("backfill", "vm_reservations", "federated", "dvfs_bot", "ep_jobs")


@pytest.fixture(scope="module")
def examples():
    return {f: schedulers.run(schedulers.example(f)) for f in FAMILIES}


def test_a_result_and_its_json_file_give_the_same_tables(examples, tmp_path):
    assert examples
    for family, doc in examples.items():
        path = tmp_path / f"{family}.json"
        with open(path, "w") as f:
            jsonio.dump(doc, f)
        mem, disk = schedulers.load(doc), schedulers.load(path)
        assert mem.family == disk.family == family and mem.algorithms == disk.algorithms
        assert len(mem.algorithms) >= 2
        for alg in mem.algorithms:
            for kind in ("jobs", "schedule", "series"):
                a, b = getattr(mem, kind)(alg), getattr(disk, kind)(alg)
                assert a.num_rows > 0, (family, kind, alg)
                assert a.equals(b), (family, kind, alg, a.schema, b.schema)
        assert mem.metrics().equals(disk.metrics())


def test_tables_hold_every_repetition_and_every_algorithm(examples):
    doc = examples["vm_reservations"]  # two repetitions
    res = schedulers.load(doc)
    assert res.repetitions == [0, 1]
    runs = {(r["algorithm"], r["repetition"]): r for r in doc["runs"]}
    jobs = res.jobs("ffd")
    assert jobs.column_names[0] == "repetition"
    assert jobs.num_rows == len(runs["ffd", 0]["jobs"]) + len(runs["ffd", 1]["jobs"])
    one = res.jobs("ffd", repetition=1)
    assert set(one.column("repetition").to_pylist()) == {1} and one.num_rows == len(runs["ffd", 1]["jobs"])
    assert one.drop_columns(["repetition"]).to_pylist() == runs["ffd", 1]["jobs"].to_records()
    series = res.series("ffd", 0)
    assert series.column_names == ["repetition", "t", *[k for k in runs["ffd", 0]["series"] if k != "t"]]
    assert series.column("power_w").to_pylist() == list(runs["ffd", 0]["series"]["power_w"])
    long = res.table("jobs")
    assert long.column_names[:2] == ["algorithm", "repetition"]
    assert long.num_rows == sum(len(r["jobs"]) for r in doc["runs"])
    assert list(dict.fromkeys(long.column("algorithm").to_pylist())) == res.algorithms
    metrics = res.metrics()
    assert metrics.num_rows == len(doc["runs"])
    row = metrics.to_pylist()[res.algorithms.index("ffd") * 2 + 1]
    assert (row["algorithm"], row["repetition"]) == ("ffd", 1)
    assert row["energy_kwh"] == runs["ffd", 1]["metrics"]["energy_kwh"]
    assert res.table("series", ["ffd"]).num_rows == res.series("ffd").num_rows


def test_bad_requests_name_what_the_result_has(examples, tmp_path):
    res = schedulers.load(examples["backfill"])
    with pytest.raises(ValueError, match=r"algorithm: 'nope' is not in this result; allowed: fcfs, easy, keasy"):
        res.jobs("nope")
    with pytest.raises(ValueError, match=r"repetition: 3 is not in this result; allowed: 0$"):
        res.jobs("easy", repetition=3)
    with pytest.raises(ValueError, match=r"kind: 'segments' is not a kind of table; allowed: jobs, schedule"):
        res.table("segments")
    with pytest.raises(ValueError, match=r"load each of its 'results'"):
        schedulers.load({"study": "fig6", "results": []})
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"list.json: a result is a JSON object with 'runs', not a JSON list"):
        schedulers.load(tmp_path / "list.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match=r"bad.json: not a JSON result"):
        schedulers.load(str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match=r"result: runs\[1\] is not a run: an object with an 'algorithm' name"):
        schedulers.load({"runs": [{"algorithm": "easy"}, {"metrics": {}}]})
    with pytest.raises(TypeError, match="a result document or the path"):
        schedulers.load(42)


def test_to_pandas_gives_a_dataframe_or_says_what_to_install(examples):
    res = schedulers.load(examples["backfill"])
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"pip install pandas"):
            res.to_pandas("jobs")
        return
    frame = res.to_pandas("jobs")
    assert list(frame.columns[:2]) == ["algorithm", "repetition"] and len(frame) == res.table("jobs").num_rows
    assert res.to_pandas("jobs", "easy")["response_s"].tolist() == res.jobs("easy").column("response_s").to_pylist()


# --- docs/analysis.md, as written ------------------------------------------------------------------------------


def _blocks(lang: str) -> list[str]:
    return fenced(DOC.read_text(), lang)


def test_the_analysis_page_runs_as_written(tmp_path):
    sh, (session, with_pandas), (output,) = _blocks("sh"), _blocks("python"), _blocks("")
    assert len(sh) == 1 and "cloudsched run" in sh[0]
    bin_dir = tmp_path / "bin"  # `cloudsched`, the console script, is `python -m schedulers`
    bin_dir.mkdir()
    (bin_dir / "cloudsched").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m schedulers "$@"\n')
    (bin_dir / "cloudsched").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": os.pathsep.join([str(ROOT), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]),
           "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    subprocess.run(["bash", "-euo", "pipefail", "-c", sh[0]], cwd=tmp_path, env=env, check=True, timeout=300)
    result = json.loads((tmp_path / "easy-measy-result.json").read_text())
    assert [r["algorithm"] for r in result["runs"]] == ["easy", "measy"] * 3
    done = subprocess.run([sys.executable, "-c", session], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    shown = [line for line in output.splitlines() if "…" not in line]
    assert len(shown) >= 4
    for line in shown:  # the page's output, but for the lines it shortens
        assert line in printed, (line, printed)
    png = (tmp_path / "response-cdf.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    try:
        import pandas  # noqa: F401
    except ImportError:
        pandas_code = f"import schedulers\nres = schedulers.load('easy-measy-result.json')\n{with_pandas}"
        failed = subprocess.run([sys.executable, "-c", pandas_code], cwd=tmp_path, env=env, capture_output=True,
                                text=True, timeout=120)  # fmt: skip
        assert failed.returncode == 1 and "to_pandas needs pandas" in failed.stderr
        return
    both = subprocess.run([sys.executable, "-c", session + with_pandas], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert "algorithm" in both.stdout and "0.99" in both.stdout.replace("99%", "0.99")
