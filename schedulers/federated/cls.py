"""Cloud list scheduling (CLS, Section 5.1.1, Algs. 1-2) and its dynamic form DCLS (Section 5.1.4).

Alg. 1 ranks the tasks of one application: EST (eq. 2, entry tasks 0), LST (eq. 3),
critical nodes (CN: EST = LST), then a stack walk that lists every task after its
predecessors. Alg. 2 assigns the tasks in that order, each to the cloud with the
earliest estimated finish time: eq. 5 for CLS, eq. 8 (feedback) for DCLS.

Readings where the paper is silent or loose:

* ``AT(v)`` is the mean execution time over the clouds the task fits on.
* Eq. 3 for exit tasks is taken literally, ``LST = EST`` for *every* exit task, so each
  exit task is a CN and every task is an ancestor of some CN (nothing is left unlisted).
* Alg. 1 line 4 pushes CNs in decreasing LST, so the least LST is on top; ties are
  broken by task index (the earlier task on top). Line 6 "un-stacked predecessor" is
  read as "predecessor not yet listed"; a task that reaches the top twice is listed
  once. This keeps the list a topological order even for zero-length tasks.
* AR entry tasks are placed before Alg. 2 runs (they need admission at their reserved
  time, see :mod:`schedulers.federated.allocate`); the walk skips them.
"""

from __future__ import annotations

import numpy as np

from schedulers.federated.planner import Planner

__all__ = ["average_times", "cls_assign", "est_lst", "priority_list"]


def est_lst(preds: list[list[int]], at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """EST (eq. 2) and LST (eq. 3) of a DAG whose task indices are a topological order."""
    n = len(preds)
    succs: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(preds):
        for p in ps:
            succs[p].append(v)
    est = np.zeros(n)
    for v in range(n):
        if preds[v]:
            est[v] = max(est[p] + at[p] for p in preds[v])
    lst = np.zeros(n)
    for v in range(n - 1, -1, -1):
        lst[v] = est[v] if not succs[v] else min(lst[s] for s in succs[v]) - at[v]
    return est, lst


def priority_list(preds: list[list[int]], at: np.ndarray, tol: float = 1e-9) -> list[int]:
    """Alg. 1: the CLS priority list (local task indices) of one application."""
    n = len(preds)
    est, lst = est_lst(preds, at)
    cn = [v for v in range(n) if abs(est[v] - lst[v]) <= tol * max(1.0, abs(est[v]))]
    stack = sorted(cn, key=lambda v: (-lst[v], -v))  # bottom: largest LST; top: least LST
    listed = [False] * n
    out: list[int] = []
    while stack:
        top = stack[-1]
        if listed[top]:
            stack.pop()
            continue
        waiting = [p for p in preds[top] if not listed[p]]
        if waiting:
            stack.append(min(waiting, key=lambda p: (lst[p], p)))
        else:
            out.append(top)
            listed[top] = True
            stack.pop()
    out.extend(v for v in range(n) if not listed[v])  # unreachable with the literal eq. 3
    return out


def average_times(etm: np.ndarray) -> np.ndarray:
    """AT(v): mean execution time over the clouds each task fits on."""
    finite = np.isfinite(etm)
    return np.where(finite, etm, 0.0).sum(axis=1) / np.maximum(finite.sum(axis=1), 1)


def cls_assign(planner: Planner, app: int) -> None:
    """Alg. 2: assign the application's unplaced tasks in Alg. 1 order to the earliest-finish cloud."""
    inst = planner.inst
    lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
    preds = [[p - lo for p in planner.preds[t]] for t in range(lo, hi)]
    order = priority_list(preds, average_times(inst.etm[lo:hi]))
    for local in order:
        t = lo + local
        if planner.cloud[t] >= 0:
            continue
        best = (np.inf, np.inf, -1)
        for c in range(inst.n_clouds):
            erat, tau = planner.estimate(t, c)
            if tau < best[0]:
                best = (tau, erat, c)
        planner.commit(t, best[2], best[1])
