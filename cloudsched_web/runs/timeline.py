"""Time-windowed chart data for the result page: Gantt bars, series overlays, DVFS frequency, diffs.

Every function takes a :class:`~cloudsched_web.runs.queries.ParsedResult` (cached per
run) and a window ``[t0, t1)``; per-run numpy indexes are memoised on it, so panning a
200,000-segment schedule costs array masks, not a parse. Payloads are columnar and
bounded (``MAX_BARS`` bars, ``MAX_RESOURCES`` rows, ``POINTS`` samples per line) and
say when they were cut, so the page can say so on the chart.
"""

import numpy as np

from cloudsched_web.runs.queries import QueryError
from schedulers.core.series import downsample, energy_j

MAX_BARS = 2500
MAX_RESOURCES = 40
POINTS = 600
EXTRA_KEYS = ("freq_ghz", "tier", "cloud", "host", "vm_type", "pm_type", "ended")


def _resources(parsed, index):
    """``(codes, names)``: each segment's resource as an index into ``names`` (natural order)."""

    def build():
        schedule = parsed.run(index).get("schedule", [])
        names = sorted({s["resource"] for s in schedule}, key=natural_key)
        lookup = {n: k for k, n in enumerate(names)}
        codes = np.fromiter((lookup[s["resource"]] for s in schedule), dtype=np.int32, count=len(schedule))
        return codes, names

    return parsed.memo(("resources", index), build)


def natural_key(name):
    digits = "".join(ch for ch in str(name) if ch.isdigit())
    return (str(name).rstrip("0123456789"), int(digits) if digits else -1, str(name))


def window(value_t0, value_t1, span):
    """Parse the ``t0``/``t1`` query values into a finite window inside nothing (None = the span)."""
    try:
        lo = span[0] if value_t0 in (None, "") else float(value_t0)
        hi = span[1] if value_t1 in (None, "") else float(value_t1)
    except (TypeError, ValueError):
        raise QueryError("t0", "window bounds must be numbers", "finite numbers t0 ≤ t1") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise QueryError("t1", f"window [{lo}, {hi}) is empty or not finite", "finite numbers t0 ≤ t1")
    return lo, hi


def span_of(parsed, index):
    starts, ends = parsed.spans(index)
    return [float(starts.min()), float(ends.max())] if starts.size else [0.0, 0.0]


def gantt(parsed, index, t0=None, t1=None, max_resources=MAX_RESOURCES, max_bars=MAX_BARS):
    """Bars of run ``index`` inside the window on its busiest resources, columnar.

    When more bars overlap the window than ``max_bars``, the longest are kept: at
    that zoom the short ones are thinner than a pixel.
    """
    run = parsed.run(index)
    schedule = run.get("schedule", [])
    span = span_of(parsed, index)
    lo, hi = window(t0, t1, span)
    starts, ends = parsed.spans(index)
    codes, names = _resources(parsed, index)
    mask = (ends > lo) & (starts < hi) if hi > lo else (starts <= lo) & (ends >= lo)
    hits = np.flatnonzero(mask)
    overlap = np.minimum(ends[hits], hi) - np.maximum(starts[hits], lo)
    busy = np.bincount(codes[hits], weights=overlap, minlength=len(names))
    used = np.flatnonzero(np.bincount(codes[hits], minlength=len(names)))
    keep = used[np.argsort(-busy[used], kind="stable")[:max_resources]]
    keep_mask = np.zeros(len(names), dtype=bool)
    keep_mask[keep] = True
    on_kept = hits[keep_mask[codes[hits]]]
    on_rows = int(on_kept.size)
    if on_kept.size > max_bars:
        lengths = np.minimum(ends[on_kept], hi) - np.maximum(starts[on_kept], lo)
        on_kept = on_kept[np.argsort(-lengths, kind="stable")[:max_bars]]
    on_kept = np.sort(on_kept)
    shown_names = sorted((names[k] for k in keep), key=natural_key)
    row = {n: i for i, n in enumerate(shown_names)}
    segs = [schedule[i] for i in on_kept.tolist()]
    extras = {k: [s.get(k) for s in segs] for k in EXTRA_KEYS if segs and any(k in s for s in segs[:200])}
    return {
        "index": index,
        "algorithm": run.get("algorithm", ""),
        "repetition": run.get("repetition", 0),
        "window": [lo, hi],
        "span": span,
        "resources": shown_names,
        "total_resources": len(names),
        "window_resources": int(used.size),
        "total_segments": len(schedule),
        "window_segments": int(hits.size),
        "row_segments": on_rows,
        "truncated": bool(on_kept.size < on_rows),
        "recording_cut": recording_cut(run),
        "bars": {
            "r": [row[s["resource"]] for s in segs],
            "s": [round(s["start"], 3) for s in segs],
            "e": [round(s["end"], 3) for s in segs],
            "job": [str(s.get("job", "")) for s in segs],
            "task": [str(s.get("task", "")) for s in segs],
            "share": [_num(s.get("share")) for s in segs],
            "kind": [s.get("kind", "") for s in segs],
            "extra": extras,
        },
    }


def recording_cut(run):
    """Whether the family stopped recording segments (``extra.schedule_truncated`` or the like)."""
    extra = run.get("extra") or {}
    return any("truncat" in k and v for k, v in extra.items())


def _num(value):
    return round(value, 4) if isinstance(value, float) else value


def _series_arrays(parsed, index):
    def build():
        data = parsed.run(index).get("series", {})
        t = np.asarray(data.get("t") or [], dtype=float)
        out = {k: np.asarray(v, dtype=float) for k, v in data.items() if k != "t" and len(v) == t.size}
        if t.size and "power_w" in out and "energy_j" not in out:
            out["energy_j"] = energy_j(t, out["power_w"])  # cumulative energy from the power curve
        return t, out

    return parsed.memo(("series", index), build)


def _cut(t, v, lo, hi, points):
    """Samples of the step function inside ``[lo, hi]`` (with the level holding at ``lo``)."""
    a = max(0, int(np.searchsorted(t, lo, side="right")) - 1)
    b = int(np.searchsorted(t, hi, side="right"))
    ts, vs = downsample(t[a:b].tolist(), v[a:b].tolist(), points)
    return {"t": [round(x, 3) for x in ts], "v": [_num(float(x)) for x in vs]}


def series(parsed, repetition, t0=None, t1=None, points=POINTS):
    """Every series of every algorithm of one repetition, windowed: ``{name: {algorithm: {t, v}}}``."""
    runs = [(i, r) for i, r in enumerate(parsed.doc.get("runs", [])) if r.get("repetition", 0) == repetition]
    if not runs:
        raise QueryError("repetition", f"no repetition {repetition}", "one of the run's repetitions")
    spans = [_series_arrays(parsed, i)[0] for i, _ in runs]
    full = [
        min((float(t[0]) for t in spans if t.size), default=0.0),
        max((float(t[-1]) for t in spans if t.size), default=0.0),
    ]
    lo, hi = window(t0, t1, full)
    out = {}
    for i, r in runs:
        t, arrays = _series_arrays(parsed, i)
        for name, v in arrays.items():
            out.setdefault(name, {})[r.get("algorithm", str(i))] = _cut(t, v, lo, hi, points)
    freq = frequency(parsed, runs[0][0], lo, hi, points)
    return {"repetition": repetition, "window": [lo, hi], "span": full, "series": out, "frequency": freq}


def frequency(parsed, index, lo, hi, points=POINTS, max_hosts=12):
    """DVFS: each host's highest running core frequency over time, when segments carry ``freq_ghz``."""

    def build():
        schedule = parsed.run(index).get("schedule", [])
        if not schedule or not any("freq_ghz" in s for s in schedule[:100]):
            return None
        by_host = {}
        for s in schedule:
            if s.get("freq_ghz") is not None:
                by_host.setdefault(s.get("host", s["resource"]), []).append((s["start"], s["end"], s["freq_ghz"]))
        busiest = sorted(by_host, key=lambda h: -sum(e - b for b, e, _ in by_host[h]))[:max_hosts]
        return {h: _max_level(by_host[h]) for h in sorted(busiest, key=natural_key)}

    hosts = parsed.memo(("freq", index), build)
    if not hosts:
        return None
    return {
        "algorithm": parsed.run(index).get("algorithm", ""),
        "hosts": {h: _cut(t, v, lo, hi, points) for h, (t, v) in hosts.items()},
    }


def _max_level(rows):
    """Step function of the maximum value among the intervals running at each time."""
    arr = np.asarray(rows, dtype=float)
    t = np.unique(arr[:, :2])
    level = np.zeros(t.size)
    for b, e, f in arr[np.argsort(arr[:, 2])]:  # ascending, so higher levels overwrite
        level[np.searchsorted(t, b) : np.searchsorted(t, e)] = f
    return t, level


def _job_table(parsed, index):
    """Per job: first start, last end, resource set (as a frozenset), built once per run."""

    def build():
        out = {}
        for s in parsed.run(index).get("schedule", []):
            job = str(s.get("job", ""))
            rec = out.get(job)
            if rec is None:
                out[job] = [s["start"], s["end"], {s["resource"]}]
            else:
                rec[0] = min(rec[0], s["start"])
                rec[1] = max(rec[1], s["end"])
                rec[2].add(s["resource"])
        return out

    return parsed.memo(("jobs", index), build)


def _status(row):
    """What happened to a job in B: waiting first (it is what users feel), then moving."""
    if row["delta_start"] > 1e-9:
        return "later"
    if row["delta_start"] < -1e-9:
        return "earlier"
    return "moved" if row["moved"] else "same"


def diff(parsed, a, b, limit=100):
    """What changed between runs ``a`` and ``b`` of the same workload: moved and delayed jobs."""
    ja, jb = _job_table(parsed, a), _job_table(parsed, b)
    common = ja.keys() & jb.keys()
    rows = []
    moved = waited = earlier = 0
    for job in common:
        sa, ea, ra = ja[job]
        sb, eb, rb = jb[job]
        dstart = sb - sa
        is_moved = ra != rb
        moved += is_moved
        waited += dstart > 1e-9
        earlier += dstart < -1e-9
        if is_moved or abs(dstart) > 1e-9 or abs(eb - ea) > 1e-9:
            rows.append({"job": job, "start_a": sa, "start_b": sb, "end_a": ea, "end_b": eb,
                         "delta_start": dstart, "delta_end": eb - ea, "moved": is_moved})  # fmt: skip
    rows.sort(key=lambda r: -abs(r["delta_end"]) - abs(r["delta_start"]))
    status = {r["job"]: _status(r) for r in rows[:5000]}
    return {
        "a": {"index": a, "algorithm": parsed.run(a).get("algorithm", "")},
        "b": {"index": b, "algorithm": parsed.run(b).get("algorithm", "")},
        "jobs": len(common),
        "only_a": len(ja.keys() - jb.keys()),
        "only_b": len(jb.keys() - ja.keys()),
        "changed": len(rows),
        "moved": moved,
        "later": waited,
        "earlier": earlier,
        "rows": rows[:limit],
        "status": status,
    }
