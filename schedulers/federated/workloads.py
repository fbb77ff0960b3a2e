"""Workloads of the ``federated`` family: DAG applications from a generator, an inline list or an SWF trace.

Every workload becomes an :class:`Instance` with flat (CSR) task arrays. Within an
application task indices are a topological order (predecessors come first).

Readings where the paper is silent:

* Random DAG (Section 6.1 says only "a randomly generated DAG"): task ``k > 0`` is an
  extra entry task with probability ``entry_prob``; otherwise it draws 1..``max_preds``
  (uniform, at most the candidates) distinct predecessors uniformly from the previous
  ``window`` tasks.
* Trace grouping (Table 1): jobs sorted by start time are cut into consecutive groups
  of ``group_min..group_max`` jobs (uniform). The LLNL logs have no wait times (−1), so
  the start time is ``submit + max(wait, 0)``; jobs with an unknown (−1) submit,
  runtime or processor count are dropped; the VM count is the allocated processors
  (requested when allocation is missing).
* Home cloud (where the dataset is stored and the client submits, Section 3.1):
  uniform random by default, round robin, or one fixed cloud (e.g. the cluster a
  trace was recorded on: Section 6.1 runs each LLNL log "separately").
* "Loose"/"tight" (Section 6.1): gaps between adjacent application arrivals are
  divided by ``gap_divisor``. Generated and trace workloads start at 0 (a trace's first
  application arrives at 0); inline applications keep the user's list order as their ids
  and the user's times (the earliest arrival stays where it is).
* AR applications (share ``ar_share``) need their entry tasks to start at the required
  time, uniform in [arrival, arrival + ``ar_notice_max_s``] (or = arrival for the
  ``zero_notice_share`` of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedulers.core.swf import SwfError
from schedulers.core.trace_jobs import FirstK, scan
from schedulers.core.traces import trace_file
from schedulers.core.validation import ScenarioError
from schedulers.federated.model import FederatedScenario, GeneratorWorkload, InlineWorkload, TraceWorkload

__all__ = ["Instance", "build_instance", "load_trace_jobs", "random_dags"]


@dataclass
class Instance:
    """One repetition's workload and federation, shared by every algorithm."""

    n_clouds: int
    cloud_names: list[str]
    cloud_vms: np.ndarray  # total VMs per cloud
    app_arrival: np.ndarray
    app_home: np.ndarray
    app_ar: np.ndarray
    app_start: np.ndarray  # required start of AR apps (nan for best-effort)
    app_ptr: np.ndarray  # tasks of app a: app_ptr[a] .. app_ptr[a+1]-1
    task_app: np.ndarray
    task_vms: np.ndarray
    etm: np.ndarray  # (tasks, clouds) seconds; inf where the task does not fit the cloud
    actual: np.ndarray  # (tasks, clouds) what a task really runs; = etm unless estimates are off
    pred_ptr: np.ndarray
    pred_idx: np.ndarray  # global task indices
    image_s: float  # S_i / b
    dataset_s: float  # M_s / S_c
    edge_s: float  # edge data / S_c
    info: dict = field(default_factory=dict)  # a trace's counts (extra.workload of each run)
    _preds: list[list[int]] | None = field(default=None, repr=False)

    @property
    def n_apps(self) -> int:
        return int(self.app_arrival.size)

    @property
    def origin(self) -> float:
        """The first arrival: energy, loads and the makespan count from here (0 unless inline)."""
        return float(self.app_arrival.min()) if self.app_arrival.size else 0.0

    @property
    def n_tasks(self) -> int:
        return int(self.task_app.size)

    def preds(self, t: int) -> np.ndarray:
        return self.pred_idx[self.pred_ptr[t] : self.pred_ptr[t + 1]]

    def pred_lists(self) -> list[list[int]]:
        """Immediate predecessors of every task as Python lists (fast scalar access)."""
        if self._preds is None:
            flat = self.pred_idx.tolist()
            ptr = self.pred_ptr.tolist()
            self._preds = [flat[ptr[t] : ptr[t + 1]] for t in range(self.n_tasks)]
        return self._preds


def random_dags(
    sizes: np.ndarray, rng: np.random.Generator, max_preds: int, entry_prob: float, window: int
) -> tuple[np.ndarray, np.ndarray]:
    """Random DAGs for applications of ``sizes`` tasks, all at once.

    Returns per-task predecessor counts and the flat, per-task sorted *local*
    predecessor indices (tasks are numbered in topological order within their app).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    n = int(sizes.sum())
    local = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    lo = np.maximum(0, local - window)
    cand = local - lo
    entry = (local == 0) | (rng.random(n) < entry_prob)
    count = np.where(entry, 0, 1 + np.floor(rng.random(n) * np.minimum(max_preds, np.maximum(cand, 1))))
    count = count.astype(np.int64)
    keys = rng.random((n, window))
    keys[np.arange(window)[None, :] >= cand[:, None]] = np.inf
    picks = np.argsort(keys, axis=1)[:, :max_preds]
    chosen = np.arange(picks.shape[1])[None, :] < count[:, None]
    big = np.iinfo(np.int64).max
    rows = np.sort(np.where(chosen, lo[:, None] + picks, big), axis=1)
    return count, rows[rows != big]


def _ar_flags(n_apps: int, wl, arrival: np.ndarray, rng: np.random.Generator):
    ar = rng.random(n_apps) < wl.ar_share
    notice = rng.uniform(0.0, wl.ar_notice_max_s, n_apps)
    notice[rng.random(n_apps) < wl.zero_notice_share] = 0.0
    start = np.where(ar, arrival + notice, np.nan)
    return ar, start


def _compress_gaps(arrival: np.ndarray, divisor: float) -> np.ndarray:
    if arrival.size == 0:
        return arrival
    gaps = np.diff(arrival, prepend=arrival[0]) / divisor
    return np.cumsum(gaps)


def _homes(n_apps: int, n_clouds: int, wl, rng: np.random.Generator) -> np.ndarray:
    how = wl.homes
    if how == "fixed":
        return np.full(n_apps, wl.home_cloud)
    if how == "round_robin":
        return np.arange(n_apps) % n_clouds
    return rng.integers(0, n_clouds, n_apps)


def _generator(wl: GeneratorWorkload, n_clouds: int, n_types: int, rng: np.random.Generator):
    sizes = rng.integers(wl.tasks_min, wl.tasks_max + 1, wl.apps)
    arrival = _compress_gaps(np.cumsum(rng.exponential(wl.mean_gap_s, wl.apps)), wl.gap_divisor)
    homes = _homes(wl.apps, n_clouds, wl, rng)
    ar, start = _ar_flags(wl.apps, wl, arrival, rng)
    n = int(sizes.sum())
    runtime = rng.uniform(wl.runtime_min_s, wl.runtime_max_s, n)
    max_exp = int(np.floor(np.log2(wl.vms_max)))
    vms = 2 ** rng.integers(0, max_exp + 1, n)
    types = rng.integers(0, n_types, n) if n_types else None
    dags = random_dags(sizes, rng, wl.max_preds, wl.entry_prob, wl.window)
    return arrival, homes, ar, start, sizes, runtime, vms, types, dags, None


def _inline(wl: InlineWorkload):
    """The user's applications in the user's order (app ``a`` is ``workload.jobs[a]``) at the user's times.

    ``gap_divisor`` scales every arrival's distance from the earliest one (the same as dividing
    the gaps between adjacent arrivals); an AR application keeps its notice.
    """
    jobs = wl.jobs
    given = np.array([j.arrival for j in jobs], dtype=float)
    first = float(given.min())
    arrival = first + (given - first) / wl.gap_divisor
    shift = arrival - given
    homes = np.array([j.home for j in jobs], dtype=int)
    ar = np.array([j.ar for j in jobs], dtype=bool)
    start = np.array(
        [
            (j.start if j.start is not None else j.arrival) + s if j.ar else np.nan
            for j, s in zip(jobs, shift, strict=True)
        ]
    )
    sizes = np.array([len(j.tasks) for j in jobs], dtype=int)
    tasks = [t for j in jobs for t in j.tasks]
    runtime = np.array([t.runtime_s for t in tasks], dtype=float)
    given_error = np.array([(t.actual_runtime_s or t.runtime_s) / t.runtime_s for t in tasks])
    vms = np.array([t.vms for t in tasks], dtype=int)
    types = np.array([t.type if t.type is not None else -1 for t in tasks], dtype=int)
    counts = np.array([len(t.preds) for t in tasks], dtype=np.int64)
    flat = np.array([p for t in tasks for p in sorted(t.preds)], dtype=np.int64)
    dags = (counts, flat)
    return arrival, homes, ar, start, sizes, runtime, vms, types, dags, given_error


def _usable_jobs(blocks, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, runtime, vms) of the first ``k`` usable jobs by start time (all when ``k`` is None)."""
    first = FirstK(k)
    for block in blocks:
        c = block.columns
        procs = np.where(c["alloc_procs"] > 0, c["alloc_procs"], c["req_procs"])
        ok = (c["submit"] >= 0) & (c["run_time"] > 0) & (procs > 0)
        first.offer(c["submit"][ok] + np.maximum(c["wait"][ok], 0.0), runtime=c["run_time"][ok], procs=procs[ok])
    start, runtime, procs = first.result("runtime", "procs")
    return start, runtime, procs.astype(int)


def load_trace_jobs(wl: TraceWorkload) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, runtime, vms) of the usable jobs of the trace, sorted by start time (Table 1).

    Only the first ``skip_jobs + max_jobs`` by start are kept while the trace is read (a later line
    may start earlier, so it is read to the end); a file is scanned once per process and selection
    (several scenarios of a preset share it).
    """
    field = "workload.swf" if wl.swf is not None else "workload.trace" if wl.trace is not None else "workload.path"
    try:
        source = wl.swf if wl.swf is not None else trace_file(wl.trace) if wl.trace is not None else Path(wl.path)
        start, runtime, vms = scan(source, _usable_jobs, wl.skip_jobs + wl.max_jobs)
    except OSError as exc:
        raise ScenarioError.single(field, f"cannot read the trace: {exc.strerror}", "a readable SWF file") from None
    except SwfError as exc:
        raise ScenarioError.single(field, f"cannot read the trace: {exc}", "a readable SWF file") from None
    start, runtime, vms = start[wl.skip_jobs :], runtime[wl.skip_jobs :], vms[wl.skip_jobs :]
    if start.size == 0:
        raise ScenarioError.single(field, "no usable jobs (known submit, runtime > 0, processors > 0)", "≥ 1 job")
    return start, runtime, vms


def _trace(wl: TraceWorkload, n_clouds: int, rng: np.random.Generator, cap: int, info: dict):
    start_t, runtime, vms = load_trace_jobs(wl)
    wide = vms > cap
    dropped = int(np.count_nonzero(wide))
    if dropped and wl.wider_jobs != "drop":  # check() refuses these; never drop without a word
        raise ScenarioError.single("workload.wider_jobs", f"{dropped} jobs wider than the largest cloud's {cap} "
                                   "VMs", "drop, to leave them out")  # fmt: skip
    if dropped:
        start_t, runtime, vms = start_t[~wide], runtime[~wide], vms[~wide]
        if start_t.size == 0:
            raise ScenarioError.single("workload.wider_jobs", f"every one of the {dropped} jobs is wider than "
                                       f"the largest cloud's {cap} VMs", "a cloud as wide as the trace's jobs")  # fmt: skip
    info.update({"jobs": int(start_t.size), "dropped_too_large": dropped, "processors": cap, "unit": "VMs",
                 "wider_jobs": wl.wider_jobs})  # fmt: skip
    n = start_t.size
    sizes_list = []
    total = 0
    while total < n:
        s = int(rng.integers(wl.group_min, wl.group_max + 1))
        s = min(s, n - total)
        sizes_list.append(s)
        total += s
    sizes = np.array(sizes_list, dtype=int)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    arrival = start_t[first] - (start_t[0] if n else 0.0)
    arrival = _compress_gaps(arrival, wl.gap_divisor)
    runtime = runtime * wl.reference_perf
    homes = _homes(sizes.size, n_clouds, wl, rng)
    ar, start = _ar_flags(sizes.size, wl, arrival, rng)
    dags = random_dags(sizes, rng, wl.max_preds, wl.entry_prob, wl.window)
    return arrival, homes, ar, start, sizes, runtime, vms, None, dags, None


def build_instance(cfg: FederatedScenario, rng: np.random.Generator) -> Instance:
    """Build the repetition's :class:`Instance` from the ``workload`` stream ``rng``."""
    dc, wl = cfg.datacenter, cfg.workload
    n_clouds = len(dc.clouds)
    etm_table = np.asarray(dc.etm, dtype=float) if dc.etm else None
    n_types = 0 if etm_table is None else etm_table.shape[0]
    info: dict = {}  # a trace's jobs: how many were used, and left out as wider than every cloud
    if isinstance(wl, GeneratorWorkload):
        arrival, homes, ar, start, sizes, runtime, vms, types, dags, error = _generator(wl, n_clouds, n_types, rng)
    elif isinstance(wl, InlineWorkload):
        arrival, homes, ar, start, sizes, runtime, vms, types, dags, error = _inline(wl)
    else:
        cap = max(c.servers * c.server_capacity for c in dc.clouds)
        arrival, homes, ar, start, sizes, runtime, vms, types, dags, error = _trace(wl, n_clouds, rng, cap, info)
    perf = np.array([c.perf for c in dc.clouds], dtype=float)
    cloud_vms = np.array([c.servers * c.server_capacity for c in dc.clouds], dtype=np.int64)
    etm = runtime[:, None] / perf[None, :]
    if etm_table is not None and types is not None:
        typed = types >= 0
        etm[typed] = etm_table[types[typed]]
    etm = np.where(vms[:, None] <= cloud_vms[None, :], etm, np.inf)
    task_ar = np.repeat(np.asarray(ar, dtype=bool), sizes)
    if error is None:
        error = np.ones(etm.shape[0])
    if wl.runtime_error > 0:  # drawn last: the rest of the instance does not depend on it
        sigma = wl.runtime_error
        error = error * np.exp(sigma * rng.standard_normal(etm.shape[0]) - sigma**2 / 2)
    slow = 1.0 + np.array([c.contention for c in dc.clouds], dtype=float)
    actual = np.where(task_ar[:, None], etm, etm * error[:, None] * slow[None, :])
    app_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    task_app = np.repeat(np.arange(sizes.size), sizes)
    pred_counts, pred_local = dags
    pred_ptr = np.concatenate([[0], np.cumsum(pred_counts)]).astype(np.int64)
    pred_idx = pred_local + np.repeat(app_ptr[task_app], pred_counts)
    gbit = dc.inter_cloud_gbps / 8.0  # GB/s
    return Instance(
        n_clouds=n_clouds,
        cloud_names=[c.name for c in dc.clouds],
        cloud_vms=cloud_vms,
        app_arrival=np.asarray(arrival, dtype=float),
        app_home=np.asarray(homes, dtype=np.int64),
        app_ar=np.asarray(ar, dtype=bool),
        app_start=np.asarray(start, dtype=float),
        app_ptr=app_ptr,
        task_app=task_app.astype(np.int64),
        task_vms=np.asarray(vms, dtype=np.int64),
        etm=etm,
        actual=actual,
        pred_ptr=pred_ptr,
        pred_idx=pred_idx,
        image_s=wl.image_size_gb / dc.intra_cloud_gbytes_s,
        dataset_s=wl.dataset_size_gb / gbit,
        edge_s=wl.edge_data_gb / gbit,
        info=info,
    )
