"""Turning a simulation's columns into the result format: metrics, segments, series, job records.

Metrics (Section 3.3): response time t_f − t_a; bounded slowdown
(t_f − t_a) / max(Γ, t_e) with t_e the job's runtime on dedicated processors
and Γ = 10 s; batch-means 95 % half widths over the jobs in arrival order
(``*_ci*``); utilisation = useful processor-seconds Σ size·runtime over
N · (last end − first submit) (killed work and migration overhead are not
useful, so the same definition compares one- and two-tier runs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedulers.core.columns import Columns, coded, schedule_cut, task_of
from schedulers.core.metrics import Metric, batch_means_ci, bounded_slowdown
from schedulers.core.series import exact_series
from schedulers.core.validity import spec
from schedulers.registry import RunOutput

__all__ = ["METRICS", "SUMMARY_METRICS", "Stretches", "assemble"]

SUMMARY_METRICS = (
    "avg_response_time_s",
    "avg_bounded_slowdown",
    "utilization",
    "migrations",
    "kills",
    "avg_wait_s",
    "avg_response_time_ci_s",
    "avg_bounded_slowdown_ci",
)
# Every metric of a run (see assemble), its kind and unit. The _ci metrics are batch-means 95 %
# half-widths within one run (Law & Kelton's method over the jobs in completion order).
_BATCH_CI = "95 % CI within the run (batch means over its jobs)"
METRICS = {
    "avg_response_time_s": Metric("duration", "s", "avg response time", "mean of end − submit over all jobs"),
    "avg_response_time_ci_s": Metric("duration", "s", _BATCH_CI, ci_of="avg_response_time_s"),
    "avg_bounded_slowdown": Metric("ratio", "", "avg bounded slowdown", "mean of max(1, response / max(runtime, Γ))"),
    "avg_bounded_slowdown_ci": Metric("ratio", "", _BATCH_CI, ci_of="avg_bounded_slowdown"),
    "utilization": Metric("fraction", "", "utilization", "useful processor-seconds over processors × span"),
    "avg_wait_s": Metric("duration", "s", "avg wait", "mean of first start − submit"),
    "max_response_time_s": Metric("duration", "s", "max response time"),
    "makespan_s": Metric("duration", "s", "makespan", "last end − first submit"),
    "migrations": Metric("count", "", "migrations", "jobs moved between VM tiers"),
    "kills": Metric("count", "", "kills", "background jobs killed and restarted"),
    "swaps": Metric("count", "", "swaps", "foreground/background tier swaps"),
    "wasted_work_s": Metric("duration", "s", "wasted work", "progress lost to kills"),
    "jobs": Metric("count", "", "jobs"),
    "processors": Metric("count", "", "processors"),
    "max_queue_length": Metric("count", "", "max queue length", "most jobs waiting at once"),
}


class Stretches:
    """Columnar record of (job, start, end, tier, rate, processors) stretches of a run."""

    __slots__ = ("end", "ended", "job", "procs", "rate", "start", "tier")

    def __init__(self) -> None:
        self.job: list[int] = []
        self.start: list[float] = []
        self.end: list[float] = []
        self.tier: list[str] = []
        self.rate: list[float] = []
        self.procs: list[Any] = []
        self.ended: dict[int, str] = {}  # stretch index → "killed" / "migrated" (a KEASY kill, a MEASY move)

    def end_last(self, job: int, now: float, reason: str) -> None:
        """``job``'s stretch ending at ``now`` ended by ``reason`` (an event on the Gantt).

        Stretches closed at ``now`` are the last ones recorded, so the search stops at the first earlier end.
        """
        k = len(self.job) - 1
        while k >= 0 and self.end[k] == now:
            if self.job[k] == job:
                self.ended[k] = reason
                return
            k -= 1

    def add(self, job: int, start: float, end: float, tier: str, rate: float, procs) -> None:
        if end > start:
            self.job.append(job)
            self.start.append(start)
            self.end.append(end)
            self.tier.append(tier)
            self.rate.append(rate)
            self.procs.append(procs)


def _segments(inst, st: Stretches, limit: int | None, extra: dict[str, Any]) -> Columns:
    """One segment per processor of every stretch, in start order, built column-wise.

    ``limit`` (``params.max_segments``; None = every segment) keeps the first ``limit``
    segments in that order and states the cut in ``extra`` (:func:`schedule_cut`).
    """
    n_st = len(st.start)
    starts = np.asarray(st.start, dtype=float)
    order = np.argsort(starts, kind="stable")
    counts = np.fromiter(map(len, st.procs), np.int64, n_st)  # processors of every stretch
    flat = np.concatenate(st.procs).astype(np.int64, copy=False) if n_st else np.zeros(0, dtype=np.int64)
    rows = np.repeat(order, counts[order])  # the stretch of every segment, stretches in start order
    first = np.repeat(np.cumsum(counts[order]) - counts[order], counts[order])
    k = np.arange(rows.size, dtype=np.int64) - first  # the segment's index within its stretch
    proc = flat[(np.cumsum(counts) - counts)[rows] + k]
    if limit is not None and rows.size > limit:
        schedule_cut(extra, limit, limit, float(starts[rows[limit]]))
        rows, k, proc = rows[:limit], k[:limit], proc[:limit]
    job = np.asarray(st.job, dtype=np.int64)[rows]
    tier_labels, tier_codes = np.unique(np.asarray(st.tier, dtype=str), return_inverse=True)
    tier = coded(tier_codes.reshape(-1)[rows], tier_labels.tolist())
    columns: dict[str, Any] = {
        "job": coded(job, [str(i) for i in inst.ids.tolist()]),
        "task": task_of(k),
        "resource": coded(proc, [f"p{p}" for p in range(int(inst.processors))]),
        "start": starts[rows],
        "end": np.asarray(st.end, dtype=float)[rows],
        "share": np.ones(rows.size),
        "kind": tier,
        "tier": tier,
        "rate": np.asarray(st.rate, dtype=float)[rows],
        "cpu": np.asarray(inst.cpu, dtype=float)[job],
    }
    if not st.ended:
        return Columns(columns)
    # how a stretch ended when not by finishing (a KEASY kill, a MEASY move): an event on the Gantt;
    # only those segments carry the key (sparse, as the records had it)
    reasons = sorted(set(st.ended.values()))
    ended = np.full(n_st, -1, dtype=np.int32)
    for i, reason in st.ended.items():
        ended[i] = reasons.index(reason)
    columns["ended"] = coded(ended[rows], reasons)  # code -1: the stretch simply finished
    return Columns(columns, sparse=True)


def _native(v):
    """Plain Python scalars only (numpy's float64 subclasses float but must not leak into results)."""
    if isinstance(v, str):
        return v
    return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else float(v)


def _series(t, columns: dict[str, list]) -> dict[str, list[float]]:
    """Busy processors per tier and queue length as change points (every one: nothing is downsampled)."""
    return exact_series(t, columns)


def assemble(cfg, inst, first_start, end, stretches: Stretches, series_t, series: dict, counters: dict) -> RunOutput:
    """The :class:`RunOutput` of one run (see module docstring)."""
    p = cfg.params
    submit, run, size = inst.submit, inst.runtime, inst.size
    first_start = np.asarray(first_start, dtype=float)
    end = np.asarray(end, dtype=float)
    response = end - submit
    bsld = bounded_slowdown(response, run, p.gamma_s)
    span = float(end.max() - submit.min()) if len(inst) else 0.0
    useful = float(np.dot(size, run))
    rt_ci = batch_means_ci(response, p.batches)
    bs_ci = batch_means_ci(bsld, p.batches)
    metrics: dict[str, Any] = {
        "avg_response_time_s": float(response.mean()),
        "avg_bounded_slowdown": float(bsld.mean()),
        "utilization": float(min(1.0, useful / (inst.processors * span))) if span > 0 else 0.0,
        "migrations": int(counters.get("migrations", 0)),
        "kills": int(counters.get("kills", 0)),
        "avg_wait_s": float((first_start - submit).mean()),
        "avg_response_time_ci_s": float(rt_ci["ci"]),
        "avg_bounded_slowdown_ci": float(bs_ci["ci"]),
        "max_response_time_s": float(response.max()),
        "makespan_s": span,
        "jobs": len(inst),
        "processors": int(inst.processors),
        "swaps": int(counters.get("swaps", 0)),
        "wasted_work_s": float(counters.get("wasted_work_s", 0.0)),
        "max_queue_length": int(max(series.get("queue_length", [0]), default=0)),
    }
    schedule = Columns()
    extra: dict[str, Any] = {
        "workload": {k: _native(v) for k, v in inst.info.items() if isinstance(v, (int, float, str))}
    }
    if p.record_schedule:
        schedule = _segments(inst, stretches, p.max_segments, extra)
        extra["resources"] = [f"p{k}" for k in range(int(inst.processors))]  # every processor (the Gantt's rows)
        # each processor hosts one fg and one bg VM, each holding one process (the validity contract)
        extra["capacities"] = dict.fromkeys(extra["resources"], 1.0)
    # every job finishes (a killed bg job restarts), never before its submission; no DAG, no power model
    extra["validity"] = spec(len(inst), ["submit_s"], energy=False, capacity_per="tier")
    jobs = Columns()
    if p.record_jobs:
        jobs = Columns({"job": coded(np.arange(len(inst)), [str(i) for i in inst.ids.tolist()]),
                        "submit_s": submit, "start_s": first_start, "end_s": end, "processors": size,
                        "runtime_s": run, "estimate_s": inst.estimate, "response_s": response,
                        "bounded_slowdown": bsld,
                        "status": coded(np.zeros(len(inst), dtype=np.int32), ["finished"])})  # fmt: skip
    return RunOutput(metrics=metrics, schedule=schedule, series=_series(series_t, series), jobs=jobs, extra=extra)
