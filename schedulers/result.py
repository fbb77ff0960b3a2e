"""Running a scenario and assembling the result document (DESIGN.md "Result")."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from schedulers.core import jsonio
from schedulers.core import rng as rngmod
from schedulers.core.columns import as_columns
from schedulers.core.metrics import mean_ci
from schedulers.core.validation import ScenarioError, validate_model
from schedulers.registry import Family, RunOutput, get_family

__all__ = [
    "WORKLOAD_PARTS",
    "InvalidResult",
    "digest",
    "merge",
    "run",
    "run_unit",
    "summarize",
    "units",
    "validate",
    "workload_digest",
]


class InvalidResult(RuntimeError):
    """A result that is not valid JSON (NaN or ±inf somewhere): a bug of the family, never written."""


def digest(scenario: dict[str, Any]) -> str:
    blob = json.dumps(scenario, sort_keys=True, separators=(",", ":")).encode()
    return "sha256:" + hashlib.sha256(blob).hexdigest()


WORKLOAD_PARTS = ("family", "seed", "datacenter", "workload")


def workload_digest(scenario: dict[str, Any]) -> str:
    """The digest of what every algorithm of a scenario faces: two scenarios with the same one see the same instances.

    ``scenario`` is a validated (normalised) scenario. The instance of repetition ``r`` is
    ``family.prepare(cfg, stream(seed, r, "workload"))`` (:func:`run`), which reads the data
    centre and the workload, plus the ``params`` fields the family names in
    ``Family.workload_params`` (backfill draws each job's background efficiency and
    foreground loss from its params). Algorithms, repetitions, the name and the other params
    are left out, so runs of different algorithms, or with more repetitions, on one workload
    share the digest (repetition ``r`` of each sees the same instance).
    """
    family = get_family(str(scenario.get("family", "")))
    params = scenario.get("params") or {}
    parts = {k: scenario.get(k) for k in WORKLOAD_PARTS}
    parts["params"] = {k: params.get(k) for k in family.workload_params}
    return digest(parts)


def validate(scenario: Any) -> tuple[Family, Any]:
    """Validate a scenario dict; returns its family and the validated model."""
    if not isinstance(scenario, dict):
        raise ScenarioError.single("(scenario)", "a scenario must be a JSON object")
    family = get_family(str(scenario.get("family", "")))
    cfg = validate_model(family.scenario_model, scenario)
    unknown = [a for a in cfg.algorithms if a not in family.algorithms]
    errors = [
        {
            "field": "algorithms",
            "message": f"unknown algorithm {a!r}",
            "allowed": "one of " + ", ".join(family.algorithms),
        }
        for a in unknown
    ]
    if errors:
        raise ScenarioError(errors)
    if family.check is not None:
        family.check(cfg)
    return family, cfg


def _plugins(family: Family, algorithms: list[str]) -> dict[str, dict[str, str]]:
    """Which installed plug-in ran each plug-in algorithm (name, package, version, file, SHA-256 of the file):
    the result keeps it, so a result stays readable and attributable after the plug-in is removed."""
    out = {}
    for alg in algorithms:
        origin = family.origins.get(alg, {})
        if "entry_point" in origin:
            out[alg] = {"name": f"{family.name}.{alg}", **origin}
    return out


def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Each algorithm's metrics over its repetitions (mean and 95 % CI), from run records in :func:`run`'s order."""
    by_alg: dict[str, dict[str, list[float]]] = {}
    for r in runs:
        metrics = by_alg.setdefault(r["algorithm"], {})
        for key, value in r["metrics"].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                metrics.setdefault(key, []).append(float(value))
    return {alg: {k: mean_ci(v) for k, v in m.items()} for alg, m in by_alg.items()}


def _one(family: Family, cfg: Any, instance: Any, alg: str, rep: int, progress: Callable[..., None]) -> dict[str, Any]:
    """One algorithm on one repetition's instance: a run record of the result document.

    Its random stream is ``stream(seed, rep, "algorithm:" + alg)`` and the instance comes from
    ``stream(seed, rep, "workload")`` (:mod:`schedulers.core.rng`): neither depends on the other
    algorithms or repetitions, so a unit run alone (:func:`run_unit`) gives the record :func:`run` gives.
    """
    t0 = time.perf_counter()
    out: RunOutput = family.simulate(cfg, instance, alg, rngmod.stream(cfg.seed, rep, "algorithm:" + alg), progress)
    return {
        "algorithm": alg,
        "repetition": rep,
        "wall_time_s": time.perf_counter() - t0,
        "metrics": out.metrics,
        "schedule": as_columns(out.schedule),  # columns all the way (docs/formats.md)
        "series": out.series,
        "jobs": as_columns(out.jobs),
        **({"extra": out.extra} if out.extra else {}),
    }


def units(scenario: dict[str, Any]) -> list[tuple[str, int]]:
    """The independent pieces of a scenario's work, ``(algorithm, repetition)``, in :func:`run`'s order."""
    _, cfg = validate(scenario)
    return [(alg, rep) for rep in range(cfg.repetitions) for alg in cfg.algorithms]


def run_unit(
    scenario: dict[str, Any], algorithm: str, repetition: int, progress: Callable[[float, str], None] | None = None
) -> dict[str, Any]:
    """The run record of one ``(algorithm, repetition)`` of ``scenario``, as :func:`run` would put it in its ``runs``.

    :func:`merge` turns the records of every unit (run anywhere, in any order) into :func:`run`'s document.
    """
    family, cfg = validate(scenario)
    if algorithm not in cfg.algorithms or not 0 <= repetition < cfg.repetitions:
        raise ScenarioError.single("(unit)", f"no unit ({algorithm!r}, {repetition}) in this scenario")
    report = progress or (lambda fraction, message="": None)
    instance = family.prepare(cfg, rngmod.stream(cfg.seed, repetition, "workload"))
    return _one(family, cfg, instance, algorithm, repetition, report)


def merge(scenario: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """:func:`run`'s document from the run records of every unit of ``scenario`` (:func:`run_unit`), in any order.

    Records are put back in :func:`run`'s order (repetition, then the scenario's algorithm order)
    before the summary is computed, so its means add the same floats in the same order.
    """
    family, cfg = validate(scenario)
    order = {u: i for i, u in enumerate(units(scenario))}
    got = sorted(runs, key=lambda r: order.get((r["algorithm"], r["repetition"]), len(order)))
    have = [(r["algorithm"], r["repetition"]) for r in got]
    if have != list(order):
        raise ValueError(f"units to merge {have} are not the scenario's {list(order)}")
    return _document(family, cfg, got)


def _document(family: Family, cfg: Any, runs: list[dict[str, Any]]) -> dict[str, Any]:
    normalised = cfg.model_dump(mode="json")
    doc = {
        "family": family.name,
        "scenario_digest": digest(normalised),
        "seed": cfg.seed,
        "scenario": normalised,
        "runs": runs,
        "summary": summarize(runs),
    }
    plugins = _plugins(family, cfg.algorithms)
    if plugins:
        doc["plugins"] = plugins
    bad = jsonio.nonfinite_paths(doc)
    if bad:
        raise InvalidResult(f"{family.name} produced a result that is not valid JSON: NaN or inf at {', '.join(bad)}")
    return doc


def run(
    scenario: dict[str, Any],
    progress: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Validate and run every algorithm × repetition of ``scenario``.

    ``progress(fraction, message)`` is called as work advances. Nothing runs if
    the scenario is invalid (:class:`ScenarioError` lists every bad field). The same
    document comes from :func:`merge` over :func:`run_unit` of every :func:`units` entry
    (timings aside), which is how the CLI's ``claims`` and web studies spread one scenario.
    """
    family, cfg = validate(scenario)
    total = cfg.repetitions * len(cfg.algorithms)
    report = progress or (lambda fraction, message="": None)
    runs: list[dict[str, Any]] = []
    for rep in range(cfg.repetitions):
        instance = family.prepare(cfg, rngmod.stream(cfg.seed, rep, "workload"))
        for alg in cfg.algorithms:
            done = len(runs)

            def sub(fraction: float, message: str = "", _done=done, _alg=alg, _rep=rep) -> None:
                report((_done + min(max(fraction, 0.0), 1.0)) / total, message or f"{_alg} repetition {_rep}")

            sub(0.0)
            runs.append(_one(family, cfg, instance, alg, rep, sub))
    doc = _document(family, cfg, runs)
    report(1.0, "done")
    return doc
