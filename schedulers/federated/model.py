"""Scenario model of the ``federated`` family (paper 004, Li et al., JPDC 2012, Section 3).

A federated IaaS system of several clouds (data centres). Each cloud has a manager
server and ``servers`` servers of workload capacity ``server_capacity`` VMs (eq. 1);
its VMs run a task in ``runtime × reference_perf / perf`` seconds, ``perf`` being the
normalised per-core performance of Table 2 (1, 0.85, 0.5), unless an explicit
execution-time matrix (task type × cloud, Section 3.4) is given.

Readings where the paper is silent (all configurable):

* Server power: Section 3.3 only says idle draws "much less" than active; we use
  per-cloud ``p_active_w`` / ``p_idle_w`` with idle = 30% of active by default.
* The disk image is multicast inside the executing cloud at the intra-cloud bandwidth
  (``S_i / b`` of Section 3.1); ``image_size_gb`` defaults to 8 GB (2 s at 4 GB/s).
* Intermediate results between dependent tasks on different clouds cross the
  inter-cloud link (``edge_data_gb / S_c``); the paper only models the dataset, so
  the default edge size is small (1 GB, 8 s at 1 Gbps).
* What the feedback of DCLS/DCMMS (eqs. 6-8) is for — finish times later than eq. 5
  estimated — comes from AR preemption and two inputs the managers cannot see (both off
  by default): a cloud's hidden ``contention`` (best-effort tasks there run ``1 +
  contention`` times their ETM, e.g. other tenants' load) and inaccurate runtime
  estimates (``workload.runtime_error`` σ of a mean-one log-normal factor, or an inline
  task's ``actual_runtime_s``). AR leases run exactly their reserved time (an AR lease
  includes its required execution time, Section 3.2), so neither applies to AR tasks.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schedulers.core.validation import ScenarioBase, StrictModel, series_points_field

__all__ = [
    "ALGORITHMS",
    "Cloud",
    "Datacenter",
    "FederatedScenario",
    "GeneratorWorkload",
    "InlineWorkload",
    "Params",
    "TraceWorkload",
]

ALGORITHMS = {
    "fcfs": "First-come-first-served on the application's home cloud (baseline, Section 6.2)",
    "round_robin": "Round robin over clouds regardless of speed (baseline, Section 4.2)",
    "cls": "Cloud list scheduling: Algs. 1-2, static estimates (eq. 5)",
    "cmms": "Cloud min-min scheduling: Alg. 3, static estimates (eq. 5)",
    "dcls": "Dynamic CLS with the feedback factor (eqs. 6-8)",
    "dcmms": "Dynamic CMMS with the feedback factor (eqs. 6-8)",
}
AlgorithmName = Literal[tuple(ALGORITHMS)]  # type: ignore[valid-type]


class Cloud(StrictModel):
    name: str = Field(default="cloud", min_length=1, max_length=40, description="Data-centre name", title="Name")
    servers: int = Field(default=64, ge=1, le=20000, description="Number of servers", title="Servers")
    server_capacity: int = Field(
        default=4, ge=1, le=64, title="VMs per server", description="Workload capacity C(S) of one server (eq. 1)"
    )
    perf: float = Field(
        default=1.0, gt=0, le=100, title="Per-core performance", description="Normalised per-core performance (Table 2)"
    )
    p_active_w: float = Field(
        default=400.0,
        ge=0,
        le=100000,
        description="Power of an active server (W)",
        title="Power of an active server (W)",
    )
    p_idle_w: float = Field(
        default=120.0, ge=0, le=100000, description="Power of an idle server (W)", title="Power of an idle server (W)"
    )
    contention: float = Field(
        default=0.0,
        ge=0,
        le=100,
        title="Hidden contention",
        description="Best-effort tasks here run (1 + this) × their ETM; the managers' estimates (eq. 5) do not know it",
    )


def _table2_clouds() -> list[Cloud]:
    """The three LLNL data centres of Section 6.1 / Table 2."""
    return [
        Cloud(name="thunder", servers=1024, server_capacity=4, perf=1.0, p_active_w=400.0, p_idle_w=120.0),
        Cloud(name="atlas", servers=1152, server_capacity=8, perf=0.85, p_active_w=500.0, p_idle_w=150.0),
        Cloud(name="ubgl", servers=1024, server_capacity=2, perf=0.5, p_active_w=60.0, p_idle_w=18.0),
    ]


class Datacenter(StrictModel):
    clouds: list[Cloud] = Field(
        default_factory=_table2_clouds, min_length=1, max_length=16, description="The federated clouds", title="Clouds"
    )
    inter_cloud_gbps: float = Field(
        default=1.0,
        gt=0,
        le=10000,
        title="Inter-cloud bandwidth (Gbit/s)",
        description="S_c between data centres, in gigabits per second as the paper gives it (1 Gbit/s = 0.125 GB/s)",
    )
    intra_cloud_gbytes_s: float = Field(
        default=4.0,
        gt=0,
        le=10000,
        title="Intra-cloud bandwidth (GB/s)",
        description="b inside a data centre, in gigabytes per second as the paper gives it (1 GB/s = 8 Gbit/s)",
    )
    etm: list[list[float]] | None = Field(
        default=None,
        title="Execution-time matrix",
        description="Optional ETM (task type × cloud, seconds); tasks then carry a type instead of a runtime",
    )


class _WorkloadCommon(StrictModel):
    ar_share: float = Field(default=0.2, ge=0, le=1, title="AR share", description="Fraction of AR applications")
    ar_notice_max_s: float = Field(
        default=1800.0,
        ge=0,
        le=86400,
        description="AR required start is uniform in [arrival, arrival + this]",
        title="Longest reservation notice (s)",
    )
    zero_notice_share: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Fraction of AR applications with zero advance notice",
        title="Share of reservations without notice",
    )
    gap_divisor: float = Field(
        default=1.0,
        ge=1,
        le=100,
        title="Arrival-gap divisor",
        description="Gaps between adjacent arrivals are divided by this (1 = loose, 100 = tight)",
    )
    dataset_size_gb: float = Field(
        default=1000.0, ge=0, le=1e6, description="Dataset size M_s per application (GB)", title="Dataset size (GB)"
    )
    image_size_gb: float = Field(
        default=8.0, ge=0, le=1e4, description="Disk-image size S_i per task (GB)", title="Disk image size (GB)"
    )
    edge_data_gb: float = Field(
        default=1.0,
        ge=0,
        le=1e4,
        description="Data passed along a DAG edge between clouds (GB)",
        title="Data per dependency (GB)",
    )
    max_preds: int = Field(
        default=3,
        ge=1,
        le=16,
        description="Random DAG: most immediate predecessors per task",
        title="Most predecessors per task",
    )
    entry_prob: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="Random DAG: chance a task is an extra entry task",
        title="Chance of an extra entry task",
    )
    window: int = Field(
        default=8,
        ge=1,
        le=64,
        description="Random DAG: predecessors come from the last N tasks",
        title="Predecessor window (tasks)",
    )
    runtime_error: float = Field(
        default=0.0,
        ge=0,
        le=3,
        title="Runtime estimate error (σ)",
        description="A best-effort task's actual runtime is its estimate × exp(σZ − σ²/2), Z standard normal",
    )


class GeneratorWorkload(_WorkloadCommon):
    kind: Literal["generator"] = "generator"
    apps: int = Field(default=20, ge=1, le=20000, description="Number of applications", title="Applications")
    tasks_min: int = Field(
        default=4, ge=1, le=64, description="Fewest tasks per application", title="Tasks per application, fewest"
    )
    tasks_max: int = Field(
        default=16,
        ge=1,
        le=64,
        description="Most tasks per application (paper: up to 64)",
        title="Tasks per application, most",
    )
    mean_gap_s: float = Field(
        default=600.0,
        ge=0,
        le=1e7,
        description="Mean gap between application arrivals (s)",
        title="Mean gap between arrivals (s)",
    )
    runtime_min_s: float = Field(
        default=30.0,
        gt=0,
        le=1e6,
        description="Shortest task runtime at perf 1 (s)",
        title="Task runtime, shortest (s)",
    )
    runtime_max_s: float = Field(
        default=1800.0,
        gt=0,
        le=1e6,
        description="Longest task runtime at perf 1 (s)",
        title="Task runtime, longest (s)",
    )
    vms_max: int = Field(
        default=32,
        ge=1,
        le=100000,
        description="Most VMs per task (powers of two up to this)",
        title="Most VMs per task",
    )
    homes: Literal["random", "round_robin", "fixed"] = Field(
        default="random",
        description="Home cloud (dataset location) of each application",
        title="Home cloud of each application",
    )
    home_cloud: int = Field(
        default=0, ge=0, le=15, description="The home cloud index when homes = fixed", title="Fixed home cloud (index)"
    )


class InlineTask(StrictModel):
    runtime_s: float = Field(default=60.0, gt=0, le=1e8, description="Runtime at perf 1 (s)", title="Runtime (s)")
    type: int | None = Field(
        default=None, ge=0, description="Task type (row of the ETM) instead of a runtime", title="Task type"
    )
    vms: int = Field(default=1, ge=1, le=1000000, description="VMs required", title="VMs")
    preds: list[int] = Field(
        default_factory=list, description="Indices of immediate predecessors in this app", title="Predecessors"
    )
    actual_runtime_s: float | None = Field(
        default=None,
        gt=0,
        le=1e8,
        description="What a best-effort task really runs at perf 1 (s); runtime_s is then only the estimate",
        title="Actual runtime (s)",
    )


class InlineApp(StrictModel):
    arrival: float = Field(default=0.0, ge=0, description="Submission time (s)", title="Arrival time (s)")
    ar: bool = Field(default=False, description="Advance-reservation application", title="Advance reservation")
    start: float | None = Field(
        default=None, ge=0, description="Required start of an AR app (default: arrival)", title="Required start (s)"
    )
    home: int = Field(default=0, ge=0, description="Cloud index holding the dataset", title="Home cloud (index)")
    tasks: list[InlineTask] = Field(min_length=1, max_length=64, title="Tasks")


class InlineWorkload(_WorkloadCommon):
    kind: Literal["jobs"] = "jobs"
    jobs: list[InlineApp] = Field(
        default_factory=lambda: [InlineApp(tasks=[InlineTask()])], min_length=1, max_length=20000, title="Applications"
    )


class TraceWorkload(_WorkloadCommon):
    kind: Literal["trace"] = "trace"
    swf: str | None = Field(default=None, description="SWF text", title="SWF text")
    path: str | None = Field(
        default=None, description="Path of an SWF (.swf or .swf.gz) file", title="Trace file on the server"
    )
    trace: str | None = Field(
        default=None,
        max_length=71,
        description="A stored trace: 'sha256:' + the SHA-256 of its SWF text",
        title="Stored trace",
    )
    max_jobs: int = Field(
        default=300000, ge=1, le=300000, description="Use at most this many jobs", title="Most jobs used"
    )
    skip_jobs: int = Field(
        default=0, ge=0, le=10000000, description="Skip this many jobs first", title="Jobs skipped first"
    )
    group_min: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Fewest jobs grouped into one application",
        title="Jobs per application, fewest",
    )
    group_max: int = Field(
        default=64,
        ge=1,
        le=64,
        description="Most jobs grouped into one application (Table 1)",
        title="Jobs per application, most",
    )
    reference_perf: float = Field(
        default=1.0,
        gt=0,
        le=100,
        description="Per-core performance of the machine the trace was recorded on",
        title="Speed of the logged machine",
    )
    homes: Literal["random", "round_robin", "fixed"] = Field(
        default="random",
        description="Home cloud (dataset location) of each application",
        title="Home cloud of each application",
    )
    home_cloud: int = Field(
        default=0, ge=0, le=15, description="The home cloud index when homes = fixed", title="Fixed home cloud (index)"
    )
    wider_jobs: Literal["refuse", "drop"] = Field(
        default="refuse",
        title="Jobs wider than the machine",
        description="A trace job needs one VM per processor; one needing more VMs than the largest cloud has "
        "(servers × VMs per server) fits nowhere. refuse: such a trace is refused, naming how many jobs and the "
        "widest; drop: they are left out, and the run says how many (run header, result, validity checks).",
        json_schema_extra={"x-labels": {"refuse": "refuse the scenario", "drop": "drop them (the run says how many)"}},
    )


Workload = Annotated[GeneratorWorkload | InlineWorkload | TraceWorkload, Field(discriminator="kind")]


class Params(StrictModel):
    alpha: float = Field(
        default=0.8, ge=0, le=1, title="Feedback constant", description="Feedback constant of eq. 7 (DCLS, DCMMS)"
    )
    negative_feedback: bool = Field(
        default=False,
        description="Let fd go below 0 when tasks finish early (eq. 7 as printed); off = floor at 0",
        title="Allow negative feedback",
    )
    energy_aware: bool = Field(
        default=True, title="Energy-aware local mapping (EL)", description="Algs. 4-5; off = striping over servers"
    )
    fcfs_placement: Literal["home", "any"] = Field(
        default="home",
        title="Where FCFS places tasks",
        description="The paper does not say. home: every task on its application's home cloud, where the dataset "
        "is (no sharing between clouds); any: each task on the cloud where it can start earliest (the managers' "
        "ERAT, eq. 5, dataset transfer included; ties go home), whatever the cloud's speed",
        json_schema_extra={"x-labels": {"home": "the home cloud", "any": "the cloud where it starts earliest"}},
    )
    rejected_ar_apps: Literal["left_out", "run_best_effort"] = Field(
        default="left_out",
        title="AR applications refused a reservation",
        description="The paper does not say how they count. left_out: rejected, and out of the average execution "
        "time; run_best_effort: the client submits the application again without the reservation at its "
        "required start, and its execution time counts from the first submission",
        json_schema_extra={
            "x-labels": {"left_out": "rejected (left out of the averages)", "run_best_effort": "run as best-effort"}
        },
    )
    slot_tables: Literal["current", "plan"] = Field(
        default="current",
        title="Slot tables (ERAT)",
        description="current: rebuilt from each cloud's running tasks, queues and reservations at every pull "
        "(Section 3.1); plan: the plan written at assignment, never corrected (the earlier reading)",
    )
    record_schedule: bool = Field(
        default=True, description="Emit schedule segments (off for huge runs)", title="Record the schedule"
    )
    max_segments: int | None = Field(
        default=None,
        ge=0,
        le=50_000_000,
        description="Limit on recorded segments per run; empty = the full schedule "
        "(a cut is stated in extra.schedule_cut: limit, segments recorded, where it falls)",
        title="Most schedule segments kept",
    )
    series_points: int | None = series_points_field()


class FederatedScenario(ScenarioBase):
    family: Literal["federated"] = "federated"
    algorithms: list[AlgorithmName] = Field(
        default_factory=lambda: ["fcfs", "round_robin", "dcls", "dcmms"], min_length=1
    )
    datacenter: Datacenter = Field(default_factory=Datacenter)
    workload: Workload = Field(default_factory=GeneratorWorkload)
    params: Params = Field(default_factory=Params)
