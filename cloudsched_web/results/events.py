"""The events of a run drawn on its Gantt: migrations, kills, preemptions, rejections, missed deadlines."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results import indexfiles
from cloudsched_web.results.axis import resource_axis

__all__ = ["EVENT_KINDS", "MAX_EVENTS", "event_table", "events"]

EVENT_KINDS = {
    "migrated": "migration (a segment ends because its VM or job moved to another resource)",
    "killed": "kill (the work done is lost; the job restarts later)",
    "preempted": "preemption (the lease is stopped for another)",
    "rejected": "rejection (the job never ran)",
    "deadline missed": "deadline missed (the job finished after its deadline)",
}


MAX_EVENTS = 5000  # marks one by one (with job and task); past it, counts per pixel column


def event_table(parsed, index):
    """Every event of run ``index`` in time order: ``t``, ``kind``, ``row``, ``job``, ``task`` columns (read once).

    ``kind`` is an index into ``kinds``; ``row`` is the event's resource's row on the axis (:func:`resource_axis`), −1 for an event
    without resource, −2 for a resource not on the axis (never shown).

    From the schedule: a segment whose ``ended`` is ``migrated``, ``killed`` or ``preempted``
    is an event at its end on its resource. From the job records: ``rejected`` (federated) or
    ``accepted == False`` (dvfs_bot) at the job's arrival, and ``violated`` deadlines at its
    finish; those have no resource (drawn on the chart's "jobs" line).
    """

    def build():
        name = indexfiles.files_of(parsed, index).get("events")
        if name:  # built by the worker when it stored the result (results.indexes)
            return indexfiles.read_events(name)
        stored = parsed.stored(index)
        schema = stored.schema("segments")
        seg_t, seg_kind, seg_row = np.zeros(0), pa.array([], pa.string()), np.zeros(0, np.int32)
        seg_job = seg_task = pa.array([], pa.string())
        if schema is not None and "ended" in schema.names:  # whole columns, no Python loop over the events
            cols = [c for c in ("end", "resource", "job", "task", "ended") if c in schema.names]
            ends = [("ended", "in", ["migrated", "killed", "preempted"])]  # read only those rows' job and task
            seg = stored.table("segments", cols, filters=ends)
            seg = {c: seg[c].combine_chunks() for c in cols}  # one array per column
            seg_t = np.asarray(seg["end"].to_numpy(zero_copy_only=False), dtype=float)
            seg_kind = pc.cast(seg["ended"], pa.string())
            res = pc.fill_null(pc.cast(seg["resource"], pa.string()), "None")  # str(None), as a name
            at = pc.index_in(res, value_set=pa.array(resource_axis(parsed, index)["names"], pa.string()))
            seg_row = np.asarray(pc.fill_null(at, -2).to_numpy(zero_copy_only=False), np.int32)  # −2: off the axis
            blank = pa.array([""] * len(seg["end"]), pa.string())
            seg_job, seg_task = (pc.fill_null(pc.cast(seg[c], pa.string()), "None") if c in cols else blank
                                 for c in ("job", "task"))  # fmt: skip
        t, kind, job = [], [], []  # the job records' events (few)
        jobs = parsed.jobs_table(index)
        if jobs is not None and jobs.num_rows:
            names = jobs.column_names
            arrival = next((c for c in ("arrival", "submit_s", "submit") if c in names), None)
            ids = [str(j) for j in jobs["job"].to_pylist()] if "job" in names else [""] * jobs.num_rows
            picks = []
            if "rejected" in names and arrival:
                picks.append(("rejected", pc.fill_null(pc.equal(jobs["rejected"], True), False), arrival))
            elif "accepted" in names and arrival:
                picks.append(("rejected", pc.fill_null(pc.equal(jobs["accepted"], False), False), arrival))
            finish = next((c for c in ("finish_s", "finish", "end_s") if c in names), None)
            if "violated" in names and finish:
                picks.append(("deadline missed", pc.fill_null(pc.equal(jobs["violated"], True), False), finish))
            for name, mask, when in picks:
                rows = np.nonzero(np.asarray(mask))[0]
                times = jobs[when].to_pylist()
                for i in rows.tolist():
                    if times[i] is not None:
                        t.append(times[i])
                        kind.append(name)
                        job.append(ids[i])
        times = np.concatenate([seg_t, np.asarray(t, dtype=float)])
        order = np.argsort(times, kind="stable")
        kinds = sorted(set(pc.unique(seg_kind).to_pylist()) | set(kind))
        codes = np.concatenate([np.asarray(pc.index_in(seg_kind, value_set=pa.array(kinds, pa.string())).to_numpy(
            zero_copy_only=False), np.int64), np.asarray([kinds.index(k) for k in kind], np.int64)])  # fmt: skip
        take = pa.array(order)
        jobs_ = pa.concat_arrays([seg_job, pa.array(job, pa.string())]).take(take)
        tasks = pa.concat_arrays([seg_task, pa.array([""] * len(job), pa.string())]).take(take)
        return {
            "t": times[order],
            "kind": codes.astype(np.int8)[order],
            "kinds": kinds,
            "row": np.concatenate([seg_row, np.full(len(t), -1, np.int32)])[order],
            "job": jobs_,
            "task": tasks,
            "labels": lambda at: (jobs_.take(pa.array(at)).to_pylist(), tasks.take(pa.array(at)).to_pylist()),
        }

    return parsed.memo(("events", index), build)


def events(parsed, index, lo, hi, row0, rows, pixels=None):
    """The events inside ``[lo, hi]`` on the page's rows ``row0 .. row0 + rows − 1`` (row −1: a job's
    event, no resource); ``r`` counts from the page's first row. Every event of the window is there.

    Up to ``MAX_EVENTS`` they come one by one (``mode`` "marks": time, kind, row, job, task). Past that
    (``mode`` "counts") they come as counts per row, pixel column (``pixels`` equal columns of the window)
    and kind: ``cr``, ``cp``, ``ck`` (an index into ``kinds``), ``cn``; ``total`` counts them all, and the
    chart says that it shows counts. ``kinds`` lists every kind the run has (legend).
    """
    ev = event_table(parsed, index)
    a, b = np.searchsorted(ev["t"], lo, side="left"), np.searchsorted(ev["t"], hi, side="right")  # t is sorted
    row = ev["row"][a:b]
    picked = a + np.nonzero((row == -1) | ((row >= row0) & (row < row0 + rows)))[0]
    kinds = [k for k in EVENT_KINDS if k in ev["kinds"]]
    out = {"kinds": kinds, "labels": EVENT_KINDS, "total": int(picked.size), "mode": "marks", "t": [], "kind": [],
           "r": [], "job": [], "task": []}  # fmt: skip
    r = ev["row"][picked]
    r = np.where(r == -1, -1, r - row0)
    if picked.size <= MAX_EVENTS or not pixels:
        labels = ev["labels"](picked)
        out.update({"t": [round(x, 3) for x in ev["t"][picked].tolist()],
                    "kind": [ev["kinds"][k] for k in ev["kind"][picked].tolist()],
                    "r": r.tolist(), "job": labels[0], "task": labels[1]})  # fmt: skip
        return out
    width = (hi - lo) / pixels
    column = (
        np.zeros(picked.size, np.int64)
        if width <= 0
        else np.minimum(((ev["t"][picked] - lo) / width).astype(np.int64), pixels - 1)
    )
    lookup = np.asarray([kinds.index(k) if k in kinds else 0 for k in ev["kinds"]], np.int64)
    kind = lookup[ev["kind"][picked].astype(np.int64)]
    key = ((r + 1) * pixels + column) * len(kinds) + kind  # row −1 (jobs) first
    cells, counts = np.unique(key, return_counts=True)
    out.update({"mode": "counts", "columns": pixels,
                "cr": (cells // (pixels * len(kinds)) - 1).tolist(), "cp": (cells // len(kinds) % pixels).tolist(),
                "ck": (cells % len(kinds)).tolist(), "cn": counts.tolist()})  # fmt: skip
    return out
