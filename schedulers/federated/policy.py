"""The federated family's extension interface: the cloud mapping of a task (docs/extending.md).

When an application arrives, its manager server maps every task to a cloud (Section 5.1, Fig. 2). CLS
(Alg. 2) takes the tasks in the Alg. 1 priority order and gives each the cloud with the earliest
estimated finish τ = ERAT + S_l/b + ETM (eq. 5); DCLS ranks by τ_fd = ERAT + (1 + fd)(S_l/b + ETM)
(eq. 8). A :class:`CloudChoice` replaces that one decision: tasks come in the same order, each once its
predecessors are mapped, and ``choose(task) -> int`` returns the cloud, given a :class:`Task` with the
managers' estimates for every cloud. ``feedback=True`` gives it eq. 8's τ_fd (the factor learnt from
finish times, eqs. 6–7, ``params.alpha``) instead of eq. 5's τ. CLS is the choice ``argmin(task.tau)``
(identical schedules, tests/schedulers/federated/test_policy.py).

What stays the simulator's: the Alg. 1 order, AR entry tasks' admission at their reserved start (tried
in the order of τ, as for CLS: allocate.py), the slot tables, preemption, local mapping (mapping.py).

A choice that is not a cloud, or a cloud the task does not fit (ETM ∞: more VMs than the cloud has), is
an invalid decision: the run fails naming the plug-in and the task.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from schedulers.core.readonly import view
from schedulers.federated.cls import average_times, priority_list
from schedulers.federated.planner import Planner

__all__ = ["CloudChoice", "Task", "choice_assign", "cloud_choice"]


@dataclass(frozen=True, slots=True)
class Task:
    """What a cloud choice sees for one task; the arrays have one entry per cloud (``datacenter.clouds``).

    ``etm``: execution time on each cloud (s; ∞ where the task does not fit); ``erat``: the earliest time
    ``vms`` VMs are free there with the inputs in (s, Section 3.1); ``tau``: the estimated finish, eq. 5
    (or eq. 8 with ``feedback``). ``image_s`` is S_l/b; ``now`` the arrival time of the application.
    """

    task: int
    app: int
    vms: int
    home: int
    ar: bool
    now: float
    image_s: float
    etm: np.ndarray
    erat: np.ndarray
    tau: np.ndarray

    def fits(self) -> np.ndarray:
        """Which clouds can run the task (bool per cloud)."""
        return np.isfinite(self.etm)


@dataclass(frozen=True)
class CloudChoice:
    """A cloud mapping for the federated family (see the module docstring)."""

    choose: Callable[[Task], int]
    description: str = ""
    feedback: bool = False


def cloud_choice(description: str = "", *, feedback: bool = False):
    """Decorator: ``@cloud_choice("…")`` over ``def choose(task)`` makes it a :class:`CloudChoice`."""

    def wrap(choose: Callable[[Task], int]) -> CloudChoice:
        return CloudChoice(choose, description or (choose.__doc__ or choose.__name__).strip().splitlines()[0],
                           feedback)  # fmt: skip

    return wrap


def choice_assign(planner: Planner, app: int, choose: Callable[[Task], int]) -> None:
    """Alg. 2 with ``choose`` as line 3's cloud choice (its answer is checked by ``checked``)."""
    inst = planner.inst
    lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
    preds = [[p - lo for p in planner.preds[t]] for t in range(lo, hi)]
    clouds = range(inst.n_clouds)
    for local in priority_list(preds, average_times(inst.etm[lo:hi])):
        t = lo + local
        if planner.cloud[t] >= 0:
            continue
        est = [planner.estimate(t, c) for c in clouds]
        erat = np.array([e for e, _ in est])
        task = Task(t, planner.task_app[t], planner.vms[t], planner.task_home[t], planner.is_ar[t], planner.now,
                    planner.image_s, view(inst.etm[t], "task.etm"), view(erat, "task.erat"),
                    view(np.array([tau for _, tau in est]), "task.tau"))  # fmt: skip
        c = choose(task)
        planner.commit(t, c, float(erat[c]))


def checked(plugin, rule: CloudChoice) -> Callable[[Task], int]:
    """``rule.choose`` through the plug-in guard: an exception or a cloud the task cannot use fails the run."""
    from schedulers.plugins import index_in, invalid, reraise

    choose = rule.choose

    def choice(task: Task) -> int:
        try:
            c = choose(task)
        except BaseException:
            reraise(plugin, "cloud mapping")
        n = task.etm.size
        if not index_in(c, 0, n):
            raise invalid(plugin, "cloud mapping", f"task {task.task}: answered {c!r}; allowed: a cloud 0…{n - 1}")
        if not np.isfinite(task.etm[c]):
            raise invalid(plugin, "cloud mapping", f"task {task.task} ({task.vms} VMs) does not fit cloud {c}; "
                          f"allowed: {np.flatnonzero(task.fits()).tolist()}")  # fmt: skip
        return int(c)

    return choice
