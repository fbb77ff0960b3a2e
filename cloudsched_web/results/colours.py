"""Colour modes of the Gantt: by job, by state, by DVFS frequency, cloud, host or VM type.

A mode's categories (or range) span the whole result, so a colour means the same on every Gantt of
the page and at every zoom. Each bar, and each occupancy block, carries its value in every mode.
"""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cloudsched_web.results import indexfiles
from cloudsched_web.results.arrays import natural_key, rounded

__all__ = ["SCALE_LEVELS", "TIERS", "bar_values", "colour_modes", "mode_array", "tier_of"]

# What a segment's ``kind`` (and ``ended``) mean, in the legend's words.
KIND_LABELS = {"fg": "foreground tier", "bg": "background tier", "ar": "AR lease", "be": "BE lease",
               "vm": "VM", "task": "task"}  # fmt: skip


ENDED_LABELS = {"preempted": "preempted", "killed": "killed", "migrated": "migrated away"}
MAX_CATEGORIES = 24  # more than this and a legend cannot tell the colours apart
SCALE_LEVELS = 64  # occupancy blocks carry a scale value as one of this many levels of its range


def _state(kind, ended):
    """A segment's state: its kind in words, plus how it ended when that was not a plain finish."""
    label = KIND_LABELS.get(kind, kind) if kind else "segment"
    return f"{label}, {ENDED_LABELS[ended]}" if ended in ENDED_LABELS else label


# key, label, columns it reads, type
MODE_SPECS = (
    ("state", "state (tier, lease, how it ended)", ("kind", "ended"), "category"),
    ("freq", "DVFS core frequency", ("freq_ghz",), "scale"),
    ("cloud", "cloud", ("cloud",), "category"),
    ("host", "host", ("host",), "category"),
    ("vm_type", "VM type", ("vm_type",), "category"),
)


SCALE_UNITS = {"freq": "GHz"}


def _segment_values(table, spec):
    """Each segment's value in colour mode ``spec`` (a state label, a category, a number)."""
    key, _, columns, _ = spec
    n = table.num_rows
    if key == "state":
        kinds = table["kind"].to_pylist() if "kind" in table.column_names else [None] * n
        ended = table["ended"].to_pylist() if "ended" in table.column_names else [None] * n
        return [_state(k, e) for k, e in zip(kinds, ended, strict=True)]
    if columns[0] not in table.column_names:
        return [None] * n
    values = table[columns[0]].to_pylist()
    return values if spec[3] == "scale" else [None if v is None else str(v) for v in values]


def colour_modes(parsed):
    """The colour modes this result supports, with their categories (or range) over every run.

    Colouring by job is always offered (hashed colours, the same job alike on every chart).
    A category mode is offered when some run has 2..``MAX_CATEGORIES`` values of it, a scale
    when some run has a numeric column. Categories and ranges span the whole result, so a
    colour means the same on every Gantt of the page and at every zoom.

    The mode columns are read as stored: a file of stretches (``results.store``) holds each stretch's
    values once, the same for all of its segments, so its distinct values and range are the segments'.
    """

    def build():
        stored_modes = indexfiles.colour_modes(parsed)
        if stored_modes is not None:  # built by the worker (results.indexes)
            return stored_modes
        found = {}
        for i in range(len(parsed.doc.get("runs", []))):
            stored = parsed.stored(i)
            schema = stored.schema("segments")
            if schema is None:
                continue
            for spec in MODE_SPECS:
                cols = [c for c in spec[2] if c in schema.names]
                if not cols:
                    continue
                table = pq.read_table(stored.source("segments"), columns=cols)  # as stored (see above)
                if spec[3] == "scale":
                    v = table[cols[0]]
                    lo, hi = pc.min(v).as_py(), pc.max(v).as_py()
                    if lo is not None:
                        rng = found.setdefault(spec[0], [lo, hi])
                        rng[:] = [min(rng[0], lo), max(rng[1], hi)]
                else:
                    values = set(_segment_values(table.group_by(cols, use_threads=False).aggregate([]), spec))
                    found.setdefault(spec[0], set()).update(v for v in values if v is not None)
        modes = [{"key": "job", "label": "job", "type": "job", "columns": []}]
        for key, label, columns, typ in MODE_SPECS:
            if key not in found:
                continue
            if typ == "scale":
                modes.append({"key": key, "label": label, "type": typ, "columns": list(columns),
                              "range": found[key], "unit": SCALE_UNITS.get(key, "")})  # fmt: skip
            elif 2 <= len(found[key]) <= MAX_CATEGORIES:
                cats = sorted(found[key], key=natural_key)
                modes.append({"key": key, "label": label, "type": typ, "columns": list(columns), "categories": cats})
        return modes

    return parsed.memo(("colour_modes",), build)


def mode_array(table, mode):
    """Per segment of ``table``: its category's index in ``mode["categories"]`` (−1: none) or its value (NaN: none)."""
    spec = next(s for s in MODE_SPECS if s[0] == mode["key"])
    n = table.num_rows
    if mode["type"] == "scale":
        if spec[2][0] not in table.column_names:
            return np.full(n, np.nan)
        return np.asarray(pc.fill_null(pc.cast(table[spec[2][0]], pa.float64()), np.nan).to_numpy(zero_copy_only=False))
    if mode["key"] == "state":  # a label per distinct (kind, ended) pair, then an array lookup
        parts = [
            pc.fill_null(pc.cast(table[c], pa.string()), "") if c in table.column_names else pa.array([""] * n)
            for c in ("kind", "ended")
        ]
        key = pc.binary_join_element_wise(parts[0], parts[1], "\x1f")
        uniq = pc.unique(key)
        code = {c: i for i, c in enumerate(mode["categories"])}
        lookup = np.array([code.get(_state(*u.split("\x1f")), -1) for u in uniq.to_pylist()] + [-1], np.int64)
        where = pc.fill_null(pc.index_in(key, value_set=uniq), len(uniq))
        return lookup[np.asarray(where.to_numpy(zero_copy_only=False), np.int64)]
    if spec[2][0] not in table.column_names:
        return np.full(n, -1, np.int64)
    cats = pa.array(mode["categories"], pa.string())
    where = pc.fill_null(pc.index_in(pc.cast(table[spec[2][0]], pa.string()), value_set=cats), -1)
    return np.asarray(where.to_numpy(zero_copy_only=False), np.int64)


TIERS = ("foreground tier", "background tier")  # backfill's two tiers on one processor, in their lanes


def tier_of(modes):
    """Per category of the state mode, the tier it belongs to (0 foreground, 1 background; other kinds 0), or
    None when the result has no background tier: then a row's lanes are its overlaps, not its tiers."""
    state = next((m for m in modes if m["key"] == "state"), None)
    if state is None:
        return None
    tiers = [next((i for i, t in enumerate(TIERS) if c.startswith(t)), 0) for c in state["categories"]]
    return np.asarray(tiers, np.int64) if 1 in tiers else None


def bar_values(table, mode):
    """Per bar: its category's index (into ``mode["categories"]``, −1 none) or its value (scales, null none)."""
    if mode["type"] == "job":
        return None
    values = mode_array(table, mode)
    if mode["type"] == "scale":
        return [None if np.isnan(v) else rounded(float(v)) for v in values.tolist()]
    return values.tolist()
