"""Running a scenario and assembling the result document (docs/design.md "Result")."""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from schedulers.core import estimate as estimates
from schedulers.core import jsonio
from schedulers.core import rng as rngmod
from schedulers.core.columns import as_columns
from schedulers.core.metrics import mean_ci
from schedulers.core.validation import ScenarioError, validate_model
from schedulers.plugins import is_stop
from schedulers.registry import Family, RunOutput, get_family

__all__ = [
    "WORKLOAD_PARTS",
    "InvalidResult",
    "RunFailed",
    "digest",
    "estimate",
    "failure_record",
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


class RunFailed(RuntimeError):
    """Every unit of a run failed: there is no result to write. ``failures`` holds each unit's record."""

    def __init__(self, failures: list[dict[str, Any]]) -> None:
        self.failures = failures
        lines = [f"{f['algorithm']} repetition {f['repetition']}: {f['error']}" for f in failures]
        super().__init__("every unit of the run failed: " + "; ".join(lines))


class _CallerStop(BaseException):
    """Carries an exception raised by the caller's progress callback (a cancellation) through the unit."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(original)
        self.original = original


def unit_label(family: Family, algorithm: str, repetition: int) -> str:
    """How progress and errors name a unit: ``"easy repetition 0"``, a plug-in's with its package."""
    origin = family.origins.get(algorithm, {})
    where = f" (plug-in {family.name}.{algorithm}, {origin['package']} {origin['version']})" if "entry_point" in origin \
        else ""  # fmt: skip
    return f"{algorithm} repetition {repetition}{where}"


def failure_record(algorithm: str, repetition: int, exc: BaseException) -> dict[str, Any]:
    """What a result keeps of a unit that failed (``failures``): its error, and the plug-in it names."""
    out = {"algorithm": algorithm, "repetition": repetition, "error": str(exc) or type(exc).__name__,
           "type": type(exc).__name__}  # fmt: skip
    plugin = getattr(exc, "plugin", None)
    if plugin is not None:
        out["plugin"] = f"{plugin.family}.{plugin.name}"
    return out


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


def estimate(scenario: Any) -> estimates.Estimate:
    """A scenario's peak memory and simulation CPU time, estimated without running it (milliseconds): a scenario
    dict (validated here: a :class:`ScenarioError` if invalid) or a ``(family, model)`` pair from :func:`validate`
    (:func:`schedulers.core.estimate.estimate`)."""
    return estimates.estimate(scenario if isinstance(scenario, tuple) else validate(scenario))


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
    if "entry_point" in family.origins.get(alg, {}):
        # A plug-in runs on its own copy of the instance: whatever it writes (past the read-only views it is
        # shown, schedulers.core.readonly) never reaches another algorithm of the scenario.
        instance = copy.deepcopy(instance)
    t0 = time.perf_counter()
    out: RunOutput = family.simulate(cfg, instance, alg, rngmod.stream(cfg.seed, rep, "algorithm:" + alg), progress)
    record = {
        "algorithm": alg,
        "repetition": rep,
        "wall_time_s": time.perf_counter() - t0,
        "metrics": out.metrics,
        "schedule": as_columns(out.schedule),  # columns all the way (docs/formats.md)
        "series": out.series,
        "jobs": as_columns(out.jobs),
        **({"extra": out.extra} if out.extra else {}),
    }
    bad = jsonio.nonfinite_paths(record)
    if bad:
        raise InvalidResult(f"{alg} produced a result that is not valid JSON: NaN or inf at {', '.join(bad)}")
    return record


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


def merge(
    scenario: dict[str, Any], runs: list[dict[str, Any]], failures: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """:func:`run`'s document from the run records of every unit of ``scenario`` (:func:`run_unit`), in any order.

    ``failures`` are the :func:`failure_record` of the units that failed: every unit is either in ``runs``
    or there. Records are put back in :func:`run`'s order (repetition, then the scenario's algorithm
    order) before the summary is computed, so its means add the same floats in the same order.
    Raises :class:`RunFailed` when every unit failed.
    """
    family, cfg = validate(scenario)
    order = {u: i for i, u in enumerate(units(scenario))}

    def key(r: dict[str, Any]) -> int:
        return order.get((r["algorithm"], r["repetition"]), len(order))

    got, failed = sorted(runs, key=key), sorted(failures or [], key=key)
    have = sorted([(r["algorithm"], r["repetition"]) for r in got + failed], key=lambda u: order.get(u, len(order)))
    if have != list(order):
        raise ValueError(f"units to merge {have} are not the scenario's {list(order)}")
    if not got:
        raise RunFailed(failed)
    return _document(family, cfg, got, failed)


def _document(
    family: Family, cfg: Any, runs: list[dict[str, Any]], failures: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    normalised = cfg.model_dump(mode="json")
    doc = {
        "family": family.name,
        "scenario_digest": digest(normalised),
        "seed": cfg.seed,
        "scenario": normalised,
        "runs": runs,
        "summary": summarize(runs),
    }
    if failures:
        doc["failures"] = failures
    plugins = _plugins(family, cfg.algorithms)
    if plugins:
        doc["plugins"] = plugins
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

    A unit (algorithm, repetition) that raises fails alone: its :func:`failure_record` goes to the
    document's ``failures`` and the other units' records stay (a plug-in's bug never costs the papers'
    results). What stops the whole run instead: every unit failing (the first unit's exception is raised,
    with the others' errors as notes), and the caller's own interruptions (a
    :class:`~schedulers.plugins.RunLimit`, ``MemoryError``, ``KeyboardInterrupt``, an exception raised by
    ``progress``), which pass through unchanged.
    """
    family, cfg = validate(scenario)
    total = cfg.repetitions * len(cfg.algorithms)
    report = progress or (lambda fraction, message="": None)
    runs: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    first: Exception | None = None
    for rep in range(cfg.repetitions):
        instance = family.prepare(cfg, rngmod.stream(cfg.seed, rep, "workload"))
        for alg in cfg.algorithms:
            done, label = len(runs) + len(failures), unit_label(family, alg, rep)

            def sub(fraction: float, message: str = "", _done=done, _label=label) -> None:
                try:
                    report((_done + min(max(fraction, 0.0), 1.0)) / total, message or _label)
                except BaseException as exc:
                    raise _CallerStop(exc) from exc

            try:
                sub(0.0)
                runs.append(_one(family, cfg, instance, alg, rep, sub))
            except _CallerStop as stop:
                raise stop.original from None
            except Exception as exc:
                if is_stop(exc):  # the caller's limit or interruption stops the whole run
                    raise
                failures.append(failure_record(alg, rep, exc))
                first = first or exc
    if first is not None and not runs:  # nothing to keep: the run fails with the first unit's own error
        for f in failures[1:]:
            first.add_note(f"also failed: {f['algorithm']} repetition {f['repetition']}: {f['error']}")
        raise first
    doc = _document(family, cfg, runs, failures)
    report(1.0, "done")
    return doc
