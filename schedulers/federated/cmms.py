"""Cloud min-min scheduling (CMMS, Section 5.1.2, Alg. 3) and its dynamic form DCMMS (Section 5.1.4).

Alg. 3: keep the mappable set (tasks whose predecessors are all assigned); for each
mappable task find the cloud with the earliest estimated finish (lines 4-8), assign the
task-cloud pair with the overall earliest finish (lines 9-11), update the set (line 12).
CMMS ranks by eq. 5, DCMMS by eq. 8 with the feedback factor.

Readings: ties go to the lower task index, then the lower cloud index. Only the chosen
cloud's slot table changes in a step, so the other clouds' estimates are cached (the
result is the same as recomputing every pair every step).
"""

from __future__ import annotations

import numpy as np

from schedulers.federated.planner import Planner

__all__ = ["cmms_assign"]


def cmms_assign(planner: Planner, app: int) -> None:
    """Alg. 3 on the application's unplaced tasks."""
    inst = planner.inst
    n_clouds = inst.n_clouds
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
    # cache[t] = [(tau, erat) per cloud]
    cache: dict[int, list[tuple[float, float]]] = {}

    def add(t: int) -> None:
        cache[t] = [planner.estimate(t, c)[::-1] for c in range(n_clouds)]

    for t, m in missing.items():
        if m == 0:
            add(t)
    while cache:
        best_t, best_c, best = -1, -1, (np.inf, np.inf)
        for t in sorted(cache):
            row = cache[t]
            for c in range(n_clouds):
                if row[c][0] < best[0]:
                    best_t, best_c, best = t, c, row[c]
        planner.commit(best_t, best_c, best[1])
        del cache[best_t]
        ar_changed = planner.is_ar[best_t]
        for t in cache:  # only the chosen cloud's slot tables changed
            if ar_changed or not planner.is_ar[t]:
                cache[t][best_c] = planner.estimate(t, best_c)[::-1]
        for s in succs.get(best_t, ()):
            missing[s] -= 1
            if missing[s] == 0:
                add(s)
