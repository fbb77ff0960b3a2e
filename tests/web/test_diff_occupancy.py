"""The diff's occupancy blocks are coloured by their jobs' statuses, at any zoom (results.occupancy._status_line).

A block shows "unchanged" only when every job busy in it is unchanged; otherwise the change with the most
busy time among its changed jobs. Checked against a brute-force reading of the stored segments, on every
family's example (by-row index and on-the-fly path alike) and on a hand-made pair where a block is mostly
unchanged work with one moved job in it.
"""

import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import schedulers
from cloudsched_web.results import gantt, indexes, jobdiff, store
from cloudsched_web.results.occupancy import EPS
from cloudsched_web.results.queries import ParsedResult

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]


def _both(doc):
    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    return ParsedResult(header, manifest), ParsedResult(header, indexes.build(header, manifest))


def _expected(parsed, index, status, page, lo, hi, pixels):
    """Per row of ``page``, per column the characters allowed: brute force over every segment and column."""
    table = parsed.stored(index).table("segments", ["job", "resource", "start", "end", "share"])
    names = pc.cast(table["job"], pa.string())
    codes = np.asarray(status(names.combine_chunks()))
    res = pc.cast(table["resource"], pa.string()).to_pylist()
    starts, ends = table["start"].to_numpy(), table["end"].to_numpy()
    share = np.nan_to_num(np.asarray(table["share"].to_numpy(zero_copy_only=False), float), nan=1.0)
    edges = np.linspace(lo, hi, pixels + 1)
    width = (hi - lo) / pixels
    lines = []
    for name in page:
        on = np.array([r == name for r in res])
        busy = np.zeros((len(jobdiff.STATUSES), pixels))
        for k in range(pixels):
            overlap = (
                np.clip(np.minimum(ends[on], edges[k + 1]) - np.maximum(starts[on], edges[k]), 0, None) * share[on]
            )
            np.add.at(busy[:, k], codes[on], overlap)
        line = []
        for k in range(pixels):
            changed = busy[1:, k]
            if changed.max() > EPS * width:  # ties (equal busy time, to rounding) may go either way
                line.append({chr(49 + int(c)) for c in np.flatnonzero(changed >= changed.max() - 1e-9 * width)})
            elif busy[:, k].max() > EPS * width:
                line.append({"0"})
            else:
                line.append({"."})
        lines.append(line)
    return lines


@pytest.mark.parametrize("family", FAMILIES)
def test_every_familys_diff_occupancy_colours_each_block_by_its_changed_jobs(family):
    scenario = schedulers.example(family)
    plain, indexed = _both(schedulers.run(scenario))
    last = len(plain.doc["runs"]) - 1
    status = jobdiff.status_of(plain, 0, None, last)
    checked = 0
    for side in (0, last):
        lo, hi = plain.span(side)
        for t0, t1 in ((None, None), (lo + (hi - lo) * 0.3, lo + (hi - lo) * 0.6)):
            payloads = [gantt.gantt(p, side, t0, t1, rows=200, pixels=23, max_bars=0, status=status)
                        for p in (plain, indexed)]  # fmt: skip
            a, b = payloads
            if a["mode"] != "occupancy":
                continue
            assert a["occupancy"] == b["occupancy"]  # the by-row index (its ``job`` column) and the segments agree
            w0, w1 = a["window"]
            want = _expected(plain, side, status, a["resources"], w0, w1, 23)
            got = a["occupancy"]["c"].get("status", ["." * 23] * len(a["resources"]))
            for name, line, allowed in zip(a["resources"], got, want, strict=True):
                assert all(ch in ok for ch, ok in zip(line, allowed, strict=True)), (side, name, line, allowed)
            checked += sum(ch not in ".0" for line in got for ch in line)
    if family != "vm_reservations":  # its example's algorithms may place identically
        assert checked, "no changed job in any block: the test would not see a wrong colour"


def test_a_block_of_mostly_unchanged_work_takes_the_colour_of_its_one_moved_job():
    def seg(job, res, s, e):
        return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": 1.0}

    a = [seg("big", "m0", 0, 100), seg("small", "m1", 0, 1), seg("other", "m1", 50, 60)]
    b = [seg("big", "m0", 0, 100), seg("small", "m0", 0, 1), seg("other", "m1", 50, 60)]  # small moved to m0
    doc = {"summary": {}, "runs": [{"algorithm": n, "repetition": 0, "metrics": {}, "schedule": s, "series": {},
                                    "jobs": []} for n, s in (("a", a), ("b", b))]}  # fmt: skip
    _, indexed = _both(doc)
    status = jobdiff.status_of(indexed, 0, None, 1)
    g = gantt.gantt(indexed, 1, 0, 100, rows=10, pixels=4, max_bars=0, status=status)
    assert g["mode"] == "occupancy"
    rows = dict(zip(g["resources"], g["occupancy"]["c"]["status"], strict=True))
    moved = str(jobdiff.STATUSES.index("moved"))
    assert rows["m0"] == moved + "000"  # 99 % of the first block is unchanged work; the moved job colours it
    assert rows["m1"] == "..0."
