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

from schedulers.core.metrics import batch_means_ci, bounded_slowdown
from schedulers.core.series import downsample
from schedulers.registry import RunOutput

__all__ = ["SUMMARY_METRICS", "Stretches", "assemble"]

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
MAX_POINTS = 5000


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


def _segments(inst, st: Stretches, limit: int) -> tuple[list[dict[str, Any]], bool]:
    ids = inst.ids.tolist()
    cpu = inst.cpu.tolist()
    out: list[dict[str, Any]] = []
    order = np.argsort(np.asarray(st.start), kind="stable").tolist()
    for i in order:
        jid = str(ids[st.job[i]])
        s, e, tier, rate = float(st.start[i]), float(st.end[i]), st.tier[i], float(st.rate[i])
        ended = st.ended.get(i)
        for k, p in enumerate(np.asarray(st.procs[i]).tolist()):
            if len(out) >= limit:
                return out, True
            out.append({"job": jid, "task": f"{jid}.{k}", "resource": f"p{p}", "start": s, "end": e,
                        "share": 1.0, "kind": tier, "tier": tier, "rate": rate, "cpu": cpu[st.job[i]]})  # fmt: skip
            if ended:
                out[-1]["ended"] = ended
    return out, False


def _native(v):
    """Plain Python scalars only (numpy's float64 subclasses float but must not leak into results)."""
    if isinstance(v, str):
        return v
    return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else float(v)


def _series(t, columns: dict[str, list]) -> dict[str, list[float]]:
    t = np.asarray(t, dtype=float)
    if t.size == 0:
        return {"t": [], **{k: [] for k in columns}}
    # keep the last state of each instant (events at one time are recorded one after another)
    last = np.append(t[1:] != t[:-1], True)
    out: dict[str, list[float]] = {}
    for name, values in columns.items():
        tt, vv = downsample(t[last], np.asarray(values, dtype=float)[last], MAX_POINTS)
        out.setdefault("t", tt)
        out[name] = vv
    return out


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
    schedule: list[dict[str, Any]] = []
    extra: dict[str, Any] = {
        "workload": {k: _native(v) for k, v in inst.info.items() if isinstance(v, (int, float, str))}
    }
    if p.record_schedule:
        schedule, cut = _segments(inst, stretches, p.max_segments)
        if cut:
            extra["schedule_truncated"] = True
    jobs: list[dict[str, Any]] = []
    if p.record_jobs:
        cols = zip(inst.ids.tolist(), submit.tolist(), first_start.tolist(), end.tolist(), size.tolist(),
                   run.tolist(), inst.estimate.tolist(), response.tolist(), bsld.tolist(), strict=True)  # fmt: skip
        jobs = [{"job": str(i), "submit_s": a, "start_s": s, "end_s": e, "processors": n, "runtime_s": r,
                 "estimate_s": es, "response_s": rs, "bounded_slowdown": b}
                for i, a, s, e, n, r, es, rs, b in cols]  # fmt: skip
    return RunOutput(metrics=metrics, schedule=schedule, series=_series(series_t, series), jobs=jobs, extra=extra)
