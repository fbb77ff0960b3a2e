"""Reading the whole-run index files the worker wrote beside a stored result (``results.indexes`` builds them).

The web process reads a run's rows file (its resource axis and lanes), its events file, and pages of
its by-row index; the manifest says which files a run has (:func:`files_of`) and the result's colour
modes. The formats are described in ``results.indexes``.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudsched_web.results import store

__all__ = ["GROUP_BY", "KINDS", "ROW_GROUP", "VERSION", "colour_modes", "files_of", "iter_by_row", "read_events",
           "read_rows"]  # fmt: skip

VERSION = 2  # 2: one resource axis for every run of a result (results.axis), idle resources included
ROW_GROUP = 16_384  # small groups: a page of 40 rows reads little more than its own segments
GROUP_BY = b"cloudsched.group_by"
KINDS = b"cloudsched.event_kinds"  # the events' kinds, which their ``kind`` codes index


def files_of(parsed, index) -> dict:
    """The index files of run ``index`` (empty: stored before the indexes, or without a schedule)."""
    if (parsed.manifest.get("index") or {}).get("version") != VERSION:
        return {}
    return parsed.info(index).get("index") or {}


def colour_modes(parsed) -> list | None:
    """The stored colour modes of the result, or None when it has none."""
    index = parsed.manifest.get("index") or {}
    return index.get("colour_modes") if index.get("version") == VERSION else None


def read_rows(name: str) -> tuple[list, list, str | None, list, list | None]:
    """``(names, groups, group_by, lanes, drawn)`` of a rows file (``drawn`` None: written before the
    segments' lanes were in the by-row file)."""
    table = pq.read_table(store.source(name), use_threads=False)
    group_by = (table.schema.metadata or {}).get(GROUP_BY, b"").decode() or None
    drawn = table["drawn"].to_pylist() if "drawn" in table.column_names else None
    return table["name"].to_pylist(), table["group"].to_pylist(), group_by, table["lanes"].to_pylist(), drawn


def read_events(name: str) -> dict:
    """The events' ``t``, ``kind``, ``kinds`` and ``row``; ``labels(positions)`` reads the ``job`` and
    ``task`` of the events at those positions only (from the row groups holding them)."""
    table = pq.read_table(store.source(name), columns=["t", "kind", "row"], use_threads=False)
    return {
        "t": table["t"].to_numpy(),
        "kind": table["kind"].to_numpy(),
        "kinds": json.loads(table.schema.metadata[KINDS]),
        "row": table["row"].to_numpy(),
        "labels": lambda positions: _event_labels(name, positions),
    }


def _event_labels(name: str, positions: np.ndarray) -> tuple[list, list]:
    if not positions.size:
        return [], []
    pf = pq.ParquetFile(store.source(name))
    sizes = [pf.metadata.row_group(g).num_rows for g in range(pf.metadata.num_row_groups)]
    first = np.concatenate([[0], np.cumsum(sizes)])
    g0, g1 = (
        np.searchsorted(first, positions.min(), side="right") - 1,
        np.searchsorted(first, positions.max(), side="right"),
    )
    part = pf.read_row_groups(list(range(int(g0), int(g1))), columns=["job", "task"], use_threads=False)
    at = pa.array(positions - first[g0])
    return part["job"].take(at).to_pylist(), part["task"].take(at).to_pylist()


def iter_by_row(name: str, groups: list[int], row0: int, rows: int, columns: list[str], batch: int = 65_536):
    """``(row, table)`` for each of the rows ``row0 .. row0 + rows − 1`` with segments, in row order:
    ``row`` and ``columns`` of its segments (start order). ``groups`` are the row groups holding them
    (from the footer's statistics of ``row``); they are read ``batch`` segments at a time, so no more
    than a batch and one row's segments are held at once."""
    if not groups:
        return
    pf = pq.ParquetFile(store.source(name), pre_buffer=False)  # read here, in this thread (no I/O pool's)
    present = pf.schema_arrow.names
    wanted = ["row"] + [c for c in columns if c in present and c != "row"]
    pending, current = [], None
    for part in pf.iter_batches(batch_size=batch, row_groups=[int(g) for g in groups], columns=wanted,
                                use_threads=False):  # fmt: skip
        at = part.column(0).to_numpy()
        cuts = (np.flatnonzero(at[1:] != at[:-1]) + 1).tolist()
        for a, b in zip([0, *cuts], [*cuts, len(at)], strict=True):
            row = int(at[a])
            if row != current:
                if pending and row0 <= current < row0 + rows:
                    yield current, pa.Table.from_batches(pending)
                pending, current = [], row
            pending.append(part.slice(a, b - a))
    if pending and row0 <= current < row0 + rows:
        yield current, pa.Table.from_batches(pending)
