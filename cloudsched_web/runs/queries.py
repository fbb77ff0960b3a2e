"""Read-side queries over a stored run's result, shared by the pages and the JSON API.

Pure functions of a result document (DESIGN.md "Result"), plus :func:`get_result`,
an in-process LRU cache of parsed results keyed by run id: a 200,000-job result
takes seconds to decompress and parse, so a page that pages through its jobs or
pans its Gantt must not parse it again on every request. Window queries use
numpy arrays of segment starts/ends built once per cached run.

Bad arguments raise :class:`QueryError` naming the field and the allowed range
(the API turns it into a 400 JSON error, pages into a message).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
from django.conf import settings

from schedulers.core.series import downsample

MAX_SEGMENTS = 5000
MAX_JOBS_PAGE = 1000
MAX_SERIES_POINTS = 5000


class QueryError(ValueError):
    def __init__(self, field, message, allowed=""):
        super().__init__(f"{field}: {message}")
        self.field, self.message, self.allowed = field, message, allowed


class ParsedResult:
    """A parsed result document plus lazily built, memoised per-run indexes."""

    def __init__(self, doc):
        self.doc = doc
        self._memo = {}
        # Re-entrant: a memoised builder may itself ask for another memoised index.
        self._lock = threading.RLock()

    def memo(self, key, build):
        """``build()`` once per ``key`` for the life of this cached result."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = build()
            return self._memo[key]

    def run(self, index):
        runs = self.doc.get("runs", [])
        if not isinstance(index, int) or not 0 <= index < len(runs):
            raise QueryError("run", f"no run #{index}", f"0..{len(runs) - 1}" if runs else "(no runs)")
        return runs[index]

    def spans(self, index):
        """``(starts, ends)`` arrays of run ``index``'s schedule, built once."""

        def build():
            schedule = self.run(index).get("schedule", [])
            starts = np.fromiter((s["start"] for s in schedule), dtype=float, count=len(schedule))
            ends = np.fromiter((s["end"] for s in schedule), dtype=float, count=len(schedule))
            return starts, ends

        return self.memo(("spans", index), build)


_cache: OrderedDict[int, tuple[Any, ParsedResult]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_size():
    return getattr(settings, "RESULT_CACHE_ENTRIES", 4)


def get_result(run):
    """The parsed result of ``run`` (a Run row) or None; cached by run id.

    The key also holds ``finished_at``, which every (re-)run that stores a result
    sets, so a new result is never served stale. A hit never touches
    ``result_blob``: callers may ``defer("result_blob")`` and pay for the blob
    only on a miss.
    """
    stamp = (run.status, run.finished_at)
    with _cache_lock:
        hit = _cache.get(run.pk)
        if hit and hit[0] == stamp:
            _cache.move_to_end(run.pk)
            return hit[1]
    if not run.result_blob:
        return None
    parsed = ParsedResult(run.load_result())
    with _cache_lock:
        _cache[run.pk] = (stamp, parsed)
        _cache.move_to_end(run.pk)
        while len(_cache) > max(1, _cache_size()):
            _cache.popitem(last=False)
    return parsed


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
            "segments": len(r.get("schedule", [])),
            "jobs": len(r.get("jobs", [])),
            "series": sorted(k for k in r.get("series", {}) if k != "t"),
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


def _bounded_int(value, field, lo, hi):
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise QueryError(field, f"{value!r} is out of range", f"integer {lo}..{hi}")
    return value


def segments(parsed, index=0, start=None, end=None, limit=MAX_SEGMENTS):
    """Segments of run ``index`` overlapping ``[start, end)`` in start order, at most ``limit``.

    ``span`` is the whole schedule's time range, so a client can pan without a
    second request; ``total`` counts every overlapping segment, ``truncated``
    says whether ``limit`` cut them.
    """
    limit = _bounded_int(limit, "limit", 1, MAX_SEGMENTS)
    schedule = parsed.run(index).get("schedule", [])
    starts, ends = parsed.spans(index)
    span = [float(starts.min()), float(ends.max())] if starts.size else [0.0, 0.0]
    lo = span[0] if start is None else float(start)
    hi = span[1] if end is None else float(end)
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise QueryError("end", f"window [{lo}, {hi}) is empty or not finite", "start ≤ end, finite numbers")
    mask = (ends > lo) & (starts < hi) if hi > lo else (starts <= lo) & (ends >= lo)
    hits = np.flatnonzero(mask)
    if hits.size > limit:
        hits = hits[np.argsort(starts[hits], kind="stable")[:limit]]
    else:
        hits = hits[np.argsort(starts[hits], kind="stable")]
    total = int(mask.sum())
    return {
        "window": [lo, hi],
        "span": span,
        "total": total,
        "truncated": total > hits.size,
        "segments": [schedule[i] for i in hits.tolist()],
    }


def _sort_key(name):
    """Numbers before text (records may mix them); missing values are kept apart."""

    def key(job):
        v = job[name]
        return (0, v) if isinstance(v, (int, float)) else (1, str(v))

    return key


def jobs(parsed, index=0, offset=0, limit=100, order_by=None):
    """One page of run ``index``'s per-job records, optionally sorted by a field (``-field`` descending)."""
    offset = _bounded_int(offset, "offset", 0, 10**9)
    limit = _bounded_int(limit, "limit", 1, MAX_JOBS_PAGE)
    records = parsed.run(index).get("jobs", [])
    if order_by:
        name = order_by.lstrip("-")
        fields = sorted(records[0]) if records else []
        if name not in fields:
            raise QueryError("order_by", f"unknown job field {name!r}", "one of " + (", ".join(fields) or "(no jobs)"))
        records = _sorted_jobs(parsed, index, name, order_by.startswith("-"))
    return {"total": len(records), "offset": offset, "limit": limit, "jobs": records[offset : offset + limit]}


def _sorted_jobs(parsed, index, name, reverse):
    def build():  # sorting 200k records costs ~0.2 s: do it once
        records = parsed.run(index).get("jobs", [])
        present = sorted((r for r in records if r.get(name) is not None), key=_sort_key(name), reverse=reverse)
        return present + [r for r in records if r.get(name) is None]

    return parsed.memo(("sorted_jobs", index, name, reverse), build)


def series(parsed, index=0, points=1000, names=None):
    """Run ``index``'s series downsampled to at most ``points`` samples each: ``{name: {"t", "v"}}``."""
    points = _bounded_int(points, "points", 2, MAX_SERIES_POINTS)
    data = parsed.run(index).get("series", {})
    t = data.get("t") or []
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
        ts, vs = downsample(t, data[name], points)
        out[name] = {"t": ts, "v": vs}
    return {"points": points, "length": len(t), "series": out}
