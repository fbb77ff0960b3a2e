"""The estimate against what bench/estimate.py measured on a real Celery worker: never below, at most twice.

``estimate_calibration.json`` is the bench's table (``bench/estimate.py --json``): every point's scenario,
the pool process's measured ``VmPeak`` (what the worker's ``RLIMIT_AS`` caps) and the simulation's CPU
seconds, on a 2-core machine. A coefficient changed in ``schedulers/core/estimate.py`` or a family's
``footprint.py`` must keep every point within [1, 2]× of its measurement, or be measured again.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import schedulers
from schedulers.core.estimate import ARROW_CPU_THREADS, ARROW_IO_THREADS, THREAD_MB, store_mb, worker_threads

ROOT = Path(__file__).resolve().parents[2]
POINTS = json.loads((Path(__file__).parent / "estimate_calibration.json").read_text())
SHIPPED = {"backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"}


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
    return point["label"]


def test_the_table_covers_every_family_from_small_to_large():
    assert POINTS
    families = {p["config"]["family"] for p in POINTS}
    assert families == SHIPPED
    for family in families:
        peaks = [p["vmpeak_mb"] for p in POINTS if p["config"]["family"] == family]
        assert len(peaks) >= 3, family
    assert max(p["vmpeak_mb"] for p in POINTS) > 4 * min(p["vmpeak_mb"] for p in POINTS)


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_memory_is_estimated_at_its_measured_peak_or_above_and_at_most_twice_it(point):
    estimated = _estimate(point).peak_memory_mb
    assert point["vmpeak_mb"] <= estimated <= 2 * point["vmpeak_mb"], (estimated, point["vmpeak_mb"])


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_cpu_is_estimated_at_its_measured_time_or_above_and_at_most_twice_it(point):
    estimated = _estimate(point).cpu_s
    assert point["sim_cpu_s"] <= estimated <= 2 * point["sim_cpu_s"], (estimated, point["sim_cpu_s"])


def test_storing_reserves_an_arena_for_each_thread_the_worker_gives_arrow_and_the_heartbeat():
    assert worker_threads() == ARROW_CPU_THREADS + ARROW_IO_THREADS + 1
    assert store_mb() == THREAD_MB * worker_threads()


WORKER_POOLS = """
import django, pyarrow
django.setup()
from cloudsched_web.runs.tasks import warm_imports
warm_imports()
print(pyarrow.cpu_count(), pyarrow.io_thread_count())
"""


@pytest.mark.parametrize(
    "env", [{"OMP_NUM_THREADS": "8", "ARROW_IO_THREADS": "3"}, {}], ids=["env says 8 and 3", "no env"]
)
def test_a_worker_sizes_arrows_pools_as_the_estimate_counts_whatever_the_host_says(env, tmp_path):
    """The estimate is computed on the web host; a worker elsewhere (more cores, another environment) must not
    start more threads, each an arena the estimate did not count."""
    environ = {
        k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT", "ARROW_IO_THREADS")
    }
    environ.update(env, DJANGO_SETTINGS_MODULE="cloudsched_web.settings", CLOUDSCHED_VAR_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", WORKER_POOLS], cwd=ROOT, env=environ, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == [str(ARROW_CPU_THREADS), str(ARROW_IO_THREADS)]
