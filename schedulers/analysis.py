"""Results for analysis: a run's result as Arrow tables (and pandas DataFrames), whatever its JSON layout.

>>> import schedulers
>>> res = schedulers.load("r.json")  # doctest: +SKIP
>>> res.algorithms  # doctest: +SKIP
['easy', 'measy']
>>> res.jobs("easy").column("response_s")  # doctest: +SKIP

``load`` takes what ``schedulers.run`` returns, a result file written by ``cloudsched run -o`` (or the web
lab's ``result.json`` download), or that file's parsed JSON. Each kind is one table per algorithm, all its
repetitions in it (a ``repetition`` column first): ``jobs`` (one row per job, the family's fields),
``schedule`` (one row per segment) and ``series`` (``t`` and one column per series, the step functions of
docs/results.md). ``metrics`` has one row per algorithm × repetition. ``table(kind)`` stacks every
algorithm with an ``algorithm`` column, the long form plotting libraries group by. ``to_pandas`` turns
any of them into a DataFrame (pandas is not a dependency: install it, or ``cloudsched[analysis]``).
docs/analysis.md walks through a session.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedulers.core.columns import as_columns

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = ["KINDS", "Result", "load"]

KINDS = ("jobs", "schedule", "series", "metrics")
"""What :meth:`Result.table` and :meth:`Result.to_pandas` take."""


def load(source: str | os.PathLike[str] | Mapping[str, Any]) -> Result:
    """The result ``source``: a result document (``schedulers.run``'s, or parsed JSON) or the path of its JSON."""
    if isinstance(source, Mapping):
        return Result(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"load() takes a result document or the path of its JSON file, not {type(source).__name__}")
    path = Path(source)
    with open(path, "rb") as f:
        data = f.read()
    try:
        import orjson  # the web's JSON reader when it is installed: several times faster on a big result

        parse, error = orjson.loads, orjson.JSONDecodeError
    except ImportError:
        parse, error = json.loads, json.JSONDecodeError
    try:
        doc = parse(data)
    except error as exc:
        raise ValueError(f"{path}: not a JSON result: {exc}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a result is a JSON object with 'runs', not a JSON {type(doc).__name__}")
    return Result(doc, str(path))


class Result:
    """One result document, read as tables. ``algorithms`` in the scenario's order, ``repetitions`` 0…n − 1."""

    def __init__(self, doc: Mapping[str, Any], where: str = "result") -> None:
        runs = doc.get("runs")
        if not isinstance(runs, list):
            hint = " (a study's output: load each of its 'results')" if "results" in doc else ""
            raise ValueError(f"{where}: not a run's result: it has no 'runs' list{hint}")
        self.doc = doc
        self.where = where
        self.family: str = doc.get("family", "")
        self.scenario: dict[str, Any] = doc.get("scenario", {})
        self.summary: dict[str, Any] = doc.get("summary", {})
        self.plugins: dict[str, Any] = doc.get("plugins", {})
        self._runs: dict[str, dict[int, Mapping[str, Any]]] = {}
        for i, run in enumerate(runs):
            if not isinstance(run, Mapping) or not isinstance(run.get("algorithm"), str):
                raise ValueError(f"{where}: runs[{i}] is not a run: an object with an 'algorithm' name")
            self._runs.setdefault(run["algorithm"], {})[int(run.get("repetition", 0))] = run

    def __repr__(self) -> str:
        return f"<Result {self.family}: {', '.join(self.algorithms)} × {len(self.repetitions)} repetitions>"

    @property
    def algorithms(self) -> list[str]:
        return list(self._runs)

    @property
    def repetitions(self) -> list[int]:
        return sorted({r for reps in self._runs.values() for r in reps})

    def run(self, algorithm: str, repetition: int = 0) -> Mapping[str, Any]:
        """The raw run record of ``algorithm`` × ``repetition`` (metrics, extra, wall time)."""
        reps = self._algorithm(algorithm)
        if repetition not in reps:
            raise ValueError(
                f"repetition: {repetition!r} is not in this result; allowed: {', '.join(map(str, sorted(reps)))}"
            )
        return reps[repetition]

    def jobs(self, algorithm: str, repetition: int | None = None) -> pyarrow.Table:
        """One row per job of ``algorithm`` (every repetition, or only ``repetition``)."""
        return self._kind("jobs", algorithm, repetition)

    def schedule(self, algorithm: str, repetition: int | None = None) -> pyarrow.Table:
        """One row per schedule segment of ``algorithm`` (``resource``, ``start``, ``end``, … as the family writes)."""
        return self._kind("schedule", algorithm, repetition)

    def series(self, algorithm: str, repetition: int | None = None) -> pyarrow.Table:
        """The time series of ``algorithm``: ``t`` (the family's time unit) and one column per series."""
        return self._kind("series", algorithm, repetition)

    def metrics(self, algorithms: Iterable[str] | None = None) -> pyarrow.Table:
        """One row per algorithm × repetition: ``algorithm``, ``repetition``, ``wall_time_s`` and every metric."""
        records = [
            {"algorithm": alg, "repetition": rep, "wall_time_s": run.get("wall_time_s"), **run.get("metrics", {})}
            for alg in self._chosen(algorithms)
            for rep, run in sorted(self._runs[alg].items())
        ]
        return as_columns(records).to_arrow()

    def table(self, kind: str, algorithms: Iterable[str] | None = None) -> pyarrow.Table:
        """``kind`` (:data:`KINDS`) of every algorithm (or those named) stacked, with an ``algorithm`` column first."""
        import pyarrow as pa

        if kind == "metrics":
            return self.metrics(algorithms)
        self._check_kind(kind)
        parts = []
        for alg in self._chosen(algorithms):
            part = self._kind(kind, alg, None)
            parts.append(part.add_column(0, "algorithm", pa.array([alg] * part.num_rows, pa.string())))
        return pa.concat_tables(parts, promote_options="permissive")

    def to_pandas(self, kind: str, algorithm: str | None = None, repetition: int | None = None) -> pandas.DataFrame:
        """``kind`` of ``algorithm`` as a DataFrame; without ``algorithm``, every algorithm (:meth:`table`)."""
        self._check_kind(kind)
        try:
            import pandas  # noqa: F401  (pyarrow's to_pandas imports it; a clear message if it is missing)
        except ImportError:
            raise ImportError(
                "to_pandas needs pandas, which cloudsched does not install: pip install pandas "
                "(or pip install 'cloudsched[analysis]'); the Arrow tables work without it"
            ) from None
        if algorithm is None:
            if repetition is not None:
                raise ValueError("repetition: give an algorithm with it (the long table holds every repetition)")
            return self.table(kind).to_pandas()
        if kind == "metrics":
            raise ValueError("algorithm: metrics() holds every algorithm; call to_pandas('metrics') without one")
        return self._kind(kind, algorithm, repetition).to_pandas()

    # --- internals -------------------------------------------------------------------------------------------

    def _algorithm(self, algorithm: str) -> dict[int, Mapping[str, Any]]:
        if algorithm not in self._runs:
            raise ValueError(f"algorithm: {algorithm!r} is not in this result; allowed: {', '.join(self._runs)}")
        return self._runs[algorithm]

    def _chosen(self, algorithms: Iterable[str] | None) -> list[str]:
        if isinstance(algorithms, str):
            algorithms = [algorithms]
        chosen = self.algorithms if algorithms is None else list(algorithms)
        for alg in chosen:
            self._algorithm(alg)
        return chosen

    @staticmethod
    def _check_kind(kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind: {kind!r} is not a kind of table; allowed: {', '.join(KINDS)}")

    def _kind(self, kind: str, algorithm: str, repetition: int | None) -> pyarrow.Table:
        import pyarrow as pa

        reps = self._algorithm(algorithm)
        chosen = sorted(reps) if repetition is None else [repetition]
        parts = []
        for rep in chosen:
            run = self.run(algorithm, rep)
            part = _series_table(run.get("series") or {}, self.where) if kind == "series" else _records(run, kind)
            parts.append(part.add_column(0, "repetition", pa.array([rep] * part.num_rows, pa.int64())))
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts, promote_options="permissive")


def _records(run: Mapping[str, Any], kind: str) -> pyarrow.Table:
    """A run's ``jobs`` or ``schedule`` (Columns in memory, a list of objects in JSON) as one table: both go
    through ``Columns``, so a result and its JSON file give the same types."""
    value = run.get(kind)
    return as_columns([] if value is None else value).to_arrow()


def _series_table(series: Mapping[str, Any], where: str) -> pyarrow.Table:
    import numpy as np
    import pyarrow as pa

    columns = {name: np.asarray(values, dtype=float) for name, values in series.items()}
    lengths = {name: len(v) for name, v in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{where}: series of unequal lengths share no time axis: {lengths}")
    return pa.table(columns) if columns else pa.table({"t": pa.array([], pa.float64())})
