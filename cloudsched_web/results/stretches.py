"""Segments stored as stretches (format 2 of the segments file; docs/results.md, "Stretches").

A job on p processors is p segments alike in everything but ``resource`` and the task's ``k``
(backfill: 54 M segments for 200,000 jobs × 4 algorithms, 25-60 per stretch). A file of
stretches holds one row per run of such rows (adjacent in start order, ``k`` counting up by
one) with ``resource`` as the list of the run's resource codes, ``task_k`` as the first ``k``,
and the resource labels in the schema metadata. :func:`restore` expands it to the very rows
and order ``tables.segments_table`` gives, so no reader sees the difference.
"""

from __future__ import annotations

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from cloudsched_web.results.tables import SCAN, SEGMENT_TYPES, columns_table, segments_table, start_order
from schedulers.core.columns import Coded, Columns, TaskOf

__all__ = ["MIN_GAIN", "STRETCH", "logical_schema", "physical_columns", "restore", "segments_in", "stored_segments"]

STRETCH = b"cloudsched.stretch"  # schema metadata of a file of stretches: the resource labels (JSON list)
MIN_GAIN = 2.0  # segments are stored as stretches when that cuts the rows at least this much


def stored_segments(schedule: list[dict] | Columns) -> pa.Table:
    """The segments as written to the file: stretches where they cut the rows ≥ ``MIN_GAIN``×,
    else :func:`segments_table` (same rows; families whose segments are all different)."""
    if isinstance(schedule, Columns):
        if not len(schedule):
            return segments_table(schedule)
        schedule = start_order(schedule)
        starts = _stretches_of_columns(schedule)
        if starts is None:
            return segments_table(schedule)
        first = columns_table(schedule.take(starts), SEGMENT_TYPES, dictionary=("resource",))
        return _stretch_file(first, starts, *_first_appearance(schedule.raw("resource")))
    table = segments_table(schedule)
    return _stretch_table(table)


def _first_appearance(res: Coded) -> tuple[pa.Array, pa.Array]:
    """``res`` (no missing codes) as codes into its labels in order of first appearance, as
    ``Columns.to_arrow`` dictionary-encodes a column; the labels are found in a prefix of
    doubling length (all of them within the first rows, as a rule), then one pass remaps."""
    codes, n, size = res.codes, res.codes.size, len(res.labels)
    first = np.full(size, n, dtype=np.int64)
    lo, step = 0, 65_536
    while lo < n and (first == n).any():
        chunk = codes[lo : lo + step]
        here = np.full(size, n, dtype=np.int64)
        here[chunk[::-1]] = np.arange(lo + chunk.size - 1, lo - 1, -1)  # numpy assigns in order: the first wins
        np.minimum(first, here, out=first)
        lo, step = lo + chunk.size, step * 2
    used = np.flatnonzero(first < n)
    order = used[np.argsort(first[used], kind="stable")]
    remap = np.zeros(max(size, 1), dtype=np.int32)
    remap[order] = np.arange(order.size, dtype=np.int32)
    labels = pa.array(res.labels[order].tolist(), type=pa.string())
    return pa.array(remap[codes]), labels


def _stretches_of_columns(cols: Columns) -> np.ndarray | None:
    """Where each stretch starts (row positions), or None when stretches would not pay."""
    res = cols.raw("resource") if "resource" in cols else None
    if not isinstance(res, Coded) or "start" not in cols or (res.codes < 0).any():
        return None
    n = len(cols)
    checks = []  # (values, mask or None, is the task's k)
    for name in cols.names:
        col = cols.raw(name)
        if name == "resource":
            continue
        if isinstance(col, TaskOf):
            k = col.k  # stored as task_k only inside to_arrow's range (else as text, every row different)
            if not (int(k.min()) >= 0 and int(k.max()) < 10**9):
                return None
            checks.append((k, None, True))
            continue
        values = col.codes if isinstance(col, Coded) else col
        if values.dtype == object:
            return None
        if values.dtype.kind == "f":  # bit for bit: -0.0 and 0.0 (and NaNs) stay apart
            values = values.view(np.dtype(f"i{values.dtype.itemsize}"))
        checks.append((values, cols.valid(name), False))
    same = np.ones(n - 1, dtype=bool)
    eq = np.empty(min(n - 1, SCAN), dtype=bool)
    for lo in range(0, n - 1, SCAN):  # a block at a time: small temporaries, the block stays in cache
        hi = min(lo + SCAN, n - 1)
        block, e = same[lo:hi], eq[: hi - lo]
        for values, mask, is_k in checks:
            if is_k:
                np.equal(values[lo + 1 : hi + 1] - values[lo:hi], 1, out=e)
            else:
                np.equal(values[lo + 1 : hi + 1], values[lo:hi], out=e)
            if mask is not None:  # both missing counts as equal
                m0, m1 = mask[lo:hi], mask[lo + 1 : hi + 1]
                e &= m1 == m0
                e |= ~m0 & ~m1
            block &= e
    return _starts(same, n)


def _starts(same: np.ndarray, n: int) -> np.ndarray | None:
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    return starts if starts.size * MIN_GAIN <= n else None


def _stretch_table(table: pa.Table) -> pa.Table:
    """:func:`_stretches_of_columns` for a table of segments (the list path): stretches where they pay."""
    names = table.column_names
    n = table.num_rows
    if n < 2 or "resource" not in names or "start" not in names or table["resource"].null_count:
        return table
    same = np.ones(n - 1, dtype=bool)
    for name in names:
        if name == "resource":
            continue
        col = table[name].combine_chunks() if table[name].num_chunks != 1 else table[name].chunk(0)
        typ = col.type
        if pa.types.is_null(typ):
            continue
        if name == "task_k":  # never null (segments_table only writes it for a full column)
            k = col.to_numpy()
            same &= k[1:] == k[:-1] + 1
            continue
        if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_dictionary(typ):
            if pa.types.is_dictionary(typ):
                col = pc.cast(col, typ.value_type)
            values = pc.fill_null(pc.dictionary_encode(col).indices, -1).to_numpy()
        elif pa.types.is_integer(typ) or pa.types.is_boolean(typ) or pa.types.is_floating(typ):
            values = pc.fill_null(col, False if pa.types.is_boolean(typ) else 0).to_numpy(zero_copy_only=False)
            if values.dtype.kind == "f":
                values = values.view(np.dtype(f"i{values.dtype.itemsize}"))
        else:
            return table
        eq = values[1:] == values[:-1]
        if col.null_count:
            mask = pc.is_valid(col).to_numpy(zero_copy_only=False)
            eq = (mask[1:] == mask[:-1]) & (eq | ~mask[1:])
        same &= eq
    starts = _starts(same, n)
    if starts is None:
        return table
    resource = pc.dictionary_encode(pc.cast(table["resource"], pa.string()).combine_chunks())
    first = table.take(pa.array(starts))
    return _stretch_file(first, starts, resource.indices, resource.dictionary)


def _stretch_file(first: pa.Table, starts: np.ndarray, codes: pa.Array, labels: pa.Array) -> pa.Table:
    """The file's table: the stretches' first rows, ``resource`` the list of each stretch's resource codes."""
    offsets = pa.array(np.append(starts, len(codes)).astype(np.int32))
    lists = pa.ListArray.from_arrays(offsets, codes)
    table = first.set_column(first.column_names.index("resource"), "resource", lists)
    meta = {**(first.schema.metadata or {}), STRETCH: orjson.dumps(labels.to_pylist())}
    return table.replace_schema_metadata(meta)


def _expand(table: pa.Table, labels: pa.Array) -> pa.Table:
    """The segments of a table of stretches (inverse of :func:`_stretch_file`), in order; numbers are
    repeated in numpy (no index array of n rows unless a text or nullable column needs one)."""
    lists = table["resource"].combine_chunks() if table["resource"].num_chunks != 1 else table["resource"].chunk(0)
    lengths = np.diff(lists.offsets.to_numpy())
    codes = lists.flatten()
    n = len(codes)
    parent = None
    arrays = []
    for name in table.column_names:
        col = table[name]
        if name == "resource":
            arrays.append(pa.DictionaryArray.from_arrays(codes, labels))
        elif name == "task_k":  # the first k, counting up along the stretch
            k = np.repeat(col.to_numpy().astype(np.int32) - (np.cumsum(lengths) - lengths).astype(np.int32), lengths)
            k += np.arange(n, dtype=np.int32)
            arrays.append(pa.array(k))
        elif not col.null_count and (pa.types.is_floating(col.type) or pa.types.is_integer(col.type)):
            arrays.append(pa.array(np.repeat(col.to_numpy(), lengths)))
        else:
            if parent is None:
                parent = pa.array(np.repeat(np.arange(len(lists), dtype=np.int32), lengths))
            arrays.append(col.take(parent))
    return pa.Table.from_arrays(arrays, schema=logical_schema(table.schema))


def logical_schema(schema: pa.Schema) -> pa.Schema:
    """A stretch file's schema with ``resource`` as the segments have it (dictionary-encoded text)."""
    meta = {k: v for k, v in (schema.metadata or {}).items() if k != STRETCH}
    if STRETCH in (schema.metadata or {}):
        i = schema.get_field_index("resource")
        schema = schema.set(i, pa.field("resource", pa.dictionary(pa.int32(), pa.string())))
    return schema.with_metadata(meta)


def restore(table: pa.Table) -> pa.Table:
    """Undo the storage encodings: stretches expanded (:func:`_expand`), ``task_k`` back to ``task``."""
    labels = (table.schema.metadata or {}).get(STRETCH)
    if labels is not None:
        table = _expand(table, pa.array(orjson.loads(labels), pa.string()))
    if "task_k" in table.column_names:
        i = table.column_names.index("task_k")
        if "job" in table.column_names:
            task = pc.binary_join_element_wise(table["job"], pc.cast(table["task_k"], pa.string()), ".")
            table = table.set_column(i, "task", task)
        else:
            table = table.remove_column(i)
    return table


def physical_columns(columns: list[str] | None, present: list[str], stretches: bool = False) -> list[str] | None:
    """The stored columns to read for the logical ``columns`` asked for (stretches: always ``resource``,
    whose list lengths expand them)."""
    if columns is None:
        return columns
    out = list(columns)
    if "task" in out and "task_k" in present:
        out = [c for c in out if c != "task"] + ["task_k"]
        out = out if "job" in out else [*out, "job"]
    return [*out, "resource"] if stretches and "resource" not in out else out


def segments_in(table: pa.Table) -> int:
    """The number of segments a table written by :func:`stored_segments` holds."""
    if STRETCH not in (table.schema.metadata or {}):
        return table.num_rows
    return int(pc.sum(pc.list_value_length(table["resource"])).as_py() or 0)
