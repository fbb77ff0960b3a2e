"""cloudsched's scheduling library: five families of cloud schedulers, one front door.

>>> import schedulers
>>> result = schedulers.run(schedulers.example("backfill"))  # doctest: +SKIP

The library never imports Django or Celery.
"""

from __future__ import annotations

from typing import Any

from schedulers.core.validation import ScenarioError
from schedulers.registry import Family, RunOutput, all_families, get_family, register
from schedulers.result import digest, run, validate

__all__ = [
    "Family",
    "RunOutput",
    "ScenarioError",
    "all_families",
    "digest",
    "example",
    "get_family",
    "preset",
    "register",
    "run",
    "schema",
    "validate",
]


def example(family: str) -> dict[str, Any]:
    """A small runnable scenario of ``family``."""
    return get_family(family).example()


def schema(family: str) -> dict[str, Any]:
    """The JSON schema of ``family``'s scenario."""
    return get_family(family).scenario_model.model_json_schema()


def preset(family: str, name: str) -> dict[str, Any]:
    """A paper-figure experiment of ``family`` as a scenario."""
    fam = get_family(family)
    if name not in fam.presets:
        allowed = ", ".join(fam.presets) or "(none)"
        raise ScenarioError.single("preset", f"unknown preset {name!r} for {family}", f"one of {allowed}")
    return fam.presets[name]()
