"""Metric helpers shared by the families: summaries, confidence intervals, batch means."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schedulers.core.lazy import lazy

special = lazy("scipy.special")

__all__ = ["batch_means_ci", "bounded_slowdown", "mean_ci"]


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
