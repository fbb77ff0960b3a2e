"""Per-job views of a result: the job table across runs (paged, sorted, filtered) and per-job distributions.

Both read the stored jobs files (``r{i}-jobs.parquet``): a sort reads only its column from each chosen run
(the order is kept for the last few sorts), a page reads only the row groups holding its rows, a distribution
only its measure's columns. Nothing holds a whole job table.

**Measures** are each family's per-job figures of merit, found by the columns its jobs table has
(:data:`MEASURES`): a stored column, or the difference of two (``finish_s − submit_s``). Without any of
them, every numeric column is a measure. Jobs without a value (a rejected federated application has no
execution time) are counted as ``missing``, never as zero.

**Distributions** per algorithm (the chosen repetition, or all pooled) and per run (algorithm × repetition):

- the CDF as ``CDF_POINTS`` quantiles of all the jobs' values (``numpy.quantile``, linear interpolation) at
  probabilities ``k / (CDF_POINTS − 1)``: the first point is the minimum, the middle one the median, the last
  the maximum at probability 1;
- a box: min, q1, median, q3, max, mean and n; whiskers at the most extreme values within 1.5 IQR of the
  quartiles (Tukey), and how many values lie beyond them on each side (``outliers_lo``, ``outliers_hi``).
  Each run's box (the ones the page draws) also carries its outliers as the chart draws them
  (:func:`drawn_outliers`): every value, when there are no more of them than the chart has pixel rows
  (``pixels``); else, per pixel row of the chart's value range (``box_range``: the lowest and highest value
  of any drawn box; log10 if the chart is logarithmic) holding any, their count, lowest and highest value.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results.queries import MAX_JOBS_PAGE, QueryError, bounded

__all__ = [
    "CDF_POINTS",
    "MEASURES",
    "OUTLIER_PIXELS",
    "WHISKERS",
    "distributions",
    "drawn_outliers",
    "measures_of",
    "table_page",
]

# key, label, unit, drawn on a log axis first, then how to get it: a stored column or (a, b) for a − b.
MEASURES = (
    ("response_s", "response time", "s", True, ("response_s", ("finish_s", "submit_s"))),
    ("bounded_slowdown", "bounded slowdown", "", True, ("bounded_slowdown",)),
    ("wait_s", "wait time", "s", False, ("wait_s", ("start_s", "submit_s"))),
    ("execution_time_s", "application execution time", "s", True, ("execution_time_s",)),
    ("jct_s", "job completion time (JCT)", "s", False, ("jct_s",)),
    ("energy", "energy per job", "J", False, ("energy",)),
    ("slack_s", "due − finish", "s", False, (("due_s", "finish_s"),)),
    ("lifetime_min", "VM lifetime", "min", False, (("end_min", "start_min"),)),
    ("migrations", "migrations", "", False, ("migrations",)),
)
CDF_POINTS = 201  # odd: the middle quantile is the median
WHISKERS = 1.5  # × IQR (Tukey)
OUTLIER_PIXELS = 320  # the box chart's height when the page does not say (static/css/site.css: .chart)
ORDERS_KEPT = 4  # sort orders kept per result (an order of 800,000 jobs: 3.2 MB)


def _schema(parsed, i):
    return parsed.stored(i).schema("jobs")


def measures_of(parsed):
    """The measures the result's jobs tables allow: ``[{"key", "label", "unit", "log", "from"}]``."""
    names = set()
    numeric = {}
    for i in range(len(parsed.doc.get("runs", []))):
        schema = _schema(parsed, i)
        if schema is None:
            continue
        names.update(schema.names)
        for f in schema:
            if (pa.types.is_integer(f.type) or pa.types.is_floating(f.type)) and f.name != "job":
                numeric[f.name] = True
    out = []
    for key, label, unit, log, ways in MEASURES:
        way = next((w for w in ways if (w in names if isinstance(w, str) else set(w) <= names)), None)
        if way is not None:
            out.append({"key": key, "label": label, "unit": unit, "log": log,
                        "from": way if isinstance(way, str) else list(way)})  # fmt: skip
    if not out:
        out = [{"key": n, "label": n.replace("_", " "), "unit": "", "log": False, "from": n} for n in sorted(numeric)]
    return out


def _measure(parsed, key):
    found = {m["key"]: m for m in measures_of(parsed)}
    if key not in found:
        raise QueryError("measure", f"unknown per-job measure {key!r}", "one of " + (", ".join(found) or "(none)"))
    return found[key]


def _read(parsed, i, measure):
    """Run ``i``'s values of ``measure`` as float64 (NaN: no value)."""
    way = measure["from"]
    cols = [way] if isinstance(way, str) else way
    table = parsed.stored(i).table("jobs", columns=cols) if _schema(parsed, i) is not None else None
    if table is None or any(c not in table.column_names for c in cols):
        return np.zeros(0)
    values = [pc.cast(table[c], pa.float64()).to_numpy(zero_copy_only=False) for c in cols]
    return values[0] if len(values) == 1 else values[0] - values[1]


def _runs(parsed, algorithm=None, repetition=None):
    runs = parsed.doc.get("runs", [])
    algs = sorted({r.get("algorithm", "") for r in runs})
    reps = sorted({r.get("repetition", 0) for r in runs})
    if algorithm not in (None, "") and algorithm not in algs:
        raise QueryError("algorithm", f"no algorithm {algorithm!r} in this result", "one of " + ", ".join(algs))
    if repetition not in (None, "", "all"):
        repetition = bounded(repetition, "rep", min(reps, default=0), max(reps, default=0))
    else:
        repetition = None
    return [i for i, r in enumerate(runs)
            if algorithm in (None, "", r.get("algorithm", "")) and repetition in (None, r.get("repetition", 0))]  # fmt: skip


def _box(values):
    return _box_and_outliers(values)[0]


def _box_and_outliers(values):
    """A box of ``values`` and its outliers (the values beyond the whiskers' fences, sorted)."""
    n = int(values.size)
    if not n:
        return {"n": 0}, np.zeros(0)
    q1, med, q3 = (float(v) for v in np.quantile(values, [0.25, 0.5, 0.75]))
    iqr = q3 - q1
    lo_fence, hi_fence = q1 - WHISKERS * iqr, q3 + WHISKERS * iqr
    inside = values[(values >= lo_fence) & (values <= hi_fence)]
    out = np.sort(values[(values < lo_fence) | (values > hi_fence)])
    box = {"n": n, "min": float(values.min()), "q1": q1, "median": med, "q3": q3, "max": float(values.max()),
           "mean": float(values.mean()), "whisker_lo": float(inside.min()), "whisker_hi": float(inside.max()),
           "outliers_lo": int((values < lo_fence).sum()), "outliers_hi": int((values > hi_fence).sum())}  # fmt: skip
    return box, out


def drawn_outliers(outliers, lo, hi, pixels, log=False):
    """A box's outliers (sorted) as a chart of ``pixels`` rows over ``[lo, hi]`` draws them: ``{"values": [...]}``,
    every one, when there are at most ``pixels``; else ``{"rows": pixels, "n", "lo", "hi"}``: for each pixel row
    holding any (in value order), how many and the lowest and highest of them (rows cut in log10 when ``log`` and
    ``lo`` > 0). Nothing is left out: the counts add up to the outliers."""
    if outliers.size <= pixels:
        return {"values": outliers.tolist()}
    f = np.log10 if log and lo > 0 else (lambda x: x)
    span = float(f(hi) - f(lo)) if hi > lo else 1.0
    row = np.clip(np.floor((f(outliers) - f(lo)) / span * pixels), 0, pixels - 1).astype(np.int64)
    first = np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))  # sorted values: rows never go back
    count = np.diff(np.append(first, outliers.size))
    return {"rows": int(pixels), "n": count.tolist(), "lo": outliers[first].tolist(),
            "hi": outliers[first + count - 1].tolist()}  # fmt: skip


def _cdf(values):
    if not values.size:
        return {"x": [], "p": []}
    p = np.linspace(0.0, 1.0, CDF_POINTS)
    return {"x": np.quantile(values, p).tolist(), "p": p.tolist()}


def distributions(parsed, measure, repetition=None, pixels=OUTLIER_PIXELS, log=False):
    """CDF and box per algorithm (the repetition, or all pooled) and a box per run, of per-job ``measure``; each
    run's box with its outliers as a chart ``pixels`` high (linear, or ``log``) draws them (:func:`drawn_outliers`)."""
    pixels = bounded(pixels, "pixels", 10, 4000)
    doc, outliers = parsed.memo(
        ("job_dist", measure, str(repetition)), lambda: _distributions(parsed, measure, repetition)
    )
    boxes = [r["box"] for r in doc["runs"] if r["box"]["n"]]
    lo, hi = (min(b["min"] for b in boxes), max(b["max"] for b in boxes)) if boxes else (0.0, 0.0)
    runs = [{**r, "box": {**r["box"], "outliers": drawn_outliers(out, lo, hi, pixels, log)} if r["box"]["n"] else r["box"]}
            for r, out in zip(doc["runs"], outliers, strict=True)]  # fmt: skip
    return {**doc, "runs": runs, "box_range": [lo, hi], "pixels": pixels, "log": bool(log and lo > 0)}


def _distributions(parsed, key, repetition):
    runs = parsed.doc.get("runs", [])
    measure = _measure(parsed, key)
    chosen = _runs(parsed, None, repetition)
    per_alg, per_run, outliers = OrderedDict(), [], []
    for i in chosen:
        values = _read(parsed, i, measure)
        ok = values[~np.isnan(values)]
        alg = runs[i].get("algorithm", "")
        per_alg.setdefault(alg, []).append((ok, values.size - ok.size))
        box, out = _box_and_outliers(ok)
        outliers.append(out)
        per_run.append({"i": i, "algorithm": alg, "repetition": runs[i].get("repetition", 0),
                        "missing": int(values.size - ok.size), "box": box})  # fmt: skip
    algorithms = []
    for alg, parts in per_alg.items():
        values = np.concatenate([v for v, _ in parts]) if parts else np.zeros(0)
        algorithms.append({"algorithm": alg, "runs": len(parts), "jobs": int(values.size),
                           "missing": int(sum(m for _, m in parts)), "cdf": _cdf(values), "box": _box(values)})  # fmt: skip
    return {
        "measure": {k: v for k, v in measure.items() if k != "from"},
        "measures": [{k: v for k, v in m.items() if k != "from"} for m in measures_of(parsed)],
        "repetition": "all" if repetition in (None, "", "all") else int(repetition),
        "repetitions": sorted({r.get("repetition", 0) for r in runs}),
        "cdf_points": CDF_POINTS,
        "whiskers": f"{WHISKERS:g} × IQR (Tukey): the most extreme values within {WHISKERS:g} IQR of the quartiles",
        "algorithms": algorithms,
        "runs": per_run,
    }, outliers


_orders_lock = threading.Lock()


def _kept(parsed):
    """The sort orders kept for this result (they live and go with its cached ``ParsedResult``)."""
    return parsed.memo(("job_orders",), OrderedDict)


def _order(parsed, chosen, column, descending):
    """Positions (into the chosen runs' jobs, concatenated in run order) sorted by ``column``, stably."""
    key = (tuple(chosen), column, descending)
    with _orders_lock:
        kept = _kept(parsed)
        if key in kept:
            kept.move_to_end(key)
            return kept[key]
    measure = next((m for m in measures_of(parsed) if m["key"] == column), None)
    parts = []
    for i in chosen:
        if column in _schema(parsed, i).names:
            parts.append(parsed.stored(i).table("jobs", columns=[column])[column].combine_chunks())
        elif measure is not None:
            parts.append(pa.array(_read(parsed, i, measure), pa.float64(), from_pandas=True))
        else:
            parts.append(pa.nulls(int(parsed.info(i).get("jobs") or 0)))
    keys = _same_type(parts)
    order = "descending" if descending else "ascending"
    positions = np.asarray(pc.array_sort_indices(keys, order=order, null_placement="at_end")).astype(np.int64)
    with _orders_lock:
        kept = _kept(parsed)
        kept[key] = positions
        while len(kept) > ORDERS_KEPT:
            kept.popitem(last=False)
    return positions


def _same_type(parts):
    """One array of the parts: numbers as float64 where types differ, else text; ids that are all integers
    written as text sort as numbers; NaN as missing (sorted last either way)."""
    types = {p.type for p in parts} - {pa.null()}
    if not types:
        return pa.chunked_array(parts, pa.null()) if parts else pa.chunked_array([], pa.float64())
    target = types.pop() if len(types) == 1 else (
        pa.float64() if all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in types) else pa.string())  # fmt: skip
    if pa.types.is_dictionary(target):
        target = target.value_type
    parts = [pc.cast(p, target) for p in parts]
    if pa.types.is_string(target) or pa.types.is_large_string(target):
        with contextlib.suppress(pa.ArrowInvalid, pa.ArrowNotImplementedError):
            parts = [pc.cast(p, pa.int64()) for p in parts]
    if pa.types.is_floating(parts[0].type):
        parts = [pc.if_else(pc.is_nan(p), pa.scalar(None, p.type), p) for p in parts]
    return pa.chunked_array(parts, parts[0].type)


def _sort_column(parsed, chosen, order):
    name = order.lstrip("-")
    columns = set()
    for i in chosen:
        schema = _schema(parsed, i)
        columns.update(schema.names if schema is not None else [])
    allowed = sorted(columns | {m["key"] for m in measures_of(parsed)})
    if name not in allowed:
        raise QueryError("order", f"unknown job field {name!r}", "one of " + (", ".join(allowed) or "(no jobs)"))
    return name, order.startswith("-")


def table_page(parsed, algorithm=None, repetition=None, order=None, offset=0, limit=50):
    """A page of the jobs of every chosen run (``algorithm``/``repetition``: None for all), sorted by ``order``
    (a column or measure, ``-`` for descending; default: run order, then the stored order).

    ``columns`` are run, algorithm, repetition, the stored fields (union over the chosen runs, ``job`` first),
    then the derived measures; ``rows`` are lists in that order; ``total`` counts every chosen job.
    """
    offset = bounded(offset, "offset", 0, 10**9)
    limit = bounded(limit, "limit", 1, MAX_JOBS_PAGE)
    runs = parsed.doc.get("runs", [])
    chosen = [i for i in _runs(parsed, algorithm, repetition) if _schema(parsed, i) is not None]
    counts = [int(parsed.info(i).get("jobs") or 0) for i in chosen]
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    total = int(starts[-1])
    if order:
        name, descending = _sort_column(parsed, chosen, order)
        positions = _order(parsed, chosen, name, descending)[offset : offset + limit]
    else:
        positions = np.arange(offset, min(offset + limit, total), dtype=np.int64)
    stored_names = []
    for i in chosen:
        for n in _schema(parsed, i).names:
            if n not in stored_names:
                stored_names.append(n)
    stored_names.sort(key=lambda n: n != "job")
    derived = [m for m in measures_of(parsed) if isinstance(m["from"], list) and m["key"] not in stored_names]
    columns = ["run", "algorithm", "repetition", *stored_names, *(m["key"] for m in derived)]
    which = np.searchsorted(starts, positions, side="right") - 1
    rows = [None] * len(positions)
    for k in np.unique(which).tolist():
        here = np.flatnonzero(which == k)
        i = chosen[k]
        page = _take(parsed.stored(i), positions[here] - starts[k])
        values = {n: page[n].to_pylist() if n in page.column_names else [None] * page.num_rows for n in stored_names}
        for m in derived:
            a, b = (pc.cast(page[c], pa.float64()) for c in m["from"])
            values[m["key"]] = pc.subtract(a, b).to_pylist()
        head = [i, runs[i].get("algorithm", ""), runs[i].get("repetition", 0)]
        for r, pos in enumerate(here.tolist()):
            rows[pos] = head + [values[n][r] for n in columns[3:]]
    return {"total": total, "offset": offset, "limit": limit, "order": order or "", "columns": columns,
            "measures": [{k: v for k, v in m.items() if k != "from"} for m in measures_of(parsed)],
            "algorithms": sorted({runs[i].get("algorithm", "") for i in range(len(runs))}),
            "repetitions": sorted({r.get("repetition", 0) for r in runs}), "rows": rows}  # fmt: skip


def _take(stored, rows):
    """The stored jobs at positions ``rows`` (in that order), reading only the row groups that hold them."""
    pf = pq.ParquetFile(stored.source("jobs"))
    sizes = [pf.metadata.row_group(g).num_rows for g in range(pf.metadata.num_row_groups)]
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    groups = np.unique(np.searchsorted(bounds, rows, side="right") - 1).tolist()
    table = pf.read_row_groups(groups, use_threads=False)
    local = np.concatenate([[0], np.cumsum([sizes[g] for g in groups])]).astype(np.int64)
    index = {g: local[n] - bounds[g] for n, g in enumerate(groups)}
    where = np.array([index[g] for g in (np.searchsorted(bounds, rows, side="right") - 1).tolist()], dtype=np.int64)
    return table.take(pa.array(rows + where))
