"""The vm_reservations family's extension interface: the placement of a request on PMs.

Paper 003's heuristics without migration all take the requests in an order and put each on a PM that
can host it over its whole interval, opening a new PM when none can: LLIF (Alg. 3.1 lines 7–9), FFD,
EST and MFFDE (Section 5.2). "Can host" is constraint (1a): in every slot, the demands on a PM sum to at
most its capacity g. The papers' algorithms differ in the *order* and all choose the *first* PM that fits
(in opening order). A placement rule (:class:`PmChoice`) is the pair:

- ``order``: the name of one of the papers' orders (``ORDERS``: ``llif``, ``ffd``, ``est``, ``mffde``), or
  a key function ``key(requests) -> keys`` over a :class:`Requests` view, smallest first, ties in request
  order (called once per pool);
- ``choose(fit) -> int``: for one request, the PM that gets it, given a :class:`Fit`: the index of an open
  PM (0 … ``len(fit.peak) − 1``, opening order) that fits, or ``NEW`` (−1) to open a PM.

A choice of a PM that does not fit, or of no PM at all, is an invalid decision: the run fails naming
the plug-in and the request (the simulator never over-fills a PM; the result page's capacity check
runs on every schedule unchanged).

Named parts, selectable as algorithms ``<order>:<fit>`` (``ffd:best``, ``llif:worst``, …): the fits of
``FITS``. ``first`` is the papers' rule (``ffd`` itself is ``ffd`` with first fit and runs the packer of
ffd.py, identical placements, tests/schedulers/vm_reservations/test_policy.py). The paper is silent on
best and worst fit for intervals; our reading measures a PM's room by its *peak* occupancy over the
request's interval (the only room that matters for (1a)):

- ``best``: the fitting PM with the least room left (highest peak), ties to the earliest opened;
- ``worst``: the fitting PM with the most room (lowest peak), ties to the earliest opened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedulers.core.readonly import view
from schedulers.vm_reservations.bound import Axis, Placement
from schedulers.vm_reservations.ffd import FirstFit, Progress, est_order, ffd_order, mffde_order
from schedulers.vm_reservations.llif import llif_order

__all__ = ["FITS", "NEW", "ORDERS", "Fit", "PmChoice", "Requests", "checked", "order_of", "pack", "pm_choice"]

NEW = -1  # choose(): open a new PM


@dataclass(frozen=True, slots=True)
class Fit:
    """What a PM choice sees for one request. Units are the pool's integer CPU units (capacity g).

    ``peak[m]`` is open PM m's highest occupancy over the request's interval; the request fits on m when
    ``peak[m] + demand <= capacity`` (:meth:`fits`). ``start``/``end`` are slots, ``request`` the request's
    position in its pool.
    """

    request: int
    start: int
    end: int
    demand: int
    capacity: int
    peak: np.ndarray
    occupancy: np.ndarray  # (open PMs, segments of the interval), read-only: each PM's load on each piece
    lengths: np.ndarray  # slots of each piece (the interval cut where other requests start or end)

    def fits(self) -> np.ndarray:
        """Which open PMs can host the request (bool per PM, opening order)."""
        return self.peak <= self.capacity - self.demand

    def added_on_time(self) -> np.ndarray:
        """Slots each open PM would be powered on for the request and is not yet (empty pieces of the interval):
        the PM's power-on time grows by this (eq. 11's T; a new PM adds ``end − start``)."""
        return (self.occupancy == 0) @ self.lengths


@dataclass(frozen=True)
class Requests:
    """What an order key may read: numpy columns of one pool's requests in request order (slots, units)."""

    index: np.ndarray
    start: np.ndarray
    end: np.ndarray
    demand: np.ndarray
    capacity: int

    def __len__(self) -> int:
        return int(self.index.size)


@dataclass(frozen=True)
class PmChoice:
    """A placement rule for vm_reservations: an order and a PM choice (see the module docstring)."""

    choose: Callable[[Fit], int]
    description: str = ""
    order: str | Callable[[Requests], Any] = "ffd"


def pm_choice(description: str = "", *, order: str | Callable[[Requests], Any] = "ffd"):
    """Decorator: ``@pm_choice("…", order="llif")`` over ``def choose(fit)`` makes it a :class:`PmChoice`."""

    def wrap(choose: Callable[[Fit], int]) -> PmChoice:
        text = description or (choose.__doc__ or choose.__name__).strip().splitlines()[0]
        return PmChoice(choose, text, order)

    return wrap


def _first(fit: Fit) -> int:
    ok = fit.fits()
    m = int(ok.argmax()) if ok.size else 0
    return m if ok.size and ok[m] else NEW


def _best(fit: Fit) -> int:
    ok = fit.fits()
    if not ok.any():
        return NEW
    return int(np.where(ok, fit.peak, -1).argmax())  # highest peak among those that fit; argmax: the first


def _worst(fit: Fit) -> int:
    ok = fit.fits()
    if not ok.any():
        return NEW
    return int(np.where(ok, fit.peak, fit.capacity + 1).argmin())


FITS: dict[str, Callable[[Fit], int]] = {"first": _first, "best": _best, "worst": _worst}
FIT_DESCRIPTIONS = {
    "first": "the first PM that fits (opening order)",
    "best": "the PM that fits with the least room left over the interval",
    "worst": "the PM that fits with the most room left over the interval",
}


def order_of(order: str | Callable[[Requests], Any], s, e, d, g: int, latest_first: bool = False,
             ask: Callable[[Requests], np.ndarray] | None = None) -> np.ndarray:  # fmt: skip
    """The requests' placement order: a named one of the papers, or ``ask`` (the order key, checked) sorted."""
    if ask is not None:
        shown = Requests(view(np.arange(s.size), "requests.index"), view(s, "requests.start"),
                         view(e, "requests.end"), view(d, "requests.demand"), g)  # fmt: skip
        return np.argsort(ask(shown), kind="stable")
    if order == "llif":
        return llif_order(s, e, d, g)
    if order == "ffd":
        return ffd_order(s, e, d)
    if order == "est":
        return est_order(s, e, d, latest_first)
    if order == "mffde":
        return mffde_order(s, e, d)
    raise ValueError(f"unknown order {order!r}: one of {', '.join(ORDERS)}")


def pack(s, e, d, g: int, order: np.ndarray, choose: Callable[[Fit], int], progress: Progress | None = None
         ) -> Placement:  # fmt: skip
    """Place the requests in ``order``, each on the PM ``choose`` picks (``NEW``: a new one); no migration.

    ``choose`` must answer a valid PM (a plug-in's is wrapped by ``checked``, which refuses any other).
    """
    axis = Axis.of(s, e)
    packer = FirstFit(axis, g)
    pm = np.empty(s.size, dtype=np.int64)
    a, b, ss, ee, dd = axis.a.tolist(), axis.b.tolist(), s.tolist(), e.tolist(), d.tolist()
    lengths = axis.lengths
    step = max(1, s.size // 50)
    for n, i in enumerate(order.tolist()):
        ai, bi = a[i], b[i]
        block = view(packer.occ[: packer.count, ai:bi], "fit.occupancy")
        peak = view(block.max(axis=1), "fit.peak")
        m = choose(Fit(i, ss[i], ee[i], dd[i], g, peak, block, view(lengths[ai:bi], "fit.lengths")))
        pm[i] = packer.put(packer.count if m == NEW else m, a[i], b[i], dd[i])
        if progress is not None and n % step == 0:
            progress(n / s.size)
    return Placement.static(pm, s, e)


def checked(plugin, rule: PmChoice) -> tuple[Callable[[Fit], int], Callable[[Requests], np.ndarray] | None]:
    """``rule``'s choice (and its order key, if not a named order) through the plug-in guard: an exception, a
    PM that does not fit (constraint (1a)) or a non-PM fails the run naming ``plugin`` and the request."""
    from schedulers.plugins import index_in, invalid, keys_of, reraise

    choose = rule.choose

    def choice(fit: Fit) -> int:
        try:
            m = choose(fit)
        except BaseException:
            reraise(plugin, "PM choice")
        n = fit.peak.size
        if not index_in(m, NEW, n):
            raise invalid(plugin, "PM choice", f"request {fit.request}: answered {m!r}; allowed: an open PM "
                          f"0…{n - 1} or NEW (−1)" if n else f"request {fit.request}: answered {m!r}; allowed: "
                          "NEW (−1), no PM is open yet")  # fmt: skip
        if m != NEW and fit.peak[m] + fit.demand > fit.capacity:
            raise invalid(plugin, "PM choice", f"request {fit.request} (demand {fit.demand}) on PM {m} would "
                          f"over-fill it: {int(fit.peak[m]) + fit.demand} > capacity {fit.capacity}")  # fmt: skip
        return int(m)

    if not callable(rule.order):
        return choice, None
    key = rule.order

    def ask(requests: Requests) -> np.ndarray:
        try:
            got = key(requests)
        except BaseException:
            reraise(plugin, "request order")
        return keys_of(plugin, "request order", got, len(requests), "the pool's request order", "request")

    return choice, ask


ORDERS = ("llif", "ffd", "est", "mffde")
