"""The ep_jobs family's extension interface: the placement of a job's tasks on servers.

Paper 000 splits the per-job problem in two (Section 4): the *placement* of the N tasks on the M servers
(TaPRA Alg. 1 phases I–III, TaPRA-fast, the baselines Min-Min, MM-GA, GSA) and the *allocation* of
vCPUs to the placed tasks, which OptRA solves in closed form (eq. 16), optimal for any placement
(Theorem 1). A :class:`TaskPlacement` is the first part: ``place(job) -> servers`` returns one server
index per task (a sequence or numpy array of N ints in 0…M−1) for the :class:`~.instance.Instance` ``job``
(``job.loads``, ``job.lam`` λ_ij, ``job.leq`` equivalent loads L_ij (eq. 15), ``job.ecost`` energies
(eq. 8), ``job.e_limit`` E_MAX, ``job.platform.capacity`` and its constraints A, B of eq. 4); the
shares are OptRA's (eq. 16), so the constraints of eq. 4 hold for every placement. Helpers a placement
may call: :func:`~.instance.optra` (shares and JCT of a placement), :func:`~.instance.energy` (eq. 9),
:func:`~.tapra.rec` (Alg. 2, energy repair) and :func:`~.tapra.local_search` (Alg. 1 lines 9–18).

A plug-in runs as an offline per-job algorithm (Section 6.1: one job); the online schedulers compose
the paper's per-job algorithms only (their names are fixed in the schema). An energy above E_MAX is
reported (metric ``energy_limit_met``, the result page's limit check), not refused: the baselines may
exceed it too. An answer that is not N servers fails the run naming the plug-in.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedulers.core.readonly import freeze

__all__ = ["TaskPlacement", "checked", "task_placement"]


@dataclass(frozen=True)
class TaskPlacement:
    """A placement of one job's tasks for ep_jobs (see the module docstring)."""

    place: Callable[[Any], Any]
    description: str = ""


def task_placement(description: str = ""):
    """Decorator: ``@task_placement("…")`` over ``def place(job)`` makes it a :class:`TaskPlacement`."""

    def wrap(place: Callable[[Any], Any]) -> TaskPlacement:
        return TaskPlacement(place, description or (place.__doc__ or place.__name__).strip().splitlines()[0])

    return wrap


def checked(plugin, rule: TaskPlacement) -> Callable[[Any], np.ndarray]:
    """``rule.place`` through the plug-in guard, its answer checked (N integer servers in 0…M−1)."""
    from schedulers.plugins import invalid, reraise

    place = rule.place
    decision = "task placement"

    def placement(job) -> np.ndarray:
        shown = freeze(copy.deepcopy(job), "job")  # its own read-only copy: OptRA's shares come from ``job``
        try:
            got = place(shown)
        except BaseException:
            reraise(plugin, decision)
        n, m = job.n_tasks, job.platform.n_servers
        server = np.asarray(got)
        if server.shape != (n,) or not np.issubdtype(server.dtype, np.integer):
            raise invalid(plugin, decision, f"job {job.job}: {n} integer servers expected (one per task), got "
                          f"{server.dtype} of shape {server.shape}")  # fmt: skip
        bad = np.flatnonzero((server < 0) | (server >= m))
        if bad.size:
            raise invalid(plugin, decision, f"job {job.job}: task {int(bad[0])} on server {int(server[bad[0]])}; "
                          f"allowed: 0…{m - 1}")  # fmt: skip
        return server.astype(np.intp)

    return placement
