"""The result engine's one read interface for charts: a registry of chart kinds.

Each kind names the query parameters it takes and the function that answers it from a parsed result
(``queries.get_result``). The run page's data endpoint (``/runs/<pk>/data.json?kind=…``, also on shared
links) and the JSON API (``/api/v1/runs/<id>/result/charts/<kind>``) both answer through :func:`read`, so a
script sees exactly what a page draws. Parameters arrive as text (a query string); each function checks its
own and raises ``queries.QueryError`` naming the field and the allowed range.

| kind | answers | parameters |
|---|---|---|
| ``gantt`` | a window of one run's schedule: bars, or occupancy beyond the bar budget | run, t0, t1, row0, rows, pixels |
| ``gantt`` with ``side`` | one side of the diff, each job with its status in the diff | side (a, b), a, b, t0, t1, … |
| ``bar`` | the exact times of one job's segments on one resource in a window (a Gantt bar's tooltip) | run (or side, a, b), resource, job, t0, t1 |
| ``series`` | a window of one repetition's series, every algorithm, envelopes exact at the edges | rep, t0, t1, points |
| ``strips`` | DVFS host frequency strips of one repetition | rep, t0, t1, points |
| ``diff`` | what changed between two runs, and a page of the changed jobs | a, b, offset, limit |
| ``jobs`` | a page of the per-job table | alg, rep, order, offset, limit |
| ``dist`` | the distributions of one per-job measure | measure, rep, pixels, log |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cloudsched_web.results import gantt, jobdiff, jobstats, queries, series
from cloudsched_web.results import strips as strip_chart

__all__ = ["KINDS", "Kind", "read"]


@dataclass(frozen=True)
class Kind:
    """A chart kind: the parameters it reads and ``answer(parsed, get, other)`` (``get(name, default)``)."""

    name: str
    params: tuple[str, ...]
    answer: Callable[[Any, Callable[[str, Any], Any], Any], dict]
    description: str


def _int(get, name, default=0):
    raw = get(name, "")
    if raw in ("", None):
        return default
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise queries.QueryError(name, f"{raw!r} is not an integer", "an integer") from None


def _sides(parsed, get, other):
    """The diff page's two sides: ``(result, index)`` of ``a`` and of ``b`` (another run's result, or this one's)."""
    return (parsed, _int(get, "a")), (other if other is not None else parsed, _int(get, "b", 1))


def _side(parsed, get, other):
    """``(result, run index)`` a Gantt request names: ``run``, or on the diff page ``side`` of ``a`` and ``b``."""
    side = get("side", None)
    if side in ("a", "b"):
        return _sides(parsed, get, other)[side == "b"]
    return parsed, _int(get, "run")


def _gantt(parsed, get, other):
    t0, t1 = get("t0", None), get("t1", None)
    result, index = _side(parsed, get, other)
    if get("side", None) not in ("a", "b"):
        return gantt.gantt(result, index, t0, t1, get("row0", 0), get("rows", gantt.ROWS), get("pixels", gantt.PIXELS))
    (_, a), (parsed_b, b) = _sides(parsed, get, other)  # the diff page: one side, with each job's status
    data = gantt.gantt(result, index, t0, t1, get("row0", 0), get("rows", gantt.ROWS), get("pixels", gantt.PIXELS),
                       status=jobdiff.status_of(parsed, a, parsed_b, b))  # fmt: skip
    data["bars"]["statuses"] = jobdiff.STATUSES
    if data.get("occupancy"):
        data["occupancy"]["statuses"] = jobdiff.STATUSES
    return data


def _bar(parsed, get, other):
    side, index = _side(parsed, get, other)
    return gantt.exact_bars(side, index, get("resource", ""), get("job", ""), get("t0", None), get("t1", None))


def _series(parsed, get, other):
    return series.series(parsed, _int(get, "rep"), get("t0", None), get("t1", None), get("points", "") or series.POINTS)


def _strips(parsed, get, other):
    return strip_chart.strips(parsed, _int(get, "rep"), get("t0", None), get("t1", None),
                              get("points", "") or series.POINTS)  # fmt: skip


def _diff(parsed, get, other):
    return jobdiff.diff(parsed, _int(get, "a"), _int(get, "b", 1), get("limit", "") or jobdiff.ROWS, other=other,
                        offset=get("offset", "") or 0)  # fmt: skip


def _jobs(parsed, get, other):
    return jobstats.table_page(parsed, get("alg", "") or None, get("rep", "") or None, get("order", "") or None,
                               get("offset", 0), get("limit", 50))  # fmt: skip


def _dist(parsed, get, other):
    measures = jobstats.measures_of(parsed)
    if not measures:
        return {"measure": None, "measures": [], "algorithms": [], "runs": []}
    measure = get("measure", "") or measures[0]["key"]
    return jobstats.distributions(parsed, measure, get("rep", "") or None, get("pixels", "") or jobstats.OUTLIER_PIXELS,
                                  get("log", "") in ("1", "true"))  # fmt: skip


KINDS = {
    k.name: k
    for k in (
        Kind("gantt", ("run", "t0", "t1", "row0", "rows", "pixels", "side", "a", "b"), _gantt,
             "a window of one run's schedule (bars, or occupancy beyond the bar budget); with side: the diff's"),
        Kind("bar", ("run", "side", "a", "b", "resource", "job", "t0", "t1"), _bar,
             "the exact times of one job's segments on one resource in a window (a Gantt bar's tooltip)"),
        Kind("series", ("rep", "t0", "t1", "points"), _series, "a window of one repetition's series"),
        Kind("strips", ("rep", "t0", "t1", "points"), _strips, "DVFS host frequency strips of one repetition"),
        Kind("diff", ("a", "b", "offset", "limit"), _diff, "what changed between two runs, a page of the changed jobs"),
        Kind("jobs", ("alg", "rep", "order", "offset", "limit"), _jobs, "a page of the per-job table"),
        Kind("dist", ("measure", "rep", "pixels", "log"), _dist, "the distributions of one per-job measure"),
    )
}  # fmt: skip


def read(parsed, kind: str, query: Mapping[str, Any], other=None) -> dict:
    """The answer of chart ``kind`` for ``query`` (a mapping of parameter → text, e.g. ``request.GET``) from
    ``parsed``; ``other``: the other result of a cross-run diff. Unknown kinds are a ``QueryError``."""
    found = KINDS.get(kind)
    if found is None:
        names = list(KINDS)
        raise queries.QueryError("kind", f"unknown kind {kind!r}", ", ".join(names[:-1]) + " or " + names[-1])
    return found.answer(parsed, query.get, other)
