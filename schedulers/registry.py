"""The family registry: every scheduler family registers itself here on import.

A family is a sub-package of :mod:`schedulers` (anything but ``core``) whose
``__init__`` calls :func:`register`. Discovery walks the package, so adding a
family touches no shared file.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from schedulers.core.validation import ScenarioBase, ScenarioError

__all__ = ["Family", "Progress", "RunOutput", "all_families", "get_family", "register", "unregister"]


class Progress(Protocol):
    def __call__(self, fraction: float, message: str = "") -> None: ...


@dataclass
class RunOutput:
    """What one algorithm on one repetition produces (see DESIGN.md "Result").

    ``schedule`` holds segment dicts (job, task, resource, start, end, share, kind
    and family extras); ``series`` maps names to equal-length lists with a ``t``
    key; ``jobs`` holds optional per-job records. Native Python types only.
    """

    metrics: dict[str, float]
    schedule: list[dict[str, Any]] = field(default_factory=list)
    series: dict[str, list[float]] = field(default_factory=dict)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Family:
    """A scheduler family (one paper).

    ``prepare(cfg, rng)`` builds the instance of one repetition (the workload and
    data centre) from the ``"workload"`` stream, so every algorithm of that
    repetition sees the same instance. ``simulate(cfg, instance, algorithm, rng,
    progress)`` runs one algorithm and returns a :class:`RunOutput`.
    """

    name: str
    description: str
    scenario_model: type[ScenarioBase]
    algorithms: Mapping[str, str]
    example: Callable[[], dict[str, Any]]
    prepare: Callable[[Any, np.random.Generator], Any]
    simulate: Callable[[Any, Any, str, np.random.Generator, Progress], RunOutput]
    presets: Mapping[str, Callable[[], dict[str, Any]]] = field(default_factory=dict)
    summary_metrics: tuple[str, ...] = ()
    check: Callable[[Any], None] | None = None  # cross-field validation; raises ScenarioError
    # ``params`` fields that ``prepare`` reads (they shape the instance): part of the workload digest.
    workload_params: tuple[str, ...] = ()


_FAMILIES: dict[str, Family] = {}
_discovered = False


def register(family: Family) -> Family:
    _FAMILIES[family.name] = family
    return family


def unregister(name: str) -> None:
    _FAMILIES.pop(name, None)


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    import schedulers

    # CLOUDSCHED_FAMILIES="backfill,dvfs_bot" limits a deployment (or a test run) to some families.
    only = {n.strip() for n in os.environ.get("CLOUDSCHED_FAMILIES", "").split(",") if n.strip()}
    for mod in pkgutil.iter_modules(schedulers.__path__):
        if mod.ispkg and mod.name != "core" and (not only or mod.name in only):
            importlib.import_module(f"schedulers.{mod.name}")


def all_families() -> dict[str, Family]:
    _discover()
    return dict(sorted(_FAMILIES.items()))


def get_family(name: str) -> Family:
    families = all_families()
    if name not in families:
        allowed = ", ".join(families) or "(none installed)"
        raise ScenarioError.single("family", f"unknown family {name!r}", f"one of {allowed}")
    return families[name]
