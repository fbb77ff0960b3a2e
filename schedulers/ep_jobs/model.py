"""The ``ep_jobs`` scenario: data centre, workload and parameters, with defaults and limits.

Offline workloads (``generator``, ``job``) schedule one job (Section 6.1) with the offline
algorithms; online workloads (``online_generator``, ``online_jobs``) simulate arriving jobs
(Section 6.2) with ``<scheduler>[-ndrc]:<algorithm>`` combinations.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schedulers.core.validation import ScenarioBase, ScenarioError, StrictModel

__all__ = ["ALGORITHMS", "OFFLINE", "ONLINE", "EpJobsScenario", "check"]

# limits that keep the largest allowed run to minutes on one core
MAX_TASK_SERVER_PAIRS = 200_000
MAX_GA_WORK = 5e9

OFFLINE = {
    "tapra": "TaPRA (Alg. 1): SJS-Relax-LP, argmax rounding, OptRA, REC, local search",
    "tapra_fast": "TaPRA-fast (Sec. 4.3.1): most efficient server per task, then local search",
    "min_min": "Min-Min baseline with REC",
    "mm_ga": "MM-GA: genetic algorithm seeded with Min-Min, with REC",
    "gsa": "GSA: genetic algorithm with simulated annealing on offspring, with REC",
}
SCHEDULERS = {
    "ontapra": "OnTaPRA (Alg. 3): periodic SJF with the MAR test (Alg. 4)",
    "fcfs": "FCFS: waiting jobs in arrival order, on every arrival and task completion",
    "slf": "SLF: periodic, smallest total load first",
    "llf": "LLF: periodic, largest total load first",
}
ONLINE = {
    f"{s}{d}:{a}": f"{SCHEDULERS[s]}, DRC {'off' if d else 'on'}, per-job algorithm {a}"
    for s in SCHEDULERS
    for d in ("", "-ndrc")
    for a in OFFLINE
}
ALGORITHMS = {**OFFLINE, **ONLINE}
AlgorithmName = Literal[tuple(ALGORITHMS)]  # type: ignore[valid-type]


class Constraint(StrictModel):
    servers: list[int] = Field(
        min_length=1, max_length=5000, description="Indices of the servers it covers", title="Servers covered"
    )
    coefficients: list[float] | None = Field(
        default=None, description="A_jk per listed server (default 1 each)", title="Weight per server"
    )
    bound: float = Field(
        gt=0, le=1e9, description="B_k: total vCPUs the job may hold on these servers", title="Most vCPUs on them"
    )


class FatTree(StrictModel):
    kind: Literal["fattree"] = "fattree"
    pods: int = Field(
        default=8, ge=2, le=16, description="y of a y-ary FatTree (even): y³/4 servers", title="Pods (FatTree arity)"
    )
    capacity_low: float = Field(
        default=0.0, ge=0, le=1000, description="Server vCPUs drawn from U(low, high]", title="Server vCPUs, lowest"
    )
    capacity_high: float = Field(
        default=10.0, gt=0, le=1000, description="Server vCPUs drawn from U(low, high]", title="Server vCPUs, highest"
    )
    beta_rack: float = Field(
        default=0.3, gt=0, le=1, description="β_rack of eq. 58", title="Share of a rack one job may hold"
    )
    beta_pod: float = Field(
        default=0.2, gt=0, le=1, description="β_pod of eq. 58", title="Share of a pod one job may hold"
    )
    beta_dc: float = Field(
        default=0.2, gt=0, le=1, description="β_DC of eq. 58", title="Share of the data centre one job may hold"
    )


class Servers(StrictModel):
    kind: Literal["servers"]
    capacities: list[float] = Field(
        min_length=1, max_length=5000, description="C_sj of each server (vCPUs)", title="Server vCPUs"
    )
    constraints: list[Constraint] = Field(
        default_factory=list,
        max_length=10000,
        description="Availability constraints (eq. 4) beyond per-server",
        title="Availability constraints",
    )


Datacenter = Annotated[FatTree | Servers, Field(discriminator="kind")]


class _Draws(StrictModel):
    eff_low: float = Field(default=0.1, gt=0, le=1, description="λ_ij drawn from U[low, 1]", title="Lowest efficiency")
    alpha: float = Field(
        default=1.0,
        gt=0,
        le=1000,
        description="VM power constant α of eq. 7 (W per vCPU: P = α·c)",
        title="VM power per vCPU (W)",
    )
    emax_low: float = Field(
        default=1.0, ge=0, le=100, description="E_MAX ~ U[low, high] × α·total load", title="Deadline factor, lowest"
    )
    emax_high: float = Field(
        default=1.1, ge=0, le=100, description="E_MAX ~ U[low, high] × α·total load", title="Deadline factor, highest"
    )


class OfflineGenerator(_Draws):
    kind: Literal["generator"] = "generator"
    tasks: int = Field(default=100, ge=1, le=2000, description="Tasks in the job (Sec. 6.1.1)", title="Tasks")
    load_high: float = Field(
        default=3600.0, gt=0, le=1e7, description="Task loads ~ U(0, high] s", title="Largest task load (s)"
    )


class Task(StrictModel):
    load: float = Field(gt=0, le=1e9, description="Load_i: seconds on one unit-efficiency vCPU", title="Load (s)")
    efficiency: list[float] | None = Field(
        default=None, description="λ_ij per server (drawn if absent)", title="Efficiency per server"
    )


class InlineJob(_Draws):
    kind: Literal["job"]
    tasks: list[Task] = Field(min_length=1, max_length=2000, description="The job's tasks", title="Tasks")
    e_max: float | None = Field(
        default=None, gt=0, description="E_MAX (drawn as in the generator if absent)", title="Deadline (s)"
    )


class OnlineGenerator(_Draws):
    kind: Literal["online_generator"]
    arrival_rate: float = Field(
        default=0.15, gt=0, le=100, description="Poisson arrivals per second (μ)", title="Arrivals per second"
    )
    arrival_end_s: float = Field(
        default=3600.0, gt=0, le=1e6, description="No arrivals after this time", title="Last arrival by (s)"
    )
    task_count_scale: float = Field(
        default=2.0,
        gt=0,
        le=1000,
        description="Weibull scale of the task count (1/A with A = 0.5, Leemis)",
        title="Task count, Weibull scale",
    )
    task_count_shape: float = Field(
        default=0.8, gt=0, le=10, description="Weibull shape of the task count (B)", title="Task count, Weibull shape"
    )
    max_tasks: int = Field(default=70, ge=1, le=500, description="Task count cap", title="Most tasks per job")
    load_high: float = Field(
        default=1000.0, gt=0, le=1e7, description="Task loads ~ U(0, high] s", title="Largest task load (s)"
    )
    max_jobs: int = Field(
        default=100000, ge=1, le=200000, description="Safety cap on generated jobs", title="Most jobs"
    )


class OnlineJob(StrictModel):
    arrival: float = Field(ge=0, le=1e9, description="Arrival time (s)", title="Arrival time (s)")
    loads: list[Annotated[float, Field(gt=0, le=1e9)]] = Field(
        min_length=1,
        max_length=2000,
        description="Task loads (s): Load_i, seconds on one unit-efficiency vCPU",
        title="Task loads (s)",
    )


class OnlineJobs(_Draws):
    kind: Literal["online_jobs"]
    jobs: list[OnlineJob] = Field(min_length=1, max_length=100000, description="Arriving jobs", title="Jobs")


Workload = Annotated[OfflineGenerator | InlineJob | OnlineGenerator | OnlineJobs, Field(discriminator="kind")]


class Params(StrictModel):
    lp_form: Literal["colgen", "reduced", "literal"] = Field(
        default="colgen",
        description="SJS-Relax-LP formulation (all exact; colgen is fastest)",
        title="Linear program form",
        json_schema_extra={
            "x-labels": {
                "colgen": "column generation (fastest)",
                "reduced": "reduced LP",
                "literal": "the LP as printed",
            }
        },
    )
    compute_lp_bound: bool = Field(
        default=True, description="Report lp_bound_s for every offline algorithm", title="Compute the lower bound"
    )
    max_moves: int = Field(
        default=0, ge=0, le=10**7, description="Local-search move cap (0 = automatic)", title="Most local-search moves"
    )
    max_percent: float = Field(
        default=0.1, ge=0, lt=1, description="MAR test Max_Percent (eq. 56)", title="Largest share for the MAR test (%)"
    )
    schedule_period_s: float = Field(
        default=10.0, gt=0, le=1e5, description="ΔT_schedule of OnTaPRA/SLF/LLF", title="Scheduling period (s)"
    )
    ga_population: int = Field(
        default=50, ge=2, le=1000, description="GA population size", title="Genetic algorithm: population"
    )
    ga_generations: int = Field(
        default=100, ge=1, le=10000, description="GA generations", title="Genetic algorithm: generations"
    )
    ga_crossover_rate: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="One-point crossover probability",
        title="Genetic algorithm: crossover probability",
    )
    ga_mutation_rate: float = Field(
        default=0.02,
        ge=0,
        le=1,
        description="Per-gene mutation probability",
        title="Genetic algorithm: mutation probability",
    )
    ga_elite: int = Field(
        default=1,
        ge=0,
        le=100,
        description="Best chromosomes kept each generation",
        title="Genetic algorithm: elite kept",
    )
    sa_steps: int = Field(
        default=10,
        ge=0,
        le=1000,
        description="GSA annealing steps per offspring",
        title="Annealing steps per offspring",
    )
    sa_t0: float = Field(
        default=0.05, gt=0, le=10, description="GSA initial relative temperature", title="Annealing start temperature"
    )
    sa_cooling: float = Field(
        default=0.95, gt=0, le=1, description="GSA temperature factor per generation", title="Annealing cooling factor"
    )
    baseline_allocation: Literal["static", "optra"] = Field(
        default="static",
        description="Resources of Min-Min, MM-GA and GSA: fixed per-server shares (the paper's baselines, Sec. 2) "
        "or OptRA's eq. 16 (as TaPRA)",
        title="Resources of the baseline algorithms",
    )
    record_schedule: bool = Field(
        default=True, description="Emit schedule segments (off for huge runs)", title="Record the schedule"
    )


class EpJobsScenario(ScenarioBase):
    family: Literal["ep_jobs"]
    algorithms: list[AlgorithmName] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["tapra", "tapra_fast", "min_min"],
        min_length=1,
        max_length=len(ALGORITHMS),
        description="Offline: tapra, tapra_fast, min_min, mm_ga, gsa. Online: <scheduler>[-ndrc]:<algorithm> "
        "with scheduler ontapra, fcfs, slf or llf",
    )
    datacenter: Datacenter = Field(
        default_factory=FatTree, description="A generated FatTree or explicit servers with custom constraints"
    )
    workload: Workload = Field(
        default_factory=OfflineGenerator,
        description="Offline: one job (generator or inline); online: arriving jobs (generator or inline)",
    )
    params: Params = Field(default_factory=Params, description="Algorithm and simulation parameters")


def _online(cfg: EpJobsScenario) -> bool:
    return cfg.workload.kind.startswith("online")


def _plugins() -> dict:
    """Installed plug-in placements (policy.py): offline per-job algorithms."""
    from schedulers import plugins

    return plugins.discover().get("ep_jobs", {})


def check(cfg: EpJobsScenario) -> None:
    """Cross-field checks; one :class:`ScenarioError` lists every problem."""
    errors = []

    def bad(field: str, message: str, allowed: str = "") -> None:
        errors.append({"field": field, "message": message, "allowed": allowed})

    dc, wl, prm = cfg.datacenter, cfg.workload, cfg.params
    names = ONLINE if _online(cfg) else {**OFFLINE, **_plugins()}
    for k, alg in enumerate(cfg.algorithms):
        if alg not in names:
            mode = "online" if _online(cfg) else "offline"
            bad(f"algorithms[{k}]", f"{alg!r} is not an {mode} algorithm", "one of " + ", ".join(names))
    if dc.kind == "fattree":
        if dc.pods % 2:
            bad("datacenter.pods", "a FatTree needs an even number of pods", "even, 2..16")
        if dc.capacity_low > dc.capacity_high:
            bad("datacenter.capacity_low", "must not exceed capacity_high", f"≤ {dc.capacity_high}")
        m = dc.pods**3 // 4
    else:
        m = len(dc.capacities)
        if min(dc.capacities) <= 0:
            bad("datacenter.capacities", "every server needs a positive capacity", "> 0")
        for k, con in enumerate(dc.constraints):
            if max(con.servers) >= m or min(con.servers) < 0:
                bad(f"datacenter.constraints[{k}].servers", "server index out of range", f"0..{m - 1}")
            if con.coefficients is not None and (
                len(con.coefficients) != len(con.servers) or min(con.coefficients) < 0
            ):
                bad(f"datacenter.constraints[{k}].coefficients", "one non-negative value per server", "≥ 0")
    if wl.emax_low > wl.emax_high:
        bad("workload.emax_low", "must not exceed emax_high", f"≤ {wl.emax_high}")
    if wl.kind == "job":
        for k, task in enumerate(wl.tasks):
            if task.efficiency is not None and (
                len(task.efficiency) != m or min(task.efficiency) <= 0 or max(task.efficiency) > 1
            ):
                bad(f"workload.tasks[{k}].efficiency", f"needs {m} values in (0, 1]", f"{m} values in (0, 1]")
    if dc.kind == "servers" and sum(len(c.servers) for c in dc.constraints) > 100_000:
        bad("datacenter.constraints", "too many constraint entries", "≤ 100,000 server entries in total")
    n_tasks = {"generator": lambda: wl.tasks, "job": lambda: len(wl.tasks)}.get(wl.kind, lambda: 0)()
    if n_tasks * m > MAX_TASK_SERVER_PAIRS:
        bad("workload.tasks", "tasks × servers too large", f"tasks × {m} servers ≤ {MAX_TASK_SERVER_PAIRS:,}")
    genetic = [a for a in cfg.algorithms if a.split(":")[-1] in ("mm_ga", "gsa")]
    ga_work = prm.ga_population * prm.ga_generations * (1 + prm.sa_steps) * (max(n_tasks, 1) + 4 * m)
    if genetic and ga_work > MAX_GA_WORK:
        bad(
            "params.ga_generations",
            "GA too large for this job (population × generations × (1 + sa_steps) × (tasks + 4·servers))",
            f"≤ {MAX_GA_WORK:,.0f}",
        )
    if wl.kind == "online_generator" and wl.arrival_rate * wl.arrival_end_s > wl.max_jobs:
        bad(
            "workload.arrival_rate",
            f"arrival_rate × arrival_end_s = {wl.arrival_rate * wl.arrival_end_s:,.0f} expected jobs, more than max_jobs",
            f"arrival_rate × arrival_end_s ≤ max_jobs = {wl.max_jobs:,}",
        )
    if wl.kind == "online_generator" and wl.max_tasks * m > 500_000:
        bad("workload.max_tasks", "max_tasks × servers too large", f"≤ {500_000 // m}")
    if prm.ga_elite >= prm.ga_population:
        bad("params.ga_elite", "must be below ga_population", f"< {prm.ga_population}")
    if errors:
        raise ScenarioError(errors)
