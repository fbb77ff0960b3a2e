"""Building a repetition's instance: requests from a generator, an inline list or an SWF trace.

Synthetic generator (Section 5.3): Poisson arrivals (exponential inter-arrival
times, mean 5 slots) and exponential durations capped at a maximum duration
(50…800 slots); VM types drawn from the catalogue. Readings: the paper gives
only the cap, so the exponential's mean is a parameter (default half the cap)
and it is *truncated* at the cap (inverse-CDF draw on [0, cap], no re-draws);
an arrival at time x starts in slot ⌊x⌋; durations are ⌈x⌉ ≥ 1 slots.

SWF traces (Section 5.4): start = submit + wait (wait −1 counts as 0), duration
= run time, both turned into slots of ``slot_minutes`` (1 min in the paper) with
⌈run / slot⌉ ≥ 1 slots; slot 0 is the earliest start among the requests taken.
The processor count (allocated, or requested when allocated is −1) picks the VM
type (``proc_mapping``). Jobs with run time ≤ 0, no processor count or no submit
time are skipped; the first ``n_requests`` usable jobs after ``skip`` are taken
in file order (the trace is read only that far).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedulers.core.trace_jobs import concat, scan
from schedulers.core.traces import trace_file
from schedulers.vm_reservations.model import (
    GeneratorWorkload,
    JobsWorkload,
    Scenario,
    TraceWorkload,
    integer_scale,
)

__all__ = ["Instance", "Pool", "build_instance", "generate", "map_processors"]


@dataclass
class Pool:
    """The requests hosted by one PM type: an independent MinTEC instance with capacity g."""

    name: str
    g: int  # capacity in integer units (cpu × scale)
    scale: int
    p_min_w: float
    p_max_w: float
    ids: np.ndarray  # global request indices
    s: np.ndarray
    e: np.ndarray
    d: np.ndarray  # demand in integer units


@dataclass
class Instance:
    start: np.ndarray  # slots
    end: np.ndarray
    vm: np.ndarray  # index into vm_names
    vm_names: list[str]
    vm_cpu: np.ndarray
    pools: list[Pool]

    def __len__(self) -> int:
        return int(self.start.size)


def generate(wl: GeneratorWorkload, n_types: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Section 5.3 synthetic requests: (start, end, vm type index)."""
    n = wl.n_requests
    arrivals = np.floor(np.cumsum(rng.exponential(wl.mean_interarrival_slots, n))).astype(np.int64)
    cap = float(wl.max_duration_slots)
    mean = wl.mean_duration_slots or cap / 2.0
    u = rng.random(n)
    x = -mean * np.log1p(-u * -np.expm1(-cap / mean))
    dur = np.clip(np.ceil(x), 1, cap).astype(np.int64)
    weights = np.asarray(wl.vm_type_weights if wl.vm_type_weights else [1.0] * n_types, dtype=float)
    vm = rng.choice(n_types, size=n, p=weights / weights.sum())
    return arrivals, arrivals + dur, vm.astype(np.int64)


def map_processors(procs: np.ndarray, vm_cpu: np.ndarray, mode: str) -> np.ndarray:
    """Processor counts → VM type indices (nearest CPU units, ties to the smaller; or modulo)."""
    procs = procs.astype(np.int64)
    if mode == "modulo":
        return (procs - 1) % vm_cpu.size
    by_cpu = np.lexsort((np.arange(vm_cpu.size), vm_cpu))
    sorted_cpu = vm_cpu[by_cpu]
    hi = np.clip(np.searchsorted(sorted_cpu, procs), 0, vm_cpu.size - 1)
    lo = np.clip(hi - 1, 0, None)
    pick_lo = np.abs(procs - sorted_cpu[lo]) <= np.abs(sorted_cpu[hi] - procs)
    return by_cpu[np.where(pick_lo, lo, hi)]


def _usable(blocks, skip: int, n: int) -> tuple[np.ndarray, ...]:
    """(submit, wait, run time, processors) of usable jobs ``skip .. skip + n`` in file order; reading
    stops at the last one taken."""
    parts, seen = [], 0
    for block in blocks:
        c = block.columns
        procs = np.where(c["alloc_procs"] > 0, c["alloc_procs"], c["req_procs"])
        usable = np.flatnonzero((c["run_time"] > 0) & (procs > 0) & (c["submit"] >= 0))
        take = usable[max(skip - seen, 0) : max(skip + n - seen, 0)]
        seen += usable.size
        parts.append((c["submit"][take], c["wait"][take], c["run_time"][take], procs[take]))
        if seen >= skip + n:
            break
    return concat(parts, 4)


def from_trace(wl: TraceWorkload, slot_minutes: float, vm_cpu: np.ndarray) -> tuple[np.ndarray, ...]:
    path = str(trace_file(wl.trace)) if wl.trace else wl.path
    submit, wait, run_time, procs = scan(Path(path) if path else wl.text or "", _usable, wl.skip, wl.n_requests)
    if submit.size == 0:
        raise ValueError("the trace has no usable job (run time > 0, processors > 0) in the chosen range")
    start_s = submit + np.maximum(wait, 0.0)
    slot_s = slot_minutes * 60.0
    start = np.floor((start_s - start_s.min()) / slot_s).astype(np.int64)
    dur = np.maximum(1, np.ceil(run_time / slot_s - 1e-9)).astype(np.int64)
    return start, start + dur, map_processors(procs, vm_cpu, wl.proc_mapping)


def build_instance(cfg: Scenario, rng: np.random.Generator) -> Instance:
    dc, wl = cfg.datacenter, cfg.workload
    names = [v.name for v in dc.vm_types]
    vm_cpu = np.array([v.cpu for v in dc.vm_types], dtype=float)
    if isinstance(wl, GeneratorWorkload):
        start, end, vm = generate(wl, len(names), rng)
    elif isinstance(wl, JobsWorkload):
        index = {n: i for i, n in enumerate(names)}
        start = np.array([j.start for j in wl.jobs], dtype=np.int64)
        end = np.array([j.end for j in wl.jobs], dtype=np.int64)
        vm = np.array([index[j.vm_type] for j in wl.jobs], dtype=np.int64)
    else:
        start, end, vm = from_trace(wl, dc.slot_minutes, vm_cpu)
    pools = []
    vm_pm = np.array([v.pm_type for v in dc.vm_types])
    for pm in dc.pm_types:
        types = np.flatnonzero(vm_pm == pm.name)
        ids = np.flatnonzero(np.isin(vm, types))
        scale = integer_scale([pm.cpu, *vm_cpu[types].tolist()]) or 1
        d = np.rint(vm_cpu[vm[ids]] * scale).astype(np.int64)
        g = round(pm.cpu * scale)
        pools.append(Pool(pm.name, g, scale, pm.p_min_w, pm.p_max_w, ids, start[ids], end[ids], d))
    return Instance(start, end, vm, names, vm_cpu, pools)
