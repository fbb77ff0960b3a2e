"""Time-windowed chart data for the result page: Gantt bars, series overlays, DVFS frequency, diffs.

Every function takes a :class:`~cloudsched_web.runs.queries.ParsedResult` (cached per
run) and a window ``[t0, t1)``; per-run numpy indexes are memoised on it, so panning a
200,000-segment schedule costs array masks, not a parse. Payloads are columnar and
bounded without dropping anything: a Gantt pages through all its resources and turns
into per-pixel occupancy when a window holds more than ``MAX_BARS`` bars; series come
as ``POINTS`` samples per line.
"""

import itertools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.runs.queries import QueryError, _bounded_int
from schedulers.core.series import energy_j, envelope

MAX_BARS = 2500
ROWS = 40
MAX_ROWS = 200
PIXELS = 1000
MAX_PIXELS = 4000
POINTS = 600
EXTRA_KEYS = ("freq_ghz", "tier", "cloud", "host", "vm_type", "pm_type", "ended")


def _resources(parsed, index):
    """Every resource of run ``index``'s schedule, in natural order (read once)."""

    def build():
        table = parsed.stored(index).table("segments", ["resource"])
        if table is None:
            return []
        values = pc.unique(pc.cast(table["resource"], pa.string())).to_pylist()
        return sorted((v for v in values if v is not None), key=natural_key)

    return parsed.memo(("resources", index), build)


def _codes(column, names):
    """Each segment's resource as an index into ``names``."""
    return np.asarray(pc.index_in(pc.cast(column, pa.string()), value_set=pa.array(names, pa.string())), dtype=np.int64)


def _floats(table, name):
    return table[name].to_numpy() if table.num_rows else np.zeros(0)


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
    return parsed.span(index)


def gantt(parsed, index, t0=None, t1=None, row0=0, rows=ROWS, pixels=PIXELS, max_bars=MAX_BARS):
    """Run ``index``'s Gantt (see :func:`_gantt`); the whole-run view, asked by every page load, is memoised."""
    if t0 in (None, "") and t1 in (None, ""):
        key = ("gantt_whole", index, str(row0), str(rows), str(pixels), max_bars)
        return parsed.memo(key, lambda: _gantt(parsed, index, None, None, row0, rows, pixels, max_bars))
    return _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars)


def _gantt(parsed, index, t0, t1, row0, rows, pixels, max_bars):
    """Run ``index``'s Gantt for the window: one page of resource rows, as bars or as occupancy.

    Every resource of the run has a row; ``row0``/``rows`` page through them in natural
    order (hosts, clouds and tiers sort together). When the page's window holds at most
    ``max_bars`` segments they come as bars, every one; past that, as **occupancy**: for
    each row and each of ``pixels`` columns of the window, the fraction of the row's
    capacity in use there (share × time / capacity × column width), so every resource and
    every moment stays visible at any zoom and nothing is dropped. Zooming in brings the
    bars back.
    """
    run = parsed.run(index)
    span = span_of(parsed, index)
    lo, hi = window(t0, t1, span)
    names = _resources(parsed, index)
    row0 = _bounded(row0, "row0", 0, max(len(names) - 1, 0))
    rows = _bounded(rows, "rows", 1, MAX_ROWS)
    pixels = _bounded(pixels, "pixels", 2, MAX_PIXELS)
    page = names[row0 : row0 + rows]
    stored = parsed.stored(index)
    schema = stored.schema("segments")
    present = set(schema.names) if schema is not None else set()
    base = [c for c in ("start", "end", "resource", "job", "task", "share", "kind") if c in present]
    extra_keys = [k for k in EXTRA_KEYS if k in present]
    table = None
    if schema is not None and page:
        wanted = stored.window(lo, hi, ["start", "end", "resource"] + (["share"] if "share" in present else []))
        on_page = pc.is_in(pc.cast(wanted["resource"], pa.string()), value_set=pa.array(page, pa.string()))
        count = int(pc.sum(on_page).as_py() or 0)
        if count <= max_bars:
            table = stored.window(lo, hi, base + extra_keys)
            table = table.filter(
                pc.is_in(pc.cast(table["resource"], pa.string()), value_set=pa.array(page, pa.string()))
            )
            mode = "bars"
        else:
            table = wanted.filter(on_page)
            mode = "occupancy"
    else:
        count, mode = 0, "bars"
    out = {
        "index": index,
        "algorithm": run.get("algorithm", ""),
        "repetition": run.get("repetition", 0),
        "window": [lo, hi],
        "span": span,
        "resources": page,
        "row0": row0,
        "rows": rows,
        "total_resources": len(names),
        "total_segments": parsed.info(index).get("segments", 0),
        "window_segments": count,
        "mode": mode,
        "recording_cut": recording_cut(run),
        "bars": {"r": [], "s": [], "e": [], "job": [], "task": [], "share": [], "kind": [], "extra": {}},
    }
    if table is None or not table.num_rows:
        return out
    row_of = {n: i for i, n in enumerate(page)}
    if mode == "occupancy":
        capacities = (run.get("extra") or {}).get("capacities") or {}
        out["occupancy"] = _occupancy(table, page, capacities, lo, hi, pixels)
        return out

    def col(name, default):
        if name not in table.column_names:
            return [default] * table.num_rows
        return table[name].to_pylist()

    extras = {}
    for key in extra_keys:
        values = col(key, None)
        if any(v is not None for v in values):
            extras[key] = values
    out["bars"] = {
        "r": [row_of[str(r)] for r in col("resource", "")],
        "s": [round(x, 3) for x in col("start", 0.0)],
        "e": [round(x, 3) for x in col("end", 0.0)],
        "job": [str(x if x is not None else "") for x in col("job", "")],
        "task": [str(x if x is not None else "") for x in col("task", "")],
        "share": [_num(x) for x in col("share", None)],
        "kind": [x if x is not None else "" for x in col("kind", "")],
        "extra": extras,
    }
    return out


def _bounded(value, field, lo, hi):
    """A query-string integer in ``lo..hi`` (``queries._bounded_int`` after parsing the text)."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise QueryError(field, f"{value!r} is not an integer", f"integer {lo}..{hi}") from None
    return _bounded_int(value, field, lo, hi)


def _occupancy(table, page, capacities, lo, hi, pixels):
    """Per row, the busy fraction of each of ``pixels`` equal columns of ``[lo, hi)``.

    With F(x) = Σ share·|[start, end) ∩ [lo, x)|, a column's busy time is F(right) − F(left);
    F is a sum of ramps, evaluated at every column edge from cumulative sums over the
    segments sorted by start and by end (O(n log n) per row, no per-segment loop).
    """
    edges = np.linspace(lo, hi, pixels + 1)
    width = (hi - lo) / pixels
    starts, ends = np.maximum(_floats(table, "start"), lo), np.minimum(_floats(table, "end"), hi)
    share = (
        np.nan_to_num(np.asarray(table["share"].to_numpy(zero_copy_only=False), dtype=float), nan=1.0)
        if "share" in table.column_names
        else np.ones(table.num_rows)
    )
    codes = _codes(table["resource"], page)
    grid = np.zeros((len(page), pixels))
    for r in np.unique(codes):
        m = codes == r
        s, e, w = starts[m], ends[m], share[m]
        busy = _ramp_sum(edges, s, w) - _ramp_sum(edges, e, w)
        cap = float(capacities.get(page[r], 1.0) or 1.0)
        grid[r] = np.clip(np.diff(busy) / (width * cap), 0.0, 1.0)
    return {"columns": pixels, "t": [lo, hi], "rows": np.round(grid, 3).tolist()}


def _ramp_sum(x, points, weights):
    """Σ_i weights_i · max(0, x − points_i) at every x (points need not be sorted)."""
    order = np.argsort(points, kind="stable")
    p, w = points[order], weights[order]
    cw, cwp = np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(w * p)])
    k = np.searchsorted(p, x, side="right")
    return x * cw[k] - cwp[k]


def recording_cut(run):
    """Whether the family stopped recording segments (``extra.schedule_truncated`` or the like)."""
    extra = run.get("extra") or {}
    return any("truncat" in k and v for k, v in extra.items())


def _num(value):
    return round(value, 4) if isinstance(value, float) else value


def _series_arrays(parsed, index):
    def build():
        data = parsed.series_of(index)
        t = np.asarray(data.get("t") or [], dtype=float)
        out = {k: np.asarray(v, dtype=float) for k, v in data.items() if k != "t" and len(v) == t.size}
        if t.size and "power_w" in out and "energy_j" not in out:
            out["energy_j"] = energy_j(t, out["power_w"])  # cumulative energy from the power curve
        return t, out

    return parsed.memo(("series", index), build)


def _cut(t, v, lo, hi, points):
    """The step function inside ``[lo, hi]`` for display: bucket means (area kept) with a min/max band."""
    env = envelope(t, v, points, lo, hi)
    out = {"t": [round(x, 3) for x in env["t"]], "v": [_num(float(x)) for x in env["v"]]}
    if not env["exact"]:
        out["min"] = [_num(float(x)) for x in env["min"]]
        out["max"] = [_num(float(x)) for x in env["max"]]
    return out


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
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        if schema is None or "freq_ghz" not in schema.names:
            return None
        host = "host" if "host" in schema.names else "resource"
        table = stored.table("segments", ["start", "end", "freq_ghz", host]).filter(pc.is_valid(pc.field("freq_ghz")))
        if not table.num_rows:
            return None
        hosts = pc.cast(table[host], pa.string()).to_numpy(zero_copy_only=False)
        arr = np.column_stack([_floats(table, "start"), _floats(table, "end"), _floats(table, "freq_ghz")])
        by_host = {h: arr[hosts == h] for h in np.unique(hosts)}
        busiest = sorted(by_host, key=lambda h: -float(np.sum(by_host[h][:, 1] - by_host[h][:, 0])))[:max_hosts]
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
        table = parsed.stored(index).table("segments", ["job", "start", "end", "resource"])
        if table is None or not table.num_rows:
            return {}
        table = table.set_column(3, "resource", pc.cast(table["resource"], pa.string()))
        grouped = table.group_by("job").aggregate([("start", "min"), ("end", "max"), ("resource", "distinct")])
        jobs = grouped["job"].to_pylist()
        firsts, lasts = grouped["start_min"].to_pylist(), grouped["end_max"].to_pylist()
        resources = grouped["resource_distinct"].to_pylist()
        return {str(j): [s, e, frozenset(r)] for j, s, e, r in zip(jobs, firsts, lasts, resources, strict=True)}

    return parsed.memo(("job_table", index), build)


def _status(row):
    """What happened to a job in B: waiting first (it is what users feel), then moving."""
    if row["delta_start"] > 1e-9:
        return "later"
    if row["delta_start"] < -1e-9:
        return "earlier"
    return "moved" if row["moved"] else "same"


def cut_at(parsed, index):
    """Where the family stopped recording run ``index``'s segments, on its time axis; None if it recorded all.

    ``extra.schedule_cut = {"limit", "recorded", "cut_at_s"}`` says it; an older result that only
    flags ``schedule_truncated`` (in its extras or metrics) is taken as cut at the end of what it
    recorded (the latest segment end), the earliest time from which nothing is known to be recorded.
    """
    run = parsed.run(index)
    cut = (run.get("extra") or {}).get("schedule_cut")
    if isinstance(cut, dict):
        at = cut.get("cut_at_s")
        return float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else parsed.span(index)[1]
    if recording_cut(run) or (run.get("metrics") or {}).get("schedule_truncated"):
        return parsed.span(index)[1]
    return None


def _missing(jobs, other, cut):
    """The jobs of one side absent from the other: ``{job: "cut" or "missing"}``.

    A job counts as cut when the other run's recording stopped at ``cut`` and the job's first
    start on this side is at or after it: its segments would lie where the other run recorded none.
    """
    absent = jobs.keys() - other.keys()
    if cut is None:
        return dict.fromkeys(absent, "missing")
    return {j: "cut" if jobs[j][0] >= cut - 1e-9 else "missing" for j in absent}


def diff(parsed, a, b, limit=100, other=None):
    """What changed between run ``a`` and run ``b`` of the same workload: moved and delayed jobs.

    ``b`` indexes ``other`` (another stored run with the same workload digest) when given, else
    ``parsed``. Jobs on one side only are counted apart from jobs the other side's schedule
    limit cut (:func:`cut_at`, :func:`_missing`).
    """
    other = parsed if other is None else other
    ja, jb = _job_table(parsed, a), _job_table(other, b)
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
    cut_a, cut_b = cut_at(parsed, a), cut_at(other, b)
    absent_b, absent_a = _missing(ja, jb, cut_b), _missing(jb, ja, cut_a)
    for job, why in itertools.islice(absent_b.items(), 5000):
        status[job] = "cut_in_b" if why == "cut" else "not_in_b"
    for job, why in itertools.islice(absent_a.items(), 5000):
        status[job] = "cut_in_a" if why == "cut" else "not_in_a"
    cut_in_b, cut_in_a = sum(w == "cut" for w in absent_b.values()), sum(w == "cut" for w in absent_a.values())
    return {
        "a": {"index": a, "algorithm": parsed.run(a).get("algorithm", ""), "cut_at": cut_a},
        "b": {"index": b, "algorithm": other.run(b).get("algorithm", ""), "cut_at": cut_b},
        "jobs": len(common),
        "only_a": len(absent_b) - cut_in_b,
        "only_b": len(absent_a) - cut_in_a,
        "cut_in_a": cut_in_a,
        "cut_in_b": cut_in_b,
        "changed": len(rows),
        "moved": moved,
        "later": waited,
        "earlier": earlier,
        "rows": rows[:limit],
        "status": status,
    }
