"""Scenario model of the ``backfill`` family (paper 001, Liu et al. 2012).

A machine of N processors, each split into a foreground (high CPU priority) and
a background (low priority) VM (Section 2.1); a stream of rigid parallel jobs;
the algorithms FCFS and EASY (one tier, the classic baselines) and KEASY, REASY,
MEASY (two tiers, Algs. 1–3). Every field has a default and a hard limit so that
``{"family": "backfill"}`` validates and runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from schedulers.core.trace_jobs import job_widths, scan
from schedulers.core.traces import check_trace_path, check_trace_ref, check_trace_text, trace_file
from schedulers.core.validation import ScenarioBase, ScenarioError, StrictModel

__all__ = [
    "ALGORITHMS",
    "BackfillScenario",
    "Datacenter",
    "FeitelsonParams",
    "GeneratorWorkload",
    "JannParams",
    "JobSpec",
    "JobsWorkload",
    "Params",
    "TraceWorkload",
    "check",
]

MAX_JOBS = 1_000_000
MAX_PROCS = 100_000

ALGORITHMS = {
    "fcfs": "FCFS without backfilling, one tier (Section 1, [13])",
    "easy": "EASY backfilling, one tier: reservation for the head job at the shadow time ([14, 15])",
    "keasy": "FCFS with KEASY backfilling and SJF background consolidation; kill-and-restart (Algs. 1–2)",
    "reasy": "REASY: reservation on the job's own processors, no kill (Alg. 3)",
    "measy": "MEASY: KEASY with migration instead of kill (Section 2.3.2)",
    # EASY composed with a named queue order (policy.py): the same reservation rule, another priority
    "easy:sjf": "EASY, queue in shortest-estimate-first order",
    "easy:ljf": "EASY, queue in longest-estimate-first order",
    "easy:saf": "EASY, queue in smallest-area (size × estimate) first order",
    "easy:wfp3": "EASY, queue by WFP3 = (wait/estimate)³ × size, highest first (Tang et al. 2009)",
    "easy:unicef": "EASY, queue by UNICEF = wait / (log₂ size × estimate), highest first (Tang et al. 2009)",
}
Algorithm = Literal[tuple(ALGORITHMS)]  # type: ignore[valid-type]  # the names above, in their order
TWO_TIER = ("keasy", "reasy", "measy")


class Datacenter(StrictModel):
    processors: int = Field(
        320, ge=1, le=MAX_PROCS, description="Number of processors N (paper: 320).", title="Processors"
    )
    use_trace_size: bool = Field(
        False,
        title="Use the trace's machine size",
        description="For an SWF trace: the machine it was logged on (header MaxProcs, else MaxNodes, else its "
        "widest job) instead of Processors.",
    )


class FeitelsonParams(StrictModel):
    """Feitelson 1996 structure (docs/workload-models.md §1.2); constants are our reading, calibrated to the paper."""

    size_exponent: float = Field(
        1.27, ge=0.0, le=4.0, description="Harmonic order of the size law P(n) ∝ n^-a.", title="Size law exponent"
    )
    pow2_boost: float = Field(
        2.0,
        ge=1.0,
        le=50.0,
        description="Weight factor of power-of-two sizes ≥ 2 (our reading; the paper does not give it).",
        title="Weight of power-of-two sizes",
    )
    serial_factor: float = Field(
        0.7,
        ge=0.0,
        le=10.0,
        description="Weight factor of serial jobs (our reading, calibrated to Table 1).",
        title="Weight of serial jobs",
    )
    max_size: int = Field(
        0, ge=0, le=MAX_PROCS, description="Largest job size; 0 = the machine size.", title="Largest job (processors)"
    )
    mean_short_s: float = Field(
        400.0, gt=0, le=1e6, title="Short-branch mean (s)", description="Mean of the short hyper-exponential branch."
    )
    mean_long_s: float = Field(
        14500.0, gt=0, le=1e7, title="Long-branch mean (s)", description="Mean of the long hyper-exponential branch."
    )
    p_long_min: float = Field(
        0.1,
        ge=0,
        le=1,
        description="Probability of the long branch for size 1.",
        title="Long-branch probability, smallest jobs",
    )
    p_long_max: float = Field(
        0.9,
        ge=0,
        le=1,
        description="Probability of the long branch for the largest size.",
        title="Long-branch probability, largest jobs",
    )
    repeat_exponent: float = Field(
        2.5,
        ge=1.1,
        le=10.0,
        description="Zipf exponent of repeated runs P(R=r) ∝ r^-e (our reading; the paper does not give it).",
        title="Repeated-runs exponent",
    )
    max_repeats: int = Field(
        30, ge=1, le=1000, description="Cap on the number of runs of one job.", title="Most runs of one job"
    )
    mean_interarrival_s: float = Field(
        1500.0,
        gt=0,
        le=1e7,
        description="Mean time between new (first-run) jobs; load is then set by `load`.",
        title="Mean time between new jobs (s)",
    )


class JannParams(StrictModel):
    """Jann 1997 hyper-Erlang model; the default table is our refit on CTC-SP2 (docs/workload-models.md §2.3)."""

    max_size: int = Field(
        0,
        ge=0,
        le=MAX_PROCS,
        description="Largest job size; 0 = min(machine size, 320).",
        title="Largest job (processors)",
    )
    interarrival_scale: float = Field(
        1.0,
        gt=0,
        le=1000,
        description="Multiplies every fitted inter-arrival time (before `load`).",
        title="Inter-arrival time factor",
    )


class LublinParams(StrictModel):
    """Lublin & Feitelson 2003 with the reference generator's constants (docs/workload-models.md §5)."""

    interactive: bool = Field(
        True, description="Include the interactive job class beside the batch class.", title="Include interactive jobs"
    )


class GeneratorWorkload(StrictModel):
    kind: Literal["generator"] = "generator"
    model: Literal["feitelson", "jann", "lublin"] = Field(
        "feitelson",
        description="Synthetic workload model (Section 3.1; Lublin 2003 as an extra).",
        title="Workload model",
        json_schema_extra={
            "x-labels": {"feitelson": "Feitelson 1996", "jann": "Jann et al. 1997", "lublin": "Lublin & Feitelson 2003"}
        },
    )
    n_jobs: int = Field(
        1000, ge=1, le=MAX_JOBS, description="Number of jobs (paper: 200,000 FW, 100,000 JW).", title="Jobs"
    )
    load: float | None = Field(
        0.7,
        ge=0.01,
        le=2.0,
        description="Offered load; inter-arrival times are multiplied to reach it (Section 3.3).",
        title="Offered load",
    )
    estimates: Literal["tsafrir", "exact"] = Field(
        "tsafrir",
        description="User runtime estimates: Tsafrir 2005 model (paper) or exact runtimes.",
        title="Runtime estimates",
    )
    max_estimate_s: float = Field(
        64800.0,
        ge=3600,
        le=1e7,
        description="Tsafrir model M: largest allowed estimate (runtimes are cut to it).",
        title="Largest runtime estimate (s)",
    )
    cpu_usage_min: float = Field(
        0.4, gt=0, le=1, description="Multi-process jobs: per-process CPU usage ~ U(min, max).", title="CPU use, lowest"
    )
    cpu_usage_max: float = Field(
        1.0, gt=0, le=1, description="Upper end of the multi-process CPU usage (Section 3.1).", title="CPU use, highest"
    )
    feitelson: FeitelsonParams = Field(default_factory=FeitelsonParams, title="Feitelson model")
    jann: JannParams = Field(default_factory=JannParams, title="Jann model")
    lublin: LublinParams = Field(default_factory=LublinParams, title="Lublin model")


class JobSpec(StrictModel):
    submit_s: float = Field(0.0, ge=0, le=1e10, description="Submit time (s).", title="Submit time (s)")
    processors: int = Field(
        1, ge=1, le=MAX_PROCS, description="Number of processes (one per processor).", title="Processors"
    )
    runtime_s: float = Field(
        60.0, gt=0, le=1e9, description="Actual runtime on dedicated processors (s).", title="Runtime (s)"
    )
    estimate_s: float | None = Field(
        None, gt=0, le=1e9, description="User estimate (s); default = runtime.", title="Runtime estimate (s)"
    )
    cpu_usage: float | None = Field(
        None, gt=0, le=1, description="CPU usage of each process; default per Section 3.1.", title="CPU use"
    )


class JobsWorkload(StrictModel):
    kind: Literal["jobs"] = "jobs"
    jobs: list[JobSpec] = Field(default_factory=lambda: [JobSpec()], min_length=1, max_length=100_000, title="Jobs")
    load: float | None = Field(
        None,
        ge=0.01,
        le=2.0,
        description="Offered load to scale inter-arrivals to; none = as given.",
        title="Offered load",
    )
    cpu_usage_min: float = Field(
        0.4, gt=0, le=1, description="Multi-process jobs without cpu_usage: U(min, max).", title="CPU use, lowest"
    )
    cpu_usage_max: float = Field(1.0, gt=0, le=1, description="Upper end of that range.", title="CPU use, highest")


class TraceWorkload(StrictModel):
    kind: Literal["trace"] = "trace"
    swf: str = Field(
        "",
        max_length=200_000_000,
        description="SWF text (an uploaded log); or give `path` or `trace`.",
        title="SWF text",
    )
    path: str = Field(
        "",
        max_length=1000,
        description="Path of an SWF(.gz) file readable by the worker.",
        title="Trace file on the server",
    )
    trace: str = Field(
        "", max_length=71, description="A stored trace: 'sha256:' + the SHA-256 of its SWF text.", title="Stored trace"
    )
    max_jobs: int = Field(
        0, ge=0, le=MAX_JOBS, description="Keep only the first jobs (0 = all).", title="First jobs only"
    )
    load: float | None = Field(
        None,
        ge=0.01,
        le=2.0,
        description="Offered load to scale inter-arrivals to; none = as logged.",
        title="Offered load",
    )
    estimates: Literal["trace", "exact", "tsafrir"] = Field(
        "trace",
        description="Requested time (field 9) as estimate, exact runtimes, or the Tsafrir model.",
        title="Runtime estimates",
    )
    max_estimate_s: float = Field(
        0.0,
        ge=0,
        le=1e9,
        description="Clamp estimates to this (0 = header MaxRuntime, else the largest runtime).",
        title="Largest runtime estimate (s)",
    )
    cpu_usage_min: float = Field(
        0.4, gt=0, le=1, description="Multi-process jobs: per-process CPU usage ~ U(min, max).", title="CPU use, lowest"
    )
    cpu_usage_max: float = Field(1.0, gt=0, le=1, description="Upper end of that range.", title="CPU use, highest")
    wider_jobs: Literal["refuse", "drop"] = Field(
        "refuse",
        title="Jobs wider than the machine",
        description="refuse: such a trace is refused, naming how many jobs and the widest; drop: they are left "
        "out, and the run says how many (run header, result, validity checks).",
        json_schema_extra={"x-labels": {"refuse": "refuse the scenario", "drop": "drop them (the run says how many)"}},
    )


Workload = Annotated[GeneratorWorkload | JobsWorkload | TraceWorkload, Field(discriminator="kind")]


class Params(StrictModel):
    migration_cost_s: float = Field(
        20.0, ge=0, le=1e6, description="MEASY migration cost (s) (Section 3: 20 s).", title="Migration cost (s)"
    )
    fg_loss_min: float = Field(
        0.005,
        ge=0,
        le=0.5,
        description="Foreground loss ~ U(min, max) when bg busy (eq. 3.1).",
        title="Foreground loss, lowest",
    )
    fg_loss_max: float = Field(
        0.04, ge=0, le=0.5, description="Upper end of the foreground loss.", title="Foreground loss, highest"
    )
    eff_single_min: float = Field(
        0.80,
        gt=0,
        le=1,
        description="Background eff of single-process jobs ~ U(min, max).",
        title="Background efficiency of serial jobs, lowest",
    )
    eff_single_max: float = Field(
        0.92, gt=0, le=1, description="Upper end (eq. 3.2).", title="Background efficiency of serial jobs, highest"
    )
    eff_multi_mean: float = Field(
        0.428,
        gt=0,
        le=1,
        description="Background eff of multi-process jobs ~ N(μ, σ).",
        title="Background efficiency of parallel jobs, mean",
    )
    eff_multi_std: float = Field(
        0.144, ge=0, le=1, description="σ of that normal law.", title="Background efficiency of parallel jobs, spread"
    )
    eff_multi_min: float = Field(
        0.198,
        gt=0,
        le=1,
        description="Clip of the normal eff (the observed 19.8%).",
        title="Background efficiency of parallel jobs, lowest",
    )
    eff_multi_max: float = Field(
        0.766,
        gt=0,
        le=1,
        description="Clip of the normal eff (the observed 76.6%).",
        title="Background efficiency of parallel jobs, highest",
    )
    bg_threshold: float = Field(
        0.96,
        gt=0,
        le=1,
        description="A bg VM accepts work only if its fg CPU use is below this (Section 2.1).",
        title="Background admission threshold",
    )
    cpu_info: Literal["exact", "none"] = Field(
        "exact",
        description="Scheduler knows CPU usage (exact) or nothing (Figs. 9–10: no threshold, no pairing).",
        title="CPU use known to the scheduler",
    )
    gamma_s: float = Field(
        10.0,
        gt=0,
        le=1e5,
        title="Bounded-slowdown threshold (s)",
        description="Bounded-slowdown threshold (Section 3.3).",
    )
    batches: int = Field(
        10,
        ge=2,
        le=1000,
        description="Batch-means batches for the confidence intervals.",
        title="Batches for confidence intervals",
    )
    record_schedule: bool = Field(
        True, description="Emit schedule segments (turn off for huge benchmark runs).", title="Record the schedule"
    )
    max_segments: int | None = Field(
        None,
        ge=0,
        le=50_000_000,
        description="Limit on recorded segments per run; empty = the full schedule "
        "(a cut is stated in extra.schedule_cut: limit, segments recorded, where it falls).",
        title="Most schedule segments kept",
    )
    record_jobs: bool = Field(True, description="Emit per-job records.", title="Record every job")


class BackfillScenario(ScenarioBase):
    family: Literal["backfill"] = "backfill"
    algorithms: list[Algorithm] = Field(
        default_factory=lambda: ["easy", "keasy", "reasy", "measy"],
        min_length=1,
        max_length=len(ALGORITHMS),
        description="fcfs/easy and easy:<queue order> run on one tier; keasy/reasy/measy on the two-tier "
        "(fg/bg VM) machine.",
    )
    datacenter: Datacenter = Field(default_factory=Datacenter)
    workload: Workload = Field(default_factory=GeneratorWorkload)
    params: Params = Field(default_factory=Params)

    @model_validator(mode="before")
    @classmethod
    def _default_workload_kind(cls, data):
        """A workload given without ``kind`` is a generator (the default kind)."""
        if isinstance(data, dict) and isinstance(data.get("workload"), dict) and "kind" not in data["workload"]:
            data = {**data, "workload": {"kind": "generator", **data["workload"]}}
        return data


def _range(errors: list, lo: float, hi: float, field: str) -> None:
    if lo > hi:
        errors.append({"field": field, "message": f"minimum {lo} exceeds maximum {hi}", "allowed": "min ≤ max"})


def check(cfg: BackfillScenario) -> None:
    """Cross-field validation; raises one :class:`ScenarioError` listing every bad field."""
    errors: list[dict[str, str]] = []
    w, p, n = cfg.workload, cfg.params, cfg.datacenter.processors
    _range(errors, w.cpu_usage_min, w.cpu_usage_max, "workload.cpu_usage_min")
    _range(errors, p.fg_loss_min, p.fg_loss_max, "params.fg_loss_min")
    _range(errors, p.eff_single_min, p.eff_single_max, "params.eff_single_min")
    _range(errors, p.eff_multi_min, p.eff_multi_max, "params.eff_multi_min")
    if isinstance(w, GeneratorWorkload):
        f = w.feitelson
        _range(errors, f.p_long_min, f.p_long_max, "workload.feitelson.p_long_min")
        if f.max_size > n:
            errors.append({"field": "workload.feitelson.max_size", "message": "larger than the machine",
                           "allowed": f"0..{n}"})  # fmt: skip
        if w.jann.max_size > n:
            errors.append({"field": "workload.jann.max_size", "message": "larger than the machine",
                           "allowed": f"0..{n}"})  # fmt: skip
    elif isinstance(w, JobsWorkload):
        for i, job in enumerate(w.jobs):
            if job.processors > n and not cfg.datacenter.use_trace_size:
                errors.append({"field": f"workload.jobs[{i}].processors", "message": "more than the machine has",
                               "allowed": f"1..{n}"})  # fmt: skip
    elif isinstance(w, TraceWorkload) and sum(map(bool, (w.swf.strip(), w.path.strip(), w.trace))) != 1:
        errors.append({"field": "workload.swf", "message": "give exactly one of `swf` (text), `path` and `trace`",
                       "allowed": "SWF text, a file path or a stored trace"})  # fmt: skip
    elif isinstance(w, TraceWorkload) and w.path.strip():
        errors.extend(check_trace_path(w.path.strip()))
    elif isinstance(w, TraceWorkload) and w.trace:
        errors.extend(check_trace_ref(w.trace))
    elif isinstance(w, TraceWorkload) and w.swf.strip():
        errors.extend(check_trace_text(w.swf, "workload.swf"))
    if isinstance(w, TraceWorkload) and not errors:
        errors.extend(_wider_jobs(cfg))
    if errors:
        raise ScenarioError(errors)


def trace_source(w: TraceWorkload):
    """What a trace workload reads: a file (``path``, or the stored trace ``trace`` names) or inline text."""
    if w.path.strip():
        return Path(w.path.strip())
    return trace_file(w.trace) if w.trace else w.swf


def machine_size(cfg: BackfillScenario) -> int:
    """The processors N of a trace scenario: ``processors``, or the trace's own machine when asked."""
    if not cfg.datacenter.use_trace_size:
        return cfg.datacenter.processors
    return scan(trace_source(cfg.workload), job_widths).machine() or cfg.datacenter.processors


def _wider_jobs(cfg: BackfillScenario) -> list[dict[str, str]]:
    """A trace with jobs wider than the machine is refused unless the user chose to drop them: a run
    that left jobs out without a word once passed every check."""
    w = cfg.workload
    widths = scan(trace_source(w), job_widths)
    n = (widths.machine() or cfg.datacenter.processors) if cfg.datacenter.use_trace_size else cfg.datacenter.processors
    count, widest = widths.wider_than(n)
    if not count or w.wider_jobs == "drop":
        return []
    jobs = "1 job of the trace needs" if count == 1 else f"{count:,} jobs of the trace need"
    message = f"{jobs} more than the machine's {n:,} processors (the widest needs {widest:,})"
    if cfg.datacenter.use_trace_size:  # the trace's header is smaller than its own widest job
        field = next(f"workload.{k}" for k in ("path", "trace", "swf") if str(getattr(w, k)).strip())
        allowed = "a machine of ≥ {:,} processors (turn off 'Use the trace's machine size'), or set 'Jobs wider " \
                  "than the machine' (workload.wider_jobs) to drop"  # fmt: skip
    else:
        field = "datacenter.processors"
        allowed = "≥ {:,} processors, or set 'Jobs wider than the machine' (workload.wider_jobs) to drop"
    return [{"field": field, "message": message, "allowed": allowed.format(widest)}]
