"""Hosts, VMs, DVFS levels and the host power model of the ``dvfs_bot`` family.

Host power model (paper 002 leaves it open beyond "the power of a host is a
function of the frequency level of each of its cores" and the IBM x3250 M3
SPECpower measurements of Section V):

* A host whose VMs are all idle is suspended and draws ``suspended_power_w``
  (default 0 W, Section III: "hosts that are not in use ... are suspended").
* A host that is on draws ``P_table(u)``, the SPECpower table of its type
  (CloudSim's piecewise-linear interpolation, docs/workload-models.md §7.1), at the load
  ``u = Σ_busy cores w(l) / cores``, where a busy core at working level ``l``
  counts ``w(l) = (V_l / V_max)² · f_l / f_max`` of a full core (the C·V²·f
  dynamic power of docs/workload-models.md §7.2 relative to the top level; ``dvfs_power_weight
  = "f"`` uses ``f_l / f_max`` instead, the MIPS-utilisation reading of CloudSim).
  Idle cores of a running host add nothing beyond the table's 0 % value.
  With every busy core at the top level this is exactly the measured table, so
  the measurements are kept and DVFS only moves a core down the curve.
* A two-point table ``[P_idle, P_max]`` turns this into core.power.DvfsPower's
  linear model (``P_static + Σ C·V²·f``) with a 0 W idle core.
* Only ratios of the DVFS table enter the model, so the default Pentium M
  operating points (the one confirmed table) give the relative curve; users
  enter their own operating points and power tables per host type.
* Frequency changes take no time (Section III).

Energy ranks (Section IV): by default host types are ranked by full-load watts
per core-GHz, the most efficient type 0; equal values share a rank.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from schedulers.core.power import SPECPOWER_TABLES, TablePower
from schedulers.dvfs_bot.model import DatacenterModel

__all__ = ["Datacenter", "build_datacenter", "power_timeline"]


@dataclass
class Datacenter:
    """Per-VM and per-type arrays. Levels of a type are sorted by frequency, lowest first."""

    vm_host: np.ndarray  # host index of each VM
    vm_type: np.ndarray  # host type of each VM
    vm_rank: np.ndarray  # energy rank of each VM's host
    host_type: np.ndarray  # type of each host
    cores: np.ndarray  # per type
    speeds: list[np.ndarray]  # per type: f_l / f_max, ascending, last = 1
    freq_ghz: list[np.ndarray]  # per type
    weights: list[np.ndarray]  # per type: load w(l) of one busy core
    tables: list[TablePower]  # per type: watts at evenly spaced loads
    suspended_w: float
    type_names: list[str]

    @property
    def n_vms(self) -> int:
        return int(self.vm_host.size)

    @property
    def n_hosts(self) -> int:
        return int(self.host_type.size)

    @property
    def homogeneous(self) -> bool:
        return len(self.speeds) == 1

    def host_power(self, type_index: int, load: np.ndarray) -> np.ndarray:
        """Watts of running hosts of one type at loads in [0, 1]."""
        return np.asarray(self.tables[type_index].power(np.clip(load, 0.0, 1.0)), dtype=float)


def _ranks(dc: DatacenterModel) -> list[int]:
    given = [ht.energy_rank for ht in dc.host_types]
    if all(r is not None for r in given):
        return [int(r) for r in given]  # type: ignore[arg-type]
    eff = []
    for ht in dc.host_types:
        table = ht.power_watts or SPECPOWER_TABLES[ht.power_table]
        eff.append(round(table[-1] / (ht.cores * max(lv.freq_ghz for lv in ht.dvfs_levels)), 9))
    order = sorted(set(eff))
    return [r if r is not None else min(order.index(e), 9) for r, e in zip(given, eff, strict=True)]


def _spread_hosts(free: list[int]) -> np.ndarray:
    """CloudSim's VmAllocationPolicySimple: each VM to the host with most free cores (first on ties)."""
    heap = [(-f, h) for h, f in enumerate(free) if f > 0]
    heapq.heapify(heap)
    out = []
    while heap:
        f, h = heapq.heappop(heap)
        out.append(h)
        if f + 1 < 0:
            heapq.heappush(heap, (f + 1, h))
    return np.asarray(out, dtype=np.int64)


def build_datacenter(dc: DatacenterModel) -> Datacenter:
    ranks = _ranks(dc)
    host_type = np.concatenate([np.full(ht.count, i, dtype=np.int64) for i, ht in enumerate(dc.host_types)])
    cores = np.array([ht.cores for ht in dc.host_types], dtype=np.int64)
    per_host = cores[host_type]
    if dc.vm_order == "packed":
        vm_host = np.repeat(np.arange(host_type.size), per_host)
    else:
        vm_host = _spread_hosts(per_host.tolist())
    speeds, freqs, weights, tables = [], [], [], []
    for ht in dc.host_types:
        levels = sorted(ht.dvfs_levels, key=lambda lv: lv.freq_ghz)
        f = np.array([lv.freq_ghz for lv in levels])
        v = np.array([lv.voltage_v for lv in levels])
        speeds.append(f / f[-1])
        freqs.append(f)
        weights.append((v / v[-1]) ** 2 * f / f[-1] if dc.dvfs_power_weight == "v2f" else f / f[-1])
        tables.append(TablePower(tuple(ht.power_watts or SPECPOWER_TABLES[ht.power_table])))
    vm_type = host_type[vm_host]
    return Datacenter(
        vm_host=vm_host,
        vm_type=vm_type,
        vm_rank=np.asarray(ranks, dtype=np.int64)[vm_type],
        host_type=host_type,
        cores=cores,
        speeds=speeds,
        freq_ghz=freqs,
        weights=weights,
        tables=tables,
        suspended_w=float(dc.suspended_power_w),
        type_names=[ht.name for ht in dc.host_types],
    )


def power_timeline(
    dc: Datacenter, seg_vm: np.ndarray, seg_start: np.ndarray, seg_end: np.ndarray, seg_level: np.ndarray, t_end: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Data-centre power and number of running hosts as step functions on ``[0, t_end]``.

    Returns ``(t, power_w, active_hosts)``; ``power_w[k]`` holds on ``[t[k], t[k+1])``
    and the last point is ``t_end``. Built from per-host load changes in
    O(S log S) for S segments, never per host × time step.
    """
    host = dc.vm_host[seg_vm]
    htype = dc.host_type[host]
    w = np.zeros(seg_vm.size)
    for i in range(len(dc.speeds)):
        sel = htype == i
        w[sel] = dc.weights[i][seg_level[sel]] / dc.cores[i]
    base = dc.suspended_w * dc.n_hosts
    if seg_vm.size == 0:
        t = np.array([0.0, max(t_end, 0.0)])
        return t, np.full(2, base), np.zeros(2)
    h = np.concatenate([host, host])
    t = np.concatenate([seg_start, seg_end])
    dw = np.concatenate([w, -w])
    dn = np.concatenate([np.ones(host.size, np.int64), -np.ones(host.size, np.int64)])
    order = np.lexsort((t, h))
    h, t, dw, dn = h[order], t[order], dw[order], dn[order]
    n_busy = np.cumsum(dn)  # exact: returns to 0 at the end of every host's events
    load = np.cumsum(dw)
    host_first = np.r_[True, h[1:] != h[:-1]]
    offset = np.maximum.accumulate(np.where(host_first, np.arange(h.size), 0))
    load = load - np.r_[0.0, load][offset]  # restart the float sum at each host
    last = np.r_[(h[1:] != h[:-1]) | (t[1:] != t[:-1]), True]  # state after a (host, t) group
    h, t, n_busy, load = h[last], t[last], n_busy[last], load[last]
    on = n_busy > 0
    power = np.full(h.size, dc.suspended_w)
    types = dc.host_type[h]
    for i in range(len(dc.tables)):
        sel = on & (types == i)
        power[sel] = dc.host_power(i, load[sel])
    first = np.r_[True, h[1:] != h[:-1]]
    prev_power = np.where(first, dc.suspended_w, np.r_[0.0, power[:-1]])
    prev_on = np.where(first, False, np.r_[False, on[:-1]])
    d_power = power - prev_power
    d_on = on.astype(np.int64) - prev_on.astype(np.int64)
    order = np.argsort(t, kind="stable")
    t, d_power, d_on = t[order], d_power[order], d_on[order]
    p_level = base + np.cumsum(d_power)
    a_level = np.cumsum(d_on)
    keep = np.r_[t[1:] != t[:-1], True]
    t, p_level, a_level = t[keep], p_level[keep], a_level[keep]
    if t[0] > 0:
        t, p_level, a_level = np.r_[0.0, t], np.r_[base, p_level], np.r_[0, a_level]
    if t_end > t[-1]:
        t, p_level, a_level = np.r_[t, t_end], np.r_[p_level, base], np.r_[a_level, 0]
    p_level[-1], a_level[-1] = base, 0
    return t, p_level, a_level.astype(float)
