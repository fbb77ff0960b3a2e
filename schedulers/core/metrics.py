"""Metric helpers shared by the families: declarations, summaries, confidence intervals, batch means.

Every family declares each metric it emits once, as a :class:`Metric` (its kind and the unit of
the stored number) in ``Family.metrics``; the web pages format numbers from these declarations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from schedulers.core.lazy import lazy

special = lazy("scipy.special")

__all__ = ["KINDS", "UNITS", "Metric", "batch_means_ci", "bounded_slowdown", "declared", "mean_ci", "undeclared"]

# What a number is, and the units its stored value may be in (the pages convert between the
# units of one kind: J, Wh, kWh and MWh are all energy). "quantity" is a measured amount in a
# model's own unit (vCPUs, the α·load units of an energy model that has no watts).
UNITS: dict[str, tuple[str, ...]] = {
    "count": ("",),
    "flag": ("",),
    "duration": ("ms", "s", "min", "h", "d"),
    "energy": ("J", "Wh", "kWh", "MWh"),
    "power": ("W", "kW", "MW"),
    "frequency": ("MHz", "GHz"),
    "ratio": ("",),
    "fraction": ("",),  # stored in [0, 1], shown as a percentage
    "percent": ("%",),  # stored already in percent
    "money": ("USD", "EUR"),
    "quantity": (),  # any unit, shown as written
}
KINDS = tuple(UNITS)


@dataclass(frozen=True)
class Metric:
    """One metric a family emits.

    ``kind`` is one of :data:`KINDS`; ``unit`` the unit of the stored value (one of the kind's
    :data:`UNITS`, free text for a ``quantity``); ``label`` a short name for a table header.
    ``ci_of`` names the metric whose 95 % confidence half-width this one is, measured within one
    run (e.g. batch means over the jobs of a long simulation): the pages show it as that
    metric's spread, never as a metric of its own. ``same_as`` names a metric this one repeats in
    another unit (kept for scripts and the CSV): the pages show that one only.
    """

    kind: str
    unit: str = ""
    label: str = ""
    description: str = ""
    ci_of: str | None = None
    same_as: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in UNITS:
            raise ValueError(f"metric kind {self.kind!r}: one of {', '.join(KINDS)}")
        allowed = UNITS[self.kind]
        if allowed and self.unit not in allowed:
            raise ValueError(f"metric unit {self.unit!r} of kind {self.kind}: one of {', '.join(map(repr, allowed))}")


def declared(metrics: Mapping[str, Metric], name: str) -> Metric | None:
    """The declaration of ``name``: its own entry, else a pattern entry (``load_*``), else None.

    A pattern's label may hold ``{}``, filled with what the ``*`` matched (``load of {}`` → ``load of atlas``).
    """
    if name in metrics:
        return metrics[name]
    for key, spec in metrics.items():
        if key.endswith("*") and name.startswith(key[:-1]):
            return replace(spec, label=spec.label.replace("{}", name[len(key) - 1 :]))
    return None


def undeclared(metrics: Mapping[str, Metric], names: Sequence[str]) -> list[str]:
    """The names in ``names`` that ``metrics`` does not declare (a family's test keeps this empty)."""
    return [n for n in names if declared(metrics, n) is None]


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> dict[str, float]:
    """Mean, sample standard deviation and Student-t half width over repetitions."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    mean = float(arr.mean()) if n else math.nan
    if n < 2:
        return {"mean": mean, "std": 0.0, "ci": 0.0, "n": n}
    std = float(arr.std(ddof=1))
    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2) * std / math.sqrt(n))  # t quantile, as stats.t.ppf
    return {"mean": mean, "std": std, "ci": half, "n": n}


def batch_means_ci(values: Sequence[float], batches: int = 10, confidence: float = 0.95) -> dict[str, float]:
    """Batch-means confidence interval of a long, autocorrelated output series.

    The series (e.g. per-job response times in completion order) is cut into
    ``batches`` equal batches; their means are treated as independent samples.
    """
    arr = np.asarray(values, dtype=float)
    if arr.size < batches or batches < 2:
        return mean_ci(arr, confidence)
    usable = arr[: arr.size - arr.size % batches]
    return mean_ci(usable.reshape(batches, -1).mean(axis=1), confidence)


def bounded_slowdown(response_s, run_s, gamma_s: float = 10.0) -> np.ndarray:
    """max(1, response / max(run, Γ)) per job (Γ = 10 s by convention)."""
    response = np.asarray(response_s, dtype=float)
    run = np.asarray(run_s, dtype=float)
    return np.maximum(1.0, response / np.maximum(run, gamma_s))
