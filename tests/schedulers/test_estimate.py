"""schedulers.estimate: cheap, monotone, and not below what a run really takes."""

import json
import subprocess
import sys
import time

import pytest

import schedulers
from schedulers.core.estimate import BASE_MB, refusal, store_mb


def _backfill(n_jobs=20_000, algorithms=("easy", "keasy"), repetitions=1, processors=320, **params):
    return {"family": "backfill", "seed": 1, "repetitions": repetitions, "algorithms": list(algorithms),
            "datacenter": {"processors": processors}, "params": params,
            "workload": {"kind": "generator", "model": "feitelson", "n_jobs": n_jobs, "load": 0.7}}  # fmt: skip


def test_it_grows_with_jobs_algorithms_and_repetitions():
    """More jobs, more algorithms or more repetitions never make the estimate smaller."""
    est = schedulers.estimate
    for smaller, larger in [
        (_backfill(10_000), _backfill(20_000)),
        (_backfill(algorithms=["easy"]), _backfill(algorithms=["easy", "keasy"])),
        (_backfill(algorithms=["keasy"]), _backfill(algorithms=["keasy", "fcfs"])),
        (_backfill(repetitions=1), _backfill(repetitions=2)),
        (_backfill(processors=320), _backfill(processors=1024)),
    ]:
        a, b = est(smaller), est(larger)
        assert a.peak_memory_mb < b.peak_memory_mb and a.cpu_s < b.cpu_s, (smaller, larger)


@pytest.mark.parametrize("family", ["backfill", "federated", "vm_reservations", "dvfs_bot"])
def test_every_family_with_a_footprint_grows_with_repetitions(family):
    one = schedulers.example(family) | {"repetitions": 1}
    two = one | {"repetitions": 2}
    assert schedulers.estimate(one).detail["estimated"]
    assert schedulers.estimate(one).peak_memory_mb < schedulers.estimate(two).peak_memory_mb


def test_it_costs_milliseconds_even_for_a_200k_job_scenario():
    schedulers.estimate(_backfill(1000))  # imports paid once
    t0 = time.perf_counter()
    schedulers.estimate(_backfill(200_000, ["fcfs", "easy", "keasy", "reasy", "measy"], 3))
    assert time.perf_counter() - t0 < 0.05


def test_the_issue_scenario_is_refused_and_a_run_that_works_today_is_not():
    """200k jobs × 5 algorithms × 3 repetitions failed at 8 GB; 200k × 4 backfill × 1 runs (bench/results_scale.py)."""
    big = schedulers.estimate(_backfill(200_000, ["fcfs", "easy", "keasy", "reasy", "measy"], 3))
    errors = refusal(big, 8192, 3600)
    assert [e["field"] for e in errors] == ["repetitions"]
    assert "200,000 jobs" in errors[0]["message"] and "5 algorithms × 3 repetitions" in errors[0]["message"]
    assert "8.0 GB" in errors[0]["message"]
    assert refusal(schedulers.estimate(_backfill(200_000, ["easy", "keasy", "reasy", "measy"])), 8192, 3600) == []


def test_refusal_names_the_field_that_drives_it():
    est = schedulers.estimate(_backfill(200_000, ["easy", "keasy"]))
    one = est.detail["one_algorithm"]["peak_memory_mb"]
    assert refusal(est, one + 1, 0)[0]["field"] == "algorithms"  # one algorithm would fit
    assert refusal(est, one - 1, 0)[0]["field"] == "workload.n_jobs"  # nothing but fewer jobs fits
    assert refusal(est, est.peak_memory_mb, 0) == []  # at the limit: accepted
    assert refusal(est, 0, 0) == []  # 0: no limit
    assert refusal(est, 0, est.cpu_s - 0.1)[0]["message"].startswith("needs about")


def test_unrecorded_schedules_cost_less_memory_but_the_same_time():
    full, bare = schedulers.estimate(_backfill()), schedulers.estimate(_backfill(record_schedule=False))
    assert bare.peak_memory_mb < full.peak_memory_mb and bare.cpu_s == full.cpu_s


_MEASURE = """
import importlib, json, pkgutil, sys
import schedulers
for info in pkgutil.walk_packages(schedulers.__path__, "schedulers."):  # as the worker, before its pool forks
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
for name in ("scipy.special", "scipy.sparse", "scipy.optimize", "scipy.stats", "pyarrow.parquet"):
    importlib.import_module(name)
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmPeak:"):
            return int(line.split()[1]) / 1024
config = json.loads(sys.argv[1])
base = vm()
schedulers.run(config)
print(json.dumps({"base": base, "peak": vm()}))
"""


@pytest.mark.slow
def test_a_mid_size_runs_measured_peak_is_within_the_estimate():
    """The simulation's growth of the address space (20k jobs, EASY + KEASY) is not above the estimate's
    simulation part by more than 20 %, and the estimate is not wildly above it either."""
    config = _backfill(20_000, ["easy", "keasy"])
    out = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps(config)], capture_output=True, text=True,
                         check=True, timeout=300)  # fmt: skip
    m = json.loads(out.stdout)
    measured = m["peak"] - m["base"]
    estimated = schedulers.estimate(config).peak_memory_mb - BASE_MB - store_mb()
    assert measured <= 1.2 * estimated, (measured, estimated)
    assert estimated <= 2.0 * measured, (measured, estimated)


def test_queue_orders_and_plug_ins_are_estimated_too():
    """easy:<order> runs EASY's loop; an algorithm the calibration does not know counts as the heaviest."""
    from schedulers.backfill.footprint import STRETCHES, pieces_per_job_processor

    assert pieces_per_job_processor("easy:wfp3") == STRETCHES["easy"]
    assert pieces_per_job_processor("someones-plugin") == max(STRETCHES.values())
    config = schedulers.example("backfill")
    config["algorithms"] = ["easy", "easy:sjf"]
    assert schedulers.estimate(config).peak_memory_mb > 0
