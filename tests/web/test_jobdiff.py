"""The schedule diff from the worker's per-job index (results.jobindex) gives the payload the diff computed on the fly.

The reference below is the diff as it was before the index (a pyarrow group-by over every segment,
Python dicts and frozensets per job), with one change: its ties (rows of equal −|Δend| − |Δstart|,
and the jobs absent from a side) came in set iteration order, which is arbitrary; here they come
in job id order, as the vectorised diff gives them.
"""

import itertools
import json
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import schedulers
from cloudsched_web.results import cuts, indexes, indexfiles, jobdiff, jobindex, queries, store, stretches
from cloudsched_web.results.queries import ParsedResult

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]


def _reference_jobs(parsed, index):
    table = parsed.stored(index).table("segments", ["job", "start", "end", "resource"])
    if table is None or not table.num_rows:
        return {}
    table = table.set_column(3, "resource", pc.cast(table["resource"], pa.string()))
    grouped = table.group_by("job").aggregate([("start", "min"), ("end", "max"), ("resource", "distinct")])
    jobs = grouped["job"].to_pylist()
    firsts, lasts = grouped["start_min"].to_pylist(), grouped["end_max"].to_pylist()
    resources = grouped["resource_distinct"].to_pylist()
    return {str(j): [s, e, frozenset(r)] for j, s, e, r in zip(jobs, firsts, lasts, resources, strict=True)}


def _reference_missing(jobs, other, cut):
    absent = sorted(jobs.keys() - other.keys())  # was: set order
    if cut is None:
        return dict.fromkeys(absent, "missing")
    return {j: "cut" if jobs[j][0] >= cut - 1e-9 else "missing" for j in absent}


def reference_diff(parsed, a, b, limit=100, other=None, offset=0):
    """``jobdiff.diff`` before the job index, ties in job id order; a page of the changed jobs; the categories a
    partition of the changed jobs."""
    other = parsed if other is None else other
    ja, jb = _reference_jobs(parsed, a), _reference_jobs(other, b)
    common = sorted(ja.keys() & jb.keys())  # was: set order
    rows = []
    moved = waited = earlier = other_end = 0
    for job in common:
        sa, ea, ra = ja[job]
        sb, eb, rb = jb[job]
        dstart = sb - sa
        is_moved = ra != rb
        # each changed job in one category: by its start, else by its resources, else by its end
        waited += dstart > 1e-9
        earlier += dstart < -1e-9
        moved += abs(dstart) <= 1e-9 and is_moved
        other_end += abs(dstart) <= 1e-9 and not is_moved and abs(eb - ea) > 1e-9
        if is_moved or abs(dstart) > 1e-9 or abs(eb - ea) > 1e-9:
            change = "later" if dstart > 1e-9 else "earlier" if dstart < -1e-9 else "moved" if is_moved else "other_end"
            rows.append({"job": job, "change": change, "start_a": sa, "start_b": sb, "end_a": ea, "end_b": eb,
                         "delta_start": dstart, "delta_end": eb - ea, "moved": is_moved})  # fmt: skip
    rows.sort(key=lambda r: -abs(r["delta_end"]) - abs(r["delta_start"]))
    cut_a, cut_b = cuts.cut_at(parsed, a), cuts.cut_at(other, b)
    absent_b, absent_a = _reference_missing(ja, jb, cut_b), _reference_missing(jb, ja, cut_a)
    cut_in_b, cut_in_a = sum(w == "cut" for w in absent_b.values()), sum(w == "cut" for w in absent_a.values())
    return {
        "a": {"index": a, "algorithm": parsed.run(a).get("algorithm", ""), "cut_at": cut_a},
        "b": {"index": b, "algorithm": other.run(b).get("algorithm", ""), "cut_at": cut_b},
        "jobs": len(common),
        "only_a": len(absent_b) - cut_in_b,
        "only_b": len(absent_a) - cut_in_a,
        "cut_in_a": cut_in_a,
        "cut_in_b": cut_in_b,
        "changed": len(rows),
        "later": waited,
        "earlier": earlier,
        "moved": moved,
        "other_end": other_end,
        "offset": offset,
        "rows": rows[offset : offset + limit],
    }


def _both(doc):
    """The same stored result read without the worker's indexes and with them (as tests/web/test_indexes.py)."""
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    plain, indexed = ParsedResult(header, manifest), ParsedResult(header, indexes.build(header, manifest))
    for i in range(len(doc["runs"])):
        if indexed.stored(i).files.get("segments"):
            assert indexfiles.files_of(indexed, i).get("jobs") and not indexfiles.files_of(plain, i)
    return plain, indexed


def _sent(payload):
    """The payload as JSON in the order it is sent."""
    return json.dumps(payload)


def _assert_same(a_results, b_results=None, pages=((100, 0), (3, 0), (3, 2), (1000, 0))):
    """Every pair of runs (across two results when ``b_results``), every storage combination and page
    (``limit``, ``offset``; an offset past the changed jobs is left out: it is refused, see below)."""
    plain_a, indexed_a = a_results
    plain_b, indexed_b = b_results or a_results
    for a in range(len(plain_a.doc["runs"])):
        for b in range(len(plain_b.doc["runs"])):
            for limit, offset in pages:
                other = None if b_results is None else plain_b
                want = reference_diff(plain_a, a, b, limit, other, offset)
                if offset and offset >= want["changed"]:
                    continue
                for pa_, pb_ in itertools.product((plain_a, indexed_a), (plain_b, indexed_b)):
                    if b_results is None and pa_ is not pb_:
                        continue
                    got = jobdiff.diff(pa_, a, b, limit, None if b_results is None else pb_, offset)
                    assert _sent(got) == _sent(want), (a, b, limit, offset, pa_ is indexed_a, pb_ is indexed_b)


def _seg(job, res, s, e, **extra):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": 1.0, **extra}


def _wide(job, resources, s, e):
    """A job on several processors at once: one segment per processor (stored as one stretch)."""
    return [{"job": job, "task": f"{job}.{k}", "resource": r, "start": s, "end": e, "share": 1.0}
            for k, r in enumerate(resources)]  # fmt: skip


def _doc(*schedules, extras=()):
    runs = []
    for i, schedule in enumerate(schedules):
        run = {"algorithm": f"alg{i}", "repetition": 0, "metrics": {}, "schedule": schedule, "series": {}, "jobs": []}
        if i < len(extras) and extras[i]:
            run["extra"] = extras[i]
        runs.append(run)
    return {"summary": {}, "runs": runs}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_gives_the_same_diff_with_the_job_index(family):
    _assert_same(_both(schedulers.run(schedulers.example(family))))


def _hand_made():
    """Runs of one workload: moved to a set of another size, of the same size, the same set in another order,
    resumed on the same processor, delayed, earlier, only its end changed, and jobs on one side only."""
    a = [*_wide("w1", ["p0", "p1", "p2"], 0, 10), *_wide("w2", ["p3", "p4"], 0, 5), *_wide("w3", ["p5", "p6"], 0, 4),
         _seg("s1", "p7", 0, 3), _seg("s1", "p7", 5, 8),  # preempted and resumed on the same processor
         _seg("s2", "p8", 1, 2), _seg("s3", "p9", 2, 9), _seg("s4", "p9", 9, 12), _seg("s5", "p8", 3, 6),
         _seg("gone", "p9", 12, 14), _seg("late", "p8", 30, 31), _seg("later", "p8", 40, 41),
         *_wide("big", [f"q{k}" for k in range(30)], 0, 2)]  # fmt: skip
    b = [*_wide("w1", ["p0", "p1"], 0, 10),  # one processor fewer: moved
         *_wide("w2", ["p3", "p5"], 0, 5),  # same size, another set: moved
         *_wide("w3", ["p6", "p5"], 0, 4),  # the same set in another order: not moved
         _seg("s1", "p7", 0, 3), _seg("s1", "p7", 6, 8), _seg("s1", "p7", 8, 9),  # resumed later, same set
         _seg("s2", "p8", 3, 4), _seg("s3", "p9", 0, 7), _seg("s4", "p9", 9, 13), _seg("s5", "p8", 3, 6),
         _seg("new", "p0", 11, 12), _seg("new2", "p1", 50, 51),
         *_wide("big", ["p0", *(f"q{k}" for k in range(1, 30))], 0, 2)]  # fmt: skip
    return a, b


def test_hand_made_runs_with_jobs_on_one_side_and_cut_schedules_give_the_same_diff():
    a, b = _hand_made()
    c = [s for s in b if s["start"] < 20]  # b cut at 20: "late", "later" lie beyond its recording
    cut = {"schedule_cut": {"limit": len(c), "recorded": len(c), "cut_at_s": 20.0}}
    doc = _doc(a, b, c, c, [], extras=[None, None, cut, {"schedule_truncated": True}])
    results = _both(doc)
    _assert_same(results)
    d = jobdiff.diff(results[1], 0, 1)
    # by −|Δend| − |Δstart| (4, 1, 0), ties in job id order
    assert [r["job"] for r in d["rows"]] == ["s2", "s3", "s1", "s4", "big", "w1", "w2"]
    names = ["s2", "s3", "s1", "s4", "big", "w1", "w2", "gone", "late", "later", "new", "new2", "nowhere"]
    codes = jobdiff.status_of(results[1], 0, None, 1)(pa.array(names))
    assert [jobdiff.STATUSES[c] if c >= 0 else None for c in codes] == [
        "later", "earlier", "other_end", "other_end", "moved", "moved", "moved", "not_in_b", "not_in_b", "not_in_b",
        "not_in_a", "not_in_a", None]  # fmt: skip
    assert (d["jobs"], d["changed"], d["moved"], d["later"], d["earlier"], d["other_end"]) == (9, 7, 3, 1, 1, 2)
    counts = dict(zip(*np.unique([jobdiff.STATUSES[c] for c in codes[:7]], return_counts=True), strict=True))
    assert {k: d[k] for k in ("later", "earlier", "moved", "other_end")} == counts  # the Gantts' colours, counted
    d = jobdiff.diff(results[1], 0, 2)
    assert (d["only_a"], d["cut_in_b"], d["only_b"], d["cut_in_a"]) == (1, 2, 1, 0)
    d = jobdiff.diff(results[1], 0, 3)  # the older flag: cut where its record ends (t = 13)
    assert (d["only_a"], d["cut_in_b"], d["b"]["cut_at"]) == (1, 2, 13.0)


def test_a_diff_across_two_results_one_stored_with_the_index_and_one_without_is_the_same():
    a, b = _hand_made()
    c = [s for s in b if s["start"] < 20]
    cut = {"schedule_cut": {"limit": len(c), "recorded": len(c), "cut_at_s": 20.0}}
    _assert_same(_both(_doc(a, c, extras=[None, cut])), _both(_doc(b, c, a, extras=[None, cut])))
    assert jobdiff.diff(_both(_doc(a))[1], 0, 0)["jobs"] == 12


def test_many_ties_come_in_job_id_order_and_the_pages_hold_every_changed_job_once():
    rng = np.random.default_rng(5)
    n = 12_000
    shift = rng.choice([0.0, 1.0, 2.0, -1.0], n)  # equal |Δ| for thousands of jobs
    a = [_seg(str(j), f"m{j % 7}", float(j), float(j) + 3) for j in range(n)]
    b = [_seg(str(j), f"m{(j + (j % 3 == 0)) % 7}", float(j) + shift[j], float(j) + 3 + shift[j])
         for j in range(n) if j % 11]  # fmt: skip
    b += [_seg(f"x{j}", "m0", 0.0, 1.0) for j in range(5500)]  # more than 5,000 jobs only in B
    results = _both(_doc(a, b))
    _assert_same(results, pages=((100, 0), (100, 7000)))
    d = jobdiff.diff(results[1], 0, 1)
    firsts = [r["job"] for r in d["rows"] if abs(r["delta_end"]) + abs(r["delta_start"]) == 4.0]
    assert firsts == sorted(firsts) and len(firsts) > 50
    pages = [jobdiff.diff(results[1], 0, 1, 1000, offset=k) for k in range(0, d["changed"], 1000)]
    jobs = [r["job"] for page in pages for r in page["rows"]]
    changed = [str(j) for j in range(n) if j % 11 and (shift[j] or j % 3 == 0)]
    assert len(jobs) == d["changed"] == len(set(jobs)) and sorted(jobs) == sorted(changed)
    assert [p["offset"] for p in pages] == list(range(0, d["changed"], 1000))
    for field, value, allowed in (("offset", d["changed"], f"integer 0..{d['changed'] - 1}"), ("offset", -1, None),
                                  ("limit", 0, "integer 1..1000"), ("limit", 1001, None), ("limit", "x", None)):  # fmt: skip
        with pytest.raises(queries.QueryError) as refused:
            jobdiff.diff(results[1], 0, 1, **{"limit": 100, field: value})
        assert refused.value.field == field and (allowed is None or refused.value.allowed == allowed)


def test_the_fingerprint_is_the_set_of_resource_names():
    a, b = _hand_made()
    plain, _ = _both(_doc(a, b))
    for i in (0, 1):
        table = jobindex.table_of(plain.stored(i)).to_pylist()
        ref = _reference_jobs(plain, i)
        assert [r["job"] for r in table] == sorted(ref)
        for r in table:
            first, last, names = ref[r["job"]]
            fp = sum(jobindex.name_hash(n) for n in names) % 2**64
            assert (r["first"], r["last"], r["nres"], r["fp"]) == (first, last, len(names), fp)
    # a stretch file (wide jobs) and a file of one row per segment are both read
    header, manifest = store.save(0, uuid.uuid4().hex, _doc([s for s in a if s["job"] != "big"]))
    assert stretches.STRETCH in (plain.stored(0)._physical_schema("segments").metadata or {})
    assert stretches.STRETCH not in (
        ParsedResult(header, manifest).stored(0)._physical_schema("segments").metadata or {}
    )


def test_the_hash_group_by_gives_the_bitmap_s_pairs_and_a_segment_without_resource_is_not_in_the_set(monkeypatch):
    a, b = _hand_made()
    plain, _ = _both(_doc(a, b))
    results = schedulers.run(schedulers.example("backfill"))
    header, manifest = store.save(0, uuid.uuid4().hex, results)
    family = ParsedResult(header, manifest)
    nulls = ParsedResult(*store.save(0, uuid.uuid4().hex, _doc([_seg("n", None, 0, 1), _seg("n", "p1", 2, 3)])))
    stored = [plain.stored(0), plain.stored(1), family.stored(0), family.stored(1), nulls.stored(0)]
    bitmap = [jobindex.table_of(s) for s in stored]
    monkeypatch.setattr(jobindex, "BITMAP_MAX", 0)
    assert [jobindex.table_of(s) for s in stored] == bitmap
    assert bitmap[-1].to_pylist() == [
        {"job": "n", "first": 0.0, "last": 3.0, "nres": 1, "fp": jobindex.name_hash("p1")}
    ]
    assert _reference_jobs(nulls, 0) == {"n": [0.0, 3.0, frozenset({"p1"})]}


@pytest.mark.parametrize("family", ["backfill", "federated"])
def test_every_bar_of_a_gantt_window_carries_its_jobs_status_in_the_diff(family):
    """No first-N list: every changed job is coloured changed, at the whole run and in narrow windows."""
    from cloudsched_web.results import gantt
    from cloudsched_web.results.bars import plain_bars

    doc = schedulers.run(schedulers.example(family))
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    parsed = ParsedResult(header, indexes.build(header, manifest))
    a, b = 0, len(doc["runs"]) - 1
    d = jobdiff.diff(parsed, a, b, limit=jobdiff.MAX_ROWS)
    assert d["changed"] <= jobdiff.MAX_ROWS
    changed = {r["job"] for r in d["rows"]}
    status = jobdiff.status_of(parsed, a, None, b)
    lo, hi = parsed.span(b)
    for t0, t1 in ((None, None), (lo + (hi - lo) * 0.3, lo + (hi - lo) * 0.3001), (lo, lo + (hi - lo) / 50)):
        for index in (a, b):
            g = gantt.gantt(parsed, index, t0, t1, rows=200, status=status)
            bars = plain_bars({**g["bars"], "statuses": jobdiff.STATUSES})
            assert len(bars["status"]) == g["bars"]["n"]
            for job, st in zip(bars["job"], bars["status"], strict=True):
                assert (st != "same") == (job in changed or st.startswith(("not_in", "cut_in"))), (job, st)
    assert changed, "the example's algorithms differ somewhere"


def test_two_tiers_are_two_lanes_whose_busy_fractions_match_the_schedule():
    """Backfill's foreground and background tiers: each row's two lanes, each at most 1, the foreground's
    mean over the rows and the whole run the busy fraction of the foreground segments (not fg + bg clipped)."""
    from cloudsched_web.results import gantt

    doc = schedulers.run({**schedulers.example("backfill"), "algorithms": ["keasy"]})
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    parsed = ParsedResult(header, indexes.build(header, manifest))
    lo, hi = parsed.span(0)
    g = gantt.gantt(parsed, 0, lo, hi, rows=200, pixels=50, max_bars=0)
    tiers = np.asarray(g["occupancy"]["tiers"]["rows"])  # rows × 2 × columns
    assert g["mode"] == "occupancy" and tiers.shape == (64, 2, 50) and tiers.max() <= 1.0
    segs = parsed.stored(0).table("segments", ["start", "end", "kind"]).to_pylist()
    for t, kind in enumerate(("fg", "bg")):
        busy = sum(s["end"] - s["start"] for s in segs if s["kind"] == kind) / (64 * (hi - lo))
        assert abs(tiers[:, t, :].mean() - busy) < 2e-3, (kind, tiers[:, t, :].mean(), busy)
    fg = sum(s["end"] - s["start"] for s in segs if s["kind"] == "fg") / (64 * (hi - lo))
    assert abs(fg - doc["runs"][0]["metrics"]["utilization"]) < 0.05  # the foreground reads the utilisation
    bars = gantt.gantt(parsed, 0, rows=200)
    assert bars["mode"] == "bars" and set(bars["lanes"]) == {2}
    kinds = bars["bars"]["kind"]
    lane_of_kind = {(kinds["values"][c], lane) for c, lane in zip(kinds["codes"], bars["bars"]["lane"], strict=True)}
    assert lane_of_kind == {("fg", 0), ("bg", 1)}
