"""The SWF reader streams: bounds at the limit and one past it, constant
memory on an amplified gzip, runs that read only the jobs they use, and a CLI that never reads a
device or an unbounded file."""

import gzip
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers.core import jsonio, swf, trace_jobs
from schedulers.core.swf import SwfError, iter_swf, read_swf
from schedulers.core.trace_jobs import FirstK, scan
from schedulers.core.traces import Summary

ROOT = Path(__file__).resolve().parents[2]
RECORD = b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"  # 47 bytes


def _amplified(members: int, lines: int) -> bytes:
    """Several gzip members of valid records: the issue's bomb, scaled down."""
    return b"".join(gzip.compress(RECORD * lines, 6) for _ in range(members))


def test_the_byte_bound_holds_at_the_limit_and_refuses_one_past_it_also_through_gzip(monkeypatch):
    text = RECORD * 100
    monkeypatch.setattr(swf, "MAX_BYTES", len(text))
    assert len(read_swf(text)) == 100
    assert len(read_swf(gzip.compress(text[:2350]) + gzip.compress(text[2350:]))) == 100
    for over in (text + b"\n", gzip.compress(text) + gzip.compress(b"\n")):
        with pytest.raises(SwfError, match=rf"more than {len(text):,} bytes .*CLOUDSCHED_SWF_MAX_BYTES"):
            read_swf(over)


def test_the_line_bound_names_both_limits(monkeypatch):
    monkeypatch.setattr(swf, "MAX_LINES", 100)
    assert len(read_swf(gzip.compress(RECORD * 100))) == 100
    with pytest.raises(SwfError, match=r"more than 100 lines .*CLOUDSCHED_SWF_MAX_LINES = 100 lines"):
        read_swf(gzip.compress(RECORD * 50) + gzip.compress(RECORD * 51))


def test_an_amplified_multi_member_gzip_is_read_in_constant_memory():
    blob = _amplified(members=4, lines=200_000)  # 38 MB of text; parsed whole it would be 115 MB of floats
    total = Summary()
    tracemalloc.start()
    try:
        for block in iter_swf(blob):
            total.add(block)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total.result()["jobs"] == 800_000
    assert peak < 12 << 20, f"peak {peak:,} bytes"


def test_blocks_give_what_the_whole_read_gives():
    text = (
        b"; MaxProcs: 8\n" + RECORD * 30_000 + b"; a comment in the middle\n" + RECORD.replace(b"1 0", b"2 9") * 30_000
    )
    blocks = list(iter_swf(text))
    assert len(blocks) > 2
    whole = read_swf(text)
    assert whole.header == ["; MaxProcs: 8", "; a comment in the middle"]
    np.testing.assert_array_equal(whole.columns["submit"], np.concatenate([b.columns["submit"] for b in blocks]))


def test_an_error_past_the_first_block_names_its_line():
    text = RECORD * 40_000 + b"1 2 3\n"
    with pytest.raises(SwfError, match="SWF line 40001: expected 18 fields, found 3"):
        read_swf(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=300), st.integers(0, 40), st.integers(1, 7))
def test_first_k_is_a_stable_sorts_first_k(keys, k, pieces):
    keys = np.array(keys, dtype=float)
    order = np.argsort(keys, kind="stable")[:k]
    first = FirstK(k)
    for part in np.array_split(np.arange(keys.size), pieces):
        first.offer(keys[part], index=part)
    got_keys, got_index = first.result("index")
    np.testing.assert_array_equal(got_index, order)
    np.testing.assert_array_equal(got_keys, keys[order])


def _vm_trace_scenario(path: Path, n: int) -> dict:
    config = schedulers.example("vm_reservations")
    config["workload"] = {"kind": "trace", "path": str(path), "n_requests": n}
    config["algorithms"] = [a for a in config["algorithms"] if a not in ("exact", "min_migration")]
    config["repetitions"] = 1
    return config


def test_vm_reservations_stops_reading_at_its_last_request(tmp_path, monkeypatch):
    """What lies past the requests a run takes is never read: a malformed line there does not matter."""
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path))
    path = tmp_path / "log.swf"
    path.write_bytes(RECORD * 30_000 + b"this line is not SWF\n")
    trace_jobs._scan_file.cache_clear()
    assert schedulers.run(_vm_trace_scenario(path, 100))["runs"]
    with pytest.raises((ValueError, schedulers.ScenarioError), match="SWF line 30001"):
        schedulers.run(_vm_trace_scenario(path, 30_001))


def test_a_backfill_selection_holds_only_the_jobs_it_keeps():
    from schedulers.backfill.workloads import _select_jobs, swf_jobs

    text = b"; MaxProcs: 8\n" + b"".join(RECORD.replace(b"1 0 5", f"{i} {(i * 7919) % 100_000} 5".encode(), 1)
                                         for i in range(1, 300_001))  # fmt: skip
    tracemalloc.start()
    try:
        submit, *_, info = scan(text, _select_jobs, 8, 0.0, 1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert submit.size == 1000 and info["records"] == 300_000
    assert peak < 30 << 20, f"peak {peak:,} bytes (the whole trace parsed is {300_000 * 18 * 8:,})"
    whole = swf_jobs(read_swf(text), 8, 0.0)
    np.testing.assert_array_equal(submit, whole[0][:1000])
    assert info == whole[6]


def test_a_maxprocs_line_after_the_first_block_still_sizes_the_machine():
    from schedulers.backfill.workloads import _base_jobs

    small, big = RECORD, RECORD.replace(b" 4 -1 -1 4 ", b" 12 -1 -1 12 ")
    text = (small * 20_000 + big * 5 + b"; MaxProcs: 16\n").decode()
    config = schedulers.example("backfill")
    config["datacenter"] = {**config["datacenter"], "processors": 8, "use_trace_size": True}
    config["workload"] = {"kind": "trace", "swf": text}
    _, cfg = schedulers.validate(config)
    n, submit, *_, info = _base_jobs(cfg, np.random.default_rng(0))
    assert n == 16 and info["dropped_too_large"] == 0 and submit.size == 20_005


def _cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "schedulers", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, **kwargs)  # fmt: skip


def test_the_cli_refuses_devices_and_fifos_at_once(tmp_path):
    fifo = tmp_path / "scenario.json"
    os.mkfifo(fifo)
    for name in ("/dev/zero", str(fifo)):
        start = time.monotonic()
        out = _cli("run", name)
        assert out.returncode == 2 and time.monotonic() - start < 10
        assert "is not a regular file" in out.stderr and "Traceback" not in out.stderr


def test_the_cli_reads_at_most_the_json_limit(tmp_path, monkeypatch, capsys):
    from schedulers.__main__ import main

    monkeypatch.setattr(jsonio, "MAX_BYTES", 1000)
    path = tmp_path / "s.json"
    path.write_bytes(b"{}" + b" " * 998)
    assert main(["run", str(path)]) == 2
    assert "more than" not in capsys.readouterr().err  # read whole: the scenario itself is refused
    path.write_bytes(b"{}" + b" " * 999)
    assert main(["run", str(path)]) == 2
    assert "(file): more than 1000 bytes [allowed: ≤ 1000 bytes]" in capsys.readouterr().err
