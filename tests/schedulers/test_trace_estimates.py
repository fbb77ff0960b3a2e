"""A trace's cost estimate counts every job of the trace (its exact summary), never a sample.

Each shape below misled the sampled estimate (the first megabyte, scaled by the size a gzip trailer
states): the estimate must equal what the whole trace holds.
"""

import gzip

import pytest

import schedulers
from schedulers.backfill import footprint as backfill_fp
from schedulers.core.estimate import first_jobs, trace_summary


def _lines(n, size, start=0):
    return "".join(
        f"{start + i + 1} {start + i} 0 100 {size} -1 -1 {size} 200 -1 1 1 1 1 1 -1 -1 -1\n" for i in range(n)
    )


@pytest.fixture
def trace_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path))
    return tmp_path


def _backfill(path):
    return {"family": "backfill", "seed": 1, "repetitions": 1, "algorithms": ["easy"], "datacenter": {"processors": 128},
            "workload": {"kind": "trace", "path": str(path), "estimates": "exact"}}  # fmt: skip


def _expected_cpu(jobs, processors):
    return processors * backfill_fp.CPU_PER_SEGMENT_S + jobs * backfill_fp.CPU_PER_JOB_S


def _last_member_tiny(d):
    path = d / "members.swf.gz"
    path.write_bytes(gzip.compress(_lines(20_000, 4).encode()) + gzip.compress(_lines(1, 4, 20_000).encode()))
    return path, 20_001, 20_001 * 4


def _a_megabyte_of_comments(d):
    path = d / "comments.swf"
    comment = "; " + "x" * 98 + "\n"
    path.write_text(comment * 11_000 + _lines(5_000, 32))
    return path, 5_000, 5_000 * 32


def _small_jobs_then_big_ones(d):
    path = d / "small-then-big.swf"
    path.write_text(_lines(25_000, 1) + _lines(5_000, 128, 25_000))
    return path, 30_000, 25_000 + 5_000 * 128


def _three_megabytes_of_plain_text(d):
    path = d / "plain.swf"
    path.write_text(_lines(64_198, 2))
    return path, 64_198, 64_198 * 2


SHAPES = [_last_member_tiny, _a_megabyte_of_comments, _small_jobs_then_big_ones, _three_megabytes_of_plain_text]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__.strip("_"))
def test_a_misleading_trace_is_estimated_at_its_real_size(trace_dir, shape):
    path, jobs, processors = shape(trace_dir)
    assert path.stat().st_size > 2**20 or path.suffix == ".gz"  # past the old sample's megabyte
    found = trace_summary(path=str(path))
    assert (found["usable_jobs"], found["size_sum"]) == (jobs, processors)
    est = schedulers.estimate(_backfill(path))
    assert f"{jobs:,} jobs" in est.detail["shape"]
    assert est.cpu_s == pytest.approx(_expected_cpu(jobs, processors), rel=1e-9)


def test_the_federated_estimate_counts_every_trace_job(trace_dir):
    path, jobs, _ = _last_member_tiny(trace_dir)
    scenario = schedulers.example("federated")
    scenario["workload"] = {"kind": "trace", "path": str(path)}
    est = schedulers.estimate(scenario)
    assert f"{jobs:,} trace jobs" in est.detail["shape"]


def test_inline_text_is_summarised_whole():
    text = "; comment\n" * 120_000 + _lines(3_000, 8)
    assert len(text) > 2**20
    found = trace_summary(text=text)
    assert (found["usable_jobs"], found["size_sum"]) == (3_000, 24_000)


def test_a_cut_trace_is_counted_at_its_widest_possible_first_jobs():
    """max_jobs keeps the first jobs, which the summary does not know: bounded by limit × largest and the whole."""
    summary = {"usable_jobs": 30_000, "size_sum": 665_000, "largest_job": 128}
    assert first_jobs(summary, None) == (30_000, 665_000)
    assert first_jobs(summary, 30_000) == (30_000, 665_000)
    assert first_jobs(summary, 10_000) == (10_000, 665_000)
    assert first_jobs(summary, 1_000) == (1_000, 128_000)
