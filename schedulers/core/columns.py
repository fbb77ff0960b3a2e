"""Columns: the one columnar record type of results (a run's schedule segments and job records).

A :class:`Columns` is an ordered set of equal-length 1-D numpy columns. A text column whose
values repeat (``resource``, ``kind``, ``job``, ``tier`` …) is held as integer codes into a
list of labels; a ``task`` named ``<job>.<k>`` (every family's convention) is held as the
integer ``k`` alone (:func:`task_of`). A two-million-segment schedule is therefore a dozen
arrays, never two million dicts. Small consumers still see records: ``len``, iteration and
indexing yield plain-Python dicts, ``to_records()`` gives the list, and equality compares
records (a list of dicts compares equal to the same rows as Columns).

Missing values: a column may carry a validity mask (``None`` in a record). A table built from
records where some record lacks a key is *sparse*: its records drop the missing keys again
(the same convention as the web store's Parquet files, docs/results.md).

:func:`schedule_cut` is the one way a family states that a limit stopped its schedule
recording (``extra["schedule_cut"]``, docs/formats.md).

No pyarrow at import time: :meth:`Columns.to_arrow` imports it when called.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Coded", "Columns", "TaskOf", "as_columns", "coded", "schedule_cut", "task_of"]

_CHUNK = 65_536


@dataclass(frozen=True)
class Coded:
    """A text column as ``codes`` (int32, -1 = missing) into ``labels`` (an object array of str)."""

    codes: np.ndarray
    labels: np.ndarray


@dataclass(frozen=True)
class TaskOf:
    """A task column whose value in row i is ``f"{job[i]}.{k[i]}"`` (``job`` names the job column)."""

    k: np.ndarray
    job: str = "job"


def coded(codes: Any, labels: Iterable[Any]) -> Coded:
    """A text column from integer codes and their labels (``labels[codes[i]]`` is row i)."""
    lab = labels if isinstance(labels, np.ndarray) else np.array([str(x) for x in labels], dtype=object)
    return Coded(np.asarray(codes, dtype=np.int32), lab.astype(object, copy=False))


def task_of(k: Any, job: str = "job") -> TaskOf:
    """The task column ``<job>.<k>`` from the integer ``k`` of every row."""
    return TaskOf(np.asarray(k, dtype=np.int64), job)


def _encode(values: np.ndarray) -> Coded:
    labels, codes = np.unique(values.astype(str), return_inverse=True)
    return Coded(codes.astype(np.int32).reshape(-1), labels.astype(object))


def _objects(values: list[Any]) -> np.ndarray:
    """A 1-D object array holding ``values`` as they are (lists and dicts stay single values)."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def _from_values(values: list[Any]) -> tuple[Any, np.ndarray | None]:
    """One column from Python values (``None`` = missing): (column, validity mask or None)."""
    present = [v for v in values if v is not None]
    mask = None if len(present) == len(values) else np.array([v is not None for v in values], dtype=bool)
    types = {type(v) for v in present}
    if not present:
        return _objects(values), mask
    if types == {bool}:
        return np.array([bool(v) if v is not None else False for v in values], dtype=bool), mask
    if types <= {int, float} or all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in present
    ):
        is_int = all(isinstance(v, (int, np.integer)) for v in present)
        dtype = np.int64 if is_int else np.float64
        try:
            return np.array([0 if v is None else v for v in values], dtype=dtype), mask
        except OverflowError:
            return _objects(values), mask
    if types == {str}:
        labels: dict[str, int] = {}
        codes = np.fromiter((-1 if v is None else labels.setdefault(v, len(labels)) for v in values), np.int32,
                            len(values))  # fmt: skip
        return Coded(codes, np.array(list(labels), dtype=object)), None
    return _objects(values), mask


class Columns:
    """Equal-length named columns; records on demand (see the module docstring)."""

    __slots__ = ("_cols", "_masks", "_n", "sparse")

    def __init__(self, columns: Mapping[str, Any] | None = None, *, masks: Mapping[str, Any] | None = None,
                 sparse: bool = False, n: int | None = None):  # fmt: skip
        self._cols: dict[str, Any] = {}
        self._masks: dict[str, np.ndarray] = {}
        self.sparse = bool(sparse)
        lengths = set()
        for name, col in (columns or {}).items():
            if isinstance(col, (Coded, TaskOf)):
                pass
            else:
                arr = np.asarray(col)
                if arr.ndim != 1:
                    arr = arr.reshape(-1)
                col = _encode(arr) if arr.dtype.kind in "US" else arr
            self._cols[str(name)] = col
            lengths.add(self._length(col))
        if len(lengths) > 1:
            raise ValueError(f"columns of unequal lengths: { {k: self._length(c) for k, c in self._cols.items()} }")
        for name, c in self._cols.items():
            if isinstance(c, TaskOf) and c.job not in self._cols:
                raise ValueError(f"task column {name!r} refers to a missing job column {c.job!r}")
        self._n = lengths.pop() if lengths else int(n or 0)
        for name, mask in (masks or {}).items():
            if mask is not None:
                mask = np.asarray(mask, dtype=bool)
                if mask.shape != (self._n,):
                    raise ValueError(f"mask of {name!r} has {mask.size} values for {self._n} rows")
                if not mask.all():
                    self._masks[name] = mask

    @staticmethod
    def _length(col: Any) -> int:
        if isinstance(col, Coded):
            return int(col.codes.size)
        if isinstance(col, TaskOf):
            return int(col.k.size)
        return int(col.size)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> Columns:
        """Columns from dicts: one column per key found in any record (in order of first appearance)."""
        if isinstance(records, Columns):
            return records
        rows = list(records)
        names: dict[str, None] = {}
        for rec in rows:
            if rec.keys() - names.keys():
                names.update(dict.fromkeys(rec))
        sparse = any(len(rec) != len(names) for rec in rows)
        cols, masks = {}, {}
        for name in names:
            cols[name], masks[name] = _from_values([rec.get(name) for rec in rows])
        return cls(cols, masks=masks, sparse=sparse, n=len(rows))

    # --- shape and access ---------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    @property
    def names(self) -> list[str]:
        return list(self._cols)

    def keys(self) -> list[str]:
        return self.names

    def __contains__(self, name: object) -> bool:
        return name in self._cols

    def raw(self, name: str) -> Any:
        """The stored form of a column: a numpy array, a :class:`Coded` or a :class:`TaskOf`."""
        return self._cols[name]

    def valid(self, name: str) -> np.ndarray | None:
        """The column's validity mask (False = missing), or None when every value is present."""
        return self._masks.get(name)

    def column(self, name: str) -> np.ndarray:
        """A column as one numpy array (text as an object array of str; missing values as None)."""
        col = self._cols[name]
        if isinstance(col, Coded):
            out = col.labels[col.codes] if col.labels.size else np.full(col.codes.size, None, dtype=object)
            if (col.codes < 0).any():
                out = np.where(col.codes < 0, None, out)
            return out
        if isinstance(col, TaskOf):
            return np.array(self._task_values(col, 0, self._n), dtype=object)
        mask = self._masks.get(name)
        if mask is not None:
            out = col.astype(object)
            out[~mask] = None
            return out
        return col

    def codes(self, name: str) -> Coded:
        """A text (or any) column as codes and labels."""
        col = self._cols[name]
        return col if isinstance(col, Coded) else _encode(self.column(name))

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.column(key)
        if isinstance(key, slice):
            return self.take(np.arange(self._n)[key])
        if isinstance(key, (int, np.integer)):
            i = int(key)
            if i < 0:
                i += self._n
            if not 0 <= i < self._n:
                raise IndexError("Columns index out of range")
            return self._rows(i, i + 1)[0]
        return self.take(np.asarray(key))

    def take(self, index: Any) -> Columns:
        """The rows at ``index`` (integer positions or a boolean mask), as Columns."""
        index = np.asarray(index)
        cols: dict[str, Any] = {}
        for name, col in self._cols.items():
            if isinstance(col, Coded):
                cols[name] = Coded(col.codes[index], col.labels)
            elif isinstance(col, TaskOf):
                cols[name] = TaskOf(col.k[index], col.job)
            else:
                cols[name] = col[index]
        masks = {k: m[index] for k, m in self._masks.items()}
        n = int(index.sum()) if index.dtype == bool else int(index.size)
        return Columns(cols, masks=masks, sparse=self.sparse, n=n)

    # --- records ------------------------------------------------------------------------
    def _task_values(self, col: TaskOf, lo: int, hi: int) -> list[str | None]:
        jobs = self._values(col.job, lo, hi)
        return [None if j is None else f"{j}.{k}" for j, k in zip(jobs, col.k[lo:hi].tolist(), strict=True)]

    def _values(self, name: str, lo: int, hi: int) -> list[Any]:
        col = self._cols[name]
        if isinstance(col, Coded):
            codes = col.codes[lo:hi]
            labels = col.labels.tolist()
            return [labels[c] if c >= 0 else None for c in codes.tolist()]
        if isinstance(col, TaskOf):
            return self._task_values(col, lo, hi)
        values = col[lo:hi].tolist()
        mask = self._masks.get(name)
        if mask is not None:
            values = [v if ok else None for v, ok in zip(values, mask[lo:hi].tolist(), strict=True)]
        return values

    def _rows(self, lo: int, hi: int) -> list[dict[str, Any]]:
        names = self.names
        if not names:
            return [{} for _ in range(lo, hi)]
        columns = [self._values(name, lo, hi) for name in names]
        rows = [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]
        if self.sparse:
            rows = [{k: v for k, v in row.items() if v is not None} for row in rows]
        return rows

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for lo in range(0, self._n, _CHUNK):
            yield from self._rows(lo, min(lo + _CHUNK, self._n))

    def chunks(self, size: int = _CHUNK) -> Iterator[list[dict[str, Any]]]:
        """The records a chunk at a time (streamed JSON: never all rows as dicts at once)."""
        for lo in range(0, self._n, size):
            yield self._rows(lo, min(lo + size, self._n))

    def to_records(self) -> list[dict[str, Any]]:
        return self._rows(0, self._n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Columns):
            return len(self) == len(other) and self.names == other.names and self.to_records() == other.to_records()
        if isinstance(other, list):
            return len(self) == len(other) and self.to_records() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Columns({self._n} rows: {', '.join(self.names)})"

    # --- numeric checks and Arrow -------------------------------------------------------
    def float_columns(self) -> dict[str, np.ndarray]:
        """Every floating-point column (for the finiteness check of results)."""
        out = {}
        for name, col in self._cols.items():
            if isinstance(col, np.ndarray) and col.dtype.kind == "f":
                mask = self._masks.get(name)
                out[name] = col if mask is None else np.where(mask, col, 0.0)
        return out

    def object_columns(self) -> dict[str, np.ndarray]:
        return {n: c for n, c in self._cols.items() if isinstance(c, np.ndarray) and c.dtype == object}

    def to_arrow(self, *, task_k: bool = False, dictionary: Iterable[str] = ()):
        """A ``pyarrow.Table`` of the columns (text as strings; names in ``dictionary`` dictionary-encoded).

        With ``task_k`` a ``<job>.<k>`` task column is written as the int32 ``task_k`` instead
        (the web store's encoding, docs/results.md). Types: int64, float64, bool, string; a
        column of mixed Python values is kept as text.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        dictionary = set(dictionary)
        arrays, names = [], []
        for name, col in self._cols.items():
            mask = self._masks.get(name)
            if isinstance(col, TaskOf):
                if task_k and col.k.size and int(col.k.min()) >= 0 and int(col.k.max()) < 10**9:
                    arrays.append(pa.array(col.k.astype(np.int32)))
                    names.append("task_k")
                    continue
                job = self._arrow_text(self._cols[col.job], False)
                arrays.append(pc.binary_join_element_wise(job, pa.array(col.k.astype(str)), "."))
            elif isinstance(col, Coded):
                arrays.append(self._arrow_text(col, name in dictionary))
            elif col.dtype == object:
                try:
                    arrays.append(pa.array(col.tolist(), mask=None if mask is None else ~mask))
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    arrays.append(pa.array([None if v is None else str(v) for v in self.column(name).tolist()],
                                           type=pa.string()))  # fmt: skip
            else:
                arrays.append(pa.array(col, mask=None if mask is None else ~mask))
            names.append(name)
        return pa.Table.from_arrays(arrays, names=names) if names else pa.table({})

    @staticmethod
    def _arrow_text(col: Coded, as_dictionary: bool):
        import pyarrow as pa

        codes = col.codes
        labels = pa.array(col.labels.tolist(), type=pa.string())
        indices = pa.array(codes, mask=codes < 0) if (codes < 0).any() else pa.array(codes)
        if as_dictionary:
            # dictionary in order of first appearance (as pyarrow's dictionary_encode would build it);
            # O(n): writing positions in reverse leaves each code's first position (numpy assigns in order)
            n = codes.size
            first = np.full(len(labels), n, dtype=np.int64)
            valid = codes >= 0
            at = np.flatnonzero(valid)[::-1]
            first[codes[at]] = at
            used = np.flatnonzero(first < n)
            order = used[np.argsort(first[used], kind="stable")]
            remap = np.full(max(len(labels), 1), -1, dtype=np.int32)
            remap[order] = np.arange(order.size, dtype=np.int32)
            new = remap[np.where(valid, codes, 0)] if len(labels) else np.zeros(n, dtype=np.int32)
            idx = pa.array(new, mask=~valid) if not valid.all() else pa.array(new)
            return pa.DictionaryArray.from_arrays(idx, labels.take(pa.array(order)))
        return labels.take(indices)


def as_columns(value: Any) -> Columns:
    """Columns from what a family returned: Columns as they are, a list of dicts converted."""
    if isinstance(value, Columns):
        return value
    if value is None:
        return Columns()
    return Columns.from_records(value)


def schedule_cut(extra: dict[str, Any], limit: int, recorded: int, cut_at_s: float) -> None:
    """State in ``extra`` that the segment limit ``limit`` stopped the schedule recording.

    ``recorded`` segments were kept; the first one left out starts at ``cut_at_s`` (the schedule
    is complete before that instant). Read by the result page and the diff view.
    """
    extra["schedule_cut"] = {"limit": int(limit), "recorded": int(recorded), "cut_at_s": float(cut_at_s)}
