"""Arrow tables from a result's parts: segments, job records and series, from the library's Columns or from dicts.

Columns take the fast path (arrays straight to Arrow, sorted and encoded as arrays); a list of dicts
(migrated or legacy results, third-party documents) is converted record by record into the same
schema. ``results.stretches`` then decides how the segments are written; ``results.store`` writes.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from schedulers.core.columns import Columns

__all__ = ["SCAN", "SEGMENT_TYPES", "SPARSE", "columns_table", "jobs_table", "records_table", "segments_table",
           "series_table", "start_order"]  # fmt: skip

# Schedule columns every family writes, typed; any other key becomes a column of its inferred type.
SEGMENT_TYPES = {"start": pa.float64(), "end": pa.float64(), "resource": pa.string(), "job": pa.string(),
                 "task": pa.string(), "share": pa.float64(), "kind": pa.string()}  # fmt: skip


SPARSE = b"cloudsched.sparse"
SCAN = 1 << 18  # rows compared a block at a time (sorting checks, stretches)


def _column(values: list, typ: pa.DataType | None = None) -> pa.Array:
    """One typed column from a list of Python values; a column of mixed types is kept as text."""
    try:
        return pa.array(values, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def records_table(records: list[dict], types: dict[str, pa.DataType] | None = None) -> pa.Table:
    """A table with one column per key found in any record (missing values are nulls).

    Fast path: Arrow converts the dicts itself against a schema taken from the keys of all
    records and the type of each key's first value; a column whose values do not fit that
    type falls back to column-by-column conversion (mixed types kept as text).
    """
    names: dict[str, None] = {}
    for rec in records:
        if rec.keys() - names.keys():
            names.update(dict.fromkeys(rec))
    # Sparse: some record lacks a key (family extras). Read back, its nulls are then dropped;
    # in a dense table a null is a value the record had (None).
    sparse = any(len(rec) != len(names) for rec in records)
    table = _records_table(records, names, types or {})
    return table.replace_schema_metadata({SPARSE: b"1" if sparse else b"0"})


def _records_table(records, names, types) -> pa.Table:
    fields = []
    for name in names:
        typ = types.get(name)
        if typ is None:
            first = next((rec[name] for rec in records if rec.get(name) is not None), None)
            typ = pa.scalar(first).type if first is not None else pa.null()
        fields.append(pa.field(name, typ))
    try:
        return pa.Table.from_pylist(records, schema=pa.schema(fields))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    columns = {}
    for name in names:
        values = [rec.get(name) for rec in records]
        typ = types.get(name)
        if typ == pa.string():
            values = [None if v is None else str(v) for v in values]
        columns[name] = _column(values, typ)
    return pa.table(columns) if columns else pa.table({})


def columns_table(cols: Columns, types: dict[str, pa.DataType] | None = None, dictionary=()) -> pa.Table:
    """The fast path of :func:`records_table`: a table straight from a family's arrays (no dicts).

    Same schema as the list path gives the same rows: text as strings (``dictionary`` names
    dictionary-encoded, in order of first appearance), a ``<job>.<k>`` task as ``task_k``,
    declared ``types`` cast, the sparse flag kept.
    """
    table = cols.to_arrow(task_k=True, dictionary=dictionary)
    for name, typ in (types or {}).items():
        if name in table.column_names and name not in dictionary and table[name].type != typ:
            i = table.column_names.index(name)
            table = table.set_column(i, name, pc.cast(table[name], typ))
    return table.replace_schema_metadata({SPARSE: b"1" if cols.sparse else b"0"})


def segments_table(schedule: list[dict] | Columns) -> pa.Table:
    """Segments sorted by start, resources dictionary-encoded.

    A task named ``<job>.<k>`` with an integer ``k`` (every family's convention) is
    stored as ``k`` alone in ``task_k``: the names were a third of the file.
    ``stretches.restore`` rebuilds them when the table is read. Columns from the library take
    the fast path (sorted and encoded as arrays); a list of dicts (migrated or legacy
    results, third-party documents) is converted record by record.
    """
    if isinstance(schedule, Columns):
        if not len(schedule):
            return records_table([], SEGMENT_TYPES)
        table = columns_table(start_order(schedule), SEGMENT_TYPES, dictionary=("resource",))
    else:
        table = records_table(schedule, SEGMENT_TYPES)
        if not table.num_rows:
            return table
        table = table.sort_by([("start", "ascending"), ("end", "ascending")])
        if "resource" in table.column_names:
            table = table.set_column(
                table.column_names.index("resource"), "resource", pc.dictionary_encode(table["resource"])
            )
    if {"task", "job"} <= set(table.column_names) and not table["task"].null_count and not table["job"].null_count:
        parts = pc.split_pattern(table["task"], ".", max_splits=1, reverse=True)
        if pc.all(pc.equal(pc.list_value_length(parts), 2)).as_py():
            head, tail = pc.list_element(parts, 0), pc.list_element(parts, 1)
            job = pc.cast(table["job"], pa.string())
            canonical = pc.and_(pc.match_substring_regex(tail, r"^(0|[1-9][0-9]{0,8})$"), pc.equal(head, job))
            if pc.all(canonical).as_py():
                k = pc.cast(tail, pa.int32())
                table = table.set_column(table.column_names.index("task"), "task_k", k)
    return table


def start_order(cols: Columns) -> Columns:
    """The segments sorted by start, then end; ties keep the family's order (stable, as ``sort_by``)."""
    start, end = cols.column("start"), cols.column("end")
    last = len(cols) - 1
    for lo in range(0, max(last, 0), SCAN):  # most families emit start order already
        hi = min(lo + SCAN, last)
        a, b = slice(lo, hi), slice(lo + 1, hi + 1)
        if not ((start[b] > start[a]) | ((start[b] == start[a]) & (end[b] >= end[a]))).all():
            return cols.take(np.lexsort((end, start)))  # stable, as sort_by
    return cols


def jobs_table(jobs: list[dict] | Columns) -> pa.Table:
    """Job records as a table (Columns straight from their arrays)."""
    return columns_table(jobs) if isinstance(jobs, Columns) else records_table(jobs)


def series_table(series: dict[str, list]) -> tuple[pa.Table, dict[str, list]]:
    """The series sharing the time axis ``t`` as a table; any other series stays in the header."""
    t = series.get("t")
    plain = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in series.items()}
    if t is None or not len(t):
        return pa.table({}), plain
    aligned = {k: v for k, v in series.items() if isinstance(v, (list, np.ndarray)) and len(v) == len(t)}
    rest = {k: v for k, v in plain.items() if k not in aligned}
    return pa.table({k: _column(v, pa.float64()) for k, v in aligned.items()}), rest
