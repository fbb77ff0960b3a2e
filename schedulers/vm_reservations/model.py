"""Scenario model of the MinTEC problem (paper 003, Tian et al., Sections 2 and 5.1).

Time is slotted (``datacenter.slot_minutes``, 5 min in Section 5.3, 1 min for the
traces of Section 5.4). A VM reservation is ``[start slot, end slot, VM type]``;
it occupies slots ``start .. end-1`` (the paper's interval ``[s, e]`` with
``p = e − s`` slots) and holds its VM type's CPU units on one PM for all of them.

Readings chosen where the paper is silent:

* Heterogeneous PMs (Tables 1–3): the catalogues are "strongly divisible" per VM
  family (1-x on PM type 1 of 16 units, 2-x on type 2 of 52, 3-x on type 3 of 40;
  CPU, memory and storage fractions agree, Section 2.1). Each VM type therefore
  names the PM type that hosts it (``vm_types[].pm_type``); the requests of one
  PM type form an independent MinTEC instance (a *pool*) with ``g`` = that type's
  CPU. Only CPU is packed, as in the paper; memory and storage are descriptive.
* CPU units need not be integers (6.5 ECU): each pool is rescaled by the smallest
  integer factor ≤ 1000 that makes its capacity and demands integral.
* Energy (eq. 8/11): ``E = Pmin·T + (Pmax − Pmin)·Σ u·t``; idle PMs are off.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field

from schedulers.core.traces import check_trace_path, check_trace_ref, check_trace_text
from schedulers.core.validation import ScenarioBase, ScenarioError, StrictModel

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHMS",
    "DataCenter",
    "GeneratorWorkload",
    "InlineJob",
    "JobsWorkload",
    "Params",
    "PmType",
    "Scenario",
    "TraceWorkload",
    "VmType",
    "check",
    "integer_scale",
]

ALGORITHMS = {
    "opt_min_migration": "OPT-Min-Migration (Alg. 2.1, our sweep): reaches the Theorem 1 bound with VM migrations; "
    "the migration count is greedy, not always the minimum",
    "min_migration": "Theorem 1 bound with the fewest migrations (Theorem 3's claim): exact MILP via HiGHS, "
    "small instances",
    "llif": "Longest Loaded Interval First (Alg. 3.1), no migration",
    "ffd": "First Fit Decreasing by process time (Section 5.2)",
    "est": "Earliest Start-Time first, first fit (Section 5.2)",
    "mffde": "Modified FFD, earliest start-time first (ref. [32])",
    "exact": "Exact optimum without migration (MILP via HiGHS) for small instances",
    # a paper's order with another PM choice (policy.py): <order>:<fit>
    **{f"{o}:{f}": f"{o.upper()} order, {policy_fit} (policy.py)"
       for o in ("llif", "ffd", "est", "mffde") for f, policy_fit in (("best", "best fit"), ("worst", "worst fit"))},
}  # fmt: skip
Algorithm = Literal[tuple(ALGORITHMS)]  # type: ignore[valid-type]  # the names above, in their order
DEFAULT_ALGORITHMS = ["opt_min_migration", "llif", "ffd", "est", "mffde"]
MAX_REQUESTS = 1_000_000
MAX_SLOT = 100_000_000


class PmType(StrictModel):
    name: str = Field(min_length=1, max_length=40, description="PM type name (VM types refer to it)", title="Name")
    cpu: float = Field(
        gt=0, le=100_000, title="CPU (compute units)", description="CPU capacity g in compute units (ECU)"
    )
    mem_gb: float = Field(
        default=0.0, ge=0, le=1e7, description="Memory (descriptive; only CPU is packed)", title="Memory (GB)"
    )
    storage_gb: float = Field(default=0.0, ge=0, le=1e9, description="Storage (descriptive)", title="Storage (GB)")
    p_min_w: float = Field(ge=0, le=1e6, title="Power when idle (W)", description="Power when on and idle (Table 3)")
    p_max_w: float = Field(
        ge=0, le=1e6, title="Power at full load (W)", description="Power at full CPU utilisation (Table 3)"
    )


class VmType(StrictModel):
    name: str = Field(min_length=1, max_length=40, description="VM type name (EC2 style, Table 1)", title="Name")
    cpu: float = Field(gt=0, le=100_000, description="CPU demand d in compute units (ECU)", title="CPU (compute units)")
    mem_gb: float = Field(default=0.0, ge=0, le=1e7, description="Memory (descriptive)", title="Memory (GB)")
    storage_gb: float = Field(default=0.0, ge=0, le=1e9, description="Storage (descriptive)", title="Storage (GB)")
    pm_type: str = Field(
        min_length=1,
        max_length=40,
        description="Name of the PM type that hosts this VM type",
        title="Host machine type",
    )


def _table3() -> list[PmType]:
    return [
        PmType(name="pm1", cpu=16, mem_gb=30, storage_gb=3380, p_min_w=210, p_max_w=300),
        PmType(name="pm2", cpu=52, mem_gb=136.8, storage_gb=3380, p_min_w=420, p_max_w=600),
        PmType(name="pm3", cpu=40, mem_gb=14, storage_gb=3380, p_min_w=350, p_max_w=500),
    ]


def _table1() -> list[VmType]:
    rows = [
        ("1-1", 1, 1.875, 211.25, "pm1"),
        ("1-2", 4, 7.5, 845, "pm1"),
        ("1-3", 8, 15.0, 1690, "pm1"),
        ("2-1", 6.5, 17.1, 422.5, "pm2"),
        ("2-2", 13, 34.2, 845, "pm2"),
        ("2-3", 26, 68.4, 1690, "pm2"),
        ("3-1", 5, 1.7, 422.5, "pm3"),
        ("3-2", 20, 6.8, 1690, "pm3"),
    ]
    return [VmType(name=n, cpu=c, mem_gb=m, storage_gb=s, pm_type=p) for n, c, m, s, p in rows]


class DataCenter(StrictModel):
    slot_minutes: float = Field(
        default=5.0, gt=0, le=1440, description="Length of one time slot in minutes", title="Time slot (min)"
    )
    pm_types: list[PmType] = Field(
        default_factory=_table3,
        min_length=1,
        max_length=20,
        description="PM types (Table 3); enough PMs of each",
        title="Physical machine types",
    )
    vm_types: list[VmType] = Field(
        default_factory=_table1,
        min_length=1,
        max_length=50,
        description="VM catalogue (Table 1, EC2)",
        title="VM types",
    )


class GeneratorWorkload(StrictModel):
    kind: Literal["generator"] = "generator"
    n_requests: int = Field(
        default=1000, ge=1, le=MAX_REQUESTS, description="Number of VM reservations", title="Reservations"
    )
    mean_interarrival_slots: float = Field(
        default=5.0,
        gt=0,
        le=10_000,
        description="Mean of the exponential inter-arrival time (Poisson arrivals)",
        title="Mean time between arrivals (slots)",
    )
    max_duration_slots: int = Field(
        default=50,
        ge=1,
        le=100_000,
        description="Cap on a request's duration (50…800 in Figs. 5.4–5.6)",
        title="Longest duration (slots)",
    )
    mean_duration_slots: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        description="Mean of the exponential duration before truncation at the cap; empty = half the cap",
        title="Mean duration (slots)",
    )
    vm_type_weights: list[float] | None = Field(
        default=None,
        max_length=50,
        description="Relative frequency of each VM type; empty = uniform",
        title="VM type weights",
    )


class InlineJob(StrictModel):
    start: int = Field(ge=0, le=MAX_SLOT, description="First slot", title="First slot")
    end: int = Field(
        ge=1,
        le=MAX_SLOT,
        description="End slot (exclusive): the VM holds slots start..end-1",
        title="End slot (exclusive)",
    )
    vm_type: str = Field(min_length=1, max_length=40, description="VM type name", title="VM type")


class JobsWorkload(StrictModel):
    kind: Literal["jobs"] = "jobs"
    jobs: list[InlineJob] = Field(
        min_length=1, max_length=100_000, description="The reservations", title="Reservations"
    )


class TraceWorkload(StrictModel):
    kind: Literal["trace"] = "trace"
    path: str | None = Field(
        default=None,
        max_length=1000,
        description="Path of an SWF file (.swf or .swf.gz)",
        title="Trace file on the server",
    )
    text: str | None = Field(
        default=None, max_length=50_000_000, description="SWF text (uploaded trace)", title="SWF text"
    )
    trace: str | None = Field(
        default=None,
        max_length=71,
        description="A stored trace: 'sha256:' + the SHA-256 of its SWF text",
        title="Stored trace",
    )
    n_requests: int = Field(
        default=1000, ge=1, le=MAX_REQUESTS, description="Use the first N usable jobs", title="Jobs used"
    )
    skip: int = Field(
        default=0, ge=0, le=10_000_000, description="Usable jobs to skip before taking N", title="Jobs skipped first"
    )
    proc_mapping: Literal["nearest_cpu", "modulo"] = Field(
        default="nearest_cpu",
        description="Processors → VM type: the type whose CPU units are closest to the processor count "
        "(ties to the smaller), or type number (procs − 1) mod #types",
        title="Processors to VM type",
    )


Workload = Annotated[GeneratorWorkload | JobsWorkload | TraceWorkload, Field(discriminator="kind")]


class Params(StrictModel):
    record_schedule: bool = Field(
        default=True,
        description="Emit per-VM segments and job records (off for huge runs)",
        title="Record the schedule",
    )
    est_order: Literal["earliest_first", "latest_first"] = Field(
        default="earliest_first",
        title="EST order",
        description="EST sort: earliest start first (its name) or non-increasing start (Section 5.2 text)",
    )
    llif_groups: Literal["etf_first", "no_split"] = Field(
        default="etf_first",
        title="LLIF line 8 groups",
        description="Alg. 3.1 line 8: etf_first = the run's requests that started before it (ETF) first, then those "
        "starting in it (STF), longest first in each (the paper's text); no_split = the run's requests longest "
        "first, no groups",
    )
    exact_max_requests: int = Field(
        default=40,
        ge=1,
        le=200,
        description="Largest instance the exact MILP solvers (exact, min_migration) accept",
        title="Largest instance for exact solvers",
    )
    exact_time_limit_s: float = Field(
        default=30.0, gt=0, le=600, description="HiGHS time limit per pool", title="Exact solver time limit (s)"
    )


class Scenario(ScenarioBase):
    family: Literal["vm_reservations"]
    algorithms: list[Algorithm] = Field(
        default_factory=lambda: list(DEFAULT_ALGORITHMS), min_length=1, description="Algorithms to compare"
    )
    datacenter: DataCenter = Field(default_factory=DataCenter)
    workload: Workload = Field(default_factory=GeneratorWorkload)
    params: Params = Field(default_factory=Params)


def integer_scale(values: list[float], limit: int = 1000) -> int | None:
    """Smallest integer s ≤ limit with every value·s integral (within 1e-9), else None."""
    for s in range(1, limit + 1):
        if all(abs(v * s - round(v * s)) < 1e-9 * max(1.0, abs(v * s)) for v in values):
            return s
    return None


def _catalogue_errors(dc: DataCenter) -> list[dict[str, str]]:
    errors = []
    pm_names = [p.name for p in dc.pm_types]
    if len(set(pm_names)) != len(pm_names):
        errors.append({"field": "datacenter.pm_types", "message": "PM type names repeat", "allowed": "unique names"})
    vm_names = [v.name for v in dc.vm_types]
    if len(set(vm_names)) != len(vm_names):
        errors.append({"field": "datacenter.vm_types", "message": "VM type names repeat", "allowed": "unique names"})
    pms = {p.name: p for p in dc.pm_types}
    for i, p in enumerate(dc.pm_types):
        if p.p_max_w < p.p_min_w:
            errors.append(
                {
                    "field": f"datacenter.pm_types[{i}].p_max_w",
                    "message": "Pmax below Pmin",
                    "allowed": f"≥ {p.p_min_w}",
                }
            )
    for i, v in enumerate(dc.vm_types):
        pm = pms.get(v.pm_type)
        if pm is None:
            allowed = "one of " + ", ".join(pm_names)
            errors.append(
                {"field": f"datacenter.vm_types[{i}].pm_type", "message": "unknown PM type", "allowed": allowed}
            )
        elif v.cpu > pm.cpu:
            errors.append(
                {"field": f"datacenter.vm_types[{i}].cpu", "message": "larger than its PM", "allowed": f"≤ {pm.cpu}"}
            )
    for p in dc.pm_types:
        cpus = [p.cpu] + [v.cpu for v in dc.vm_types if v.pm_type == p.name]
        if integer_scale(cpus) is None:
            errors.append(
                {
                    "field": "datacenter.vm_types",
                    "message": f"CPU units of PM type {p.name} and its VM types have no common scale",
                    "allowed": "multiples of 1/s for some integer s ≤ 1000",
                }
            )
    return errors


def _workload_errors(cfg: Scenario) -> list[dict[str, str]]:
    wl, errors = cfg.workload, []
    vm_names = {v.name for v in cfg.datacenter.vm_types}
    if isinstance(wl, GeneratorWorkload) and wl.vm_type_weights is not None:
        w = wl.vm_type_weights
        if len(w) != len(cfg.datacenter.vm_types) or any(x < 0 for x in w) or sum(w) <= 0:
            n = len(cfg.datacenter.vm_types)
            errors.append(
                {"field": "workload.vm_type_weights", "message": "bad weights", "allowed": f"{n} values ≥ 0, sum > 0"}
            )
    if isinstance(wl, JobsWorkload):
        for i, job in enumerate(wl.jobs):
            if job.end <= job.start:
                errors.append(
                    {"field": f"workload.jobs[{i}].end", "message": "end ≤ start", "allowed": f"> {job.start}"}
                )
            if job.vm_type not in vm_names:
                allowed = "one of " + ", ".join(sorted(vm_names))
                errors.append(
                    {"field": f"workload.jobs[{i}].vm_type", "message": "unknown VM type", "allowed": allowed}
                )
    if isinstance(wl, TraceWorkload):
        if sum(v is not None for v in (wl.path, wl.text, wl.trace)) != 1:
            errors.append(
                {
                    "field": "workload.path",
                    "message": "give a path, the text or a stored trace",
                    "allowed": "exactly one",
                }
            )
        elif wl.path is not None:
            errors.extend(check_trace_path(wl.path))
        elif wl.trace is not None:
            errors.extend(check_trace_ref(wl.trace))
        else:
            errors.extend(check_trace_text(wl.text, "workload.text"))
    return errors


def request_count(cfg: Scenario) -> int:
    wl = cfg.workload
    return len(wl.jobs) if isinstance(wl, JobsWorkload) else wl.n_requests


def check(cfg: Scenario) -> None:
    """Cross-field validation: one ScenarioError naming every bad field."""
    errors = _catalogue_errors(cfg.datacenter) + _workload_errors(cfg)
    big = [a for a in ("exact", "min_migration") if a in cfg.algorithms]
    if big and request_count(cfg) > cfg.params.exact_max_requests:
        errors.append(
            {
                "field": "algorithms",
                "message": f"{' and '.join(big)} solve small instances only ({request_count(cfg)} requests)",
                "allowed": f"≤ {cfg.params.exact_max_requests} requests (params.exact_max_requests)",
            }
        )
    if errors:
        raise ScenarioError(errors)


def slot_hours(cfg: Scenario) -> float:
    return cfg.datacenter.slot_minutes / 60.0


def kwh(watt_slots: float, slot_minutes: float) -> float:
    """Watts × slots → kWh."""
    return float(watt_slots * slot_minutes / 60.0 / 1000.0) if math.isfinite(watt_slots) else math.nan
