"""Slot loads, the Theorem 1 lower bound, placements and their power-on time.

All arrays work on a *compressed* time axis: the sorted distinct start/end slots
of a pool cut time into elementary segments inside which no request starts or
ends, so a per-slot quantity is constant on each segment. This is the per-slot
occupancy array of the paper with runs of identical slots merged; it keeps the
work proportional to the number of requests, not to the horizon length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Axis",
    "Placement",
    "busy_intervals",
    "lower_bound_slots",
    "min_machines",
    "power_on_by_pm",
    "power_on_slots",
]


@dataclass(frozen=True)
class Axis:
    """Compressed time axis of one pool: ``bounds[k] .. bounds[k+1]`` is segment k."""

    bounds: np.ndarray  # sorted distinct slots, int64
    a: np.ndarray  # first segment of each request
    b: np.ndarray  # one past its last segment

    @classmethod
    def of(cls, s: np.ndarray, e: np.ndarray) -> Axis:
        bounds = np.unique(np.concatenate([s, e]).astype(np.int64))
        return cls(bounds, np.searchsorted(bounds, s), np.searchsorted(bounds, e))

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.bounds)

    def load(self, d: np.ndarray) -> np.ndarray:
        """Total demand L_k on each segment (eq. of Theorem 1: L_i = load of slot i)."""
        k = self.bounds.size
        w = d.astype(np.float64)
        delta = np.bincount(self.a, weights=w, minlength=k) - np.bincount(self.b, weights=w, minlength=k)
        return np.rint(np.cumsum(delta)[:-1]).astype(np.int64)


def min_machines(load: np.ndarray, g: int) -> np.ndarray:
    """l_i = ⌈L_i / g⌉, the fewest PMs that can carry slot i (Theorem 1)."""
    return -(-load // g)


def lower_bound_slots(s: np.ndarray, e: np.ndarray, d: np.ndarray, g: int) -> int:
    """Theorem 1: Σ over slots of ⌈L_i/g⌉, in PM-slots. O(n log n)."""
    if s.size == 0:
        return 0
    axis = Axis.of(s, e)
    return int(min_machines(axis.load(d), g) @ axis.lengths)


@dataclass
class Placement:
    """Where each request runs: one *piece* per stretch on one PM (a migration starts a new piece).

    Arrays are pool-local: ``job`` indexes the pool's requests, ``start``/``end`` are slots.
    """

    job: np.ndarray
    pm: np.ndarray
    start: np.ndarray
    end: np.ndarray
    migrations: int = 0

    @classmethod
    def static(cls, pm: np.ndarray, s: np.ndarray, e: np.ndarray) -> Placement:
        """A placement without migration: request i on ``pm[i]`` for its whole interval."""
        return cls(np.arange(pm.size), pm.astype(np.int64), s.astype(np.int64), e.astype(np.int64), 0)

    @property
    def n_pms(self) -> int:
        return int(np.unique(self.pm).size)


def busy_intervals(p: Placement) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merged busy intervals ``(pm, start, end)`` of every PM (Definition 3: idle gaps are off)."""
    if p.job.size == 0:
        z = np.zeros(0, np.int64)
        return z, z, z
    order = np.lexsort((p.start, p.pm))
    pm, s, e = p.pm[order], p.start[order], p.end[order]
    # Offset each PM's times so one running maximum never crosses PM boundaries.
    span = int(e.max()) + 1
    base = (pm - pm.min()) * span
    s2, e2 = s + base, e + base
    reach = np.maximum.accumulate(e2)
    new = np.ones(s.size, dtype=bool)
    new[1:] = s2[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.concatenate([first[1:], [s.size]]) - 1
    return pm[first], s[first], reach[last] - base[first]


def power_on_by_pm(p: Placement) -> tuple[np.ndarray, np.ndarray]:
    """(pm ids, power-on slots of each PM): b_i = span(J_i)."""
    pm, s, e = busy_intervals(p)
    ids, inverse = np.unique(pm, return_inverse=True)
    return ids, np.bincount(inverse, weights=(e - s), minlength=ids.size).astype(np.int64)


def power_on_slots(p: Placement) -> int:
    """Total power-on time Σ span(J_i) in PM-slots."""
    _pm, s, e = busy_intervals(p)
    return int((e - s).sum())
