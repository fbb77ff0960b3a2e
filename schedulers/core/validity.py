"""One validity contract for every family's schedules, whoever chose them (docs/validity.md).

Every run record of every family (built-in or plug-in algorithm) is checked against the same
:data:`CONTRACT`: segments well formed, capacity per resource over time, no start before the job
is ready, precedence, every job accounted for, energy = ∫ power. A check needs what the family
reports in its run record: ``extra.capacities`` and ``extra.validity`` (:func:`spec`), job records
with ``status`` (and ``reason`` where a job did not finish), the power series. What is missing is
not guessed: the check is *skipped* and says so, and a result is "passed" only when no check
failed and none was skipped (:func:`report`). A family states what its model does not have
(``precedence: None``: independent jobs; ``energy: False``: no power model): that check is
*not applicable* (``na``), which is not a skip.

Checks read whole columns at once (a 200,000-job backfill run is 54 M segments): they take the
library's :class:`~schedulers.core.columns.Columns` or lists of dicts read back from a store.
Each returns ``{"name", "status": "pass"|"fail"|"skip"|"na"|"warn", "detail"}``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from schedulers.core.columns import Columns, TaskOf

__all__ = [
    "CONTRACT",
    "JOB_STATUSES",
    "capacity",
    "check",
    "contract",
    "dag_edges",
    "energy_integral",
    "every_job",
    "no_early_start",
    "precedence",
    "report",
    "spec",
    "time_unit",
    "well_formed",
]

CONTRACT = (
    "segments well-formed",
    "capacity per resource",
    "no start before ready",
    "precedence",
    "every job accounted for",
    "energy = ∫ power",
)
JOB_STATUSES = ("finished", "rejected", "killed", "unfinished")
EPS = 1e-6
REL = 1e-9  # times are compared to this relative tolerance (the simulators add the same floats)


def spec(
    jobs: int,
    ready: list[str],
    *,
    precedence: dict[str, Any] | None = None,
    energy: bool = True,
    capacity_per: str | None = None,
    site: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What a family reports for the contract, as ``extra["validity"]`` of a run record.

    ``jobs``: how many jobs the instance has (each must have one record). ``ready``: the job-record
    fields no segment of the job may start before (their maximum). ``site`` (optional):
    ``{"segment": column, "job": field, "delay_s": x, "adds_to": ready field}`` — a segment whose
    ``column`` differs from its job's ``field`` (a task away from its home cloud) may start only
    ``delay_s`` after ``adds_to``. ``precedence``: ``None`` when jobs are independent, else
    ``{"job": [...], "pred": [...], "succ": [...], "site": column, "transfer_s": x}`` — edges between
    tasks ``<job>.<pred>`` → ``<job>.<succ>`` (``job`` indexes the job records), the successor
    starting no earlier than the predecessor's end, plus ``transfer_s`` when their ``site`` differs;
    or, for many edges, ``"column": field`` instead of the three lists: the job records' text field
    holding each job's DAG (:func:`dag_edges`), so the edges travel with the records, not in ``extra``.
    ``energy``: whether the model has power. ``capacity_per``: a segment column that splits each
    resource into units of its capacity each (backfill: a processor's fg and bg VM).
    """
    out: dict[str, Any] = {"jobs": int(jobs), "ready": list(ready), "precedence": precedence, "energy": bool(energy)}
    if capacity_per:
        out["capacity_per"] = capacity_per
    if site:
        out["site"] = site
    return out


def check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


def _ok(name: str, ok: bool, detail: str) -> dict[str, str]:
    return check(name, "pass" if ok else "fail", detail)


# --- reading columns -------------------------------------------------------------------------
def _column(rows, name, default=None):
    """One field of every segment or record as an array: Columns give theirs, a list of dicts is read once."""
    if isinstance(rows, Columns):
        if name not in rows:
            return np.full(len(rows), default, dtype=object if not isinstance(default, float) else float)
        col = rows.column(name)
        mask = rows.valid(name)
        if mask is not None and default is not None:
            col = np.where(mask, col, default)
        return col
    return np.array([r.get(name, default) for r in rows], dtype=float if isinstance(default, float) else object)


def _floats(rows, name) -> np.ndarray:
    """A numeric field as floats, NaN where missing."""
    if isinstance(rows, Columns):
        if name not in rows:
            return np.full(len(rows), np.nan)
        col = np.asarray(rows.raw(name), dtype=float)
        mask = rows.valid(name)
        return col if mask is None else np.where(mask, col, np.nan)
    return np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows], dtype=float)


def _codes(rows, name) -> tuple[np.ndarray, list[str]]:
    """A text field as (int codes, labels); -1 where missing."""
    if isinstance(rows, Columns) and name in rows:
        coded = rows.codes(name)
        return coded.codes.astype(np.int64), [str(v) for v in coded.labels.tolist()]
    values = [None if v is None else str(v) for v in _column(rows, name).tolist()]
    labels = sorted({v for v in values if v is not None})
    index = {v: i for i, v in enumerate(labels)}
    return np.array([index.get(v, -1) if v is not None else -1 for v in values], dtype=np.int64), labels


def _task_k(rows) -> np.ndarray:
    """The ``k`` of every segment's task ``<job>.<k>`` (-1 where it has none)."""
    if isinstance(rows, Columns) and "task" in rows and isinstance(rows.raw("task"), TaskOf):
        return rows.raw("task").k
    out = []
    for v in _column(rows, "task").tolist():
        tail = str(v).rsplit(".", 1)[-1] if v is not None else ""
        out.append(int(tail) if tail.isdigit() else -1)
    return np.array(out, dtype=np.int64)


def _record_of(schedule, jobs) -> tuple[np.ndarray, list[str]]:
    """For every segment, the index of its job's record (-1: none), and the records' job labels."""
    seg_codes, seg_labels = _codes(schedule, "job")
    rec_codes, rec_labels = _codes(jobs, "job")
    names = [rec_labels[c] if c >= 0 else None for c in rec_codes.tolist()]
    where = {}
    for i, name in enumerate(names):
        where.setdefault(name, i)
    lookup = np.array([where.get(lab, -1) for lab in seg_labels] + [-1], dtype=np.int64)
    return lookup[seg_codes], names  # code -1 takes the trailing -1


def _spans(schedule, spans):
    if spans is None:
        return _floats(schedule, "start"), _floats(schedule, "end")
    return np.asarray(spans[0], dtype=float), np.asarray(spans[1], dtype=float)


def _tol(t: np.ndarray) -> np.ndarray:
    return REL * np.maximum(1.0, np.abs(t)) + EPS


def _validity(run) -> dict[str, Any] | None:
    v = (run.get("extra") or {}).get("validity")
    return v if isinstance(v, dict) else None


# --- the checks ------------------------------------------------------------------------------
def well_formed(run, spans=None):
    name = CONTRACT[0]
    schedule = run.get("schedule", [])
    if not len(schedule):
        return check(name, "skip", "not checked: no segments recorded")
    starts, ends = _spans(schedule, spans)
    # Reductions first (a NaN makes min/max NaN and every comparison false); the per-segment count
    # only when something is wrong.
    lo, hi, span = starts.min(), np.maximum(starts.max(), ends.max()), (ends - starts).min()
    if lo >= -EPS and span >= -EPS and np.isfinite(hi):
        bad = 0
    else:
        bad = int(((ends < starts - EPS) | (starts < -EPS) | ~np.isfinite(starts) | ~np.isfinite(ends)).sum())
    return _ok(name, bad == 0, f"{len(schedule)} segments, {bad} with end < start or t < 0")


def _peaks(unit, starts, ends, share):
    """The highest total share each unit holds at once, and one segment of each unit (its index).

    Segments sorted by unit, then start (a stable partition of the start order: the families' and
    the store's order already, so no float sort). The level at a start is the share of every segment
    of its unit started at or before that instant and not yet ended (ends before starts at one
    instant: back to back is not an overlap): +share from the first start at its own start, −share
    from the first start at or after its end (two binary searches per unit).
    """
    base = None if starts.size < 2 or (starts[1:] >= starts[:-1]).all() else np.argsort(starts, kind="stable")
    u = unit if base is None else unit[base]
    lo, hi = int(u.min()), int(u.max())
    key = (u - lo).astype(np.uint16) if hi - lo < 65536 else u  # 16-bit keys: numpy's radix sort, O(n)
    order = np.argsort(key, kind="stable")
    order = order if base is None else base[order]
    s, e, w, u = starts[order], ends[order], share[order], unit[order]
    heads = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    bounds = [*heads.tolist(), u.size]
    peaks = np.empty(heads.size)
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        ss = s[a:b]
        up = np.bincount(np.searchsorted(ss, ss, side="left"), weights=w[a:b], minlength=b - a + 1)
        down = np.bincount(np.searchsorted(ss, e[a:b], side="left"), weights=w[a:b], minlength=b - a + 1)
        peaks[i] = np.cumsum(up[:-1] - down[:-1]).max()
    return peaks, order[heads]


def capacity(run, doc=None, spans=None):
    """Peak share per resource (per unit of ``capacity_per``), from every segment at once."""
    name = CONTRACT[1]
    caps = (run.get("extra") or {}).get("capacities") or (doc or {}).get("capacities")
    schedule = run.get("schedule", [])
    if not caps:
        return check(name, "skip", "not checked: the run reports no capacities")
    if not len(schedule):
        return check(name, "skip", "not checked: no segments recorded")
    codes, labels = _codes(schedule, "resource")
    cap_of = np.array([float(caps[lab]) if lab in caps else np.nan for lab in labels] + [np.nan])
    seg_cap = cap_of[codes]
    unknown = sorted({labels[c] for c in np.unique(codes[np.isnan(seg_cap)]).tolist() if c >= 0})
    missing = int((codes < 0).sum())
    per = (_validity(run) or {}).get("capacity_per")
    unit = codes
    if per:
        sub, sub_labels = _codes(schedule, per)
        unit = codes * (len(sub_labels) + 1) + (sub + 1)
    keep = ~np.isnan(seg_cap)
    over: list[str] = []
    used = np.unique(codes[codes >= 0]).size
    if keep.any():
        starts, ends = _spans(schedule, spans)
        share = _floats(schedule, "share")
        share = np.where(np.isnan(share), 1.0, share)[keep]
        peaks, head = _peaks(unit[keep], starts[keep], ends[keep], share)
        head_cap = seg_cap[keep][head]
        bad = np.flatnonzero(peaks > head_cap + EPS)
        if bad.size:
            res_code = codes[keep][head]
            worst: dict[str, tuple[float, float]] = {}
            for i in bad.tolist():
                lab = labels[int(res_code[i])]
                if lab not in worst or peaks[i] > worst[lab][0]:
                    worst[lab] = (float(peaks[i]), float(head_cap[i]))
            first = {lab: k for k, lab in enumerate(labels)}
            over = [f"{lab}: {p:g} > {c:g}" for lab, (p, c) in sorted(worst.items(), key=lambda x: first[x[0]])]
    shown = "; ".join(over[:5]) + (f"; and {len(over) - 5} more resources over their capacity" if len(over) > 5 else "")
    problems = over[:]
    detail = f"{used} resources" + (f" ({per} by {per})" if per else "") + "; "
    detail += shown if over else "peak share within capacity everywhere"
    if unknown or missing:
        named = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        detail += f"; without a capacity: {named or f'{missing} segments without a resource'}"
        problems.append("unknown")
    return _ok(name, not problems, detail)


def no_early_start(run, spans=None):
    """No segment starts before its job is ready (the latest of the ``ready`` fields; ``site``: a remote delay)."""
    name = CONTRACT[2]
    v, schedule, jobs = _validity(run), run.get("schedule", []), run.get("jobs") or []
    if v is None or not v.get("ready"):
        return check(name, "skip", "not checked: the run does not say when its jobs are ready")
    if not len(schedule) or not len(jobs):
        return check(name, "skip", "not checked: no segments or no job records")
    rec, names = _record_of(schedule, jobs)
    at = np.maximum(rec, 0)
    site = v.get("site")
    delay = np.zeros(len(schedule))
    if site:  # a segment away from its job's home site waits for the data too
        seg_site, seg_labels = _codes(schedule, site["segment"])
        home, home_labels = _codes(jobs, site["job"])
        to_home = np.array([home_labels.index(s) if s in home_labels else -2 for s in seg_labels] + [-3])
        delay = np.where((to_home[seg_site] != home[at]) & (rec >= 0), float(site["delay_s"]), 0.0)
    cols = [_floats(jobs, f)[at] + (delay if site and f == site["adds_to"] else 0.0) for f in v["ready"]]
    ready = np.fmax.reduce(np.vstack(cols), axis=0)
    ready = np.where(rec >= 0, ready, np.nan)
    starts, _ = _spans(schedule, spans)
    early = starts < ready - _tol(ready)  # NaN (no record, no ready time) compares False
    what = v["ready"][0] if len(v["ready"]) == 1 else "latest of " + ", ".join(v["ready"])
    what += f" (+{site['delay_s']:g} s after {site['adds_to']} away from its {site['job']})" if site else ""
    if not early.any():
        return check(name, "pass", f"{len(schedule)} segments start at or after their job's {what}")
    i = int(np.flatnonzero(early)[0])
    first = f"job {names[rec[i]]} starts at {starts[i]:.6g} < {ready[i]:.6g}"
    return check(name, "fail", f"{int(early.sum())} segments start before their job's {what}; first: {first}")


def dag_edges(jobs, column: str) -> dict[str, list[int]]:
    """DAG edges from a job-record text column: per job, its tasks' predecessors (``,`` within a task,
    ``;`` between tasks: ``";0;0;1,2"``), parsed once per distinct text."""
    codes, labels = _codes(jobs, column)
    parsed = []
    for text in labels:
        pairs = [(int(p), k) for k, preds in enumerate(text.split(";")) for p in preds.split(",") if p]
        parsed.append(pairs)
    job, pred, succ = [], [], []
    for i, c in enumerate(codes.tolist()):
        if c >= 0:
            for p, k in parsed[c]:
                job.append(i)
                pred.append(p)
                succ.append(k)
    return {"job": job, "pred": pred, "succ": succ}


def precedence(run, spans=None):
    """Each DAG edge: the successor's first start ≥ the predecessor's last end (+ transfer across sites)."""
    name = CONTRACT[3]
    v, schedule, jobs = _validity(run), run.get("schedule", []), run.get("jobs") or []
    if v is None or "precedence" not in v:
        return check(name, "skip", "not checked: the run does not state its precedence constraints")
    dag = v["precedence"]
    if dag is None:
        return check(name, "na", "none in this model: jobs are independent")
    if not len(schedule) or not len(jobs):
        return check(name, "skip", "not checked: no segments or no job records")
    if "column" in dag:
        dag = {**dag, **dag_edges(jobs, dag["column"])}
    edges = len(dag.get("succ", []))
    if not edges:
        return check(name, "pass", "no precedence edges in this instance")
    rec, names = _record_of(schedule, jobs)
    k = _task_k(schedule)
    width = int(max(k.max(initial=0), max(dag["pred"]), max(dag["succ"]))) + 1
    key = np.where((rec >= 0) & (k >= 0), rec * width + k, -1)
    starts, ends = _spans(schedule, spans)
    ok = key >= 0
    tasks, inv = np.unique(key[ok], return_inverse=True)
    first = np.full(tasks.size, np.inf)
    last = np.full(tasks.size, -np.inf)
    np.minimum.at(first, inv, starts[ok])
    np.maximum.at(last, inv, ends[ok])
    site_codes = _codes(schedule, dag["site"])[0][ok] if dag.get("site") else np.zeros(inv.size, np.int64)
    site = np.full(tasks.size, -1, dtype=np.int64)
    site[inv] = site_codes
    job = np.asarray(dag["job"], dtype=np.int64)
    p_key, s_key = job * width + np.asarray(dag["pred"]), job * width + np.asarray(dag["succ"])
    p_at, s_at = np.searchsorted(tasks, p_key), np.searchsorted(tasks, s_key)
    p_has = (p_at < tasks.size) & (tasks[np.minimum(p_at, tasks.size - 1)] == p_key)
    s_has = (s_at < tasks.size) & (tasks[np.minimum(s_at, tasks.size - 1)] == s_key)
    p_at, s_at = np.minimum(p_at, tasks.size - 1), np.minimum(s_at, tasks.size - 1)
    cut = bool((run.get("extra") or {}).get("schedule_cut"))
    orphan = s_has & ~p_has & (not cut)  # a successor ran, its predecessor never did
    both = s_has & p_has
    need = last[p_at] + np.where(site[p_at] != site[s_at], float(dag.get("transfer_s", 0.0)), 0.0)
    early = both & (first[s_at] < need - _tol(need))
    bad = early | orphan
    detail = f"{edges} edges, {int(both.sum())} with both tasks run"
    if dag.get("transfer_s"):
        detail += f" (+{dag['transfer_s']:g} across {dag.get('site')})"
    if not bad.any():
        return check(name, "pass", detail)
    i = int(np.flatnonzero(bad)[0])
    j = names[job[i]] if 0 <= job[i] < len(names) else str(job[i])
    pred, succ = f"{j}.{dag['pred'][i]}", f"{j}.{dag['succ'][i]}"
    why = (f"{succ} starts at {first[s_at[i]]:.6g} < {pred}'s end {need[i]:.6g}" if early[i]
           else f"{succ} ran but its predecessor {pred} never did")  # fmt: skip
    return check(name, "fail", f"{detail}; {int(early.sum())} start too early, {int(orphan.sum())} without "
                 f"their predecessor; first: {why}")  # fmt: skip


def every_job(run):
    """Each job of the instance has one record: finished, or rejected / killed / unfinished with its reason."""
    name = CONTRACT[4]
    v, schedule, jobs = _validity(run), run.get("schedule", []), run.get("jobs") or []
    if not len(jobs):
        return check(name, "skip", "not checked: no job records")
    codes, labels = _codes(jobs, "job")
    n = len(jobs)
    dup = n - len({labels[c] if c >= 0 else None for c in np.unique(codes).tolist()})
    problems = []
    if dup:
        problems.append(f"{dup} recorded twice")
    expected = v.get("jobs") if v else None
    if expected is not None and expected != n - dup:
        problems.append(f"{expected - (n - dup)} of the instance's {expected} without a record")
    rec = np.zeros(0, dtype=np.int64)
    if len(schedule):
        rec, _ = _record_of(schedule, jobs)
        stray = int(np.unique(_codes(schedule, "job")[0][rec < 0]).size)
        if stray:
            problems.append(f"{stray} scheduled without a record")
    if "status" not in (jobs.names if isinstance(jobs, Columns) else jobs[0]):
        return check(name, "skip" if not problems else "fail",
                     f"{n} jobs; " + ("; ".join(problems) + "; " if problems else "")
                     + "not checked: the records carry no status")  # fmt: skip
    status, status_labels = _codes(jobs, "status")
    unknown = sorted({status_labels[c] for c in np.unique(status[status >= 0]).tolist()} - set(JOB_STATUSES))
    if (status < 0).any() or unknown:
        problems.append(f"{int((status < 0).sum())} without a status" + (f", unknown {unknown}" if unknown else ""))
    finished = np.array([lab == "finished" for lab in status_labels] + [False])[status]
    reason = _column(jobs, "reason")
    no_reason = ~finished & np.array([r is None or not str(r).strip() for r in reason.tolist()], dtype=bool)
    if no_reason.any():
        problems.append(f"{int(no_reason.sum())} not finished without a reason")
    rejected = np.array([lab == "rejected" for lab in status_labels] + [False])[status]
    if rec.size and rejected.any():
        ran = np.zeros(n, dtype=bool)
        ran[rec[rec >= 0]] = True
        if (ran & rejected).any():
            problems.append(f"{int((ran & rejected).sum())} rejected yet scheduled")
    counts = {lab: int((status == i).sum()) for i, lab in enumerate(status_labels)}
    shown = ", ".join(f"{c} {lab}" for lab, c in sorted(counts.items(), key=lambda x: JOB_STATUSES.index(x[0])
                                                        if x[0] in JOB_STATUSES else 9) if c)  # fmt: skip
    detail = f"{n} jobs" + (f" of {expected}" if expected is not None else "") + f": {shown or 'none'}"
    if expected is None:
        return check(name, "skip" if not problems else "fail",
                     detail + ("; " + "; ".join(problems) if problems else "")
                     + "; not checked against the instance: the run does not say how many jobs it has")  # fmt: skip
    return _ok(name, not problems, detail + ("; " + "; ".join(problems) if problems else ""))


TIME_UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}
# A family's energy metric and its factor to J (ep_jobs' ``energy`` is eq. 9's Σ α·Load/λ: J with α in W per vCPU).
ENERGY_METRICS = {"energy_j": 1.0, "energy_kwh": 3.6e6, "energy": 1.0}
# Families store every change point of their power series, so its step integral equals the energy to rounding.
ENERGY_REL = 1e-6


def _step_integral(t, v):
    """∫ of a step function stored as change points: ``v[k]`` holds on ``[t[k], t[k+1])``."""
    return float(np.sum(v[:-1] * np.diff(t)))


def _power_energy(run):
    series = run.get("series", {})
    t, p, e = series.get("t"), series.get("power_w"), series.get("energy_j")  # lists or numpy arrays
    if t is None or p is None or e is None or not len(t) == len(p) == len(e) or len(t) < 2:
        return None
    t, p, e = (np.asarray(x, float) for x in (t, p, e))
    return _step_integral(t, p), float(e[-1] - e[0])


def time_unit(run):
    """The unit of the series' time axis, read off energy_j = ∫ power_w dt (``s`` unless it says otherwise)."""
    pe = _power_energy(run)
    if pe and pe[0] > 0:
        ratio = pe[1] / pe[0]
        for unit, factor in TIME_UNITS.items():
            if abs(ratio - factor) <= 1e-3 * factor:
                return unit
    return "s"


def energy_integral(run):
    """∫ power dt over the stored series (step integration over its change points) = the energy metric.

    Compared with the family's energy metric (``ENERGY_METRICS``) when it reports one, else with
    the stored cumulative ``energy_j``; relative tolerance ``ENERGY_REL``. A series capped by a
    family's ``series_points`` keeps bucket maxima and fails here, as it should.
    """
    name = CONTRACT[5]
    v = _validity(run)
    if v is not None and v.get("energy") is False:
        return check(name, "na", "none in this model: it has no power")
    series = run.get("series", {})
    t, p = series.get("t"), series.get("power_w")
    if t is None or p is None or len(t) != len(p) or len(t) < 2:  # lists or numpy arrays
        return check(name, "skip", "not checked: no power series")
    unit = time_unit(run)
    integral = _step_integral(np.asarray(t, float), np.asarray(p, float)) * TIME_UNITS[unit]
    metrics = run.get("metrics", {})
    key = next((k for k in ENERGY_METRICS if isinstance(metrics.get(k), (int, float))), None)
    pe = _power_energy(run)
    if key is not None:
        target, what = float(metrics[key]) * ENERGY_METRICS[key], f"metric {key}"
    elif pe is not None:
        target, what = pe[1], "series energy_j"
    else:
        return check(name, "skip", "not checked: no energy metric and no energy_j series")
    ok = abs(integral - target) <= ENERGY_REL * max(abs(target), 1.0)
    detail = f"∫P dt = {integral:.9g} J over {len(t)} change points (t in {unit}); {what} = {target:.9g} J"
    return _ok(name, ok, detail)


def contract(run: dict[str, Any], doc: dict[str, Any] | None = None, spans=None) -> list[dict[str, str]]:
    """Every check of :data:`CONTRACT` on one run record, in that order (``spans``: cached start/end arrays)."""
    spans = spans if spans is not None or not len(run.get("schedule", [])) else _spans(run["schedule"], None)
    return [
        well_formed(run, spans),
        capacity(run, doc, spans),
        no_early_start(run, spans),
        precedence(run, spans),
        every_job(run),
        energy_integral(run),
    ]


def report(doc: dict[str, Any], more=None, spans=None) -> dict[str, Any]:
    """The contract (and ``more(run)``'s checks) for every run of ``doc``, and the verdict.

    ``passed``: no check failed and every contract check ran (passed or not applicable) for every
    run; ``not_run`` says which did not (``check (algorithm #repetition, …): why``).
    """
    per_run = []
    for i, run in enumerate(doc.get("runs", [])):
        checks = contract(run, doc, spans(i) if spans else None) + (more(run) if more else [])
        per_run.append({"i": i, "algorithm": run.get("algorithm", ""), "repetition": run.get("repetition", 0),
                        "checks": checks})  # fmt: skip
    every = [(r, c) for r in per_run for c in r["checks"]]
    ran = sorted({c["name"] for _, c in every if c["status"] in ("pass", "fail")})
    skipped = sorted({c["name"] for _, c in every if c["status"] == "skip"})
    na = sorted({f"{c['name']}: {c['detail']}" for _, c in every if c["status"] == "na"})
    grouped: dict[tuple[str, str], list[str]] = {}
    for r, c in every:
        if c["status"] == "skip":
            grouped.setdefault((c["name"], c["detail"]), []).append(f"{r['algorithm']} #{r['repetition']}")
    not_run = [f"{name} ({', '.join(runs[:6])}{f' and {len(runs) - 6} more' if len(runs) > 6 else ''}): {detail}"
               for (name, detail), runs in grouped.items()]  # fmt: skip
    failed = sorted({f"{r['algorithm']} #{r['repetition']}: {c['name']}" for r, c in every if c["status"] == "fail"})
    warned = sorted({f"{c['name']}: {c['detail']}" for _, c in every if c["status"] == "warn"})
    ok = not failed
    return {
        "ok": ok,
        "passed": ok and not skipped and bool(per_run),
        "contract": list(CONTRACT),
        "warned": warned,
        "ran": ran,
        "skipped": skipped,
        "not_run": not_run,
        "na": na,
        "failed": failed,
        "runs": per_run,
    }
