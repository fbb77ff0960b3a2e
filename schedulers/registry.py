"""The family registry: every scheduler family registers itself here on import.

A family is a sub-package of :mod:`schedulers` (anything but ``core``) whose
``__init__`` calls :func:`register`. Discovery lists the package's sub-packages, so adding a
family touches no shared file; a family's package is imported when it is first looked up.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, get_origin

import numpy as np
from pydantic import Field, create_model

from schedulers import plugins
from schedulers.core.columns import Columns, as_columns
from schedulers.core.metrics import Metric
from schedulers.core.validation import ScenarioBase, ScenarioError

__all__ = ["Families", "Family", "Progress", "RunOutput", "all_families", "get_family", "register", "unregister"]


class Progress(Protocol):
    def __call__(self, fraction: float, message: str = "") -> None: ...


@dataclass
class RunOutput:
    """What one algorithm on one repetition produces (see docs/design.md "Result", docs/formats.md).

    ``schedule`` holds the segments (job, task, resource, start, end, share, kind and
    family extras) and ``jobs`` the optional per-job records, both as
    :class:`~schedulers.core.columns.Columns` (a list of dicts from a third-party family
    is converted); ``series`` maps names to equal-length lists or 1-D arrays with a
    ``t`` key. Metrics and extras are native Python values.
    """

    metrics: dict[str, float]
    schedule: Columns = field(default_factory=Columns)
    series: dict[str, Any] = field(default_factory=dict)
    jobs: Columns = field(default_factory=Columns)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.schedule = as_columns(self.schedule)
        self.jobs = as_columns(self.jobs)


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
    # every metric the family emits, with its kind and unit (schedulers.core.metrics.Metric);
    # a key ending in "*" declares a family of names (load_* for one per cloud)
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    check: Callable[[Any], None] | None = None  # cross-field validation; raises ScenarioError
    # ``params`` fields that ``prepare`` reads (they shape the instance): part of the workload digest.
    workload_params: tuple[str, ...] = ()
    # Plug-ins (schedulers.plugins): ``adopt(obj)`` returns the description of an entry point's object the
    # family can run, or raises TypeError saying what it expects; None: the family takes no plug-ins.
    adopt: Callable[[Any], str] | None = None
    # algorithm -> where it comes from ({"package", "version"}, plus entry point, file and sha256 for a plug-in)
    origins: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


_FAMILIES: dict[str, Family] = {}
_WITH_PLUGINS: dict[str, tuple[Family, Family]] = {}  # name -> (registered family, the same with its plug-ins)
_PACKAGES: list[str] | None = None  # family packages found on disk, imported when first used


def register(family: Family) -> Family:
    _FAMILIES[family.name] = family
    return family


def unregister(name: str) -> None:
    _FAMILIES.pop(name, None)
    _WITH_PLUGINS.pop(name, None)


def forget_plugins() -> None:
    """Drop the families merged with their plug-ins (``schedulers.plugins.refresh``)."""
    _WITH_PLUGINS.clear()


def _with_plugins(family: Family) -> Family:
    """``family`` with its installed plug-ins among its algorithms (and in its scenario model's allowed names)."""
    cached = _WITH_PLUGINS.get(family.name)
    if cached is not None and cached[0] is family:
        return cached[1]
    builtin = {"package": "cloudsched", "version": "built-in"}  # the stamp's app commit says which
    origins = dict.fromkeys(family.algorithms, builtin)
    found = plugins.discover().get(family.name, {}) if family.adopt else {}
    merged = family
    if found:
        algorithms = {**family.algorithms, **{n: p.description for n, p in found.items()}}
        origins.update({n: p.origin() for n, p in found.items()})
        model = _allow_algorithms(family.scenario_model, list(algorithms))
        merged = dataclasses.replace(family, algorithms=algorithms, scenario_model=model)
    merged = dataclasses.replace(merged, origins=origins)
    _WITH_PLUGINS[family.name] = (family, merged)
    return merged


def _allow_algorithms(model: type[ScenarioBase], names: list[str]) -> type[ScenarioBase]:
    """``model`` whose ``algorithms`` field also allows ``names`` (its schema lists them: the wizard, the API).

    A model whose ``algorithms`` is not a list of literal names is returned as it is (``validate``
    checks the names against the family's algorithms anyway).
    """
    info = model.model_fields["algorithms"]
    args = get_args(info.annotation)
    if get_origin(info.annotation) is not list or not args or get_origin(args[0]) is not Literal:
        return model
    longest = max([len(names), *(getattr(m, "max_length", 0) or 0 for m in info.metadata)])
    new = Field(default_factory=info.default_factory, min_length=1, max_length=longest, description=info.description)
    return create_model(model.__name__, __base__=model, __module__=model.__module__,
                        algorithms=(list[Literal[tuple(names)]], new))  # fmt: skip


def _packages() -> list[str]:
    """The family sub-packages of :mod:`schedulers`, listed without importing them.

    ``CLOUDSCHED_FAMILIES="backfill,dvfs_bot"`` limits a deployment (or a test run) to some families.
    """
    global _PACKAGES
    if _PACKAGES is None:
        only = {n.strip() for n in os.environ.get("CLOUDSCHED_FAMILIES", "").split(",") if n.strip()}
        _PACKAGES = [
            m.name
            for m in pkgutil.iter_modules([os.path.dirname(__file__)])  # the family packages beside this module
            if m.ispkg and m.name != "core" and (not only or m.name in only)
        ]
    return _PACKAGES


class Families(Mapping[str, Family]):
    """Every family by name, in name order. A family's package (its models, presets, algorithms) is
    imported when the family is first looked up, so a command pays only for the families it uses
    (start-up time, ``bench/startup.py``); listing names imports nothing."""

    def __init__(self) -> None:
        self._names = sorted(set(_packages()) | set(_FAMILIES))

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __getitem__(self, name: str) -> Family:
        return _with_plugins(self.registered(name))

    def registered(self, name: str) -> Family:
        """The family as its package registered it, without plug-ins."""
        if name not in self._names:
            raise KeyError(name)
        if name not in _FAMILIES:
            importlib.import_module(f"schedulers.{name}")  # its __init__ registers it
        if name not in _FAMILIES:
            raise LookupError(f"package schedulers.{name} registered no family named {name!r}")
        return _FAMILIES[name]

    def __repr__(self) -> str:
        return f"Families({', '.join(self._names)})"


def all_families() -> Families:
    """Every family (a read-only mapping, name → :class:`Family`, importing each on first use)."""
    return Families()


def get_family(name: str) -> Family:
    families = all_families()
    if name not in families:
        allowed = ", ".join(families) or "(none installed)"
        raise ScenarioError.single("family", f"unknown family {name!r}", f"one of {allowed}")
    return families[name]


plugins.connect(all_families, forget_plugins)
