"""The backfill family's extension interface: the queue order of EASY (docs/extending.md).

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
(identical schedules to ``easy``, tests/schedulers/backfill/test_policy.py).

The two-tier families (KEASY, REASY, MEASY) differ only in Deploy (Alg. 2 lines 7–15) and, through it, in
the reservation of a background head (Alg. 3 lines 14–17): what happens to a job of J_bg picked for the
foreground tier while the fg VMs of its own processors are busy. A :class:`TierChoice` makes that choice
per job: ``deploy(now, job, size, estimate, done, cost) -> KILL | MIGRATE | REFUSE`` ('K' kill and
restart from scratch, 'M' migrate at ``cost`` s of extra work, 'R' leave it where it runs), asked only
for such a job (a job whose own fg VMs are all idle swaps its VMs' priorities, Alg. 2 lines 4–6, and
a queued job is dispatched: no choice there). ``done`` is its work done so far (dedicated seconds), so
``estimate − done`` is its estimated remaining runtime; ``cost`` the scenario's migration cost. Its t_r
in the backfill test (Alg. 1 line 28) follows the answer: the full estimate for a kill, the remaining
estimate + cost for a migration; a refused job is not deployed. A background *head* gets REASY's
reservation (its processors are pinned, Alg. 3 lines 14–17) when the choice refuses it at that pass, and
Alg. 1's (lines 14–21) otherwise. ``TIERS`` holds the papers' three as choices (``keasy`` always kills,
``measy`` always migrates, ``reasy`` always refuses): run as plug-ins they give the built-ins' schedules
exactly (tests/schedulers/backfill/test_tier_choice.py); the built-ins keep their constant mode.
Readings where the paper is silent (it fixes the mode per algorithm): the choice is asked afresh at every
pass where such a job is a candidate (at the head, twice: Step 1 and its reservation), so its answers may
change with time, and the arrival pass then runs the full Steps 1–2 whenever a background job could be a
candidate (keasy._choice_moved); ``done`` is known to the scheduler as the work a job has advanced (the
paper's Fig. 1 example reads it: "J6 advances 3 time units"), the runtime is not.

A choice also takes Step 3's order into the background tier (Alg. 1 lines 33–38: SJF by estimate in the
paper, which names other policies as future work, Section 5): ``background=`` a *static* queue order (the
name of one of ``ORDERS`` or a :class:`QueueOrder` with ``dynamic=False``), keyed once per run; ``"sjf"`` is
the papers'. What stays fixed in the two-tier passes (keasy.py) and is not pluggable: J_q ∪ J_bg in arrival
order for Steps 1–2 (FCFS and the head, as Alg. 1 line 3 says; the incremental arrival pass and the
vectorised candidate scan are built on it), and the per-pass orders (a dynamic Step 3 order would need
keys at every pass; none of the papers' algorithms has one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["KILL", "MIGRATE", "ORDERS", "REFUSE", "TIERS", "Backfill", "Jobs", "QueueOrder", "TierChoice", "backfill_rule",
           "easy_admit", "queue_order", "tier_choice"]  # fmt: skip


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


KILL, MIGRATE, REFUSE = "K", "M", "R"  # a TierChoice's answers (Alg. 2's BackfillType, and MEASY's migration)


@dataclass(frozen=True)
class TierChoice:
    """Deploy's choice for a background job whose own fg VMs are busy (KEASY/REASY/MEASY), and Step 3's order into
    the background tier: a static :class:`QueueOrder` or the name of one of ``ORDERS`` (the module docstring)."""

    deploy: Callable[[float, int, int, float, float, float], str]
    description: str = ""
    background: QueueOrder | str = "sjf"


def tier_choice(description: str = "", *, background: QueueOrder | str = "sjf") -> Callable[..., TierChoice]:
    """Decorator: ``@tier_choice("…")`` over ``def deploy(now, job, size, estimate, done, cost)``."""

    def wrap(deploy: Callable[[float, int, int, float, float, float], str]) -> TierChoice:
        doc = description or (deploy.__doc__ or deploy.__name__).strip().splitlines()[0]
        return TierChoice(deploy, doc, background)

    return wrap


TIERS: dict[str, TierChoice] = {
    "keasy": TierChoice(lambda now, job, size, estimate, done, cost: KILL, "KEASY: kill and restart (Alg. 2 line 11)"),
    "reasy": TierChoice(lambda now, job, size, estimate, done, cost: REFUSE, "REASY: stay pinned (Alg. 2 line 9)"),
    "measy": TierChoice(lambda now, job, size, estimate, done, cost: MIGRATE, "MEASY: migrate (Section 2.3.2)"),
}
