"""Golden seeded scenarios: the example and a small online run give the stored metrics exactly.

Regenerate (after a deliberate change) with:
    .venv/bin/python -m tests.schedulers.ep_jobs.test_golden
"""

from __future__ import annotations

import json
from pathlib import Path

import schedulers

GOLDEN = Path(__file__).with_name("golden.json")
TIMING = {"algorithm_runtime_s", "total_scheduler_runtime_s"}
ONLINE = {
    "family": "ep_jobs",
    "seed": 11,
    "datacenter": {"kind": "fattree", "pods": 4, "capacity_low": 10},
    "workload": {"kind": "online_generator", "arrival_end_s": 400, "task_count_scale": 6},
    "algorithms": ["ontapra:tapra_fast", "fcfs:min_min", "slf-ndrc:tapra", "llf:tapra_fast"],
}


def _metrics(scenario: dict) -> dict:
    result = schedulers.run(scenario)
    return {
        r["algorithm"]: {k: float(f"{v:.10g}") for k, v in sorted(r["metrics"].items()) if k not in TIMING}
        for r in result["runs"]
    }


def current() -> dict:
    return {"example": _metrics(schedulers.example("ep_jobs")), "online": _metrics(ONLINE)}


def test_golden_metrics():
    assert current() == json.loads(GOLDEN.read_text())


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")
