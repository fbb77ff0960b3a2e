"""The dvfs_bot family's extension interface: the VM and frequency choice per task.

Alg. 1 of paper 002 places the tasks of a job one by one at its submission: every VM gets the lowest
working frequency level that meets every deadline of its queue with the task inserted (lines 9–12,
22–23; −1 if none) and a score (lines 13–30); the task goes to the first VM with the highest positive
score (lines 34–39), else the job is rejected (lines 41–43). A :class:`VmChoice` replaces lines 34–39:
``choose(task)`` gets a :class:`Task` (per-VM arrays of that moment) and returns the VM, or ``(VM,
level)`` to run it faster than needed, or ``REJECT`` (−1) to reject the job. The simulator keeps the
rest: queue insertion by deadline, the frequency applied to the VM's whole queue (line 37), hosts
waking, the rollback of a rejected job's placed tasks. Alg. 1 is the choice ``argmax(task.score)`` when
positive (identical schedules, tests/schedulers/dvfs_bot/test_policy.py).

A choice of a VM that cannot meet the deadlines (``task.level[v] < 0``), of a level below ``task.level[v]``
or above the VM's top level, or of no VM, is an invalid decision: the run fails naming the plug-in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["REJECT", "Task", "VmChoice", "checked", "vm_choice"]

REJECT = -1


@dataclass(frozen=True, slots=True)
class Task:
    """One task of a job at its submission (arrays: one entry per VM of the data centre).

    ``level``: the lowest working level (0 = lowest frequency) meeting every deadline of the VM's queue with
    the task, −1 if none; ``top``: the VM's highest level; ``current``: its level now (−1 idle); ``busy``:
    it runs a task; ``host_on``: its host runs some VM; ``energy_rank``: its host's energy rank (0 = most
    efficient); ``score``: Alg. 1's score (lines 13–30, −1 = infeasible). ``work`` is the task's estimated
    runtime at the top frequency (s), ``deadline`` the job's (s).
    """

    job: int
    task: int
    now: float
    work: float
    deadline: float
    level: np.ndarray
    top: np.ndarray
    current: np.ndarray
    busy: np.ndarray
    host_on: np.ndarray
    energy_rank: np.ndarray
    score: np.ndarray


@dataclass(frozen=True)
class VmChoice:
    """A VM (and frequency) choice for dvfs_bot (see the module docstring)."""

    choose: Callable[[Task], int | tuple[int, int]]
    description: str = ""


def vm_choice(description: str = ""):
    """Decorator: ``@vm_choice("…")`` over ``def choose(task)`` makes it a :class:`VmChoice`."""

    def wrap(choose: Callable[[Task], int | tuple[int, int]]) -> VmChoice:
        return VmChoice(choose, description or (choose.__doc__ or choose.__name__).strip().splitlines()[0])

    return wrap


def checked(plugin, rule: VmChoice) -> Callable[[Task], tuple[int, int]]:
    """``rule.choose`` through the plug-in guard, its answer checked: ``(vm, level)`` or ``(REJECT, -1)``."""
    from schedulers.plugins import index_in, invalid, reraise

    choose = rule.choose
    decision = "VM and frequency choice"

    def choice(task: Task) -> tuple[int, int]:
        try:
            got = choose(task)
        except BaseException:
            reraise(plugin, decision)
        v, lv = got if isinstance(got, tuple) and len(got) == 2 else (got, None)
        n, at = task.level.size, f"job {task.job}, task {task.task}"
        if not index_in(v, REJECT, n):
            raise invalid(plugin, decision, f"{at}: answered {got!r}; allowed: a VM 0…{n - 1}, (VM, level) or REJECT")
        if v == REJECT:
            return REJECT, -1
        need = int(task.level[v])
        if need < 0:
            raise invalid(plugin, decision, f"{at}: VM {v} cannot meet the deadlines at any frequency")
        lv = need if lv is None else lv
        if not isinstance(lv, (int, np.integer)) or not need <= lv <= int(task.top[v]):
            raise invalid(plugin, decision, f"{at}: level {lv!r} on VM {v}; allowed: {need}…{int(task.top[v])}")
        return int(v), int(lv)

    return choice
