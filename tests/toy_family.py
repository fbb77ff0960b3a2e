"""A tiny family for plumbing tests only (never shipped in schedulers/).

Jobs with durations run first-come first-served on ``machines`` identical machines.
"""

from __future__ import annotations

import heapq
import time
from typing import Literal

from pydantic import Field

from schedulers.core.claims import Claim, at_every_point, less_than_at_every_point, ratio
from schedulers.core.metrics import Metric
from schedulers.core.validation import ScenarioBase, StrictModel
from schedulers.registry import Family, RunOutput, register


class ToyWorkload(StrictModel):
    jobs: int = Field(default=20, ge=1, le=100_000, description="number of jobs")
    mean_duration_s: float = Field(default=10.0, gt=0, le=1e6)


class ToyDatacenter(StrictModel):
    machines: int = Field(default=3, ge=1, le=1000)


class ToyParams(StrictModel):
    sleep_s: float = Field(default=0.0, ge=0, le=60, description="wall-clock pause per job (tests of progress)")
    allocate_mb: int = Field(default=0, ge=0, le=100_000, description="memory to allocate (tests of limits)")


class ToyScenario(ScenarioBase):
    family: Literal["toy"]
    algorithms: list[Literal["fcfs", "lpt"]] = Field(default_factory=lambda: ["fcfs"], min_length=1)
    datacenter: ToyDatacenter = Field(default_factory=ToyDatacenter)
    workload: ToyWorkload = Field(default_factory=ToyWorkload)
    params: ToyParams = Field(default_factory=ToyParams)


def _prepare(cfg, rng):
    return rng.exponential(cfg.workload.mean_duration_s, size=cfg.workload.jobs).tolist()


def _simulate(cfg, durations, algorithm, rng, progress):
    if cfg.params.allocate_mb:
        ballast = bytearray(cfg.params.allocate_mb * 1024 * 1024)
        del ballast
    order = sorted(range(len(durations)), key=lambda j: -durations[j]) if algorithm == "lpt" else range(len(durations))
    free = [(0.0, m) for m in range(cfg.datacenter.machines)]
    schedule = []
    for k, j in enumerate(order):
        t, m = heapq.heappop(free)
        end = t + durations[j]
        schedule.append(
            {"job": str(j), "task": f"{j}.0", "resource": f"m{m}", "start": t, "end": end, "share": 1.0, "kind": "task"}
        )
        heapq.heappush(free, (end, m))
        if cfg.params.sleep_s:
            time.sleep(cfg.params.sleep_s)
        progress((k + 1) / len(durations))
    makespan = max(s["end"] for s in schedule)
    return RunOutput(
        metrics={"makespan_s": makespan, "jobs": len(durations)},
        schedule=schedule,
        series={"t": [0.0, makespan], "running_jobs": [float(cfg.datacenter.machines), 0.0]},
    )


TOY = Family(
    name="toy",
    description="test-only FCFS toy",
    scenario_model=ToyScenario,
    algorithms={"fcfs": "first come first served", "lpt": "longest processing time first"},
    example=lambda: {
        "family": "toy",
        "name": "toy example",
        "seed": 1,
        "algorithms": ["fcfs", "lpt"],
        "repetitions": 2,
    },
    prepare=_prepare,
    simulate=_simulate,
    summary_metrics=("makespan_s",),
    metrics={"makespan_s": Metric("duration", "s", "makespan"), "jobs": Metric("count", "", "jobs")},
    presets={
        "machines_sweep": lambda: {
            "name": "Toy: makespan vs machines",
            "description": "test preset",
            "claims": [
                Claim(
                    "LPT never loses to FCFS by more than 4/3 − 1/(3m) of the optimum (Graham 1969).",
                    "LPT/FCFS ≤ 4/3",
                    at_every_point(ratio("makespan_s", "lpt", "fcfs"), None, 4 / 3),
                ),
                Claim(
                    "On one machine LPT finishes strictly before FCFS.",  # false: one machine, same total work
                    "LPT < FCFS at m = 1",
                    less_than_at_every_point("makespan_s", "lpt", "fcfs", [0]),
                ),
                "A claim stated without a check.",
            ],
            "small": {"note": "5 jobs per point.", "shrink": lambda s: {**s, "workload": {"jobs": 5}}},
            "scenarios": [
                {"family": "toy", "name": f"m={m}", "algorithms": ["fcfs", "lpt"], "datacenter": {"machines": m}}
                for m in (1, 2, 4)
            ],
        }
    },
)


def install() -> Family:
    return register(TOY)
