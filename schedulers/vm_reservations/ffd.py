"""First-fit placement and the sorted first-fit baselines FFD, EST and MFFDE (Section 5.2).

Every heuristic of the paper is "sort the requests, then put each on the first
PM that can host it over its whole interval, opening a new PM if none can". They
differ only in the order, so one packer (:class:`FirstFit`) serves them all and
LLIF (llif.py) too. PMs are tried in the order they were opened.

The packer keeps a per-PM occupancy array over the pool's compressed time axis
(bound.Axis), so testing a PM for a request is one numpy ``max`` over a slice,
and testing all open PMs is one ``max`` over a 2-D block.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedulers.vm_reservations.bound import Axis, Placement

__all__ = ["FirstFit", "est", "ffd", "first_fit", "mffde"]

Progress = Callable[[float], None]


class FirstFit:
    """First-fit packing of interval requests into PMs of capacity ``g``."""

    def __init__(self, axis: Axis, g: int):
        self.axis, self.g = axis, g
        segments = max(axis.bounds.size - 1, 1)
        self.occ = np.zeros((4, segments), dtype=np.int32)
        self.count = 0

    def _grow(self) -> None:
        extra = np.zeros_like(self.occ)
        self.occ = np.vstack([self.occ, extra])

    def place(self, a: int, b: int, d: int) -> int:
        """Put a request on segments ``a..b-1`` with demand ``d`` on the first PM that fits."""
        limit = self.g - d
        m = self.count
        if self.count:
            ok = self.occ[: self.count, a:b].max(axis=1) <= limit
            first = int(ok.argmax())
            if ok[first]:
                m = first
        return self.put(m, a, b, d)

    def peaks(self, a: int, b: int) -> np.ndarray:
        """Each open PM's highest occupancy over segments ``a..b-1`` (opening order)."""
        return self.occ[: self.count, a:b].max(axis=1)

    def put(self, m: int, a: int, b: int, d: int) -> int:
        """Add the request to PM ``m`` (``m == count`` opens a new PM); returns ``m``."""
        if m == self.count:
            if self.count == self.occ.shape[0]:
                self._grow()
            self.count += 1
        self.occ[m, a:b] += d
        return m


def first_fit(
    s: np.ndarray, e: np.ndarray, d: np.ndarray, g: int, order: np.ndarray, progress: Progress | None = None
) -> Placement:
    """Place requests in ``order`` by first fit; no migration."""
    axis = Axis.of(s, e)
    packer = FirstFit(axis, g)
    pm = np.empty(s.size, dtype=np.int64)
    a, b, dd = axis.a.tolist(), axis.b.tolist(), d.tolist()
    step = max(1, s.size // 50)
    for n, i in enumerate(order.tolist()):
        pm[i] = packer.place(a[i], b[i], dd[i])
        if progress is not None and n % step == 0:
            progress(n / s.size)
    return Placement.static(pm, s, e)


def ffd_order(s: np.ndarray, e: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Process time non-increasing; ties by request order (stable)."""
    return np.argsort(-(e - s), kind="stable")


def est_order(s: np.ndarray, e: np.ndarray, d: np.ndarray, latest_first: bool = False) -> np.ndarray:
    """Start time non-decreasing (or non-increasing); ties by request order (stable)."""
    return np.argsort(-s if latest_first else s, kind="stable")


def mffde_order(s: np.ndarray, e: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Start time non-decreasing; ties by process time non-increasing, then request order."""
    return np.lexsort((-(e - s), s))


def ffd(s, e, d, g, progress: Progress | None = None) -> Placement:
    """First Fit Decreasing (paper 003, Section 5.2, after [2] and [4]).

    Sorts requests by process time ``p = e − s`` non-increasing and places each
    on the first PM (in opening order) with room in every slot of its interval.
    Reading: ties keep the request order (a stable sort).
    """
    return first_fit(s, e, d, g, ffd_order(s, e, d), progress)


def est(s, e, d, g, progress: Progress | None = None, latest_first: bool = False) -> Placement:
    """Earliest Start-Time first (Section 5.2), then first fit.

    The text says "non-increasing order of their start-time", which contradicts
    the algorithm's name. Reading: by default we follow the name (earliest start
    first, ties by request order); ``params.est_order = "latest_first"`` follows
    the sentence literally.
    """
    return first_fit(s, e, d, g, est_order(s, e, d, latest_first), progress)


def mffde(s, e, d, g, progress: Progress | None = None) -> Placement:
    """MFFDE of Tian & Yeo [32], "FFD with earliest start-time first" (Section 1).

    Reading: requests are taken by start time non-decreasing; among requests
    that start in the same slot the longest goes first (the "decreasing" of
    FFD); each goes to the first PM that fits. It differs from EST only in the
    tie rule, which matters on slotted inputs where many requests share a start.
    """
    return first_fit(s, e, d, g, mffde_order(s, e, d), progress)
