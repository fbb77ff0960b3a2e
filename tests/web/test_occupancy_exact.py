"""timeline's occupancy gives exactly (byte for byte) what the plain definition computes.

The reference below is the definition as the code had it before its per-row shortcuts: per row and
per weight, F(x) = Σ w·max(0, x − start) − Σ w·max(0, x − end) from ``_ramp_sum`` (cumulative sums over
the stable sorts), a category's weights masked to its segments, and zoom's overlap counts over every
segment of the page at once. The shortcuts (times already in order not permuted, weights 1 not
multiplied, a category's ramps over its own segments, the counts summed per row) must not change a bit; nor may reading the page a row at a time.
"""

import json

import numpy as np
import pytest

from cloudsched_web.results import occupancy as occ

MODES = [{"key": "job", "type": "job"},
         {"key": "state", "type": "category", "categories": ["a", "b", "c", "d"]},
         {"key": "freq", "type": "scale", "range": [1.0, 3.0]}]  # fmt: skip

# (lo, hi, pixels): inside, beyond and at an instant of the schedule; edges on its integer times too
WINDOWS = ((0.0, 60.0, 37), (0.0, 60.0, 60), (3.0, 17.0, 14), (3.0, 17.5, 100), (10.0, 10.0, 5), (-5.0, 80.0, 2))


def _reference(arrays, page, capacities, lo, hi, pixels, modes):
    edges = np.linspace(lo, hi, pixels + 1)
    width = (hi - lo) / pixels
    starts, ends = np.maximum(arrays["start"], lo), np.minimum(arrays["end"], hi)
    n = starts.size
    share = np.ones(n) if arrays["share"] is None else arrays["share"]
    grid = np.zeros((len(page), pixels))
    eps = occ.EPS * width
    strings = {key: ["." * pixels for _ in page] for key in arrays["values"]}
    for r in np.unique(arrays["row"]).tolist():
        m = arrays["row"] == r

        def busy_of(w, m=m):
            return np.diff(occ.ramp_sum(edges, starts[m], w) - occ.ramp_sum(edges, ends[m], w))

        cap = float(capacities.get(page[r], 1.0) or 1.0)
        if width > 0:
            grid[r] = np.clip(busy_of(share[m]) / (width * cap), 0.0, 1.0)
        else:
            s_m, e_m = arrays["start"][m], arrays["end"][m]
            at = (s_m <= lo) & ((e_m > lo) | (s_m == e_m))
            grid[r] = min(float(share[m][at].sum()) / cap, 1.0)
        for mode in modes:
            if mode["key"] not in arrays["values"]:
                continue
            vr = np.asarray(arrays["values"][mode["key"]][m])
            if mode["type"] == "scale":
                ok = ~np.isnan(vr)
                w = np.where(ok, share[m], 0.0)
                total = busy_of(w)
                mean = np.divide(busy_of(w * np.nan_to_num(vr)), total, out=np.zeros(pixels), where=total > eps)
                a, b = mode["range"]
                level = np.rint((mean - a) / (b - a) * 63)
                chars = np.where(total > eps, 48 + np.clip(level, 0, 63), 46)
            else:
                cats = np.unique(vr[vr >= 0]).astype(np.int64)
                chars = np.full(pixels, 46)
                if cats.size:
                    per = np.stack([busy_of(np.where(vr == c, share[m], 0.0)) for c in cats])
                    chars = np.where(per.max(axis=0) > eps, 48 + cats[np.argmax(per, axis=0)], 46)
            strings[mode["key"]][r] = bytes(chars.astype(np.uint8).tolist()).decode("ascii")
    occupancy = {"columns": pixels, "t": [lo, hi], "rows": np.round(grid, 3).tolist(), "c": strings}
    s_all, e_all = np.sort(arrays["start"]), np.sort(arrays["end"])
    overlap = np.searchsorted(s_all, edges[1:], side="left") - np.searchsorted(e_all, edges[:-1], side="right")
    return occupancy, overlap


def _schedule(rng, n, rows, ties):
    """Segments of ``rows`` rows: integer times when ``ties`` (equal starts, ends, zero lengths), shares and
    categories with none (−1, NaN) among them."""
    start = rng.integers(0, 50, n).astype(float) if ties else rng.uniform(0, 50, n)
    length = rng.integers(0, 8, n).astype(float) if ties else rng.exponential(3.0, n)
    share = rng.choice([1.0, 0.5, 0.25, 0.0], n)
    cat = rng.integers(-1, 4, n).astype(np.int8)
    freq = np.where(rng.random(n) < 0.2, np.nan, rng.choice([1.0, 2.2, 3.0], n))
    return start, start + length, share, cat, freq, rng.integers(0, rows, n)


@pytest.mark.parametrize("seed", range(6))
def test_occupancy_and_zoom_counts_are_the_definitions_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    page = [f"m{i}" for i in range(5)]
    start, end, share, cat, freq, row = _schedule(rng, 400, len(page), ties=seed % 2 == 0)
    capacities = {"m1": 2.0}
    for by_row in (False, True):
        for in_start_order in (False, True):
            order = np.lexsort((start, row)) if by_row else (np.argsort(start) if in_start_order else np.arange(400))
            if by_row and not in_start_order:
                order = np.argsort(row, kind="stable")  # rows together, the given order inside
            for with_share in (True, False):
                arrays = {"start": start[order], "end": end[order], "share": share[order] if with_share else None,
                          "row": row[order], "values": {"state": cat[order], "freq": freq[order]}}  # fmt: skip
                assert WINDOWS  # the loop below checks each
                for lo, hi, pixels in WINDOWS:
                    kept = (arrays["start"] < hi) & (arrays["end"] > lo) if hi > lo else (
                        (arrays["start"] <= lo) & (arrays["end"] >= lo))  # fmt: skip
                    win = {k: v[kept] for k, v in arrays.items() if k in ("start", "end", "row")}
                    win["share"] = None if arrays["share"] is None else arrays["share"][kept]
                    win["values"] = {k: v[kept] for k, v in arrays["values"].items()}
                    rows = list(occ.page_rows(win))
                    want, overlap = _reference(win, page, capacities, lo, hi, pixels, MODES)
                    for max_bars in sorted({0, 3, overlap.min() - 1, overlap.min(), overlap.min() + 1, 10**6}):
                        got = occ.occupancy_and_zoom(rows, page, capacities, lo, hi, pixels, MODES, max_bars)
                        assert json.dumps(got["occupancy"], sort_keys=True) == json.dumps(want, sort_keys=True)
                        assert got["count"] == win["start"].size
                        zoom = occ._zoom_shows_bars(win["start"], win["end"], lo, hi, pixels, max_bars)
                        assert got["zoom_shows_bars"] == zoom, (lo, hi, by_row, max_bars)
