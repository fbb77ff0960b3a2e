"""Claims that check themselves: a paper's statement as a predicate over a study's results.

A study's results are a tidy :class:`Table` of ``(point, algorithm, metric) → mean`` (with the
repetitions' 95 % CI half-widths when a point ran several), one
point per scenario of the study (labelled by the scenario's name, in the preset's order).
A :class:`Claim` pairs the paper's sentence and number with a check ``Table → (bool, str)``:
whether the measurement agrees, and the measured numbers that decided it. Checks are
built from a few quantities (:func:`value`, :func:`ratio`, :func:`reduction`) and
predicates (:func:`at_every_point`, :func:`aggregate`, :func:`monotone`,
:func:`best_at_every_point`, :func:`less_than_at_every_point`, :func:`compare_points`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

__all__ = [
    "NOT_EVALUATED",
    "NOT_REPRODUCED",
    "REPRODUCED",
    "Check",
    "Claim",
    "Missing",
    "Note",
    "Quantity",
    "Reading",
    "Table",
    "aggregate",
    "all_of",
    "at_every_point",
    "at_point",
    "best_at_every_point",
    "compare_points",
    "difference",
    "evaluate",
    "less_than_at_every_point",
    "monotone",
    "near",
    "note_text",
    "number",
    "over_points",
    "ratio",
    "reduction",
    "spread_ratio",
    "value",
]

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_EVALUATED = "not evaluated"

Points = Sequence[int] | str | None  # indices (negative allowed), a substring of the point label, or every point


class Missing(LookupError):
    """The table lacks a value a claim needs (a failed run, or a metric the family does not report)."""


@dataclass(frozen=True)
class Table:
    """Mean metrics of a study: ``values[(point, algorithm, metric)]``; ``points`` keeps the study's order."""

    points: tuple[str, ...]
    values: Mapping[tuple[str, str, str], float]
    configs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    cis: Mapping[tuple[str, str, str], float] = field(default_factory=dict)  # 95 % CI half-widths (≥ 2 runs)

    @classmethod
    def from_summaries(
        cls,
        rows: Iterable[tuple[str, Mapping[str, Mapping[str, Any]] | None]],
        configs: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Table:
        """From ``(point label, {algorithm: {metric: mean}})`` pairs (a run's summary).

        A summary may hold ``{"mean": …}`` dicts (the result document's) or plain numbers (a run row's);
        ``configs`` maps a point to its scenario, for checks that normalise by a scenario's size. A point
        whose summary is None (its run failed) keeps its place, so a check over every point reports it missing.
        """
        points: list[str] = []
        values: dict[tuple[str, str, str], float] = {}
        cis: dict[tuple[str, str, str], float] = {}
        for label, summary in rows:
            if label not in points:
                points.append(label)
            for alg, metrics in (summary or {}).items():
                for metric, v in metrics.items():
                    if isinstance(v, Mapping):
                        ci, n = v.get("ci"), v.get("n")
                        if isinstance(ci, (int, float)) and isinstance(n, int) and n >= 2 and math.isfinite(ci):
                            cis[(label, alg, metric)] = float(ci)
                        v = v.get("mean")
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        values[(label, alg, metric)] = float(v)
        return cls(tuple(points), values, dict(configs or {}), cis)

    def overlap(self, point: str, a: str, b: str, metric: str) -> bool:
        """Whether the 95 % confidence intervals of ``a``'s and ``b``'s means overlap (False without them)."""
        ca, cb = self.cis.get((point, a, metric)), self.cis.get((point, b, metric))
        if ca is None or cb is None:
            return False
        return abs(self.get(point, a, metric) - self.get(point, b, metric)) <= ca + cb

    def config(self, point: str) -> Mapping[str, Any]:
        if point not in self.configs:
            raise Missing(f"no scenario recorded for {point!r}")
        return self.configs[point]

    def get(self, point: str, algorithm: str, metric: str) -> float:
        try:
            return self.values[(point, algorithm, metric)]
        except KeyError:
            raise Missing(f"no {metric} for {algorithm} at {point!r}") from None

    def select(self, points: Points = None) -> list[str]:
        if not self.points:
            raise Missing("the study has no points")
        if points is None:
            return list(self.points)
        if isinstance(points, str):
            chosen = [p for p in self.points if points in p]
        else:
            try:
                chosen = [self.points[i] for i in points]
            except IndexError:
                raise Missing(f"the study has {len(self.points)} points, not {list(points)}") from None
        if not chosen:
            raise Missing(f"no point matches {points!r}")
        return chosen

    def short(self, point: str) -> str:
        """The point's label without the words every label shares at its start ("Fig. 6 FWload load 0.5" → "load 0.5")."""
        if len(self.points) < 2:
            return point
        split = [p.split(" ") for p in self.points]
        common = 0
        while all(len(w) > common + 1 and w[common] == split[0][common] for w in split):
            common += 1
        words = point.split(" ")[max(common - 1, 0) :]  # keep the word naming the swept value
        return " ".join(words) or point


def number(x: float) -> str:
    """Four significant digits, never an exponent between 1e-4 and 1e15 (``11,060``, not ``1.106e+04``)."""
    if not math.isfinite(x) or x == 0 or not 1e-4 <= abs(x) < 1e15:
        return f"{x:.4g}"
    decimals = max(0, 3 - math.floor(math.log10(abs(x))))
    text = f"{float(f'{x:.4g}'):,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text


@dataclass(frozen=True)
class Quantity:
    """A number derived from the table at one point, with the label used in measured strings."""

    label: str
    at: Callable[[Table, str], float]
    percent: bool = False
    # the 95 % CI half-width of the quantity at a point, from the repetitions' (None: one run, or not derivable)
    ci: Callable[[Table, str], float | None] = lambda t, p: None

    def fmt(self, x: float) -> str:
        return f"{100 * x:.1f}%" if self.percent else number(x)


def value(algorithm: str, metric: str) -> Quantity:
    return Quantity(
        f"{algorithm} {metric}",
        lambda t, p: t.get(p, algorithm, metric),
        ci=lambda t, p: t.cis.get((p, algorithm, metric)),
    )


def _ratio_ci(t: Table, p: str, metric: str, num: str, den: str) -> float | None:
    """Half-width of ``num/den``'s 95 % CI from the two means' (first-order propagation, the runs taken as
    independent): ``|r| · sqrt((h_num/num)² + (h_den/den)²)``; None without both intervals."""
    hn, hd = t.cis.get((p, num, metric)), t.cis.get((p, den, metric))
    a, b = t.values.get((p, num, metric)), t.values.get((p, den, metric))
    if hn is None or hd is None or not a or not b:
        return None
    if hd >= abs(b):  # the denominator's interval reaches 0: the ratio is unbounded (first order does not apply)
        return math.inf
    return abs(a / b) * math.hypot(hn / a, hd / b)


def ratio(metric: str, num: str, den: str) -> Quantity:
    """``num``'s metric divided by ``den``'s (e.g. DCLS execution time / FCFS's)."""

    def at(t: Table, p: str) -> float:
        d = t.get(p, den, metric)
        return t.get(p, num, metric) / d if d else float("inf")

    return Quantity(f"{num}/{den} {metric}", at, ci=lambda t, p: _ratio_ci(t, p, metric, num, den))


def difference(metric: str, a: str, b: str) -> Quantity:
    """``a``'s metric minus ``b``'s (e.g. the gap between two rejection rates)."""

    def ci(t: Table, p: str) -> float | None:
        ha, hb = t.cis.get((p, a, metric)), t.cis.get((p, b, metric))
        return None if ha is None or hb is None else math.hypot(ha, hb)

    return Quantity(f"{a} − {b} {metric}", lambda t, p: t.get(p, a, metric) - t.get(p, b, metric), ci=ci)


def reduction(metric: str, algorithm: str, base: str) -> Quantity:
    """How much lower ``algorithm``'s metric is than ``base``'s: ``1 − algorithm / base``."""
    r = ratio(metric, algorithm, base)
    return Quantity(f"{algorithm} vs {base} {metric} reduction", lambda t, p: 1.0 - r.at(t, p), percent=True, ci=r.ci)


def spread_ratio(metric: str, algorithms: Sequence[str]) -> Quantity:
    """Largest over smallest value of ``metric`` among ``algorithms`` at a point (1 = all the same)."""

    def at(t: Table, p: str) -> float:
        xs = [t.get(p, a, metric) for a in algorithms]
        return max(xs) / min(xs) if min(xs) > 0 else float("inf")

    return Quantity(f"max/min {metric} of {', '.join(algorithms)}", at)


def near(x: float, rel: float = 0.15) -> tuple[float, float]:
    """``(lo, hi)`` bounds within ``rel`` of ``x`` (the default tolerance for a number read off a figure)."""
    return x * (1 - rel), x * (1 + rel)


Check = Callable[[Table], tuple[bool, str]]


EPS = 1e-9  # bounds are inclusive up to float rounding (1 − 80/100 is 0.19999999999999996)


def _within(x: float, lo: float | None, hi: float | None) -> bool:
    return (lo is None or x >= lo - EPS) and (hi is None or x <= hi + EPS)


def _series(q: Quantity, t: Table, points: Points) -> list[tuple[str, float]]:
    return [(p, q.at(t, p)) for p in t.select(points)]


def _listing(q: Quantity, t: Table, series: list[tuple[str, float]]) -> str:
    return f"{q.label}: " + ", ".join(f"{t.short(p)} → {q.fmt(x)}" for p, x in series)


def at_every_point(q: Quantity, lo: float | None = None, hi: float | None = None, points: Points = None) -> Check:
    """``lo ≤ q ≤ hi`` at every selected point (either bound may be open)."""

    def check(t: Table) -> tuple[bool, str]:
        s = _series(q, t, points)
        bad = [(p, x) for p, x in s if not _within(x, lo, hi)]
        text = _listing(q, t, s) + (f" (outside at {', '.join(t.short(p) for p, _ in bad)})" if bad else "")
        return not bad, text + _bound_within_ci(q, t, bad, lo, hi)

    return check


def _bound_within_ci(q: Quantity, t: Table, bad: Sequence[tuple[str, float]], lo: float | None, hi: float | None
                     ) -> str:  # fmt: skip
    """`` (the bound lies within the 95 % CI of the repetitions at …)`` for the misses whose interval reaches the
    bound they miss: with that many runs the measurement does not tell the two sides apart."""
    close = []
    for p, x in bad:
        h = q.ci(t, p)
        bound = lo if lo is not None and x < lo else hi
        if h is not None and bound is not None and abs(x - bound) <= h:
            spread = f"± {q.fmt(h)}" if math.isfinite(h) else "with a denominator whose interval reaches 0"
            close.append(f"{t.short(p)}: {q.fmt(x)} {spread}")
    return f" (the bound lies within the 95 % CI of the repetitions at {', '.join(close)})" if close else ""


_STATS: dict[str, Callable[[list[float]], float]] = {
    "mean": mean,
    "max": max,
    "min": min,
    "spread": lambda xs: max(xs) - min(xs),
    "max/min": lambda xs: max(xs) / min(xs) if min(xs) > 0 else float("inf"),
}


def aggregate(q: Quantity, stat: str, lo: float | None = None, hi: float | None = None, points: Points = None) -> Check:
    """``lo ≤ stat(q over the points) ≤ hi``, with ``stat`` one of mean, max, min, spread (max − min), max/min."""
    fn = _STATS[stat]

    def check(t: Table) -> tuple[bool, str]:
        s = _series(q, t, points)
        x = fn([v for _, v in s])
        return _within(x, lo, hi), f"{stat} {q.label} = {q.fmt(x)} over {len(s)} points"

    return check


def monotone(q: Quantity, increasing: bool = True, points: Points = None, strict: bool = False) -> Check:
    """``q`` rises (or falls) from each selected point to the next, in the study's order."""

    def check(t: Table) -> tuple[bool, str]:
        s = _series(q, t, points)
        xs = [x for _, x in s]
        pairs = list(itertools.pairwise(xs))
        if increasing:
            ok = all(b > a if strict else b >= a for a, b in pairs)
        else:
            ok = all(b < a if strict else b <= a for a, b in pairs)
        return ok, _listing(q, t, s)

    return check


def less_than_at_every_point(metric: str, a: str, b: str, points: Points = None) -> Check:
    """``a``'s metric is strictly below ``b``'s at every selected point."""

    def check(t: Table) -> tuple[bool, str]:
        rows = [(p, t.get(p, a, metric), t.get(p, b, metric)) for p in t.select(points)]
        bad = [p for p, x, y in rows if not x < y]
        text = f"{metric} {a} vs {b}: " + ", ".join(f"{t.short(p)} → {number(x)} vs {number(y)}" for p, x, y in rows)
        return not bad, text + (f" (not lower at {', '.join(t.short(p) for p in bad)})" if bad else "") + _within_ci(
            t, [(p, a, b) for p in bad], metric
        )

    return check


def _within_ci(t: Table, pairs: Sequence[tuple[str, str, str]], metric: str) -> str:
    """`` (within the 95 % CIs of the runs at …)`` for the failed comparisons whose means' intervals overlap."""
    close = [t.short(p) for p, a, b in pairs if t.overlap(p, a, b, metric)]
    return f" (within the 95 % CIs of the repetitions at {', '.join(close)})" if close else ""


def best_at_every_point(metric: str, algorithm: str, others: Sequence[str], points: Points = None,
                        lower: bool = True, tolerance: float = 0.0) -> Check:  # fmt: skip
    """``algorithm`` has the lowest (``lower``) or highest metric among ``others`` at every point.

    ``tolerance`` is relative: a rival within that fraction still counts as beaten
    (for claims like "almost the same").
    """

    def check(t: Table) -> tuple[bool, str]:
        bad, parts = [], []
        for p in t.select(points):
            mine = t.get(p, algorithm, metric)
            rivals = {o: t.get(p, o, metric) for o in others if o != algorithm}
            best_o, best = min(rivals.items(), key=lambda kv: kv[1] if lower else -kv[1])
            ok = mine <= best * (1 + tolerance) if lower else mine >= best * (1 - tolerance)
            parts.append(f"{t.short(p)} → {number(mine)} (best other {best_o} {number(best)})")
            if not ok:
                bad.append((p, algorithm, best_o))
        text = f"{metric} of {algorithm}: " + ", ".join(parts)
        return not bad, text + (f" (beaten at {', '.join(t.short(p) for p, _, _ in bad)})" if bad else "") + _within_ci(
            t, bad, metric
        )

    return check


def compare_points(q: Quantity, greater: Sequence[int] | str, than: Sequence[int] | str) -> Check:
    """``q`` at each point of ``greater`` exceeds ``q`` at the matching point of ``than`` (pairwise)."""

    def check(t: Table) -> tuple[bool, str]:
        hi, lo = t.select(greater), t.select(than)
        if len(hi) != len(lo):
            raise Missing(f"{len(hi)} points to compare with {len(lo)}")
        pairs = [(a, b, q.at(t, a), q.at(t, b)) for a, b in zip(hi, lo, strict=True)]
        ok = all(x > y for _, _, x, y in pairs)
        return ok, f"{q.label}: " + ", ".join(
            f"{t.short(a)} → {q.fmt(x)} vs {t.short(b)} → {q.fmt(y)}" for a, b, x, y in pairs
        )

    return check


def all_of(*checks: Check) -> Check:
    """Every check holds; the measured text joins theirs."""

    def check(t: Table) -> tuple[bool, str]:
        results = [c(t) for c in checks]
        return all(ok for ok, _ in results), "; ".join(m for _, m in results)

    return check


class _Unavailable:
    """A note's field the table cannot give (a failed run): formats as ``text`` whatever the format spec."""

    def __init__(self, why: str, text: str = "n/a"):
        self.why, self.text = why, text

    def __format__(self, spec: str) -> str:
        return self.text


@dataclass(frozen=True)
class Note:
    """A note whose numbers come from the run it explains: ``template`` formatted with ``fields`` of the table.

    Each field is a function of the :class:`Table` (``lambda t: t.get(point, alg, metric)``), so the note
    printed beside a verdict quotes the numbers of that very run, at whatever scale. The template's own
    text (:meth:`static`) may hold only numbers that are no measurement of this run: the paper's, equation
    and figure references, the model's parameters, or a number measured elsewhere in a sentence naming
    where (a ``docs/`` or ``bench/`` file) -- ``tests/schedulers/test_claim_notes_generated.py`` enforces it.
    """

    template: str
    fields: Mapping[str, Callable[[Table], Any]] = field(default_factory=dict)

    def render(self, table: Table) -> str:
        values: dict[str, Any] = {}
        for name, fn in self.fields.items():
            if not table.points:  # no run: a field saying "at every point" would be vacuously true
                values[name] = _Unavailable("no points")
                continue
            try:
                values[name] = fn(table)
            except (LookupError, ArithmeticError, ValueError) as exc:  # Missing, or no points to aggregate
                values[name] = _Unavailable(str(exc))
        return self.template.format(**values)

    def unfilled(self) -> str:
        """The note before any run: every field shown as "…" (a claim not yet evaluated)."""
        return self.template.format(**{name: _Unavailable("not run", "…") for name in self.fields})

    def static(self) -> str:
        """The template without its fields: the text every run prints alike."""
        return re.sub(r"\{[^{}]*\}", "", self.template)


def at_point(q: Quantity, point: int | str = -1) -> Callable[[Table], float]:
    """A note's field: ``q`` at one point (an index, negative allowed, or a substring of its label)."""
    return lambda t: q.at(t, t.select([point] if isinstance(point, int) else point)[0])


def over_points(q: Quantity, stat: str, points: Points = None) -> Callable[[Table], float]:
    """A note's field: ``stat`` (mean, max, min, spread, max/min) of ``q`` over the selected points."""
    fn = _STATS[stat]
    return lambda t: fn([q.at(t, p) for p in t.select(points)])


def note_text(note: str | Note, table: Table) -> str:
    return note.render(table) if isinstance(note, Note) else note


@dataclass(frozen=True)
class Reading:
    """One way to read what a paper leaves open, as scenario parameters (``params`` merged into each scenario's).

    A preset lists its readings under ``"readings"``; the first marked ``default`` is what its
    scenarios run as given (its ``params`` are then empty), and ``why`` says why it is the default.
    ``claims`` evaluates every claim under every reading, side by side. ``algorithms``, when given, are
    the only algorithms whose runs the reading changes (a reading of the FCFS baseline leaves DCLS's runs
    as they are): :meth:`apply` keeps only those, and the others' results are the default reading's
    (:meth:`merged`), so they are not run twice.
    """

    name: str
    text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    default: bool = False
    why: str = ""
    algorithms: tuple[str, ...] = ()

    def apply(self, scenario: dict[str, Any]) -> dict[str, Any]:
        """The scenario under this reading (as given when the reading changes none of its algorithms)."""
        if not self.params:
            return scenario
        out = {**scenario, "params": {**(scenario.get("params") or {}), **self.params}}
        if self.algorithms:
            mine = [a for a in scenario.get("algorithms") or [] if a in self.algorithms]
            if not mine:
                return scenario
            out["algorithms"] = mine
        return out

    def merged(self, summary: Mapping[str, Any] | None, default: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """A point's summary under this reading: its own runs, and the default reading's for the algorithms it
        leaves alone (None when its own runs failed)."""
        if not self.algorithms or summary is None:
            return summary
        return {**(default or {}), **summary}


@dataclass(frozen=True)
class Claim:
    """One statement of a paper: its sentence, the paper's number, and the check (None: stated, not checked).

    ``note`` records what is known about a difference from the paper (evidence, a likely cause): a
    :class:`Note` when it quotes numbers of the run, filled from the table the claim is checked on.
    """

    text: str
    paper: str = ""
    check: Check | None = None
    note: str | Note = ""

    def evaluate(self, table: Table) -> dict[str, str]:
        out = {"text": self.text, "paper": self.paper, "note": note_text(self.note, table)}
        if self.check is None:
            return {**out, "verdict": NOT_EVALUATED, "measured": "this claim has no check"}
        try:
            ok, measured = self.check(table)
        except (LookupError, ArithmeticError) as exc:  # Missing, or a point the check indexes is not there
            return {**out, "verdict": NOT_EVALUATED, "measured": str(exc) or type(exc).__name__}
        return {**out, "verdict": REPRODUCED if ok else NOT_REPRODUCED, "measured": measured}


def evaluate(claims: Sequence[Claim | str], table: Table) -> list[dict[str, str]]:
    """The verdict of every claim (a bare string is a claim without a check)."""
    return [(c if isinstance(c, Claim) else Claim(c)).evaluate(table) for c in claims]
