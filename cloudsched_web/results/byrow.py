"""A Gantt page's segments from the worker's by-row index (``results.indexes``), and when that pays.

The footers of the segments file and of the by-row index say, per row group, how many segments it
holds and which times (or rows) it covers; a page of rows reads only its own groups.
"""

import numpy as np
import pyarrow.parquet as pq

from cloudsched_web.results import indexfiles, store
from cloudsched_web.results.arrays import float_column

__all__ = [
    "by_row_columns",
    "by_row_groups",
    "by_row_is_cheaper",
    "by_row_rows",
    "by_row_times",
    "group_stats",
    "overlapping",
]


def group_stats(parsed, index, by_row):
    """Per row group of the segments file ``(rows, min start, max end)`` and of the by-row index
    ``(rows, first row, last row)``, from the files' footers (read once per run)."""

    def build():
        segments = parsed.stored(index).source("segments")
        return _stats(segments, ("start", "end")), _stats(store.source(by_row), ("row", "row"))

    return parsed.memo(("group_stats", index), build)


def by_row_times(parsed, index, by_row):
    """Per row group of the by-row index ``(segments, min start, max end)`` (footer; read once per run)."""
    return parsed.memo(("byrow_times", index), lambda: _stats(store.source(by_row), ("start", "end")))


def _stats(source, names):
    """Per row group ``(segments, min of names[0], max of names[1])``. In a file of stretches
    (results.store) a row holds many segments: they are counted by the resource lists' elements."""
    meta = pq.ParquetFile(source).metadata
    columns = [meta.schema.to_arrow_schema().names.index(n) for n in names]
    paths = [meta.schema.column(c).path for c in range(meta.num_columns)]
    listed = paths.index("resource.list.element") if "resource.list.element" in paths else None
    out = np.zeros((meta.num_row_groups, 3))
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        lo, hi = (group.column(c).statistics for c in columns)
        rows = group.column(listed).num_values if listed is not None else group.num_rows
        out[g] = [rows, lo.min if lo is not None and lo.has_min_max else -np.inf,
                  hi.max if hi is not None and hi.has_min_max else np.inf]  # fmt: skip
    return out


def by_row_columns(parsed, index, by_row):
    """The column names of the by-row index (its footer's schema; read once per run): an index written before
    ``job`` was in it serves every view but the diff's occupancy colours (``results.gantt`` reads the segments)."""
    return parsed.memo(("byrow_columns", index), lambda: frozenset(pq.read_schema(store.source(by_row)).names))


def overlapping(stats, lo, hi):
    """Which row groups (``stats``: per group ``(segments, min start, max end)``) may hold a segment of the
    window ``[lo, hi)`` (touching ``lo`` when the window is an instant), as ``StoredRun.window`` keeps them."""
    return (stats[:, 1] < hi) & (stats[:, 2] > lo) if hi > lo else (stats[:, 1] <= lo) & (stats[:, 2] >= lo)


def _page_groups(parsed, index, by_row, lo, hi, row0, rows):
    """Per row group of the by-row index, whether it holds rows of the page and times of the window."""
    by_rows = group_stats(parsed, index, by_row)[1]
    page = (by_rows[:, 1] < row0 + rows) & (by_rows[:, 2] >= row0)
    return page & overlapping(by_row_times(parsed, index, by_row), lo, hi)


def by_row_is_cheaper(parsed, index, by_row, lo, hi, row0, rows):
    """Whether the page's rows in the window, read from the by-row index, are fewer rows to read than the
    window's row groups of the time-sorted segments file (both give the same segments)."""
    by_time, by_rows = group_stats(parsed, index, by_row)
    return (
        by_rows[_page_groups(parsed, index, by_row, lo, hi, row0, rows), 0].sum()
        <= by_time[overlapping(by_time, lo, hi), 0].sum()
    )


def by_row_groups(parsed, index, by_row, row0, rows, lo, hi):
    """The by-row index's row groups holding rows ``row0 .. row0 + rows − 1`` with times in the window
    (footer statistics: a row's groups wholly before or after the window are not read)."""
    return np.flatnonzero(_page_groups(parsed, index, by_row, lo, hi, row0, rows)).tolist()


def by_row_rows(name, groups, lo, hi, row0, rows, modes, has_share, status=None):
    """The page's rows' segments in the window from the run's by-row index (``results.indexes``), one row
    at a time: ``(row on the page, arrays)`` as :func:`page_rows` gives them from :func:`segment_arrays`
    (the same segments, each row's in the same (start) order; ``share`` None where the index left it
    out: every share 1). ``status`` (the diff: each line of the run's job index its status code) gives each
    segment's ``status`` from the index's ``job`` column. Only the page's row groups (``groups``, from the footer) are read, a batch at a
    time (:func:`indexfiles.iter_by_row`), so no column of the whole page is ever held."""
    keys = [m for m in modes if m["type"] != "job"]
    columns = ["start", "end", *(["share"] if has_share else []), *(["job"] if status is not None else []),
               *(f"c_{m['key']}" for m in keys)]  # fmt: skip
    for row, table in indexfiles.iter_by_row(name, groups, row0, rows, columns):
        starts, ends = float_column(table, "start"), float_column(table, "end")
        keep = (starts < hi) & (ends > lo) if hi > lo else (starts <= lo) & (ends >= lo)  # as StoredRun.window
        if keep.all():  # the whole run: no copies
            keep = slice(None)

        def column(name, keep=keep, table=table):
            return table[name].to_numpy(zero_copy_only=False)[keep]

        share = np.nan_to_num(np.asarray(column("share"), float), nan=1.0) if "share" in table.column_names else None
        values = {m["key"]: column(f"c_{m['key']}") for m in keys}
        arrays = {"start": starts[keep], "end": ends[keep], "share": share, "values": values}
        if status is not None:
            arrays["status"] = status[column("job")]
        yield row - row0, arrays
