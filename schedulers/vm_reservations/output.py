"""What a vm_reservations run reports from its placements: metrics (eqs. 8–11), series and the schedule's segments.

Energy (eqs. 8–11, Theorem 5), per PM type with α = Pmin and β = Pmax − Pmin: ``E = α·T + β·L`` where T is the total
power-on time (busy spans, idle PMs off) and L = Σ_j u_j·t_j the utilisation-weighted VM time (u_j = d_j / g).
"""

from __future__ import annotations

import numpy as np

from schedulers.core.columns import Columns, coded
from schedulers.core.series import exact_series, step_series
from schedulers.vm_reservations.bound import Placement, busy_intervals, lower_bound_slots
from schedulers.vm_reservations.model import kwh
from schedulers.vm_reservations.workloads import Instance, Pool

__all__ = ["datacenter_pms", "metrics_of", "pool_work", "schedule_of", "series_of"]


def pool_work(pool: Pool) -> float:
    """L of Theorem 5 for one pool, in utilisation × slots."""
    return float(((pool.e - pool.s) * pool.d).sum()) / pool.g


def datacenter_pms(inst: Instance) -> dict[str, str]:
    """The PMs of the data centre, ``{PM name: PM type}``, in natural order: of each type, as many as the
    most of its reservations running at one time (``pm1-1`` … ``pm1-k``).

    The model has "enough PMs of each type"; this is the count that lets every running reservation have a
    PM to itself, which depends on the instance only, so every algorithm of a repetition declares the same
    PMs (the Gantt's rows line up and the PMs no algorithm used have their row). The family's algorithms
    open fewer (first fit and the bound's sweep reuse a PM as soon as it has room); a PM a run opens beyond
    it still has its row (``extra.capacities`` names it, the Gantt's axis is the union with the segments).
    """
    out: dict[str, str] = {}
    for pool in inst.pools:
        times = np.concatenate([pool.s, pool.e])
        steps = np.concatenate([np.ones(pool.s.size, np.int64), -np.ones(pool.e.size, np.int64)])
        order = np.lexsort((steps, times))  # at one slot, ends (−1) before starts: [s, e) intervals
        most = int(np.cumsum(steps[order]).max(initial=0))
        out |= {f"{pool.name}-{m + 1}": pool.name for m in range(most)}
    return out


def metrics_of(inst: Instance, placements: list[Placement], slot_min: float) -> dict[str, float]:
    on = bound = energy = bound_energy = 0.0
    pms = migrations = 0
    for pool, p in zip(inst.pools, placements, strict=True):
        _, s, e = busy_intervals(p)
        t_on = float((e - s).sum())
        t_lb = float(lower_bound_slots(pool.s, pool.e, pool.d, pool.g))
        beta_l = (pool.p_max_w - pool.p_min_w) * pool_work(pool)
        on, bound = on + t_on, bound + t_lb
        energy += pool.p_min_w * t_on + beta_l
        bound_energy += pool.p_min_w * t_lb + beta_l
        pms += p.n_pms if p.job.size else 0
        migrations += p.migrations
    return {
        "energy_kwh": kwh(energy, slot_min),
        "power_on_time_min": on * slot_min,
        "pms_used": int(pms),
        "migrations": int(migrations),
        "lower_bound_power_on_time_min": bound * slot_min,
        "lower_bound_energy_kwh": kwh(bound_energy, slot_min),
        "power_on_ratio_to_bound": on / bound if bound else 1.0,
        "energy_ratio_to_bound": energy / bound_energy if bound_energy else 1.0,
        "requests": len(inst),
    }


def series_of(inst: Instance, placements: list[Placement], slot_min: float) -> dict[str, list[float]]:
    starts, ends, pms, watts = [], [], [], []
    for pool, p in zip(inst.pools, placements, strict=True):
        _, s, e = busy_intervals(p)
        starts += [s, p.start]
        ends += [e, p.end]
        pms += [np.ones(s.size), np.zeros(p.start.size)]
        util = pool.d[p.job] / pool.g
        watts += [np.full(s.size, pool.p_min_w), (pool.p_max_w - pool.p_min_w) * util]
    s, e = np.concatenate(starts) * slot_min, np.concatenate(ends) * slot_min
    t, pms_on = step_series(s, e, np.concatenate(pms))
    _, power = step_series(s, e, np.concatenate(watts))
    tv, level = step_series(inst.start * slot_min, inst.end * slot_min, 1.0)
    idx = np.searchsorted(tv, t, side="right") - 1
    vms = np.where(idx >= 0, level[np.clip(idx, 0, None)], 0.0)  # running VMs on the power grid
    # every change point (t in minutes, energy in J): the stored ∫ power dt is the energy_kwh metric
    return exact_series(
        t, {"pms_on": pms_on, "power_w": power, "running_vms": vms}, power="power_w", seconds_per_unit=60.0
    )


def schedule_of(inst: Instance, placements: list[Placement], slot_min: float) -> tuple[Columns, list]:
    """Segments (per pool, by request then start) as columns, and one record per request."""
    moves = np.zeros(len(inst), dtype=np.int64)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("job", "res", "start", "end", "pool")}
    labels: list[str] = []
    for k, (pool, p) in enumerate(zip(inst.pools, placements, strict=True)):
        gid = pool.ids[p.job]
        np.add.at(moves, gid, 1)
        order = np.lexsort((p.start, gid))
        pm = p.pm[order]
        n_pm = int(pm.max(initial=-1)) + 1
        parts["job"].append(gid[order])
        parts["res"].append(pm + len(labels))
        parts["start"].append(p.start[order] * slot_min)
        parts["end"].append(p.end[order] * slot_min)
        parts["pool"].append(np.full(order.size, k))
        labels += [f"{pool.name}-{m + 1}" for m in range(n_pm)]
    job, res, start, end, pool_of = (np.concatenate(parts[k]) if parts[k] else np.zeros(0, dtype=np.int64)
                                     for k in ("job", "res", "start", "end", "pool"))  # fmt: skip
    job = job.astype(np.int64)
    vm = inst.vm[job]
    names = [str(j) for j in range(len(inst))]
    columns = {
        "job": coded(job, names),
        "task": coded(job, names),
        "resource": coded(res, labels),
        "start": start.astype(float),
        "end": end.astype(float),
        "share": np.asarray(inst.vm_cpu, dtype=float)[vm],
        "kind": coded(np.zeros(job.size, dtype=np.int32), ["vm"]),
        "vm_type": coded(vm, list(inst.vm_names)),
        "pm_type": coded(pool_of.astype(np.int64), [pool.name for pool in inst.pools]),
    }
    # the piece before a move ends "migrated" (an event on the Gantt); only those segments carry the key
    # (code -1 = missing, so the table is sparse)
    moved = np.zeros(job.size, dtype=bool)
    moved[:-1] = (job[:-1] == job[1:]) & (res[:-1] != res[1:])
    if moved.any():
        columns["ended"] = coded(np.where(moved, 0, -1), ["migrated"])
    segments = Columns(columns, sparse=bool(moved.any()))
    first = np.full(len(inst), -1)
    seen, at = np.unique(job, return_index=True)  # the first segment of every request, in segment order
    first[seen] = res.astype(np.int64)[at]
    first_pm = [labels[r] if r >= 0 else "" for r in first.tolist()]
    jobs = [
        {
            "job": str(j),
            "vm_type": inst.vm_names[v],
            "cpu": float(inst.vm_cpu[v]),
            "start_min": s * slot_min,
            "end_min": e * slot_min,
            "pm": first_pm[j],
            "migrations": int(max(k - 1, 0)),
            # a reservation with no segment was never hosted: the contract's "every job accounted for" fails on it
            **({"status": "finished"} if k else {"status": "unfinished", "reason": "no PM hosted it"}),
        }
        for j, (s, e, v, k) in enumerate(
            zip(inst.start.tolist(), inst.end.tolist(), inst.vm.tolist(), moves.tolist(), strict=True)
        )
    ]
    return segments, jobs
