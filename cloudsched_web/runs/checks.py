"""Schedule checks the result page can run on any family's result (the validity badge).

Each check returns ``{"name", "status": "pass"|"fail"|"skip", "detail"}``; the page lists
every check with its status, so a reader sees what was verified and what was not.
Capacity is checked only where the result reports capacities (``extra.capacities`` of a
run, or ``capacities`` of the document): the library does not put them in results yet.
"""

import numpy as np

from cloudsched_web.runs import charts

EPS = 1e-6


def _check(name, ok, detail, skip=False):
    return {"name": name, "status": "skip" if skip else ("pass" if ok else "fail"), "detail": detail}


def well_formed(run, spans=None):
    schedule = run.get("schedule", [])
    if not schedule:
        return _check("segments well-formed", True, "no segments recorded", skip=True)
    if spans is None:
        spans = (np.fromiter((s["start"] for s in schedule), float, len(schedule)),
                 np.fromiter((s["end"] for s in schedule), float, len(schedule)))  # fmt: skip
    starts, ends = spans
    bad = int(((ends < starts - EPS) | (starts < -EPS) | ~np.isfinite(starts) | ~np.isfinite(ends)).sum())
    return _check("segments well-formed", bad == 0, f"{len(schedule)} segments, {bad} with end < start or t < 0")


def capacity(run, doc):
    caps = (run.get("extra") or {}).get("capacities") or doc.get("capacities")
    schedule = run.get("schedule", [])
    if not caps:
        return _check("capacity per resource", True, "not checked: this family reports no capacities", skip=True)
    by_res = {}
    for s in schedule:
        by_res.setdefault(s["resource"], []).append((s["start"], s["end"], s.get("share", 1.0)))
    over = []
    for res, rows in by_res.items():
        if res not in caps:
            continue
        arr = np.asarray(rows, float)
        times = np.concatenate([arr[:, 0], arr[:, 1]])
        deltas = np.concatenate([arr[:, 2], -arr[:, 2]])
        order = np.lexsort((deltas, times))  # ends before starts at the same instant
        peak = float(np.cumsum(deltas[order]).max())
        if peak > caps[res] + EPS:
            over.append(f"{res}: {peak:g} > {caps[res]:g}")
    detail = f"{len(by_res)} resources; " + ("; ".join(over[:5]) if over else "peak share within capacity everywhere")
    return _check("capacity per resource", not over, detail)


def jobs_once(run):
    records = run.get("jobs") or []
    scheduled = {str(s.get("job")) for s in run.get("schedule", [])}
    if not records:
        return _check("every job recorded once", True, "no per-job records", skip=True)
    ids = [str(r.get("job")) for r in records]
    dup = len(ids) - len(set(ids))
    missing = len(scheduled - set(ids))
    ok = dup == 0 and missing == 0
    return _check(
        "every job recorded once", ok, f"{len(ids)} jobs, {dup} duplicates, {missing} scheduled without record"
    )


def bounds(run):
    metrics = run.get("metrics", {})
    out = []
    for bound, target in charts.bound_pairs(metrics).items():
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
    t, p, e = series.get("t"), series.get("power_w"), series.get("energy_j")
    if not (t and p and e) or not len(t) == len(p) == len(e) or len(t) < 2:
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
    if not (t and p) or len(t) != len(p) or len(t) < 2:
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


def run_checks(run, doc, spans=None):
    return [
        well_formed(run, spans),
        capacity(run, doc),
        jobs_once(run),
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
    names = sorted({c["name"] for r in per_run for c in r["checks"] if c["status"] != "skip"})
    skipped = sorted({c["name"] for r in per_run for c in r["checks"] if c["status"] == "skip"} - set(names))
    failed = sorted({f"{r['algorithm']} #{r['repetition']}: {c['name']}" for r in per_run for c in r["checks"]
                     if c["status"] == "fail"})  # fmt: skip
    return {
        "ok": "fail" not in statuses,
        "ran": names,
        "skipped": skipped,
        "failed": failed,
        "runs": per_run,
    }
