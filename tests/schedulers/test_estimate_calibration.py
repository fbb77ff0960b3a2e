"""The estimate against what bench/estimate.py measured on a real Celery worker: never below, at most twice.

``estimate_calibration.json`` is the bench's table (``bench/estimate.py --json``): every point's scenario,
the pool process's measured ``VmPeak`` (what the worker's ``RLIMIT_AS`` caps) and the simulation's CPU
seconds, on a 2-core machine. A coefficient changed in ``schedulers/core/estimate.py`` or a family's
``footprint.py`` must keep every point within [1, 2]× of its measurement, or be measured again.
"""

import json
from pathlib import Path

import pytest

import schedulers
from schedulers.core.estimate import THREAD_MB, store_mb, worker_threads

ROOT = Path(__file__).resolve().parents[2]
POINTS = json.loads((Path(__file__).parent / "estimate_calibration.json").read_text())
SHIPPED = {"backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"}


@pytest.fixture
def bench_host(monkeypatch):
    """The threads of the bench's host (2 cores: Arrow's CPU pool of 2, its I/O pool of 8), wherever the test runs."""

    def host(env):
        for name in ("OMP_THREAD_LIMIT", "ARROW_IO_THREADS"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OMP_NUM_THREADS", "2")
        for name, value in env.items():
            monkeypatch.setenv(name, value)

    return host


def _estimate(point):
    """The estimate of a point now; a trace is named relative to the checkout (``../shared/…``), and a point
    on one is skipped in a clone without it."""
    config = point["config"]
    path = config["workload"].get("path")
    if path:
        found = (ROOT / path).resolve()
        if not found.is_file():
            pytest.skip(f"the trace {path} is not beside this checkout")
        config = {**config, "workload": {**config["workload"], "path": str(found)}}
    return schedulers.estimate(config)


def _ids(point):
    return point["label"] + "".join(f" {k}={v}" for k, v in point.get("env", {}).items())


def test_the_table_covers_every_family_from_small_to_large():
    assert POINTS
    families = {p["config"]["family"] for p in POINTS}
    assert families == SHIPPED
    for family in families:
        peaks = [p["vmpeak_mb"] for p in POINTS if p["config"]["family"] == family]
        assert len(peaks) >= 3, family
    assert max(p["vmpeak_mb"] for p in POINTS) > 4 * min(p["vmpeak_mb"] for p in POINTS)


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_memory_is_estimated_at_its_measured_peak_or_above_and_at_most_twice_it(point, bench_host):
    bench_host(point.get("env", {}))
    estimated = _estimate(point).peak_memory_mb
    assert point["vmpeak_mb"] <= estimated <= 2 * point["vmpeak_mb"], (estimated, point["vmpeak_mb"])


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_cpu_is_estimated_at_its_measured_time_or_above_and_at_most_twice_it(point, bench_host):
    bench_host(point.get("env", {}))
    estimated = _estimate(point).cpu_s
    assert point["sim_cpu_s"] <= estimated <= 2 * point["sim_cpu_s"], (estimated, point["sim_cpu_s"])


def test_storing_reserves_a_thread_s_share_for_each_of_arrows_threads_and_the_heartbeat(monkeypatch):
    """Arrow's CPU pool follows OMP_NUM_THREADS (else the cores, at most OMP_THREAD_LIMIT); its I/O pool is 8."""
    for name in ("OMP_THREAD_LIMIT", "ARROW_IO_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert worker_threads() == 2 + 8 + 1
    two = store_mb()
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    assert store_mb() == two + 6 * THREAD_MB
    monkeypatch.setenv("OMP_THREAD_LIMIT", "4")
    monkeypatch.setenv("ARROW_IO_THREADS", "2")
    assert worker_threads() == 4 + 2 + 1
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    monkeypatch.delenv("OMP_THREAD_LIMIT")
    assert worker_threads() >= 1 + 2 + 1  # unreadable: the cores, as Arrow does
