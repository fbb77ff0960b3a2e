"""What a scenario will cost a worker: peak memory and CPU time, estimated in milliseconds.

A run does ``repetitions × algorithms`` simulations in one process (``schedulers.run``) and keeps
every one's result — schedule segments, job records, series — until the whole document is stored
(the web worker: ``Run.store_result``, Parquet through pyarrow). So the peak is

    peak = BASE_MB + store_mb() + Σ over runs of held_mb + max over runs of working_mb

where ``held_mb`` is what a run's result holds and ``working_mb`` what simulating it needs on top
(the simulator's state, the instance, the records being built), released when it ends. A family
reads its scenario into one :class:`RunSize` per algorithm (counts × its bytes per record) in
``schedulers/<family>/footprint.py``; a family without one is estimated at the base only.

The figures are *address space*, not RSS: the worker's limit (``RUN_MEMORY_LIMIT_MB``) is an
``RLIMIT_AS``. A Celery pool process starts a run at about 585 MB of it (forked from the worker
that imported the library, scipy and pyarrow: ``tasks.warm_imports``). Storing the result starts
Arrow's threads — its CPU pool of ``ARROW_CPU_THREADS`` and its I/O pool of ``ARROW_IO_THREADS``, sizes the
worker sets — and the run its heartbeat thread; with the C library's malloc (``ARROW_DEFAULT_MEMORY_POOL=system``) each thread that
allocates reserves an arena of 64 MB, never resident but counted: that is ``store_mb()``, taken
at every thread (small runs start fewer; 11 were seen at the largest on 2 cores). Measured with
``bench/estimate.py`` on a real Celery worker (run.sh's flags), 2026-11-29, a 2-core machine,
Python 3.11, numpy 2, pyarrow 18: every point of every family is estimated at 1–2× its measured
``VmPeak`` (``tests/schedulers/test_estimate_calibration.py`` holds the table).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ARROW_CPU_THREADS",
    "ARROW_IO_THREADS",
    "BASE_MB",
    "THREAD_MB",
    "Estimate",
    "Footprint",
    "RunSize",
    "estimate",
    "first_jobs",
    "refusal",
    "store_mb",
    "trace_summary",
    "worker_threads",
]

# A Celery pool process when its task starts (forked from a worker that ran tasks.warm_imports; run.sh's flags):
# VmPeak 583–585 MB on every point measured.
BASE_MB = 590.0
# A thread's share of the address space: the C library's malloc gives each thread that allocates an arena of
# 64 MB (reserved, HEAP_MAX_SIZE on 64-bit Linux). Stacks (8 MB, RLIMIT_STACK's default) are not added: a pool
# process's maps showed four new arenas but one new stack for four new threads, and with 72 MB a thread the
# smallest results sat at 2.0× their measured peak (vm_reservations 100,000 × 4) where 64 keeps the largest
# points at ≥ 1.06× (bench/estimate.py).
THREAD_MB = 64.0
# A worker sets Arrow's two pools to these sizes before it forks its pool (``tasks.warm_imports``), whatever the
# host's cores or environment: the estimate is computed on the web host, and a worker with more cores would
# otherwise reserve an arena more for each (64 cores: 4 GB) than the estimate counted. Two CPU threads write a
# result's Parquet files as fast as more on the sizes measured; the I/O pool keeps Arrow's default.
ARROW_CPU_THREADS = 2
ARROW_IO_THREADS = 8


def worker_threads() -> int:
    """Threads a worker process runs while it stores a result, besides its main one: Arrow's CPU and I/O pools
    (their sizes set by the worker) and the run's heartbeat."""
    return ARROW_CPU_THREADS + ARROW_IO_THREADS + 1


def store_mb() -> float:
    """What storing adds to the address space whatever the result's size: every thread's arena."""
    return THREAD_MB * worker_threads()


@dataclass(frozen=True)
class RunSize:
    """One simulation (one algorithm, one repetition): what its result holds, what it needs while running."""

    held_mb: float
    working_mb: float
    cpu_s: float


@dataclass(frozen=True)
class Footprint:
    """A family's reading of a scenario: per algorithm one :class:`RunSize`, and what sets the size.

    ``size`` says it in words (``"200,000 jobs"``) and ``size_field`` names the scenario field that
    sets it (``"workload.n_jobs"``), for the message that refuses a scenario.
    """

    runs: Mapping[str, RunSize]
    size: str
    size_field: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Estimate:
    """A scenario's estimated peak memory (MB of address space) and CPU seconds of simulation."""

    peak_memory_mb: float
    cpu_s: float
    detail: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        d = self.detail
        return (f"about {_gb(self.peak_memory_mb)} of memory and {_duration(self.cpu_s)} of CPU "
                f"({d.get('shape', '')})")  # fmt: skip


def _gb(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def _duration(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.0f} min" if s >= 120 else f"{s:.0f} s"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def footprint(family: Any, cfg: Any) -> Footprint | None:
    """The family's footprint of ``cfg`` (``schedulers.<family>.footprint.footprint``), or None."""
    try:
        module = importlib.import_module(f"schedulers.{family.name}.footprint")
    except ModuleNotFoundError:
        return None
    return module.footprint(cfg)


def _combine(runs: Mapping[str, RunSize], algorithms: list[str], repetitions: int) -> tuple[float, float]:
    sizes = [runs[a] for a in algorithms]
    held = repetitions * sum(r.held_mb for r in sizes)
    peak = BASE_MB + store_mb() + held + max((r.working_mb for r in sizes), default=0.0)
    return peak, repetitions * sum(r.cpu_s for r in sizes)


def estimate(scenario: Any) -> Estimate:
    """Estimate a scenario's peak memory and simulation CPU time without running it (milliseconds).

    ``scenario`` is a ``(family, model)`` pair from :func:`schedulers.validate` (``schedulers.estimate``
    takes a scenario dict and validates it first). ``detail`` holds the shape in words,
    the field that most drives the size (``driver``), and the memory and time of one repetition
    and of one algorithm, so a caller can say which change would make it fit.
    """
    family, cfg = scenario
    algorithms, reps = list(cfg.algorithms), int(cfg.repetitions)
    fp = footprint(family, cfg)
    shape = f"{_plural(len(algorithms), 'algorithm')} × {_plural(reps, 'repetition')}"
    if fp is None:
        return Estimate(BASE_MB + store_mb(), 0.0, {"shape": shape, "driver": "(scenario)", "estimated": False})
    peak, cpu = _combine(fp.runs, algorithms, reps)
    one_rep = _combine(fp.runs, algorithms, 1)
    heaviest = max(algorithms, key=lambda a: (fp.runs[a].held_mb, fp.runs[a].cpu_s))
    one_alg = _combine(fp.runs, [heaviest], 1)
    detail = {
        "shape": f"{fp.size} × {shape}",
        "size_field": fp.size_field,
        "one_repetition": {"peak_memory_mb": one_rep[0], "cpu_s": one_rep[1]},
        "one_algorithm": {"algorithm": heaviest, "peak_memory_mb": one_alg[0], "cpu_s": one_alg[1]},
        "runs": {a: {"held_mb": r.held_mb, "working_mb": r.working_mb, "cpu_s": r.cpu_s} for a, r in fp.runs.items()},
        "notes": list(fp.notes),
        "estimated": True,
    }
    return Estimate(float(peak), float(cpu), detail)


def _driver(est: Estimate, key: str, limit: float) -> str:
    """The field that most drives ``key`` past ``limit``: repetitions if one would fit, then
    algorithms if one (the heaviest) would, else the family's size field."""
    d = est.detail
    if not d.get("estimated"):
        return "(scenario)"
    if d["one_repetition"][key] <= limit < getattr(est, key):
        return "repetitions"
    if d["one_algorithm"][key] <= limit:
        return "algorithms"
    return d["size_field"]


def refusal(est: Estimate, memory_limit_mb: float, time_limit_s: float) -> list[dict[str, str]]:
    """Errors (``ScenarioError`` entries) for an estimate over a worker's limits; empty if it fits.

    A limit of 0 (or less) means none. Each error names the field that most drives it, the
    estimate and the limit.
    """
    errors = []
    shape = est.detail.get("shape", "")
    if memory_limit_mb > 0 and est.peak_memory_mb > memory_limit_mb:
        errors.append({
            "field": _driver(est, "peak_memory_mb", memory_limit_mb),
            "message": f"needs about {_gb(est.peak_memory_mb)} of memory ({shape}); "
                       f"this server's runs may use {_gb(memory_limit_mb)}",
            "allowed": f"an estimated peak of at most {_gb(memory_limit_mb)} (RUN_MEMORY_LIMIT_MB)",
        })  # fmt: skip
    if time_limit_s > 0 and est.cpu_s > time_limit_s:
        errors.append({
            "field": _driver(est, "cpu_s", time_limit_s),
            "message": f"needs about {_duration(est.cpu_s)} of computing ({shape}); "
                       f"this server stops a run after {_duration(time_limit_s)}",
            "allowed": f"an estimated {math.floor(time_limit_s):,} s at most (RUN_SOFT_TIME_LIMIT_S)",
        })  # fmt: skip
    return errors


def trace_summary(path: str = "", text: str = "", ref: str = "") -> dict[str, Any]:
    """The exact summary of a scenario's trace (``schedulers.core.traces.Summary``: ``usable_jobs``,
    ``size_sum`` — Σ processors of the usable jobs —, ``largest_job``, ``span_s``…), from a stored
    trace's catalog (``ref``), a file (``path``) or SWF ``text``: every job counted, never a sample."""
    from pathlib import Path

    from schedulers.core.traces import catalog, exact_summary, trace_file

    if ref:
        return catalog().summary(ref) or exact_summary(trace_file(ref))
    if path:
        return exact_summary(Path(path))
    return exact_summary(text.encode("utf-8", "surrogateescape"))


def first_jobs(summary: Mapping[str, Any], limit: int | None) -> tuple[int, int]:
    """(jobs, Σ processors) of the first ``limit`` usable jobs (None or 0: all), bounded from above: which
    jobs come first is not in the summary, so a cut trace is counted as its widest jobs where the cut could
    keep them (at most Σ processors of the whole, at most ``limit`` × its largest job)."""
    usable, total = int(summary["usable_jobs"]), int(summary.get("size_sum") or 0)
    if not limit or limit >= usable:
        return usable, total
    return int(limit), min(total, int(limit) * int(summary["largest_job"]))
