"""The backfill family's extension interface: the queue order of EASY (issue #27, docs/extending.md).

EASY (paper 001, Section 1 and Alg. 1 Step 2; Lifka 1995, Mu'alem & Feitelson 2001 [14]) starts
queued jobs in order while they fit, gives the first job that does not fit (the *head*) a reservation
at the shadow time, and backfills later jobs that fit now and either end by the shadow time or use
no more than the extra processors. The papers' EASY and FCFS take the queue in arrival order; what
a queue order changes is only which job is the head and in which order the others are tried
(Tsafrir, Etsion & Feitelson 2007 call this the *priority* of EASY; Tang et al. 2009 the *utility*).

A queue order is a function ``key(now, jobs) -> keys``: one number per job of ``jobs`` (a
:class:`Jobs` view of numpy columns), **smallest first**, ties in arrival order (a stable sort, as
Python's ``sorted(key=…)``). A *static* order (``dynamic=False``) does not depend on ``now``: it is
called once with every job of the run and ``now = nan``; a *dynamic* one (waiting times) is called
at every scheduling pass with the jobs waiting then. ``backfill=False`` gives list scheduling in that
order (start while the head fits, like FCFS).

The named parts (``ORDERS``), selectable in a scenario as the algorithms ``easy:<order>``:

- ``fcfs``: arrival order (the papers' EASY; ``easy`` itself runs the specialised loop of easy.py,
  identical schedules, tests/schedulers/backfill/test_policy.py).
- ``sjf`` / ``ljf``: shortest / longest *estimate* first (the scheduler never knows runtimes).
- ``saf``: smallest area first, size × estimate.
- ``wfp3`` (Tang et al. 2009, "Fault-aware, utility-based job scheduling on Blue Gene/P systems",
  IEEE Cluster, Section IV): score = (wait / estimate)³ × size, highest first; wait = now − submit.
- ``unicef`` (same paper): score = wait / (log₂(size) × estimate), highest first. Our reading: log₂ of
  max(size, 2), so a serial job scores as a 2-processor one (the paper's Blue Gene/P partitions hold
  ≥ 512 nodes, where log₂(size) > 0; log₂(1) = 0 would divide by zero).

Both utility scores are 0 for a job that has just arrived, so new jobs sort among themselves in
arrival order and behind any job that has waited.

The backfill decision (:class:`Backfill`, beyond the order): after the head's reservation, EASY starts
a later job that fits now if it ends by the shadow time or uses no more than the extra processors (Alg. 1
Step 2 on one tier). A ``Backfill`` rule replaces that test: ``admit(now, job, size, estimate, shadow,
extra) -> bool`` is asked, in queue order, for every job after the head that fits in the free processors
now (the simulator never starts one that does not: the schedule stays valid whatever the rule answers);
``shadow`` is the head's reservation time and ``extra`` the processors left over then, reduced by each
admitted job that ends after the shadow time. :func:`easy_admit` is EASY's test written as a rule
(identical schedules to ``easy``, tests/schedulers/backfill/test_policy.py). The two-tier families
(KEASY, REASY, MEASY) keep arrival order: their passes (keasy.py) keep J_q ∪ J_bg in arrival order for
the incremental arrival pass and the vectorised candidate scan, and Deploy's kill/migrate choices are
tied to it, so a queue order there is a rewrite of those passes, not a parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ORDERS", "Backfill", "Jobs", "QueueOrder", "backfill_rule", "easy_admit", "queue_order"]


@dataclass(frozen=True)
class Jobs:
    """What a queue order may read about jobs: numpy columns of equal length, in arrival order.

    ``index`` is the job's position in the run (arrival order, from 0); ``submit`` and ``estimate`` are
    seconds (float), ``size`` processors (int). Runtimes are not here: a scheduler knows estimates only.
    ``processors`` is the machine size.
    """

    index: np.ndarray
    submit: np.ndarray
    size: np.ndarray
    estimate: np.ndarray
    processors: int

    def __len__(self) -> int:
        return int(self.index.size)


@dataclass(frozen=True)
class QueueOrder:
    """A queue order for EASY (or list scheduling with ``backfill=False``); see the module docstring."""

    key: Callable[[float, Jobs], Any]
    description: str = ""
    dynamic: bool = False
    backfill: bool = True

    def __call__(self, now: float, jobs: Jobs) -> Any:
        return self.key(now, jobs)


def queue_order(
    description: str = "", *, dynamic: bool = False, backfill: bool = True
) -> Callable[[Callable[[float, Jobs], Any]], QueueOrder]:
    """Decorator: ``@queue_order("…")`` over ``def key(now, jobs)`` makes it a :class:`QueueOrder`."""

    def wrap(key: Callable[[float, Jobs], Any]) -> QueueOrder:
        return QueueOrder(key, description or (key.__doc__ or key.__name__).strip().splitlines()[0], dynamic, backfill)

    return wrap


def _wait(now: float, jobs: Jobs) -> np.ndarray:
    return now - jobs.submit


ORDERS: dict[str, QueueOrder] = {
    "fcfs": QueueOrder(lambda now, j: j.index, "first come, first served (arrival order)"),
    "sjf": QueueOrder(lambda now, j: j.estimate, "shortest estimate first"),
    "ljf": QueueOrder(lambda now, j: -j.estimate, "longest estimate first"),
    "saf": QueueOrder(lambda now, j: j.size * j.estimate, "smallest area (size × estimate) first"),
    "wfp3": QueueOrder(
        lambda now, j: -((_wait(now, j) / j.estimate) ** 3) * j.size,
        "WFP3: highest (wait/estimate)³ × size first (Tang et al. 2009)",
        dynamic=True,
    ),
    "unicef": QueueOrder(
        lambda now, j: -_wait(now, j) / (np.log2(np.maximum(j.size, 2)) * j.estimate),
        "UNICEF: highest wait / (log₂ size × estimate) first (Tang et al. 2009)",
        dynamic=True,
    ),
}


@dataclass(frozen=True)
class Backfill:
    """A backfill rule for EASY: which jobs after the head start now (see the module docstring), in ``order``
    (a :class:`QueueOrder`, or the name of one of ``ORDERS``)."""

    admit: Callable[[float, int, int, float, float, int], bool]
    description: str = ""
    order: QueueOrder | str = "fcfs"


def backfill_rule(description: str = "", *, order: QueueOrder | str = "fcfs") -> Callable[..., Backfill]:
    """Decorator: ``@backfill_rule("…")`` over ``def admit(now, job, size, estimate, shadow, extra)``."""

    def wrap(admit: Callable[[float, int, int, float, float, int], bool]) -> Backfill:
        return Backfill(admit, description or (admit.__doc__ or admit.__name__).strip().splitlines()[0], order)

    return wrap


def easy_admit(now: float, job: int, size: int, estimate: float, shadow: float, extra: int) -> bool:
    """EASY's backfill test (paper 001 Alg. 1 Step 2): the job ends by the shadow time, or fits in the extra."""
    return estimate <= shadow - now or size <= extra
