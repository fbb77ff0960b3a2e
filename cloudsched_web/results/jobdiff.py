"""The schedule diff: what changed between two runs of the same workload, job by job.

Served from each run's per-job index (``results.jobindex``), written by the worker or built here.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results import indexfiles, jobindex
from cloudsched_web.results.cuts import cut_at
from cloudsched_web.results.queries import bounded

__all__ = ["MAX_ROWS", "ROWS", "STATUSES", "diff", "status_lines", "status_of"]


def _job_table(parsed, index):
    """Run ``index``'s jobs sorted by id, with their first start, last end and resource set (``results.jobindex``:
    the set's size ``nres`` and fingerprint ``fp``), read once: from the file the worker wrote, else
    built here from the segments file (results stored without it) by the same code."""

    def build():
        name = indexfiles.files_of(parsed, index).get("jobs")
        table = jobindex.read(name) if name else jobindex.table_of(parsed.stored(index))
        out = {c: table[c].to_numpy() for c in ("first", "last", "nres", "fp")}
        return {"job": table["job"].combine_chunks(), **out}

    return parsed.memo(("job_table", index), build)


def _change(delta_start, delta_end, moved):
    """What happened to each job in B, as :data:`STATUSES` names it: waiting first (it is what users feel), then
    moving, then ending at another time."""
    later, earlier = delta_start > 1e-9, delta_start < -1e-9
    other_end = np.where(np.abs(delta_end) > 1e-9, "other_end", "same")
    return np.where(later, "later", np.where(earlier, "earlier", np.where(moved, "moved", other_end))).tolist()


def _missing(jobs, absent, cut):
    """Of one side's jobs absent from the other (positions ``absent`` in its job table), which count as cut.

    A job counts as cut when the other run's recording stopped at ``cut`` and the job's first
    start on this side is at or after it: its segments would lie where the other run recorded none.
    """
    if cut is None:
        return np.zeros(absent.size, dtype=bool)
    return jobs["first"][absent] >= cut - 1e-9


def _join(ja, jb):
    """The jobs of both sides by id: positions in ``ja`` and in ``jb`` of the jobs in both (in ``ja``'s
    order), of the jobs only in ``ja`` and of those only in ``jb`` (each in its side's order)."""
    if ja.equals(jb):  # the same workload run in full on both sides: the same ids in the same order
        both = np.arange(len(ja))
        return both, both, both[:0], both[:0]
    at = pc.fill_null(pc.index_in(ja, value_set=jb), -1).to_numpy()
    in_b = at >= 0
    in_a = np.asarray(pc.is_in(jb, value_set=ja), dtype=bool)
    return np.flatnonzero(in_b), at[in_b], np.flatnonzero(~in_b), np.flatnonzero(~in_a)


ROWS = 100  # changed jobs per page of the diff's table (``offset`` pages through all of them)
MAX_ROWS = 1000

# A job's status in the diff, as the Gantts colour it (``status_of``): what happened to it in B.
STATUSES = ("same", "later", "earlier", "moved", "other_end", "not_in_b", "not_in_a", "cut_in_b", "cut_in_a")


def status_of(parsed, a, other, b):
    """A function from job ids (an Arrow string array) to their status codes in :data:`STATUSES` (−1: in neither
    run), for the diff of run ``a`` of ``parsed`` and run ``b`` of ``other`` (None: ``parsed``).

    Vectorised over the two runs' job tables (:func:`_job_table`), so a Gantt window colours every one of its
    jobs, at any zoom: later / earlier by the first start, else moved (another resource set), else
    ``other_end`` (same start and resources, another last end), else same; a job on one side only is
    ``not_in_*``, or ``cut_in_*`` where the other side's schedule limit cut it (:func:`_missing`)."""
    other = parsed if other is None else other
    ja, jb = _job_table(parsed, a), _job_table(other, b)
    cut_a, cut_b = cut_at(parsed, a), cut_at(other, b)

    def codes(names):
        at_a = np.asarray(pc.fill_null(pc.index_in(names, value_set=ja["job"]), -1).to_numpy(zero_copy_only=False))
        at_b = np.asarray(pc.fill_null(pc.index_in(names, value_set=jb["job"]), -1).to_numpy(zero_copy_only=False))
        out = np.full(len(names), -1, np.int64)
        both = np.flatnonzero((at_a >= 0) & (at_b >= 0))
        ia, ib = at_a[both], at_b[both]
        ds, de = jb["first"][ib] - ja["first"][ia], jb["last"][ib] - ja["last"][ia]
        moved = (ja["fp"][ia] != jb["fp"][ib]) | (ja["nres"][ia] != jb["nres"][ib])
        out[both] = np.where(
            ds > 1e-9, 1, np.where(ds < -1e-9, 2, np.where(moved, 3, np.where(np.abs(de) > 1e-9, 4, 0)))
        )
        only_a = np.flatnonzero((at_a >= 0) & (at_b < 0))
        out[only_a] = np.where(_missing(ja, at_a[only_a], cut_b), 7, 5)
        only_b = np.flatnonzero((at_a < 0) & (at_b >= 0))
        out[only_b] = np.where(_missing(jb, at_b[only_b], cut_a), 8, 6)
        return out

    return codes


def status_lines(side, index, status):
    """The status code (``status``: :func:`status_of`) of every line of run ``index``'s job index (of ``side``),
    in the index's order: what the by-row index's ``job`` column points into (``results.indexes``)."""
    return np.asarray(status(_job_table(side, index)["job"]), np.int64)


def diff(parsed, a, b, limit=ROWS, other=None, offset=0):
    """What changed between run ``a`` and run ``b`` of the same workload: the changed jobs counted once each in
    ``later``, ``earlier`` (by the first start), ``moved`` (same start, other resources) and ``other_end`` (same
    start and resources, another end), which add up to ``changed``; and one page of the changed jobs (``rows``:
    ``limit`` from ``offset``; a row's ``change`` is its category, its ``moved`` whether its resources differ,
    whatever its start).

    ``b`` indexes ``other`` (another stored run with the same workload digest) when given, else
    ``parsed``. Jobs on one side only are counted apart from jobs the other side's schedule
    limit cut (:func:`cut_at`, :func:`_missing`). A job *moved* when its set of resources differs
    (compared by ``results.jobindex``'s size and 64-bit fingerprint of the set). Changed jobs come by
    −|Δend| − |Δstart|, ties in job id order; the jobs absent from a side in job id order.
    Vectorised over the two runs' job tables (:func:`_job_table`), whichever way each was stored.
    """
    other = parsed if other is None else other
    ja, jb = _job_table(parsed, a), _job_table(other, b)
    ia, ib, only_a, only_b = _join(ja["job"], jb["job"])
    sa, sb, ea, eb = ja["first"][ia], jb["first"][ib], ja["last"][ia], jb["last"][ib]
    dstart, dend = sb - sa, eb - ea
    moved = (ja["fp"][ia] != jb["fp"][ib]) | (ja["nres"][ia] != jb["nres"][ib])
    changed = np.flatnonzero(moved | (np.abs(dstart) > 1e-9) | (np.abs(dend) > 1e-9))
    order = changed[np.argsort(-np.abs(dend[changed]) - np.abs(dstart[changed]), kind="stable")]
    limit = bounded(limit, "limit", 1, MAX_ROWS)
    offset = bounded(offset, "offset", 0, max(int(changed.size) - 1, 0))
    top = order[offset : offset + limit]
    names = ja["job"].take(pa.array(ia[top])).to_pylist()
    columns = (sa[top].tolist(), sb[top].tolist(), ea[top].tolist(), eb[top].tolist(), dstart[top].tolist(),
               dend[top].tolist(), moved[top].tolist(), _change(dstart[top], dend[top], moved[top]))  # fmt: skip
    rows = [{"job": job, "change": ch, "start_a": s_a, "start_b": s_b, "end_a": e_a, "end_b": e_b, "delta_start": ds,
             "delta_end": de, "moved": mv}
            for job, s_a, s_b, e_a, e_b, ds, de, mv, ch in zip(names, *columns, strict=True)]  # fmt: skip
    cut_a, cut_b = cut_at(parsed, a), cut_at(other, b)
    cut_in_b, cut_in_a = _missing(ja, only_a, cut_b), _missing(jb, only_b, cut_a)
    later, earlier = dstart > 1e-9, dstart < -1e-9
    same_start = ~later & ~earlier
    return {
        "a": {"index": a, "algorithm": parsed.run(a).get("algorithm", ""), "cut_at": cut_a},
        "b": {"index": b, "algorithm": other.run(b).get("algorithm", ""), "cut_at": cut_b},
        "jobs": int(ia.size),
        "only_a": int(only_a.size - cut_in_b.sum()),
        "only_b": int(only_b.size - cut_in_a.sum()),
        "cut_in_a": int(cut_in_a.sum()),
        "cut_in_b": int(cut_in_b.sum()),
        "changed": int(changed.size),
        # A partition of the changed jobs, each counted once, as status_of colours them: by the first start,
        # else by the resources (same start, other resources: "moved"), else by the end alone.
        "later": int(later.sum()),
        "earlier": int(earlier.sum()),
        "moved": int((same_start & moved).sum()),
        "other_end": int((same_start & ~moved & (np.abs(dend) > 1e-9)).sum()),
        "offset": offset,
        "rows": rows,
    }
