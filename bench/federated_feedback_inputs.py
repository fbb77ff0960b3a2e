"""The `feedback_inputs` table of docs/federated.md ("What the feedback (DCLS/DCMMS) needs to matter").

    .venv/bin/python bench/federated_feedback_inputs.py               # slot tables "current" (the default)
    .venv/bin/python bench/federated_feedback_inputs.py --slot-tables plan   # the table as it was before

Every row is the preset ``feedback_inputs``' scenario (first 20,000 LLNL-Thunder jobs, seed 2012,
20 % AR, α = 1, EL on) with the row's gap divisor, runtime error σ and hidden contention of
Thunder (``datacenter.clouds[0].contention``); CLS, DCLS, CMMS, DCMMS on the same instance.
The improvement is 1 − DCLS/CLS (1 − DCMMS/CMMS) of the average application execution time.
CPU time and the load average are printed beside each row. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schedulers.core import rng as rngmod
from schedulers.federated import prepare, simulate
from schedulers.federated.model import Datacenter
from schedulers.federated.presets import feedback_inputs
from schedulers.result import validate

ROWS = [
    (1.0, 0.0, 0.0),
    (1.0, 0.0, 0.5),
    (1.0, 1.0, 0.0),
    (100.0, 0.0, 0.0),
    (100.0, 0.0, 0.5),
    (100.0, 0.0, 1.0),
    (100.0, 1.0, 0.5),
]
ALGS = ("cls", "dcls", "cmms", "dcmms")


def scenario(divisor: float, contention: float, sigma: float, slot_tables: str, max_jobs: int) -> dict:
    base = copy.deepcopy(feedback_inputs()["scenarios"][0])
    if base["workload"]["kind"] != "trace":
        sys.exit("LLNL-Thunder log not found (../shared/workloads/traces or $CLOUDSCHED_TRACE_DIRS)")
    base["workload"].update(gap_divisor=divisor, runtime_error=sigma, max_jobs=max_jobs)
    dc = Datacenter().model_dump(mode="json")
    dc["clouds"][0]["contention"] = contention
    base["datacenter"] = dc
    base["params"]["slot_tables"] = slot_tables
    return base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slot-tables", choices=("current", "plan"), default="current")
    parser.add_argument("--jobs", type=int, default=20000)
    args = parser.parse_args()
    print(f"slot tables {args.slot_tables}, first {args.jobs} jobs; load average {os.getloadavg()[0]:.1f}")
    print("| gaps | contention (Thunder) | σ | CLS | DCLS | impr. | CMMS | DCMMS | impr. | CPU s | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for divisor, contention, sigma in ROWS:
        _, cfg = validate(scenario(divisor, contention, sigma, args.slot_tables, args.jobs))
        inst = prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))
        c0 = time.process_time()
        x = {a: simulate(cfg, inst, a, None, lambda *a: None).metrics["avg_app_execution_time_s"] for a in ALGS}
        cpu = time.process_time() - c0
        print(
            f"| /{divisor:g} | {contention:g} | {sigma:g} | {x['cls']:,.0f} | {x['dcls']:,.0f} | "
            f"{1 - x['dcls'] / x['cls']:+.1%} | {x['cmms']:,.0f} | {x['dcmms']:,.0f} | {1 - x['dcmms'] / x['cmms']:+.1%} "
            f"| {cpu:.0f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
