"""Read-side queries over a stored run's result, shared by the pages and the JSON API.

Functions of a stored result (``results.store``: a small header document plus Parquet
columns), plus :func:`get_result`, an in-process LRU cache of results keyed by run
id. Window queries read only the row groups of the schedule that the window
touches; job pages slice (and, once, sort) the job table.

Bad arguments raise :class:`QueryError` naming the field and the allowed range
(the API turns it into a 400 JSON error, pages into a message).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import orjson
import pyarrow.compute as pc
from django.conf import settings

from cloudsched_web.results import store
from schedulers.core.series import envelope

__all__ = [
    "MAX_JOBS_PAGE",
    "MAX_SEGMENTS",
    "MAX_SERIES_POINTS",
    "ParsedResult",
    "QueryError",
    "bounded",
    "clear_cache",
    "get_result",
    "jobs",
    "segments",
    "series",
    "summary",
    "window",
]

MAX_SEGMENTS = 5000
MAX_JOBS_PAGE = 1000
MAX_SERIES_POINTS = 5000


class QueryError(ValueError):
    def __init__(self, field, message, allowed=""):
        super().__init__(f"{field}: {message}")
        self.field, self.message, self.allowed = field, message, allowed


class ParsedResult:
    """A stored result: its header document plus readers of its columns (``results.store``).

    ``doc`` is the header (summary, and per run the metrics and extras, no schedule,
    job records or series); the columns are read from the run's Parquet files when a
    query asks, a time window at a time, and derived indexes are memoised.
    """

    def __init__(self, doc, manifest):
        self.doc = doc
        self.manifest = manifest or {}
        self._memo = {}
        # Re-entrant: a memoised builder may itself ask for another memoised index.
        self._lock = threading.RLock()

    def memo(self, key, build):
        """``build()`` once per ``key`` for the life of this cached result."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = build()
            return self._memo[key]

    def clear_memo(self):
        """Forget every memoised index (the worker builds one run's indexes at a time)."""
        with self._lock:
            self._memo.clear()

    def run(self, index):
        runs = self.doc.get("runs", [])
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(runs):
            raise QueryError("run", f"no run #{index}", f"0..{len(runs) - 1}" if runs else "(no runs)")
        return runs[index]

    def info(self, index):
        """The manifest line of run ``index``: counts, series names, schedule span, file names."""
        self.run(index)
        runs = self.manifest.get("runs", [])
        return runs[index] if index < len(runs) else {}

    def stored(self, index):
        return self.memo(("stored", index), lambda: store.StoredRun(self.info(index)))

    def span(self, index):
        return list(self.info(index).get("span") or [0.0, 0.0])

    def jobs_table(self, index):
        """Run ``index``'s job records as a table (read once: pages sort and slice it)."""
        return self.memo(("jobs", index), lambda: self.stored(index).table("jobs"))

    def series_arrays(self, index):
        """``{name: values}`` of run ``index``'s series (with the shared time axis ``t``): the stored columns as
        float arrays straight from Arrow (no Python lists, a quarter of their memory); series kept in the
        header stay as they are."""

        def build():
            table = self.stored(index).table("series")
            arrays = {} if table is None else {
                name: np.asarray(table[name].to_numpy(), dtype=float) for name in table.column_names
            }  # fmt: skip
            return {**arrays, **self.run(index).get("series_rest", {})}

        return self.memo(("series_arrays", index), build)


_cache: OrderedDict[int, tuple[Any, ParsedResult]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_size():
    return getattr(settings, "RESULT_CACHE_ENTRIES", 4)


def get_result(run):
    """The parsed result of ``run`` (a Run row) or None; cached by run id.

    The key also holds ``finished_at``, which every (re-)run that stores a result
    sets, so a new result is never served stale, and the names of its index files, which
    the worker adds after the run succeeded (``results.indexes``) and ``manage.py build_indexes``
    may replace: a process then reads the new ones. A hit never touches
    ``result_blob``: callers may ``defer("result_blob")`` and pay for the blob
    only on a miss.
    """
    stamp = (run.status, run.finished_at, _index_stamp(run.result_files))
    with _cache_lock:
        hit = _cache.get(run.pk)
        if hit and hit[0] == stamp:
            _cache.move_to_end(run.pk)
            return hit[1]
    if not run.result_blob:
        return None
    parsed = ParsedResult(run.load_header(), run.result_files)
    with _cache_lock:
        _cache[run.pk] = (stamp, parsed)
        _cache.move_to_end(run.pk)
        while len(_cache) > max(1, _cache_size()):
            _cache.popitem(last=False)
    return parsed


def _index_stamp(files) -> tuple:
    """The index file names of a result's manifest (empty: none yet)."""
    runs = (files or {}).get("runs", []) if isinstance(files, dict) else []
    return tuple(tuple(sorted((r.get("index") or {}).items())) for r in runs)


def clear_cache():
    with _cache_lock:
        _cache.clear()


def runs_index(parsed):
    """One line per algorithm × repetition: what a client picks ``run`` from."""
    return [
        {
            "index": i,
            "algorithm": r.get("algorithm", ""),
            "repetition": r.get("repetition", 0),
            "wall_time_s": r.get("wall_time_s"),
            "metrics": r.get("metrics", {}),
            "segments": parsed.info(i).get("segments", 0),
            "jobs": parsed.info(i).get("jobs", 0),
            "series": sorted({*parsed.info(i).get("series", []), *r.get("series_rest", {})} - {"t"}),
        }
        for i, r in enumerate(parsed.doc.get("runs", []))
    ]


def summary(parsed):
    doc = parsed.doc
    return {
        "family": doc.get("family", ""),
        "scenario_digest": doc.get("scenario_digest", ""),
        "seed": doc.get("seed"),
        "summary": doc.get("summary", {}),
        "runs": runs_index(parsed),
    }


def bounded_int(value, field, lo, hi):
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise QueryError(field, f"{value!r} is out of range", f"integer {lo}..{hi}")
    return value


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


def bounded(value, field, lo, hi):
    """A query-string integer in ``lo..hi`` (:func:`bounded_int` after parsing the text)."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise QueryError(field, f"{value!r} is not an integer", f"integer {lo}..{hi}") from None
    return bounded_int(value, field, lo, hi)


def segments(parsed, index=0, start=None, end=None, limit=MAX_SEGMENTS, offset=0):
    """Segments of run ``index`` overlapping ``[start, end)`` in start order: at most ``limit`` from ``offset``.

    ``span`` is the whole schedule's time range, so a client can pan without a
    second request; ``total`` counts every overlapping segment, ``truncated``
    says whether the page stops before the last of them, and ``next_offset`` is where the
    next page starts (None at the end). A page also stops before its JSON would pass
    ``MAX_PAGE_BYTES`` (``cut_by`` says which bound ended it: ``"limit"`` or ``"bytes"``),
    so every response stays under 1 MB. Only the row groups the window touches are read.
    """
    limit = bounded_int(limit, "limit", 1, MAX_SEGMENTS)
    offset = bounded_int(offset, "offset", 0, 10**9)
    parsed.run(index)
    span = parsed.span(index)
    lo = span[0] if start is None else float(start)
    hi = span[1] if end is None else float(end)
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise QueryError("end", f"window [{lo}, {hi}) is empty or not finite", "start ≤ end, finite numbers")
    stored = parsed.stored(index)
    hits = stored.window(lo, hi, ["start"]) if "segments" in stored.files else None
    total = hits.num_rows if hits is not None else 0
    rows, cut_by = [], None
    if offset < total:
        rows = store.to_records(stored.first_in_window(lo, hi, offset + limit).slice(offset))
        kept = _within_bytes(rows, MAX_PAGE_BYTES)
        if kept < len(rows):
            rows, cut_by = rows[:kept], "bytes"
        elif offset + len(rows) < total:
            cut_by = "limit"
    following = offset + len(rows)
    return {
        "window": [lo, hi],
        "span": span,
        "total": total,
        "truncated": following < total,
        "offset": offset,
        "next_offset": following if following < total else None,
        "cut_by": cut_by,
        "segments": rows,
    }


MAX_PAGE_BYTES = 990_000  # the segments of one page, as the API's JSON spells them (under 1 MB with the rest)


def _within_bytes(rows, budget):
    """How many of ``rows`` fit in ``budget`` bytes of JSON as the API writes it (``json.dumps``: a space after
    each ``:`` and ``,``; non-ASCII escaped, so measured with ``ensure_ascii``'s own length when present)."""
    used = 2
    for n, row in enumerate(rows):
        text = orjson.dumps(row)
        size = len(text) + 2 * len(row) + 2  # ": " and ", " inside; ", " between rows
        if not text.isascii():
            size = len(json.dumps(row)) + 2
        used += size
        if used > budget:
            return n
    return len(rows)


def jobs(parsed, index=0, offset=0, limit=100, order_by=None):
    """One page of run ``index``'s per-job records, optionally sorted by a field (``-field`` descending)."""
    offset = bounded_int(offset, "offset", 0, 10**9)
    limit = bounded_int(limit, "limit", 1, MAX_JOBS_PAGE)
    table = parsed.jobs_table(index)
    if table is None:
        return {"total": 0, "offset": offset, "limit": limit, "jobs": []}
    if order_by:
        name = order_by.lstrip("-")
        fields = sorted(table.column_names)
        if name not in fields:
            raise QueryError("order_by", f"unknown job field {name!r}", "one of " + (", ".join(fields) or "(no jobs)"))
        order = "descending" if order_by.startswith("-") else "ascending"
        indices = parsed.memo(
            ("job_order", index, name, order),  # sorting 200k records: once
            lambda: pc.sort_indices(table, sort_keys=[(name, order, "at_end")]),
        )
        page = table.take(indices.slice(offset, limit))
    else:
        page = table.slice(offset, limit)
    return {"total": table.num_rows, "offset": offset, "limit": limit, "jobs": store.to_records(page)}


def series(parsed, index=0, points=1000, names=None):
    """Run ``index``'s series downsampled to at most ``points`` samples each: ``{name: {"t", "v"}}``."""
    points = bounded_int(points, "points", 2, MAX_SERIES_POINTS)
    data = parsed.series_arrays(index)
    t = data.get("t")
    t = [] if t is None else t
    available = sorted(k for k, v in data.items() if k != "t" and len(v) == len(t))
    if names:
        unknown = [n for n in names if n not in available]
        if unknown:
            raise QueryError(
                "names", f"unknown series {', '.join(unknown)}", "one of " + (", ".join(available) or "(none)")
            )
        available = [n for n in available if n in names]
    out = {}
    for name in available:
        env = envelope(t, data[name], points)
        out[name] = {"t": env["t"], "v": env["v"]}
        if not env["exact"]:  # bucket means keep the area; the band keeps the extremes
            out[name].update(min=env["min"], max=env["max"])
    return {"points": points, "length": len(t), "series": out}
