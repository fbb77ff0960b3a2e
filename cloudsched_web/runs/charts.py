"""Chart payloads built server-side from a stored result (pure functions, unit-tested).

Pages never ship a 200,000-job schedule: the Gantt keeps the busiest resources and
at most ``max_segments`` segments, series are downsampled, comparisons are means
with confidence half-widths over repetitions.
"""

from collections import Counter

from schedulers.core.series import downsample


def comparison(result):
    """Bar-chart data: per metric, per algorithm mean and CI half-width."""
    metrics = {}
    for alg, per_metric in result.get("summary", {}).items():
        for name, stat in per_metric.items():
            metrics.setdefault(name, {"labels": [], "mean": [], "ci": []})
            metrics[name]["labels"].append(alg)
            metrics[name]["mean"].append(stat["mean"])
            metrics[name]["ci"].append(stat.get("ci", 0.0))
    return metrics


def gantt(run, max_resources=40, max_segments=4000, window=None):
    """Floating-bar data for one run: the busiest resources, segments inside ``window``."""
    segments = run.get("schedule", [])
    if window:
        lo, hi = window
        segments = [s for s in segments if s["end"] > lo and s["start"] < hi]
    busy = Counter()
    for s in segments:
        busy[s["resource"]] += s["end"] - s["start"]
    keep = {r for r, _ in busy.most_common(max_resources)}
    shown = [s for s in segments if s["resource"] in keep]
    truncated = len(shown) > max_segments
    shown = sorted(shown, key=lambda s: s["start"])[:max_segments]
    return {
        "resources": sorted(keep, key=_natural_key),
        "bars": [
            {"r": s["resource"], "s": s["start"], "e": s["end"], "job": s["job"], "kind": s.get("kind", "")}
            for s in shown
        ],
        "total_segments": len(run.get("schedule", [])),
        "truncated": truncated or len(keep) < len(busy),
    }


def series(run, points=1000):
    out = {}
    data = run.get("series", {})
    t = data.get("t")
    if not t:
        return out
    for name, values in data.items():
        if name != "t" and len(values) == len(t):
            out[name] = dict(zip(("t", "v"), downsample(t, values, points), strict=True))
    return out


def _natural_key(name):
    digits = "".join(ch for ch in name if ch.isdigit())
    return (name.rstrip("0123456789"), int(digits) if digits else -1, name)


def summary_table(result):
    """Rows of mean ± CI per algorithm, columns in one fixed metric order."""
    summary = result.get("summary", {})
    names = sorted({m for per in summary.values() for m in per})
    rows = [{"algorithm": alg, "cells": [per.get(m, {}) for m in names]} for alg, per in summary.items()]
    return {"metrics": names, "rows": rows}


def run_page_payload(result, run_index=0):
    runs = result.get("runs", [])
    chosen = runs[run_index] if 0 <= run_index < len(runs) else None
    return {
        "comparison": comparison(result),
        "table": summary_table(result),
        "runs": [{"i": i, "algorithm": r["algorithm"], "repetition": r["repetition"]} for i, r in enumerate(runs)],
        "selected": run_index,
        "gantt": gantt(chosen) if chosen else None,
        "series": series(chosen) if chosen else {},
    }
