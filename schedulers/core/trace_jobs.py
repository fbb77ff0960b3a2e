"""Taking from a trace only the jobs a run uses, in memory bounded by what it takes.

A family reads a trace through :func:`scan`: its ``select`` function walks the trace a block
of lines at a time (:func:`schedulers.core.swf.iter_swf`) and keeps what it needs — the first
usable jobs in file order (it then stops, and the rest is never read), or the first ``k`` by a
key such as the submit time (:class:`FirstK`, a stable sort's first ``k`` in O(k) memory; the
whole trace is read, since a later line may come first). What a select returns is cached per
file version and its arguments, so the repetitions and algorithms of a run (and later runs in
the same worker) scan a file once; each caller gets its own copy of the arrays.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from schedulers.core.swf import SwfTrace, file_version, iter_swf

__all__ = ["FirstK", "HeaderLines", "Widths", "job_widths", "scan"]

MERGE_AT = 1 << 16  # buffered candidates before FirstK merges them into what it keeps


def scan(source: Path | str | bytes, select: Callable[..., Any], *args: Any) -> Any:
    """``select(blocks, *args)`` over the trace ``source`` (a file: cached per version and arguments)."""
    if isinstance(source, Path):
        return _copy(_scan_file(*file_version(source), select, args))
    with contextlib.closing(iter_swf(source)) as blocks:
        return select(blocks, *args)


@functools.lru_cache(maxsize=8)
def _scan_file(path: str, mtime_ns: int, size: int, select: Callable[..., Any], args: tuple) -> Any:
    with contextlib.closing(iter_swf(Path(path))) as blocks:
        return select(blocks, *args)


def _copy(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


class FirstK:
    """The first ``k`` of all records offered, ordered by (key, order offered): what a stable sort by
    the key followed by ``[:k]`` gives, in O(k + a block) memory. ``k=None`` keeps every record."""

    def __init__(self, k: int | None):
        self.k = k
        self.key = np.zeros(0)
        self.cols: dict[str, np.ndarray] = {}
        self._buf: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
        self._pending = 0

    def offer(self, key: np.ndarray, **cols: np.ndarray) -> None:
        if self.k is not None and self.key.size >= self.k:
            # Everything kept comes earlier, so only a smaller key than the k-th kept can still enter.
            enter = key < self.key[-1] if self.k else np.zeros(key.size, dtype=bool)
            key, cols = key[enter], {n: c[enter] for n, c in cols.items()}
        if key.size:
            self._buf.append((key, cols))
            self._pending += key.size
            if self.k is not None and self._pending >= max(self.k, MERGE_AT):
                self._merge()

    def _merge(self) -> None:
        if not self._buf:
            return
        names = list(self._buf[0][1])
        keys = [self.key, *(b[0] for b in self._buf)]
        cols = {n: [*([self.cols[n]] if self.cols else []), *(b[1][n] for b in self._buf)] for n in names}
        order = np.argsort(np.concatenate(keys), kind="stable")[: self.k]
        self.key = np.concatenate(keys)[order]
        self.cols = {n: np.concatenate(parts)[order] for n, parts in cols.items()}
        self._buf, self._pending = [], 0

    def result(self, *names: str) -> tuple[np.ndarray, ...]:
        """(key, then the columns ``names``) of the records taken, in order."""
        self._merge()
        return (self.key, *(self.cols.get(n, np.zeros(0)) for n in names))


class HeaderLines:
    """The first comment line naming each of ``names`` (what :meth:`SwfTrace.header_value` reads),
    collected over a trace's blocks without keeping the other comment lines."""

    def __init__(self, *names: str):
        self._wanted = {n.lower() for n in names}
        self.lines: list[str] = []

    def add(self, lines: Iterable[str]) -> None:
        probe = SwfTrace(columns={}, header=[])
        for line in lines:
            probe.header = [line]
            for name in list(self._wanted):
                if probe.header_value(name) is not None:
                    self.lines.append(line)
                    self._wanted.discard(name)

    def int(self, name: str) -> int | None:
        return SwfTrace(columns={}, header=self.lines).header_int(name)


def concat(parts: list[tuple[np.ndarray, ...]], width: int) -> tuple[np.ndarray, ...]:
    """Column-wise concatenation of row groups (``width`` columns; empty float columns if none)."""
    return tuple(np.concatenate([p[i] for p in parts] or [np.zeros(0)]) for i in range(width))


def blocks_of(trace: SwfTrace) -> Iterator[SwfTrace]:
    """A whole parsed trace as the one block a select function walks."""
    yield trace


class Widths:
    """A trace's own machine size and how wide its jobs are (:func:`job_widths`)."""

    def __init__(self, max_procs: int | None, max_nodes: int | None, sizes: dict[int, int]):
        self.max_procs, self.max_nodes, self.sizes = max_procs, max_nodes, sizes

    @property
    def largest(self) -> int:
        return max(self.sizes, default=0)

    def machine(self) -> int:
        """The machine the trace was logged on: header MaxProcs, else MaxNodes, else its largest job."""
        return self.max_procs or self.max_nodes or self.largest

    def wider_than(self, processors: int) -> tuple[int, int]:
        """(how many usable jobs need more than ``processors``, the widest size) — (0, 0) when none."""
        over = {s: k for s, k in self.sizes.items() if s > processors}
        return sum(over.values()), max(over, default=0)


def job_widths(blocks: Iterable[SwfTrace]) -> Widths:
    """The MaxProcs/MaxNodes header and the count of usable jobs (submit ≥ 0, runtime ≥ 0, a size:
    allocated, else requested processors, > 0) of each size; a select function for :func:`scan`."""
    header = HeaderLines("MaxProcs", "MaxNodes")
    sizes: dict[int, int] = {}
    for block in blocks:
        header.add(block.header)
        c = block.columns
        size = np.where(c["alloc_procs"] > 0, c["alloc_procs"], c["req_procs"])
        ok = (c["submit"] >= 0) & (c["run_time"] >= 0) & (size > 0)
        values, counts = np.unique(size[ok].astype(np.int64), return_counts=True)
        for v, k in zip(values.tolist(), counts.tolist(), strict=True):
            sizes[v] = sizes.get(v, 0) + k
    return Widths(header.int("MaxProcs"), header.int("MaxNodes"), sizes)
