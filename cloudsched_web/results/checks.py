"""Schedule checks the result page can run on any family's result (the validity badge).

Checks read whole columns at once: the worker runs them on the library's Columns (a result's
segments never become dicts), the views on lists of dicts read back from the store.

Each check returns ``{"name", "status": "pass"|"warn"|"fail"|"skip", "detail"}`` (``warn``: valid, but
the reader must know, e.g. trace jobs the scenario chose to leave out); the page lists
every check with its status, so a reader sees what was verified and what was not.
Capacity is checked only where the result reports capacities (``extra.capacities`` of a
run, or ``capacities`` of the document): the library does not put them in results yet.
"""

import numpy as np

from cloudsched_web.results.bounds import bound_pairs
from schedulers.core.columns import Columns

__all__ = ["time_unit", "validity", "well_formed"]

EPS = 1e-6


def _check(name, ok, detail, skip=False):
    return {"name": name, "status": "skip" if skip else ("pass" if ok else "fail"), "detail": detail}


def _column(rows, name, default=None):
    """One field of every segment or record as an array: Columns give theirs, a list of dicts is read once."""
    if isinstance(rows, Columns):
        if name not in rows:
            return np.full(len(rows), default, dtype=object if not isinstance(default, float) else float)
        col = rows.column(name)
        mask = rows.valid(name)
        if mask is not None and default is not None:
            col = np.where(mask, col, default)
        return col
    return np.array([r.get(name, default) for r in rows], dtype=float if isinstance(default, float) else object)


def _labels(rows, name):
    """The distinct values of a text field as a set of str (Columns: from the codes in use)."""
    if isinstance(rows, Columns) and name in rows:
        col = rows.codes(name)
        # which codes occur: one counting pass (np.unique would sort or hash all of them)
        seen = np.bincount(col.codes + 1, minlength=len(col.labels) + 1) > 0
        return {str(v) for v in col.labels[seen[1:]].tolist()} | ({"None"} if seen[0] else set())
    return {str(v) for v in _column(rows, name).tolist()}


def well_formed(run, spans=None):
    schedule = run.get("schedule", [])
    if not len(schedule):
        return _check("segments well-formed", True, "no segments recorded", skip=True)
    if spans is None:
        spans = (np.asarray(_column(schedule, "start", 0.0), dtype=float),
                 np.asarray(_column(schedule, "end", 0.0), dtype=float))  # fmt: skip
    starts, ends = spans
    # Reductions first (a NaN makes min/max NaN and every comparison false); the per-segment count
    # only when something is wrong.
    lo, hi, span = starts.min(), np.maximum(starts.max(), ends.max()), (ends - starts).min()
    if lo >= -EPS and span >= -EPS and np.isfinite(hi):
        bad = 0
    else:
        bad = int(((ends < starts - EPS) | (starts < -EPS) | ~np.isfinite(starts) | ~np.isfinite(ends)).sum())
    return _check("segments well-formed", bad == 0, f"{len(schedule)} segments, {bad} with end < start or t < 0")


def capacity(run, doc):
    """Peak share per resource, from every segment at once (sorted by resource, time, ends first)."""
    caps = (run.get("extra") or {}).get("capacities") or doc.get("capacities")
    schedule = run.get("schedule", [])
    if not caps:
        return _check("capacity per resource", True, "not checked: this family reports no capacities", skip=True)
    if isinstance(schedule, Columns) and "resource" in schedule:
        coded = schedule.codes("resource")
        codes, labels = coded.codes, coded.labels.tolist()
    else:
        labels, codes = np.unique(np.asarray([str(r) for r in _column(schedule, "resource").tolist()], dtype=str),
                                  return_inverse=True)  # fmt: skip
        labels, codes = labels.tolist(), codes.reshape(-1)
    used, first = np.unique(codes, return_index=True)
    cap = np.array([float(caps[labels[c]]) if labels[c] in caps else np.nan for c in used.tolist()])
    cap_of = np.full(len(labels), np.nan)
    cap_of[used] = cap
    keep = ~np.isnan(cap_of[codes]) if codes.size else np.zeros(0, dtype=bool)
    over = []
    if keep.any():
        share = _column(schedule, "share", 1.0).astype(float)[keep]
        res = codes[keep]
        times = np.concatenate([_column(schedule, "start", 0.0).astype(float)[keep],
                                _column(schedule, "end", 0.0).astype(float)[keep]])  # fmt: skip
        deltas = np.concatenate([share, -share])
        res2 = np.concatenate([res, res])
        order = np.lexsort((deltas, times, res2))  # ends before starts at the same instant
        level = np.cumsum(deltas[order])
        r = res2[order]
        heads = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        base = np.where(heads > 0, level[np.maximum(heads - 1, 0)], 0.0)
        peaks = np.maximum.reduceat(level, heads) - base
        first_at = dict(zip(used.tolist(), first.tolist(), strict=True))
        for c, peak in sorted(zip(r[heads].tolist(), peaks.tolist(), strict=True), key=lambda x: first_at[x[0]]):
            if peak > caps[labels[c]] + EPS:
                over.append(f"{labels[c]}: {peak:g} > {caps[labels[c]]:g}")
    shown = "; ".join(over[:5]) + (f"; and {len(over) - 5} more resources over their capacity" if len(over) > 5 else "")
    detail = f"{used.size} resources; " + (shown if over else "peak share within capacity everywhere")
    return _check("capacity per resource", not over, detail)


def jobs_once(run):
    records = run.get("jobs") or []
    if not len(records):
        return _check("every job recorded once", True, "no per-job records", skip=True)
    scheduled = _labels(run.get("schedule", []), "job")
    ids = [str(v) for v in _column(records, "job").tolist()]
    dup = len(ids) - len(set(ids))
    missing = len(scheduled - set(ids))
    ok = dup == 0 and missing == 0
    return _check(
        "every job recorded once", ok, f"{len(ids)} jobs, {dup} duplicates, {missing} scheduled without record"
    )


def bounds(run):
    metrics = run.get("metrics", {})
    out = []
    for bound, target in bound_pairs(metrics).items():
        value, low = metrics.get(target), metrics.get(bound)
        if isinstance(value, (int, float)) and isinstance(low, (int, float)):
            ok = value >= low * (1 - 1e-6) - EPS
            out.append(_check(f"{target} ≥ {bound}", ok, f"{value:.6g} vs bound {low:.6g}"))
    return out


def limits(run):
    """Rates and limit flags the family reports: a violated deadline or energy limit shows here."""
    metrics = run.get("metrics", {})
    out = []
    for name, value in sorted(metrics.items()):
        if name.endswith("_met") and isinstance(value, (int, float)):
            out.append(_check(name.removesuffix("_met").replace("_", " "), value >= 1 - EPS, f"{name} = {value:g}"))
        elif name.endswith("violation_rate") and isinstance(value, (int, float)):
            out.append(_check(name.replace("_", " "), value <= EPS, f"{name} = {value:.4g}"))
    return out


TIME_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}
# A family's energy metric and its factor to J (ep_jobs' ``energy`` is eq. 9's Σ α·Load/λ: J with α in W per vCPU).
ENERGY_METRICS = {"energy_j": 1.0, "energy_kwh": 3.6e6, "energy": 1.0}
# Families store every change point of their power series, so its step integral equals the energy to rounding.
ENERGY_REL = 1e-6


def _step_integral(t, v):
    """∫ of a step function stored as change points: ``v[k]`` holds on ``[t[k], t[k+1])``."""
    return float(np.sum(v[:-1] * np.diff(t)))


def _power_energy(run):
    series = run.get("series", {})
    t, p, e = series.get("t"), series.get("power_w"), series.get("energy_j")  # lists or numpy arrays
    if t is None or p is None or e is None or not len(t) == len(p) == len(e) or len(t) < 2:
        return None
    t, p, e = (np.asarray(x, float) for x in (t, p, e))
    return _step_integral(t, p), float(e[-1] - e[0])


def time_unit(run):
    """The unit of the series' time axis, read off energy_j = ∫ power_w dt (``s`` unless it says otherwise)."""
    pe = _power_energy(run)
    if pe and pe[0] > 0:
        ratio = pe[1] / pe[0]
        for unit, factor in TIME_UNITS.items():
            if abs(ratio - factor) <= 1e-3 * factor:
                return unit
    return "s"


def energy_integral(run):
    """∫ power dt over the stored series (step integration over its change points) = the energy metric.

    Compared with the family's energy metric (``ENERGY_METRICS``) when it reports one, else with
    the stored cumulative ``energy_j``; relative tolerance ``ENERGY_REL``. A series capped by a
    family's ``series_points`` keeps bucket maxima and fails here, as it should.
    """
    series = run.get("series", {})
    t, p = series.get("t"), series.get("power_w")
    if t is None or p is None or len(t) != len(p) or len(t) < 2:  # lists or numpy arrays
        return []
    unit = time_unit(run)
    integral = _step_integral(np.asarray(t, float), np.asarray(p, float)) * TIME_UNITS[unit]
    metrics = run.get("metrics", {})
    name = next((k for k in ENERGY_METRICS if isinstance(metrics.get(k), (int, float))), None)
    pe = _power_energy(run)
    if name is not None:
        target, what = float(metrics[name]) * ENERGY_METRICS[name], f"metric {name}"
    elif pe is not None:
        target, what = pe[1], "series energy_j"
    else:
        return []
    ok = abs(integral - target) <= ENERGY_REL * max(abs(target), 1.0)
    detail = f"∫P dt = {integral:.9g} J over {len(t)} change points (t in {unit}); {what} = {target:.9g} J"
    return [_check("energy = ∫ power", ok, detail)]


def trace_jobs_kept(run):
    """Trace jobs wider than the machine that the run left out (``extra.workload.dropped_too_large``): a
    warning when the scenario chose to drop them, a failure otherwise (runs from before they were refused)."""
    measured = (run.get("extra") or {}).get("workload") or {}
    count = measured.get("dropped_too_large")
    if not isinstance(count, int) or isinstance(count, bool):
        return []
    machine = f"{measured.get('processors', '?')} {measured.get('unit') or 'processors'}"  # federated: VMs
    if count == 0:
        return [_check("every trace job fits the machine", True, f"no job needs more than {machine}")]
    chosen = measured.get("wider_jobs") == "drop"
    jobs = "1 job needed" if count == 1 else f"{count:,} jobs needed"
    detail = f"{jobs} more than {machine} and {'was' if count == 1 else 'were'} left out" + (
        " (the scenario drops them)" if chosen else "")  # fmt: skip
    check = _check("every trace job fits the machine", False, detail)
    return [{**check, "status": "warn"} if chosen else check]


def run_checks(run, doc, spans=None):
    return [
        well_formed(run, spans),
        capacity(run, doc),
        jobs_once(run),
        *trace_jobs_kept(run),
        *bounds(run),
        *limits(run),
        *energy_integral(run),
    ]


def validity(doc, spans=None):
    """Checks of every algorithm × repetition, and the overall badge (``spans(i)``: cached arrays)."""
    per_run = []
    for i, run in enumerate(doc.get("runs", [])):
        checks = run_checks(run, doc, spans(i) if spans else None)
        per_run.append({"i": i, "algorithm": run.get("algorithm", ""), "repetition": run.get("repetition", 0),
                        "checks": checks})  # fmt: skip
    statuses = [c["status"] for r in per_run for c in r["checks"]]
    names = sorted({c["name"] for r in per_run for c in r["checks"] if c["status"] not in ("skip", "warn")})
    skipped = sorted({c["name"] for r in per_run for c in r["checks"] if c["status"] == "skip"} - set(names))
    failed = sorted({f"{r['algorithm']} #{r['repetition']}: {c['name']}" for r in per_run for c in r["checks"]
                     if c["status"] == "fail"})  # fmt: skip
    warned = sorted({f"{c['name']}: {c['detail']}" for r in per_run for c in r["checks"] if c["status"] == "warn"})
    return {
        "ok": "fail" not in statuses,
        "warned": warned,
        "ran": names,
        "skipped": skipped,
        "failed": failed,
        "runs": per_run,
    }
