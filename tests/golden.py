"""Comparing a seeded run's metrics with stored golden numbers.

On one machine a scenario and seed give bit-identical results in every process, whatever
``PYTHONHASHSEED`` (``tests/schedulers/test_determinism.py`` compares them byte for byte).
Across machines the last bits may differ: numpy picks its vectorised summation loops per CPU
and build, and the dvfs_bot example's energy, stored as 10521723.465658473 J where the golden
file was written, is 10521723.465658475 J from the same code on another machine. Floats
therefore match the golden numbers to ``REL`` (relative); integers, booleans and strings exactly.
"""

from __future__ import annotations

import math
from typing import Any

REL = 1e-12


def assert_matches_golden(got: dict[str, Any], golden: dict[str, Any], where: str = "") -> None:
    assert got.keys() == golden.keys(), f"{where}: metrics {sorted(got)} != golden {sorted(golden)}"
    for key, want in golden.items():
        have = got[key]
        if isinstance(want, float) and isinstance(have, float):
            same = (math.isnan(want) and math.isnan(have)) or math.isclose(have, want, rel_tol=REL, abs_tol=0.0)
        else:
            same = have == want
        assert same, f"{where}{key}: {have!r} != golden {want!r} (floats to {REL:g} relative)"


# Metrics that measure the machine, not the schedule: left out of every comparison.
TIMING = frozenset({"wall_time_s", "algorithm_runtime_s", "scheduler_time_s", "total_scheduler_runtime_s"})


def without_timing(doc: Any) -> Any:
    """``doc`` (a result or any part of it) without the ``TIMING`` keys, order kept."""
    if isinstance(doc, dict):
        return {k: without_timing(v) for k, v in doc.items() if k not in TIMING}
    if isinstance(doc, list):
        return [without_timing(v) for v in doc]
    return doc
