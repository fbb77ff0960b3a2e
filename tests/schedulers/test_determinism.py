"""One scenario and seed give the same result in every process, bit for bit.

Python salts ``str`` hashes per process (``PYTHONHASHSEED``), so a set of names iterated into a
result, or into a floating-point sum, can change from one process to the next. Each family's
example (and the online ep_jobs path) runs in two subprocesses with different hash seeds, and
the two result documents must serialise to the same bytes (key order included), machine-timing
metrics aside (``tests.golden.TIMING``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.golden import without_timing
from tests.schedulers.ep_jobs.test_golden import ONLINE

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations")
CHILD = """
import json, sys
import schedulers
scenarios = json.loads(sys.argv[1])
results = {}
for name, scenario in scenarios.items():
    results[name] = schedulers.run(scenario if isinstance(scenario, dict) else schedulers.example(scenario))
from schedulers.core import jsonio
sys.stdout.write(jsonio.dumps(results))
"""


def _run_in_a_process(scenarios: dict, hash_seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env.pop("CLOUDSCHED_FAMILIES", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(scenarios)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_every_family_gives_the_same_bytes_under_two_hash_seeds():
    scenarios = {family: family for family in FAMILIES} | {"ep_jobs online": ONLINE}
    first, second = (_run_in_a_process(scenarios, seed) for seed in ("1", "2"))
    assert scenarios  # the loop below checks each
    for name in scenarios:
        a, b = (json.dumps(without_timing(r[name])) for r in (first, second))
        assert a == b, f"{name}: the result depends on PYTHONHASHSEED"
