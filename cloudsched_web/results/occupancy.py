"""The Gantt past ``MAX_BARS``: per row and pixel column, the busy fraction and each colour mode's value.

Exact: a column's busy time is F(right) − F(left) with F a sum of ramps over the segments' clipped
times (cumulative sums, no per-segment loop); nothing is dropped to keep it fast.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results.arrays import float_column, resource_codes
from cloudsched_web.results.colours import SCALE_LEVELS, mode_array

__all__ = ["EPS", "occupancy_and_zoom", "page_rows", "ramp_sum", "segment_arrays"]


def segment_arrays(table, page, modes, status=None):
    """The page's segments of a window (``table``) as the arrays :func:`_occupancy` reads: ``start``,
    ``end``, ``share`` (1 where none), ``row`` (index into ``page``) and per colour mode its values;
    with ``status`` (the diff: ``jobdiff.status_of``, from job ids to status codes) each one's job's ``status``."""
    share = (
        np.nan_to_num(np.asarray(table["share"].to_numpy(zero_copy_only=False), dtype=float), nan=1.0)
        if "share" in table.column_names
        else np.ones(table.num_rows)
    )
    out = {"start": float_column(table, "start"), "end": float_column(table, "end"), "share": share,
           "row": resource_codes(table["resource"], page),
           "values": {m["key"]: mode_array(table, m) for m in modes if m["type"] != "job"}}  # fmt: skip
    if status is not None:
        jobs = pc.dictionary_encode(pc.cast(table["job"], pa.string()).combine_chunks())  # each distinct job once
        codes = np.asarray(status(jobs.dictionary), np.int64)
        out["status"] = codes[np.asarray(pc.fill_null(jobs.indices, 0))] if len(jobs.dictionary) else np.zeros(0, int)
    return out


def _occupancy(arrays, page, capacities, lo, hi, pixels, modes=()):
    """Per row, the busy fraction of each of ``pixels`` equal columns of ``[lo, hi)`` (``arrays``:
    the page's segments in the window, :func:`segment_arrays`).

    With F(x) = Σ share·|[start, end) ∩ [lo, x)|, a column's busy time is F(right) − F(left);
    F is a sum of ramps, evaluated at every column edge from cumulative sums over the
    segments sorted by start and by end (O(n log n) per row, no per-segment loop).

    Per colour mode, each block (row × column) also gets, as one character per column
    (``.`` where idle): for a category mode the **dominant** category, the one with the most
    busy time (share × time) in the block, as ``chr(48 + index)``; for a scale the
    **busy-weighted mean** Σ share·time·value / Σ share·time, as ``chr(48 + level)`` with
    level = round((mean − min)/(max − min) · 63) over the mode's range.
    """
    return occupancy_and_zoom(page_rows(arrays), page, capacities, lo, hi, pixels, modes, 0)["occupancy"]


def page_rows(arrays):
    """``(row on the page, its arrays)`` of every row with segments in ``arrays`` (:func:`segment_arrays`)."""
    codes = arrays["row"]
    if not codes.size:
        return
    in_order = bool(np.all(codes[1:] >= codes[:-1]))
    order = None if in_order else np.argsort(codes, kind="stable")  # each row's segments in their given order
    sorted_codes = codes if in_order else codes[order]
    heads = np.flatnonzero(np.concatenate([[True], sorted_codes[1:] != sorted_codes[:-1]]))
    share = arrays["share"]
    for r, a, b in zip(sorted_codes[heads].tolist(), heads.tolist(), [*heads[1:].tolist(), codes.size], strict=True):
        m = slice(a, b) if in_order else order[a:b]
        out = {"start": arrays["start"][m], "end": arrays["end"][m], "share": None if share is None else share[m],
               "values": {k: v[m] for k, v in arrays["values"].items()}}  # fmt: skip
        if "status" in arrays:
            out["status"] = arrays["status"][m]
        yield r, out


def occupancy_and_zoom(rows, page, capacities, lo, hi, pixels, modes, max_bars, tiers=None):
    """``{"occupancy", "zoom_shows_bars", "count"}`` of the page's rows (``rows``: ``(row on the page,
    arrays)`` of each row with segments in the window, as :func:`page_rows` gives them): the
    :func:`_occupancy`, :func:`_zoom_shows_bars` and the number of segments.

    Zoom's overlap counts are summed over the rows' own sorted times, the same integers as over all
    the segments at once, except where the columns are too narrow for the times' floating point
    (then the segments are kept and counted as :func:`_zoom_shows_bars` does).

    ``tiers`` (``colours.tier_of``: per state category its tier): each row's busy fraction per tier too,
    ``occupancy["tiers"]`` (rows × 2 × columns, each ≤ 1 of the row's capacity): two tiers on one
    processor (backfill's foreground and background) are two lanes, never one sum clipped at 1.

    Rows whose arrays carry ``status`` (the diff: each segment's job's code in ``jobdiff.STATUSES``, 0 =
    unchanged) get ``occupancy["c"]["status"]``, one character per column as for a category mode: the
    change with the most busy time among the block's *changed* jobs, so a block is drawn "unchanged" only
    when every job busy in it is (:func:`_status_line`)."""
    edges = np.linspace(lo, hi, pixels + 1)
    width = (hi - lo) / pixels
    grid = np.zeros((len(page), pixels))
    eps = EPS * width
    keys = [m["key"] for m in modes if m["type"] != "job"]
    strings = {}
    # Clipped to the window, a start is before a right edge (> lo) and an end at or before a left edge
    # (< hi) exactly when it was unclipped: per-row counts of the clipped times sum to the global ones.
    counted = edges[1] > lo and edges[-2] < hi
    starts_before = np.zeros(pixels, np.int64)
    ends_by = np.zeros(pixels, np.int64)
    kept, count = [], 0
    tier_grid = None if tiers is None else np.zeros((len(page), 2, pixels))
    for r, row in rows:
        s_m, e_m, sh, values = row["start"], row["end"], row["share"], row["values"]
        count += s_m.size
        if not counted:
            kept.append((s_m, e_m))
        ramps = _RowRamps(edges, np.maximum(s_m, lo), np.minimum(e_m, hi))
        if counted:
            starts_before += np.searchsorted(ramps.s, edges[1:], side="left")
            ends_by += ramps.ke[:-1]
        cap = float(capacities.get(page[r], 1.0) or 1.0)
        if width > 0:
            grid[r] = np.clip(ramps.busy(sh) / (width * cap), 0.0, 1.0)
        else:  # an instant: the shares of what runs at it (busy time / zero width would be 0 / 0)
            at = (s_m <= lo) & ((e_m > lo) | (s_m == e_m))
            grid[r] = min(float(sh[at].sum() if sh is not None else np.count_nonzero(at)) / cap, 1.0)
        if "status" in row:
            strings.setdefault("status", {})[r] = _status_line(ramps, row["status"], sh, eps, pixels)
        if tier_grid is not None and "state" in values:
            _tier_rows(tier_grid[r], ramps, tiers, values["state"], sh, width * cap, (s_m, e_m, lo, cap))
        for mode in modes:
            key = mode["key"]
            if key not in values:
                continue
            strings.setdefault(key, {})
            vr = values[key]
            if mode["type"] == "scale":
                vr = np.asarray(vr, float)
                ok = ~np.isnan(vr)
                w = np.where(ok, 1.0 if sh is None else sh, 0.0)
                total = ramps.busy(w)
                mean = np.divide(ramps.busy(w * np.nan_to_num(vr)), total, out=np.zeros(pixels), where=total > eps)
                a, b = mode["range"]
                level = np.rint((mean - a) / (b - a) * (SCALE_LEVELS - 1)) if b > a else np.zeros(pixels)
                chars = np.where(total > eps, 48 + np.clip(level, 0, SCALE_LEVELS - 1), 46)
            else:
                cats, per = ramps.busy_by_category(vr, sh)
                chars = np.full(pixels, 46)
                if per is not None:
                    best = np.argmax(per, axis=0)
                    chars = np.where(per.max(axis=0) > eps, 48 + cats[best], 46)
            strings[key][r] = bytes(chars.astype(np.uint8).tolist()).decode("ascii")
    idle = "." * pixels
    c = {key: [strings.get(key, {}).get(r, idle) for r in range(len(page))]
         for key in [*keys, *(["status"] if "status" in strings else [])]}  # fmt: skip
    occupancy = {"columns": pixels, "t": [lo, hi], "rows": np.round(grid, 3).tolist(), "c": c}
    if tier_grid is not None:
        occupancy["tiers"] = {"names": ["foreground", "background"], "rows": np.round(tier_grid, 3).tolist()}
    if hi - lo <= 2 * MIN_ZOOM:
        zoom = False
    elif counted:
        zoom = bool((starts_before - ends_by).min() <= max_bars)
    else:
        zoom = _zoom_shows_bars(*(np.concatenate([k[i] for k in kept] or [np.zeros(0)]) for i in (0, 1)),
                                lo, hi, pixels, max_bars)  # fmt: skip
    return {"occupancy": occupancy, "zoom_shows_bars": zoom, "count": count}


def _status_line(ramps, codes, sh, eps, pixels):
    """One character per column (``chr(48 + code)``, ``.`` idle): the changed status (code > 0) with the most busy
    time in the column where any changed job is busy there, else unchanged (0) where anything is busy."""
    cats, per = ramps.busy_by_category(np.asarray(codes, np.int64), sh)
    chars = np.full(pixels, 46)
    if per is None:
        return chars.astype(np.uint8).tobytes().decode("ascii")
    changed = cats > 0
    if changed.any():
        part = per[changed]
        best = np.argmax(part, axis=0)
        busy_changed = part.max(axis=0) > eps
    else:
        busy_changed = np.zeros(pixels, bool)
    busy_any = per.max(axis=0) > eps
    chars = np.where(busy_any, 48, 46)
    if changed.any():
        chars = np.where(busy_changed, 48 + cats[changed][best], chars)
    return chars.astype(np.uint8).tobytes().decode("ascii")


def _tier_rows(out, ramps, tiers, state, sh, capacity_time, instant):
    """``out[t]``: the busy fraction of tier ``t`` in each column (its share × time over the row's capacity ×
    the column's width; at an instant, the shares running then)."""
    state = np.asarray(state, np.int64)
    tier = np.where(state >= 0, tiers[np.maximum(state, 0)], 0)
    if capacity_time > 0:
        cats, per = ramps.busy_by_category(tier, sh)
        for j, t in enumerate(cats.tolist()):
            out[t] = np.clip(per[j] / capacity_time, 0.0, 1.0)
        return
    s_m, e_m, lo, cap = instant
    at = (s_m <= lo) & ((e_m > lo) | (s_m == e_m))
    for t in (0, 1):
        on = at & (tier == t)
        out[t] = min(float(sh[on].sum() if sh is not None else np.count_nonzero(on)) / cap, 1.0)


def _zoom_shows_bars(starts, ends, lo, hi, pixels, max_bars):
    """Whether some narrower window holds at most ``max_bars`` segments on these rows.

    Zooming can end in one pixel column of today's window at the narrowest (and no
    narrower than the zoom limit): if even the emptiest column is overlapped by more
    than ``max_bars`` segments, zooming in shows occupancy again, so the chart must not
    promise bars.
    """
    if hi - lo <= 2 * MIN_ZOOM:
        return False
    edges = np.linspace(lo, hi, pixels + 1)
    starts, ends = np.sort(starts, kind="stable"), np.sort(ends, kind="stable")  # runs sorted per row: merged
    overlapping = np.searchsorted(starts, edges[1:], side="left") - np.searchsorted(ends, edges[:-1], side="right")
    return bool(overlapping.min() <= max_bars)


MIN_ZOOM = 1e-3  # the chart's narrowest window (static/js/charts/linked.js, linkedTime minRange)


# Busy time below this fraction of a column is rounding noise of the cumulative sums, not work.
EPS = 1e-6


class _RowRamps:
    """One row's busy time per column for any weights: :func:`ramp_sum` of its starts minus that of
    its ends, with the sorts and edge searches done once for every weight (the same arithmetic).

    Times already in order (a row of the by-row index is in start order, and a row whose segments
    never overlap in end order too) are not permuted: a stable sort of sorted times is the identity.
    Weights None are all 1: Σ 1 is the count (exact in floating point) and 1·p is p."""

    def __init__(self, edges, starts, ends):
        self.edges = edges
        self.s_order, self.e_order = _stable_order(starts), _stable_order(ends)
        self.s = starts if self.s_order is None else starts[self.s_order]
        self.e = ends if self.e_order is None else ends[self.e_order]
        self.ks, self.ke = np.searchsorted(self.s, edges, side="right"), np.searchsorted(self.e, edges, side="right")

    def _ramp(self, p, k, w):
        cwp = _prefix(p if w is None else w * p)
        cw_k = k.astype(float) if w is None else _prefix(w)[k]  # every weight 1: Σ is the count
        return self.edges * cw_k - cwp[k]

    @staticmethod
    def _take(values, order):
        return values if values is None or order is None else values[order]

    def busy(self, weights):
        ramp_s = self._ramp(self.s, self.ks, self._take(weights, self.s_order))
        return np.diff(ramp_s - self._ramp(self.e, self.ke, self._take(weights, self.e_order)))

    def busy_by_category(self, codes, weights):
        """``(categories, busy)``: the categories (codes ≥ 0) present in ascending order and, stacked,
        each one's :meth:`busy` of the weights masked to its segments (None: none present).

        Each category's ramps run over its own segments alone, in the same sorted order: the masked
        cumulative sums add only exact zeros between them (x + 0 = x), so every value is the same as
        the masked ones' (up to the sign of a zero, which no comparison and no sum can tell)."""
        valid = codes[codes >= 0]
        cats = np.flatnonzero(np.bincount(valid)) if valid.size else np.zeros(0, np.int64)
        if not cats.size:
            return cats, None
        per = np.empty((cats.size, self.edges.size - 1))
        sides = [(p, self._take(codes, order), self._take(weights, order))
                 for p, order in ((self.s, self.s_order), (self.e, self.e_order))]  # fmt: skip
        for j, cat in enumerate(cats.tolist()):
            ramps = []
            for p, c, w in sides:
                at = np.flatnonzero(c == cat)  # the category's segments, in the sorted order
                pc_ = p[at]
                ramps.append(self._ramp(pc_, np.searchsorted(pc_, self.edges, side="right"), self._take(w, at)))
            per[j] = np.diff(ramps[0] - ramps[1])
        return cats, per


def _prefix(values):
    """``[0, v0, v0 + v1, …]``: the running sums (``np.cumsum``, in order) after a leading 0."""
    out = np.empty(values.size + 1)
    out[0] = 0.0
    np.cumsum(values, out=out[1:])
    return out


def _stable_order(values):
    """``np.argsort(values, kind="stable")``, or None when that is the identity (already in order)."""
    if values.size < 2 or bool(np.all(values[1:] >= values[:-1])):
        return None
    return np.argsort(values, kind="stable")


def ramp_sum(x, points, weights):
    """Σ_i weights_i · max(0, x − points_i) at every x (points need not be sorted)."""
    order = np.argsort(points, kind="stable")
    p, w = points[order], weights[order]
    cw, cwp = np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(w * p)])
    k = np.searchsorted(p, x, side="right")
    return x * cw[k] - cwp[k]
