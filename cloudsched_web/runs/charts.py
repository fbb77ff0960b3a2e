"""Chart payloads built server-side from a stored result (pure functions, unit-tested).

Summary-level payloads (metrics table, comparison bars, lower bounds, study curves,
reproducibility stamp) live here; time-windowed payloads (Gantt, series, diff) live in
:mod:`cloudsched_web.runs.timeline`. Nothing here ships a schedule to the browser.
"""

import re
from functools import cache
from importlib import metadata

from django.conf import settings

# A metric named like one of these is a lower bound of another metric of the same run.
_BOUND_PATTERNS = (
    re.compile(r"^lower_bound_(?P<target>.+)$"),  # lower_bound_energy_kwh -> energy_kwh
    re.compile(r"^(?P<target>.+)_lower_bound$"),
)
_NAMED_BOUND = re.compile(r"^(?P<kind>[a-z]+)_bound(?P<unit>_[a-z]+)?$")  # lp_bound_s


def bound_pairs(metric_names):
    """``{bound_metric: target_metric}`` for the lower bounds a family reports.

    ``lower_bound_X`` bounds ``X``; ``<kind>_bound_<unit>`` (``lp_bound_s``) bounds the
    metric ``M_<unit>`` whose ratio ``M_over_<kind>_bound`` the family also reports, or
    else the only other metric with that unit.
    """
    names = set(metric_names)
    pairs = {}
    for name in sorted(names):
        for pattern in _BOUND_PATTERNS:
            m = pattern.match(name)
            if m and m["target"] in names:
                pairs[name] = m["target"]
        m = _NAMED_BOUND.match(name)
        if m and name not in pairs:
            unit = m["unit"] or ""
            ratio = [n for n in names if n.endswith(f"_over_{m['kind']}_bound")]
            candidates = [r.split("_over_")[0] + unit for r in ratio]
            candidates = [c for c in candidates if c in names]
            if not candidates and unit:
                candidates = [n for n in names if n.endswith(unit) and n != name and "bound" not in n]
            if len(candidates) == 1:
                pairs[name] = candidates[0]
    return pairs


def summary_table(result):
    """Rows of mean ± sd per algorithm; bound metrics become a gap column of their target."""
    summary = result.get("summary", {})
    names = sorted({m for per in summary.values() for m in per})
    pairs = bound_pairs(names)
    gaps = sorted(set(pairs.values()))
    rows = []
    for alg, per in summary.items():
        cells = [per.get(m, {}) for m in names]
        gap_cells = []
        for target in gaps:
            bound = next((b for b, t in pairs.items() if t == target), None)
            value, low = per.get(target, {}).get("mean"), per.get(bound, {}).get("mean")
            gap_cells.append(_gap(value, low))
        rows.append({"algorithm": alg, "cells": cells, "gaps": gap_cells})
    return {"metrics": names, "rows": rows, "gaps": gaps, "bounds": pairs}


def _gap(value, bound):
    """The relative gap of ``value`` above its lower bound, with its text for the table."""
    if value is None or bound is None or not bound:
        return None
    gap = (value - bound) / abs(bound)
    return {"value": gap, "text": f"{gap * 100:.2f}%"}


def comparison(result):
    """Bar-chart data: per metric, per algorithm mean, sd and CI; lower bounds as extra bars."""
    summary = result.get("summary", {})
    metrics = {}
    for alg, per_metric in summary.items():
        for name, stat in per_metric.items():
            m = metrics.setdefault(name, {"labels": [], "mean": [], "std": [], "ci": [], "bound": None})
            m["labels"].append(alg)
            m["mean"].append(stat.get("mean"))
            m["std"].append(stat.get("std") or 0.0)
            m["ci"].append(stat.get("ci") or 0.0)
    for bound, target in bound_pairs(metrics).items():
        means = [v for v in metrics[bound]["mean"] if v is not None]
        if means:  # the bound is a property of the instance: the same for every algorithm
            metrics[target]["bound"] = {"name": bound, "value": sum(means) / len(means)}
    return metrics


def primary_metrics(family):
    """The metrics a family puts first (its registry's ``summary_metrics``), for default chart choices."""
    import schedulers

    try:
        return list(schedulers.get_family(family).summary_metrics)
    except schedulers.ScenarioError:
        return []


def runs_index(result):
    return [
        {"i": i, "algorithm": r.get("algorithm", ""), "repetition": r.get("repetition", 0)}
        for i, r in enumerate(result.get("runs", []))
    ]


def repetitions(result):
    return sorted({r.get("repetition", 0) for r in result.get("runs", [])})


def run_page_payload(result):
    """What the result page's script needs up front; windows come from the data endpoint."""
    from cloudsched_web.runs.checks import time_unit

    runs = result.get("runs", [])
    return {
        "primary": primary_metrics(result.get("family", "")),
        "time_unit": result.get("time_unit") or (time_unit(runs[0]) if runs else "s"),
        "comparison": comparison(result),
        "runs": runs_index(result),
        "repetitions": repetitions(result),
        "algorithms": list(result.get("summary", {})),
    }


# Packages a result depends on (with Python itself), and the web stack that only served it.
SCIENCE_PACKAGES = ("numpy", "scipy", "pydantic")
WEB_PACKAGES = ("django", "celery")


@cache
def _versions(names):
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def versions(public=False):
    """Installed versions for the stamp; ``public`` (a share link) names the scientific stack only."""
    import platform

    out = _versions(SCIENCE_PACKAGES) if public else _versions(SCIENCE_PACKAGES + WEB_PACKAGES)
    return {**out, "python": platform.python_version()}


@cache
def git_commit():
    """The application's commit: GIT_COMMIT from the environment, else read from .git (no subprocess)."""
    import os

    if os.environ.get("GIT_COMMIT"):
        return os.environ["GIT_COMMIT"][:40]
    git = settings.BASE_DIR / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = head[5:]
            path = git / ref
            if path.exists():
                return path.read_text().strip()
            for line in (git / "packed-refs").read_text().splitlines():
                if line.endswith(" " + ref):
                    return line.split()[0]
            return ""
        return head
    except OSError:
        return ""


def stamp(run, result, public=False):
    """The reproducibility stamp: what it takes to rerun this result bit for bit.

    ``public`` (a share link, seen by anyone holding it): the science only, never what describes the
    server: no worker host name, no web-stack versions.
    """
    out = {
        "seed": result.get("seed") if result else run.config.get("seed"),
        "digest": result.get("scenario_digest", "") if result else "",
        "commit": git_commit(),
        "versions": versions(public),
        "wall_time_s": run.wall_time_s,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "attempts": run.attempts,
        "algorithm_times": {
            f"{r.get('algorithm')} #{r.get('repetition', 0)}": r.get("wall_time_s")
            for r in (result or {}).get("runs", [])[:50]
        },
    }
    if not public:
        out["worker"] = run.worker or ""
    return out


def _unique(values):
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


POINT_NAME = "point"  # the x axis when no swept path places the points: each run's scenario name


def _x(run, x_axis):
    if x_axis == POINT_NAME:
        return (getattr(run, "config", None) or {}).get("name") or f"run {run.pk}"
    return run.point.get(x_axis) if x_axis else run.pk


def plot_axes(axes, runs):
    """``(x axis, second axis)`` of a study chart from its swept paths.

    One or two paths that place every point: as given. A path whose value alone tells every point
    apart (paths that vary together, such as a seed with a size) becomes the x axis by itself, a
    parameter preferred to ``seed`` or ``algorithms``. Otherwise (three or more paths that do not
    form a grid) each point is placed by its scenario name (:data:`POINT_NAME`), in the study's order.
    """
    if len(axes) < 2:
        return (axes[0] if axes else None), None

    def key(run, paths):
        return repr([run.point.get(a) for a in paths])

    n = len(runs)
    singles = [a for a in axes if len({key(r, [a]) for r in runs}) == n]
    if singles:
        return sorted(singles, key=lambda a: a in ("seed", "algorithms"))[0], None
    if len(axes) == 2 and len({key(r, axes) for r in runs}) == n:
        return axes[0], axes[1]
    return POINT_NAME, None


def study_payload(study, runs_with_results, all_runs=None):
    """Metric-vs-parameter curves for a study: one line per algorithm (× second axis value).

    ``runs_with_results`` holds ``(run, summary)`` pairs where summary is the result's
    ``{alg: {metric: {mean, std, ...}}}``; the error bar is the sd over repetitions.
    ``all_runs`` (every run of the study, finished or not, in the study's order) fixes the
    order of the axis values (ascending when numeric), second-axis values and algorithms
    (``x_order``, ``groups``, ``algorithms``, ``lines``) from the study's definition, so
    nothing moves as runs finish.
    """
    runs = list(all_runs) if all_runs is not None else [run for run, _ in runs_with_results]
    points = [run.point for run in runs if run.point]
    axes = [a for a in (points[0] if points else {}) if a in (study.axes or [])] or list(study.axes or [])
    x_axis, series_axis = plot_axes(axes, runs)
    x_order = _unique([_x(run, x_axis) for run in runs])
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in x_order):
        x_order.sort()  # a numeric axis reads left to right; names keep the study's order
    groups = _unique([run.point.get(series_axis) for run in runs]) if series_axis else [None]
    algorithms = _unique([a for run in runs for a in (getattr(run, "config", None) or {}).get("algorithms", [])])
    algorithms += _unique([a for _, summary in runs_with_results for a in summary if a not in algorithms])
    leaf = series_axis.split(".")[-1] if series_axis else ""

    def label(alg, group):
        return alg if group is None else f"{alg} · {leaf}={group}"

    metrics = {}
    for run, summary in runs_with_results:
        x = _x(run, x_axis)
        group = run.point.get(series_axis) if series_axis else None
        for alg, per in summary.items():
            for name, stat in per.items():
                line = metrics.setdefault(name, {}).setdefault(label(alg, group), [])
                line.append({"x": x, "y": stat.get("mean"), "err": stat.get("std") or 0.0, "run": run.pk})
    rank = {repr(x): i for i, x in enumerate(x_order)}
    for lines in metrics.values():
        for line in lines.values():
            line.sort(key=lambda p: rank.get(repr(p["x"]), len(rank)))
    lines = [{"label": label(a, g), "algorithm": a, "group": g} for a in algorithms for g in groups]
    family = study.scenario.family if hasattr(study, "scenario") else ""
    bounds = {target: bound for bound, target in bound_pairs(metrics).items()}
    pairs = _unique([[_x(run, x_axis), run.point.get(series_axis) if series_axis else None] for run in runs])
    return {"x_axis": x_axis, "series_axis": series_axis, "metrics": metrics, "bounds": bounds, "swept": axes,
            "x_order": x_order, "pairs": pairs, "groups": groups if series_axis else [], "algorithms": algorithms, "lines": lines,
            "primary": primary_metrics(family)}  # fmt: skip
