"""Chart payloads built server-side from a stored result (pure functions, unit-tested).

Summary-level payloads (metrics table, comparison bars, lower bounds, study curves,
reproducibility stamp) live here; time-windowed payloads live in ``results.gantt``,
``results.series`` and ``results.jobdiff``. Nothing here ships a schedule to the browser.
"""

import json

from cloudsched_web.results import formatting
from cloudsched_web.results.bounds import bound_pairs
from cloudsched_web.results.checks import time_unit

__all__ = [
    "POINT_NAME",
    "comparison",
    "page_specs",
    "plot_axes",
    "run_page_payload",
    "runs_index",
    "spread",
    "study_payload",
    "summary_table",
]


def _reps(stat, fallback):
    """How many repetitions a summary statistic is over (results before ``n`` was stored: the run's count)."""
    n = stat.get("n")
    return int(n) if n is not None else fallback


def spread(stat, within=None, within_spec=None, fallback_n=1):
    """The one spread shown beside a mean, and what it is.

    At least two repetitions: the Student-t 95 % CI half-width over them (``mean_ci``), the
    standard deviation in the tooltip. One repetition: the family's own within-run CI (a
    metric declared with ``ci_of``, e.g. backfill's batch means), labelled by the family.
    Else none.
    """
    n = _reps(stat, fallback_n)
    if n >= 2 and stat.get("ci") is not None:
        return {"value": stat["ci"], "source": "repetitions", "n": n, "std": stat.get("std"),
                "label": f"± 95 % CI over {n} repetitions"}  # fmt: skip
    if within is not None and within.get("mean") is not None:
        return {"value": within["mean"], "source": "within", "n": n, "std": None,
                "label": "± " + (within_spec or {}).get("label", "within-run CI")}  # fmt: skip
    return None


def _within(specs):
    """``{metric: its within-run CI metric}`` from the declarations."""
    return {spec["ci_of"]: name for name, spec in specs.items() if spec.get("ci_of")}


def _ordered(family, names):
    """Metric names in the family's order: its summary metrics first, then as declared, then the rest."""
    import schedulers
    from schedulers.core.metrics import declared

    try:
        fam = schedulers.get_family(family)
        primary, keys = list(fam.summary_metrics), list(fam.metrics)
    except schedulers.ScenarioError:
        primary, keys = [], []

    def rank(name):
        if name in primary:
            return (0, primary.index(name), name)
        key = name if name in keys else next((k for k in keys if declared({k: fam.metrics[k]}, name)), None)
        return (1, keys.index(key), name) if key else (2, 0, name)

    return sorted(names, key=rank)


def summary_table(result):
    """The metrics table: one row per metric (label, key, unit), one column per algorithm.

    Each cell holds the mean and its one spread (:func:`spread`); within-run CI metrics are
    no rows of their own. A metric with a lower bound gets a row of its optimality gap.
    """
    summary = result.get("summary", {})
    family = result.get("family", "")
    names = _ordered(family, {m for per in summary.values() for m in per})
    specs = page_specs(result, names)
    within = _within(specs)
    reps = len(repetitions(result)) or 1
    pairs = bound_pairs(names)
    algorithms = list(summary)
    rows, notes = [], {}
    for name in names:
        spec = specs[name]
        if _folded(spec, names):
            continue
        cells = []
        for alg in algorithms:
            stat = summary[alg].get(name, {})
            sp = spread(stat, summary[alg].get(within.get(name)), specs.get(within.get(name)), reps)
            if sp:
                notes[sp["source"]] = sp["label"]
            cells.append(_cell(stat.get("mean"), sp, spec))
        rows.append({"name": name, "spec": spec, "label": spec["label"] or name, "cells": cells,
                     "description": spec.get("description", "")})  # fmt: skip
        if name in pairs.values():
            bound = next(b for b, t in pairs.items() if t == name)
            gap_spec = {"kind": "fraction", "unit": "", "label": "", "description": ""}
            gaps = [_gap(summary[alg].get(name, {}).get("mean"), summary[alg].get(bound, {}).get("mean"))
                    for alg in algorithms]  # fmt: skip
            rows.append({"name": f"gap:{name}", "spec": gap_spec, "label": f"gap to {specs[bound]['label'] or bound}",
                         "cells": [_cell(g, None, gap_spec) for g in gaps], "gap": True,
                         "description": "(value − lower bound) / lower bound"})  # fmt: skip
    return {"algorithms": algorithms, "rows": rows, "notes": list(notes.values()), "bounds": pairs,
            "gaps": sorted(set(pairs.values()))}  # fmt: skip


def _folded(spec, names):
    """A within-run CI (its metric's spread) or a repeat in another unit (``same_as``): no row of its own."""
    return any(spec.get(k) and spec[k] in names for k in ("ci_of", "same_as"))


def page_specs(result, names):
    """The specs of ``names`` with one page-wide unit per kind that has one (energy: ``formatting.page_refs``)."""
    specs = formatting.specs(result.get("family", ""), names)
    values = {n: [per[n].get("mean") for per in result.get("summary", {}).values() if n in per] for n in names}
    refs = formatting.page_refs(specs, values)
    return {n: formatting.with_ref(spec, refs) for n, spec in specs.items()}


def _cell(value, sp, spec):
    cell = {"value": value, "json": json.dumps(value), "spread": None, "spread_json": "null"}
    if sp and sp["value"]:
        title = sp["label"][2:]
        if sp.get("std") is not None:
            title += f"; standard deviation {formatting.spread_text(value, sp['std'], spec)[2:]}"
        cell.update(spread=sp["value"], spread_json=json.dumps(sp["value"]), spread_title=title)
    return cell


def _gap(value, bound):
    """The relative gap of ``value`` above its lower bound."""
    if value is None or bound is None or not bound:
        return None
    return (value - bound) / abs(bound)


def comparison(result):
    """Bar-chart data: per metric, per algorithm mean and its one spread (:func:`spread`); lower bounds as extra bars."""
    summary = result.get("summary", {})
    family = result.get("family", "")
    names = _ordered(family, {m for per in summary.values() for m in per})
    specs = formatting.specs(family, names)
    within = _within(specs)
    reps = len(repetitions(result)) or 1
    metrics = {}
    for name in names:
        if _folded(specs[name], names):
            continue
        m = metrics[name] = {"labels": [], "mean": [], "std": [], "spread": [], "spread_label": "", "bound": None}
        for alg, per in summary.items():
            if name not in per:
                continue
            stat = per[name]
            sp = spread(stat, per.get(within.get(name)), specs.get(within.get(name)), reps)
            m["labels"].append(alg)
            m["mean"].append(stat.get("mean"))
            m["std"].append(stat.get("std") or 0.0)
            m["spread"].append(sp["value"] if sp else 0.0)
            if sp and not m["spread_label"]:
                m["spread_label"] = sp["label"]
    for bound, target in bound_pairs(names).items():
        means = [v for v in metrics.get(bound, {}).get("mean", []) if v is not None]
        if means and target in metrics:  # the bound is a property of the instance: the same for every algorithm
            metrics[target]["bound"] = {"name": bound, "value": sum(means) / len(means)}
    return metrics


def metric_specs(result):
    """``{metric: spec}`` of every metric in the result's summary (kind, unit, label; see formatting)."""
    return page_specs(result, sorted({m for per in result.get("summary", {}).values() for m in per}))


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
    runs = result.get("runs", [])
    return {
        "primary": primary_metrics(result.get("family", "")),
        "time_unit": result.get("time_unit") or (time_unit(runs[0]) if runs else "s"),
        "comparison": comparison(result),
        "metrics": (specs := metric_specs(result)),
        "units": {
            "energy": next(
                (
                    s["ref"] * formatting.RULES["scales"]["energy"]["to_base"][s["unit"]]
                    for s in specs.values()
                    if s["kind"] == "energy" and s.get("ref")
                ),
                None,
            )
        },
        "runs": runs_index(result),
        "repetitions": repetitions(result),
        "algorithms": list(result.get("summary", {})),
    }


# Packages a result depends on (with Python itself), and the web stack that only served it.
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
    nothing moves as runs finish. ``specs`` and ``spreads`` serve format.js (docs/metrics.md):
    the kind, unit and label of each metric, and the one spread of each point (95 % CI over
    repetitions, else the within-run CI), parallel to ``metrics``.
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
        return alg if group is None else f"{alg} · {leaf}={formatting.setting_text(group)}"

    family = study.scenario.family if hasattr(study, "scenario") else ""
    values = {}
    for _, summary in runs_with_results:
        for per in summary.values():
            for m, stat in per.items():
                values.setdefault(m, []).append(stat.get("mean"))
    specs = formatting.specs(family, sorted(values))
    refs = formatting.page_refs(specs, values)  # one energy unit for the page
    specs = {name: formatting.with_ref(spec, refs) for name, spec in specs.items()}
    within = _within(specs)
    metrics = {}
    for run, summary in runs_with_results:
        x = _x(run, x_axis)
        group = run.point.get(series_axis) if series_axis else None
        for alg, per in summary.items():
            for name, stat in per.items():
                line = metrics.setdefault(name, {}).setdefault(label(alg, group), [])
                sp = spread(stat, per.get(within.get(name)), specs.get(within.get(name)))
                point = {"x": x, "y": stat.get("mean"), "err": stat.get("std") or 0.0, "run": run.pk}
                line.append((point, {"value": sp["value"], "label": sp["label"]} if sp else None))
    rank = {repr(x): i for i, x in enumerate(x_order)}
    spreads = {}
    for name, by_line in metrics.items():
        for key, pts in by_line.items():
            pts.sort(key=lambda p: rank.get(repr(p[0]["x"]), len(rank)))
            spreads.setdefault(name, {})[key] = [sp for _, sp in pts]
            by_line[key] = [p for p, _ in pts]
    lines = [{"label": label(a, g), "algorithm": a, "group": g} for a in algorithms for g in groups]
    bounds = {target: bound for bound, target in bound_pairs(metrics).items()}
    pairs = _unique([[_x(run, x_axis), run.point.get(series_axis) if series_axis else None] for run in runs])
    return {"x_axis": x_axis, "series_axis": series_axis, "metrics": metrics, "bounds": bounds, "swept": axes,
            "x_order": x_order, "pairs": pairs, "groups": groups if series_axis else [], "algorithms": algorithms,
            "lines": lines, "primary": primary_metrics(family), "specs": specs, "spreads": spreads}  # fmt: skip
