"""Building one repetition's instance: jobs from a generator, an inline list or an SWF trace.

All per-job random quantities that the progress model needs (CPU usage, the
background efficiency ``eff`` of eq. 3.2, the foreground ``loss`` of eq. 3.1)
are drawn here, from the repetition's workload stream, so every algorithm of a
repetition runs the same jobs under the same luck.

Readings chosen where the paper is silent:

- CPU usage (Section 3.1): single-process jobs 100 %; a multi-process job draws
  one usage ~ U(40 %, 100 %) shared by all its processes ("the average CPU
  usage of each process"); estimated usage = actual usage.
- ``eff`` and ``loss`` are drawn once per job (the paper draws them per time
  slice; with exact event-driven rates a per-job draw is the natural analogue);
  the multi-process ``eff`` ~ N(0.428, 0.144) is clipped to the observed range
  [19.8 %, 76.6 %] of Section 2.1.
- Load scaling (Section 3.3): inter-arrival times are multiplied by
  natural_load / target_load, with natural_load = Σ size·runtime /
  (N · (last submit − first submit)).
- SWF (docs/workload-models.md §6): processors = allocated, else requested; records with
  submit < 0, runtime < 0 (−1) or no processor count are dropped (counted); jobs
  larger than the machine refuse the scenario (model.check) unless ``wider_jobs`` is
  ``drop``, and then they are dropped and counted (``dropped_too_large``); estimate = requested time if > 0
  else the runtime; an estimate below the runtime is raised to the runtime
  (EASY never kills at the estimate here); estimates are clamped to
  ``max_estimate_s`` (0 = header MaxRuntime, else the largest runtime).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedulers.backfill import generators
from schedulers.backfill.estimates import tsafrir_estimates
from schedulers.backfill.model import BackfillScenario, GeneratorWorkload, JobsWorkload, machine_size, trace_source
from schedulers.core.swf import SwfTrace
from schedulers.core.trace_jobs import FirstK, HeaderLines, blocks_of, scan
from schedulers.core.traces import natural_load
from schedulers.core.validation import ScenarioError

__all__ = ["Instance", "build_instance", "natural_load", "scale_load", "swf_jobs"]


@dataclass
class Instance:
    """Jobs sorted by submit time, as numpy columns, plus the machine size."""

    processors: int
    submit: np.ndarray
    size: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    cpu: np.ndarray  # actual per-process CPU usage in (0, 1]
    eff: np.ndarray  # background efficiency (eq. 3.2)
    loss: np.ndarray  # foreground loss (eq. 3.1)
    ids: np.ndarray  # job numbers shown in results
    info: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.submit.size)


def scale_load(submit: np.ndarray, size, runtime, processors: int, target: float | None) -> tuple[np.ndarray, float]:
    """Multiply inter-arrival times to reach ``target`` load (Section 3.3); returns (submit, factor)."""
    load = natural_load(submit, size, runtime, processors)
    if target is None or not np.isfinite(load) or load <= 0:
        return submit, 1.0
    factor = load / target
    return submit[0] + (submit - submit[0]) * factor, factor


def swf_jobs(trace: SwfTrace, processors: int, max_estimate_s: float):
    """(submit, size, runtime, requested time, ids, info) of the usable SWF records."""
    return _select_jobs(blocks_of(trace), processors, max_estimate_s, 0)


def _select_jobs(blocks, n: int, max_estimate_s: float, max_jobs: int):
    """:func:`swf_jobs` over a trace's blocks, keeping only the first ``max_jobs`` (0: all) by submit time.

    The counts and the estimate cap cover the whole trace.
    """
    header = HeaderLines("MaxRuntime")
    first = FirstK(max_jobs or None)
    records = invalid = too_large = 0
    run_max = 1.0
    for block in blocks:
        header.add(block.header)
        c = block.columns
        size = np.where(c["alloc_procs"] > 0, c["alloc_procs"], c["req_procs"])
        ok = (c["submit"] >= 0) & (c["run_time"] >= 0) & (size > 0)
        too_big = ok & (size > n)
        keep = ok & ~too_big
        records += len(block)
        invalid += int(np.count_nonzero(~ok))
        too_large += int(np.count_nonzero(too_big))
        if keep.any():
            run_max = max(run_max, float(c["run_time"][keep].max()))
        first.offer(c["submit"][keep], size=size[keep], run=c["run_time"][keep], req=c["req_time"][keep],
                    job=c["job"][keep])  # fmt: skip
    submit, size, run, req, job = first.result("size", "run", "req", "job")
    cap = max_estimate_s or float(header.int("MaxRuntime") or 0) or run_max
    info = {"records": records, "dropped_invalid": invalid, "dropped_too_large": too_large,
            "estimate_cap_s": float(cap)}  # fmt: skip
    return submit, size.astype(np.int64), run, req, job.astype(np.int64), cap, info


def _base_jobs(cfg: BackfillScenario, rng: np.random.Generator):
    """(processors, submit, size, runtime, estimate|None, ids, cpu|None, info)."""
    w, n = cfg.workload, cfg.datacenter.processors
    if isinstance(w, GeneratorWorkload):
        gen = getattr(generators, w.model)
        prm = getattr(w, w.model)
        submit, size, run = gen(w.n_jobs, n, prm, rng)
        return n, submit, size, run, None, np.arange(1, submit.size + 1), None, {"model": w.model}
    if isinstance(w, JobsWorkload):
        jobs = sorted(enumerate(w.jobs), key=lambda ij: ij[1].submit_s)
        submit = np.array([j.submit_s for _, j in jobs], dtype=float)
        size = np.array([j.processors for _, j in jobs], dtype=np.int64)
        run = np.array([j.runtime_s for _, j in jobs], dtype=float)
        est = np.array([j.estimate_s or j.runtime_s for _, j in jobs], dtype=float)
        cpu = np.array([j.cpu_usage or np.nan for _, j in jobs], dtype=float)
        ids = np.array([i + 1 for i, _ in jobs], dtype=np.int64)
        if cfg.datacenter.use_trace_size:
            n = int(size.max())
        return n, submit, size, run, est, ids, cpu, {}
    n = machine_size(cfg)  # the whole trace's header and widest job: a MaxProcs line may come anywhere
    submit, size, run, req, ids, cap, info = scan(trace_source(w), _select_jobs, n, w.max_estimate_s, w.max_jobs)
    if info["dropped_too_large"] and w.wider_jobs != "drop":  # check() refuses these; never drop without a word
        raise ScenarioError.single("workload.wider_jobs", f"{info['dropped_too_large']} jobs wider than the "
                                   f"machine's {n} processors", "drop, to leave them out")  # fmt: skip
    info["wider_jobs"] = w.wider_jobs
    est = np.minimum(np.where(req > 0, req, run), cap) if w.estimates == "trace" else None
    return n, submit, size, run, est, ids, None, info


def build_instance(cfg: BackfillScenario, rng: np.random.Generator) -> Instance:
    """The instance of one repetition (see module docstring for every reading)."""
    w, p = cfg.workload, cfg.params
    n, submit, size, run, est, ids, cpu, info = _base_jobs(cfg, rng)
    if submit.size == 0:
        raise ScenarioError.single("workload", "no usable job in the workload", "at least one valid job")
    mode = getattr(w, "estimates", "given")
    if mode == "tsafrir":
        m = w.max_estimate_s or float(run.max())
        run, est, est_info = tsafrir_estimates(run, max(m, 3600.0), rng)
        info.update(est_info)
    elif mode == "exact" or est is None:
        est = run.copy()
    est = np.maximum(est, run)
    submit, factor = scale_load(np.asarray(submit, dtype=float), size, run, n, w.load)
    natural = natural_load(submit, size, run, n)  # inf when every job is submitted at once
    info.update(load_factor=factor, natural_load=natural if np.isfinite(natural) else None, processors=n)
    k = submit.size
    multi = size > 1
    draw = rng.uniform(w.cpu_usage_min, w.cpu_usage_max, k)
    usage = np.where(multi, draw, 1.0)
    if cpu is not None:
        usage = np.where(np.isnan(cpu), usage, cpu)
    eff = np.where(
        multi,
        np.clip(rng.normal(p.eff_multi_mean, p.eff_multi_std, k), p.eff_multi_min, p.eff_multi_max),
        rng.uniform(p.eff_single_min, p.eff_single_max, k),
    )
    loss = rng.uniform(p.fg_loss_min, p.fg_loss_max, k)
    info.update(jobs=int(k), mean_size=float(size.mean()), mean_runtime_s=float(run.mean()))
    return Instance(n, submit, size, run.astype(float), est.astype(float), usage, eff, loss, ids, info)
