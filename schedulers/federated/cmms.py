"""Cloud min-min scheduling (CMMS, Section 5.1.2, Alg. 3) and its dynamic form DCMMS (Section 5.1.4).

Alg. 3: keep the mappable set (tasks whose predecessors are all assigned); for each
mappable task find the cloud with the earliest estimated finish (lines 4-8), assign the
task-cloud pair with the overall earliest finish (lines 9-11), update the set (line 12).
CMMS ranks by eq. 5, DCMMS by eq. 8 with the feedback factor.

Readings: ties go to the lower task index, then the lower cloud index.

Implementation: a mappable task's input-ready time and its ``(1 + fd)(S_l/b + ETM)`` do
not change while its application is assigned; only the chosen cloud's slot tables do. So
each step redoes, for every mappable task, only the chosen cloud's slot-table look-up, and
keeps each task's best cloud so that the pair with the earliest finish is one ``min`` over
the tasks. The result is that of recomputing every pair every step, bit for bit.
"""

from __future__ import annotations

import numpy as np

from schedulers.federated.planner import Planner

__all__ = ["cmms_assign"]


def _lead(t: int, row: list[tuple[float, float]]) -> tuple[float, int, int]:
    """(τ, t, c) of the cloud with the earliest τ of task ``t`` (the lowest cloud on ties)."""
    c_best = 0
    for c in range(1, len(row)):
        if row[c][0] < row[c_best][0]:
            c_best = c
    return row[c_best][0], t, c_best


def cmms_assign(planner: Planner, app: int) -> None:
    """Alg. 3 on the application's unplaced tasks."""
    inst = planner.inst
    n_clouds = inst.n_clouds
    clouds = range(n_clouds)
    lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
    succs: dict[int, list[int]] = {}
    missing: dict[int, int] = {}
    for t in range(lo, hi):
        if planner.cloud[t] >= 0:
            continue
        ps = [p for p in planner.preds[t] if planner.cloud[p] < 0]
        missing[t] = len(ps)
        for p in ps:
            succs.setdefault(p, []).append(t)
    is_ar, vms = planner.is_ar, planner.vms
    # per mappable task: [(tau, erat) per cloud], and the parts that stay fixed: ready, cost
    cache: dict[int, list[tuple[float, float]]] = {}
    lead: dict[int, tuple[float, int, int]] = {}  # per mappable task: (its earliest tau, task, cloud)
    fixed: dict[int, tuple[list[float], list[float]]] = {}

    tables = planner.ar_frontiers, planner.frontiers
    fd_rows, image_s = planner.fd, planner.image_s

    def add(t: int) -> None:
        """``planner.estimate(t, c)`` for every cloud, keeping its parts that stay fixed."""
        fd, etm, table = fd_rows[planner.task_home[t]], planner.etm[t], tables[0 if is_ar[t] else 1]
        ready = [planner.ready_est(t, c) for c in clouds]
        cost = [(1.0 + fd[c]) * (image_s + etm[c]) for c in clouds]
        row = []
        for c in clouds:
            if etm[c] == np.inf:
                row.append((np.inf, np.inf))
                continue
            erat = table[c].earliest(vms[t], ready[c], image_s + etm[c])
            row.append((erat + cost[c], erat))
        cache[t] = row
        fixed[t] = ready, cost
        lead[t] = _lead(t, row)

    for t, m in missing.items():
        if m == 0:
            add(t)
    while cache:
        _, best_t, best_c = min(lead.values())  # earliest finish, then lowest task, then cloud
        best = cache[best_t][best_c]
        planner.commit(best_t, best_c, best[1])
        del cache[best_t], fixed[best_t], lead[best_t]
        ar_changed = is_ar[best_t]
        be_table, ar_table = planner.frontiers[best_c], planner.ar_frontiers[best_c]
        for t, row in cache.items():  # only the chosen cloud's slot tables changed
            ready, cost = fixed[t]
            # the chosen cloud cannot run t at all (ETM ∞; its cost may be -∞ or NaN under a
            # negative feedback factor below -1, so the ETM is what is tested)
            if planner.etm[t][best_c] == np.inf or (is_ar[t] and not ar_changed):
                continue
            erat = (ar_table if is_ar[t] else be_table).earliest(
                vms[t], ready[best_c], image_s + planner.etm[t][best_c]
            )
            tau = erat + cost[best_c]
            row[best_c] = (tau, erat)
            old_tau, _, old_c = lead[t]
            if old_c == best_c:
                lead[t] = _lead(t, row)
            elif tau < old_tau or (tau == old_tau and best_c < old_c):
                lead[t] = (tau, t, best_c)
        for s in succs.get(best_t, ()):
            missing[s] -= 1
            if missing[s] == 0:
                add(s)
