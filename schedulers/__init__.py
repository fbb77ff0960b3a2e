"""cloudsched's scheduling library: five families of cloud schedulers, one front door.

>>> import schedulers
>>> result = schedulers.run(schedulers.example("backfill"))  # doctest: +SKIP

The library never imports Django or Celery.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from schedulers.analysis import load
from schedulers.core.estimate import Estimate
from schedulers.core.validation import ScenarioError
from schedulers.registry import Family, RunOutput, all_families, get_family, register
from schedulers.result import (
    RunFailed,
    digest,
    estimate,
    failure_record,
    merge,
    run,
    run_unit,
    units,
    validate,
    workload_digest,
)

if TYPE_CHECKING:  # imported where used: start-up time (bench/startup.py)
    from schedulers.core.claims import Claim

__all__ = [
    "SCALES",
    "Estimate",
    "Family",
    "RunFailed",
    "RunOutput",
    "ScenarioError",
    "all_families",
    "digest",
    "estimate",
    "example",
    "failure_record",
    "get_family",
    "load",
    "merge",
    "preset",
    "preset_claims",
    "register",
    "run",
    "run_unit",
    "schema",
    "units",
    "validate",
    "workload_digest",
]


def example(family: str) -> dict[str, Any]:
    """A small runnable scenario of ``family``."""
    return get_family(family).example()


def schema(family: str) -> dict[str, Any]:
    """The JSON schema of ``family``'s scenario."""
    return get_family(family).scenario_model.model_json_schema()


SCALES = ("paper", "small")
"""``paper``: the paper's sizes; ``small``: the reduction each family documents in its presets module."""


def _preset_doc(family: str, name: str) -> dict[str, Any]:
    fam = get_family(family)
    if name not in fam.presets:
        allowed = ", ".join(fam.presets) or "(none)"
        raise ScenarioError.single("preset", f"unknown preset {name!r} for {family}", f"one of {allowed}")
    return fam.presets[name]()


def preset(family: str, name: str, scale: str = "paper") -> dict[str, Any]:
    """A paper-figure experiment of ``family`` as a study document (JSON: claims as their sentences).

    ``missing_traces`` (present only when needed) says which real logs the preset calls for
    but the trace catalog lacks, and how to add them; those points fall back as the preset states.

    ``scale="small"`` applies the family's documented reduction (the preset's ``small``
    entry: a note and a function of one scenario) to every scenario.
    """
    from schedulers.core.claims import Claim
    from schedulers.core.traces import recording_misses

    if scale not in SCALES:
        raise ScenarioError.single("scale", f"unknown scale {scale!r}", "one of " + ", ".join(SCALES))
    with recording_misses() as missing:  # real logs the preset calls for but this machine lacks
        doc = dict(_preset_doc(family, name))  # a copy: a preset may hand out the same document every call
    if missing:
        doc["missing_traces"] = missing
    small = doc.pop("small", None)
    doc["claims"] = [c.text if isinstance(c, Claim) else c for c in doc.get("claims", [])]
    if scale == "small" and small is not None:
        doc["scenarios"] = [small["shrink"](copy.deepcopy(s)) for s in doc["scenarios"]]
        doc["description"] = (doc.get("description", "") + " Small scale: " + small["note"]).strip()
    doc["scale"] = scale
    return doc


def preset_claims(family: str, name: str) -> list[Claim]:
    """The preset's claims with their checks (a sentence without a check becomes an unchecked claim)."""
    from schedulers.core.claims import Claim

    return [c if isinstance(c, Claim) else Claim(c) for c in _preset_doc(family, name).get("claims", [])]
