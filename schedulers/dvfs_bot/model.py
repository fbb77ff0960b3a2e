"""Scenario model of the ``dvfs_bot`` family (Calheiros & Buyya, paper 002, Sections III and V).

A data centre is a list of host types. Every host has ``cores`` cores; each VM
owns exactly one core (Section III), so a host type of ``count`` hosts gives
``count × cores`` VMs. Each core runs at one of the host type's DVFS working
levels or sits in the idle state; performance is linear in frequency.

Defaults reproduce Section V: 200 IBM System x3250 M3 hosts (Xeon X3470, 4
cores, SPECpower table of docs/workload-models.md §7.1), 800 VMs, the Iosup bag-of-tasks
workload at the peak inter-arrival rate (4.25, 7.86) with 20 % urgent jobs.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from schedulers.core.power import SPECPOWER_TABLES
from schedulers.core.validation import ScenarioBase, ScenarioError, StrictModel, series_points_field

__all__ = [
    "ALGORITHMS",
    "DatacenterModel",
    "DvfsLevelModel",
    "DvfsScenario",
    "GeneratorWorkload",
    "HostTypeModel",
    "InlineJob",
    "JobsWorkload",
    "ParamsModel",
    "check",
    "example",
]

ALGORITHMS = {
    "cloud_aware": "Cloud-aware energy-efficient scheduling (Alg. 1): prefers VMs on hosts already in use",
    "baseline": "Not-cloud-aware baseline (Sec. V-A): Alg. 1 with the host test of line 24 ignored",
}
AlgorithmName = Literal[tuple(ALGORITHMS)]  # type: ignore[valid-type]
PowerTableName = Literal[tuple(SPECPOWER_TABLES)]  # type: ignore[valid-type]

MAX_VMS = 20_000
MAX_RANK = 9  # base scores 10000/1000/100/10 stay ordered and positive (Sec. IV)
MAX_LEVELS = 10
MAX_INLINE_TASKS = 2_000_000
WORK_BUDGET = 1e9  # jobs × VMs: ≈ 10 min of scoring on one core (bench: 12 k jobs × 800 VMs ≈ 7 s)

# Intel Pentium M 1.6 GHz operating points (docs/workload-models.md §7.2, Linux speedstep-centrino), lowest first.
# The only frequency/voltage table confirmed by our sources; the host power model uses only the
# ratios f/f_max and V/V_max, so it serves as the relative DVFS curve of any host.
DEFAULT_LEVELS = [
    (0.6, 0.956),
    (0.8, 1.036),
    (1.0, 1.164),
    (1.2, 1.276),
    (1.4, 1.420),
    (1.6, 1.484),
]


class DvfsLevelModel(StrictModel):
    freq_ghz: float = Field(default=1.6, gt=0, le=10, title="Frequency (GHz)", description="Core clock at this level")
    voltage_v: float = Field(default=1.484, gt=0, le=5, title="Voltage (V)", description="Core voltage at this level")


class HostTypeModel(StrictModel):
    name: str = Field(
        default="ibm_x3250_m3", min_length=1, max_length=60, description="Label of the host type", title="Name"
    )
    count: int = Field(default=200, ge=1, le=MAX_VMS, description="Number of hosts of this type", title="Hosts")
    cores: int = Field(
        default=4, ge=1, le=128, description="Cores per host; each core hosts one VM", title="Cores per host"
    )
    power_table: PowerTableName = Field(
        default="ibm_x3250_xeon_x3470",
        description="SPECpower table (watts at 0%..100% load); ignored when power_watts is given",
        title="Power at 0–100 % load (W)",
    )
    power_watts: list[Annotated[float, Field(ge=0, le=10_000)]] | None = Field(
        default=None,
        min_length=2,
        max_length=101,
        title="Custom power table (W)",
        description="Host watts at evenly spaced loads from 0% to 100% (e.g. 11 values); overrides power_table",
    )
    dvfs_levels: list[DvfsLevelModel] = Field(
        default_factory=lambda: [DvfsLevelModel(freq_ghz=f, voltage_v=v) for f, v in DEFAULT_LEVELS],
        min_length=1,
        max_length=MAX_LEVELS,
        title="DVFS working levels",
        description="Frequency/voltage operating points of each core (the idle state is implicit)",
    )
    energy_rank: int | None = Field(
        default=None,
        ge=0,
        le=MAX_RANK,
        description="Energy rank of the type (0 = most efficient); empty = ranked by watts per GHz at full load",
        title="Energy rank",
    )


class DatacenterModel(StrictModel):
    host_types: list[HostTypeModel] = Field(
        default_factory=lambda: [HostTypeModel()],
        min_length=1,
        max_length=20,
        description="Host types",
        title="Host types",
    )
    vm_order: Literal["spread", "packed"] = Field(
        default="spread",
        title="VM numbering",
        description="Order in which Alg. 1 visits VMs (its ties go to the first): 'spread' = VM i on host "
        "i mod H (CloudSim's VmAllocationPolicySimple), 'packed' = all VMs of host 0 first",
    )
    suspended_power_w: float = Field(
        default=0.0,
        ge=0,
        le=1000,
        title="Suspended host power (W)",
        description="Draw of a host whose VMs are all idle",
    )
    dvfs_power_weight: Literal["v2f", "f"] = Field(
        default="v2f",
        title="Load of a slowed core",
        description="How much of a full core's load a core at level l adds to the power table: "
        "'v2f' = (V/Vmax)²·f/fmax (dynamic CMOS power), 'f' = f/fmax (delivered MIPS, CloudSim style)",
    )


class GeneratorWorkload(StrictModel):
    kind: Literal["generator"] = "generator"
    model: Literal["iosup_bot"] = Field(
        default="iosup_bot", description="Iosup et al. bag-of-tasks model (Sec. V)", title="Workload model"
    )
    duration_h: float = Field(
        default=24.0, gt=0, le=168, description="Arrivals are generated over this many hours", title="Arrivals over (h)"
    )
    iat_shape: float = Field(
        default=4.25, ge=0.2, le=100, title="Time between jobs: Weibull shape", description="Paper's first parameter"
    )
    iat_scale_s: float = Field(
        default=7.86,
        ge=0.5,
        le=1e6,
        title="Time between jobs: Weibull scale (s)",
        description="Paper's second parameter",
    )
    tasks_shape: float = Field(
        default=1.76, ge=0.2, le=100, title="Tasks per job: Weibull shape", description="#tasks = 2^x"
    )
    tasks_scale: float = Field(
        default=2.11, gt=0, le=20, title="Tasks per job: Weibull scale", description="x ~ Weibull"
    )
    tasks_rounding: Literal["round", "ceil"] = Field(
        default="round", description="How 2^x becomes an integer ≥ 1", title="Rounding of task counts"
    )
    max_tasks: int = Field(
        default=512, ge=1, le=10_000, description="Upper bound on tasks per job", title="Most tasks per job"
    )
    runtime_log2_mean: float = Field(
        default=2.73,
        ge=-20,
        le=30,
        title="Task runtime: mean of log₂ minutes",
        description="Task runtime = 2^x minutes",
    )
    runtime_log2_sd: float = Field(
        default=6.1, ge=0, le=20, title="Task runtime: spread of log₂ minutes", description="Standard deviation of x"
    )
    runtime_log2_min: float = Field(
        default=-6.0, ge=-20, le=30, title="Task runtime: lowest log₂ minutes", description="x is resampled below this"
    )
    runtime_log2_max: float = Field(
        default=8.0, ge=-20, le=30, title="Task runtime: highest log₂ minutes", description="x is resampled above this"
    )
    urgent_fraction: float = Field(
        default=0.2, ge=0, le=1, description="Share of high-urgency jobs", title="Share of urgent jobs"
    )
    high_ratio_mean: float = Field(
        default=3.0,
        gt=0,
        le=1000,
        description="Deadline/runtime ratio mean (urgent)",
        title="Deadline ÷ runtime of urgent jobs, mean",
    )
    high_ratio_sd: float = Field(
        default=1.4,
        ge=0,
        le=1000,
        description="Deadline/runtime ratio sd (urgent)",
        title="Deadline ÷ runtime of urgent jobs, spread",
    )
    low_ratio_mean: float = Field(
        default=8.0,
        gt=0,
        le=1000,
        description="Deadline/runtime ratio mean (not urgent)",
        title="Deadline ÷ runtime of other jobs, mean",
    )
    low_ratio_sd: float = Field(
        default=3.0,
        ge=0,
        le=1000,
        description="Deadline/runtime ratio sd (not urgent)",
        title="Deadline ÷ runtime of other jobs, spread",
    )
    actual_runtime_min_factor: float = Field(
        default=1.0,
        gt=0,
        le=100,
        description="Actual runtime = estimate × U(min, max) per task; 1 = exact",
        title="Actual ÷ estimated runtime, lowest",
    )
    actual_runtime_max_factor: float = Field(
        default=1.0,
        gt=0,
        le=100,
        description="See actual_runtime_min_factor",
        title="Actual ÷ estimated runtime, highest",
    )
    max_jobs: int = Field(
        default=1_000_000, ge=1, le=1_000_000, description="Generation stops after this many jobs", title="Most jobs"
    )


class InlineJob(StrictModel):
    submit_s: float = Field(default=0.0, ge=0, le=1e9, description="Submission time", title="Submit time (s)")
    tasks: int = Field(default=1, ge=1, le=10_000, description="Number of identical tasks", title="Tasks")
    runtime_s: float = Field(
        default=60.0,
        gt=0,
        le=1e8,
        description="Estimated task runtime at maximum frequency",
        title="Estimated runtime (s)",
    )
    deadline_s: float = Field(
        default=180.0,
        gt=0,
        le=1e9,
        description="Deadline, counted from submission",
        title="Deadline after submission (s)",
    )
    actual_runtime_s: float | None = Field(
        default=None, gt=0, le=1e8, description="Actual runtime (empty = estimate)", title="Actual runtime (s)"
    )
    urgent: bool = Field(default=False, description="High-urgency class (reported only)", title="Urgent")


class JobsWorkload(StrictModel):
    kind: Literal["jobs"] = "jobs"
    jobs: list[InlineJob] = Field(default_factory=lambda: [InlineJob()], min_length=1, max_length=100_000, title="Jobs")


Workload = Annotated[GeneratorWorkload | JobsWorkload, Field(discriminator="kind")]


class ParamsModel(StrictModel):
    record_schedule: bool = Field(
        default=True,
        description="Emit one segment per task and frequency (off for huge runs)",
        title="Record the schedule",
    )
    deadline_horizon_h: float | None = Field(
        default=None,
        gt=0,
        le=10_000,
        title="Reject deadlines after (h)",
        description="Admission rule before Alg. 1: reject jobs whose deadline falls after this time (empty = off). "
        "24 reproduces Table II's ≈30 % rejection floor (our hypothesis: the paper's simulation ended at 24 h)",
    )
    series_points: int | None = series_points_field()


class DvfsScenario(ScenarioBase):
    family: Literal["dvfs_bot"] = "dvfs_bot"
    algorithms: list[AlgorithmName] = Field(default_factory=lambda: ["cloud_aware", "baseline"], min_length=1)
    datacenter: DatacenterModel = Field(default_factory=DatacenterModel)
    workload: Workload = Field(default_factory=GeneratorWorkload)
    params: ParamsModel = Field(default_factory=ParamsModel)

    @model_validator(mode="before")
    @classmethod
    def _generator_by_default(cls, data: Any) -> Any:
        # A workload without "kind" is the generator, so partial dicts such as {"urgent_fraction": 0.5} work.
        if isinstance(data, dict) and isinstance(data.get("workload"), dict) and "kind" not in data["workload"]:
            data = {**data, "workload": {**data["workload"], "kind": "generator"}}
        return data


def _expected_jobs(wl: GeneratorWorkload | JobsWorkload) -> float:
    if isinstance(wl, JobsWorkload):
        return float(sum(j.tasks for j in wl.jobs))
    mean_iat = wl.iat_scale_s * math.gamma(1.0 + 1.0 / wl.iat_shape)
    return min(float(wl.max_jobs), wl.duration_h * 3600.0 / mean_iat)


def check(cfg: DvfsScenario) -> None:
    """Cross-field checks; raises one :class:`ScenarioError` naming every bad field."""
    errors: list[dict[str, str]] = []
    vms = sum(ht.count * ht.cores for ht in cfg.datacenter.host_types)
    if vms > MAX_VMS:
        errors.append({"field": "datacenter.host_types", "message": f"{vms} VMs in total", "allowed": f"≤ {MAX_VMS}"})
    for i, ht in enumerate(cfg.datacenter.host_types):
        freqs = [lv.freq_ghz for lv in ht.dvfs_levels]
        if len(set(freqs)) != len(freqs):
            errors.append(
                {
                    "field": f"datacenter.host_types[{i}].dvfs_levels",
                    "message": "repeated frequency",
                    "allowed": "distinct",
                }
            )
        if ht.power_watts is not None and any(b < a for a, b in zip(ht.power_watts, ht.power_watts[1:], strict=False)):
            errors.append(
                {
                    "field": f"datacenter.host_types[{i}].power_watts",
                    "message": "power must not fall as load rises",
                    "allowed": "non-decreasing values",
                }
            )
    wl = cfg.workload
    jobs = _expected_jobs(wl)
    if jobs * vms > WORK_BUDGET:
        errors.append(
            {
                "field": "workload.iat_scale_s" if isinstance(wl, GeneratorWorkload) else "workload.jobs",
                "message": f"about {jobs:.0f} {'jobs' if isinstance(wl, GeneratorWorkload) else 'tasks'} × {vms} "
                "VMs is too large a run (Alg. 1 scores every VM for every task)",
                "allowed": f"expected jobs (generator) or tasks (inline) × VMs ≤ {WORK_BUDGET:.0e}",
            }
        )
    if isinstance(wl, JobsWorkload) and jobs > MAX_INLINE_TASKS:
        errors.append(
            {"field": "workload.jobs", "message": f"{jobs:.0f} tasks in total", "allowed": f"≤ {MAX_INLINE_TASKS}"}
        )
    if isinstance(wl, GeneratorWorkload):
        if wl.runtime_log2_min >= wl.runtime_log2_max:
            errors.append(
                {"field": "workload.runtime_log2_max", "message": "must exceed runtime_log2_min", "allowed": "> min"}
            )
        if wl.actual_runtime_min_factor > wl.actual_runtime_max_factor:
            errors.append(
                {
                    "field": "workload.actual_runtime_max_factor",
                    "message": "must be ≥ actual_runtime_min_factor",
                    "allowed": f"≥ {wl.actual_runtime_min_factor}",
                }
            )
        for cls in ("high", "low"):
            mean, sd = getattr(wl, f"{cls}_ratio_mean"), getattr(wl, f"{cls}_ratio_sd")
            if mean - 3**0.5 * sd <= 0:
                errors.append(
                    {
                        "field": f"workload.{cls}_ratio_sd",
                        "message": "the uniform ratio distribution would reach 0",
                        "allowed": f"< {mean / 3**0.5:.4g} (mean/√3)",
                    }
                )
    if errors:
        raise ScenarioError(errors)


def example() -> dict:
    """Two hours of the paper's workload on 10 hosts (40 VMs): runs in well under 2 s."""
    return {
        "family": "dvfs_bot",
        "name": "dvfs_bot example: 10 hosts × 4 cores, 2 h of Iosup BoTs",
        "seed": 1,
        "repetitions": 1,
        "algorithms": ["cloud_aware", "baseline"],
        "datacenter": {"host_types": [{"count": 10, "cores": 4}]},
        "workload": {"kind": "generator", "duration_h": 2.0, "iat_scale_s": 60.0, "runtime_log2_max": 6.0},
    }
