"""Reading JSON a user wrote, and checking JSON we write: bounded, finite, never a traceback.

Every scenario, study file and API body is parsed by :func:`loads` (the CLI, the
web form and the API alike). It bounds the text's size, its nesting depth (checked
*before* parsing, so a ``"[" * 100000`` body costs one linear scan and never
reaches the recursive parser) and the length of integers (Python refuses to
convert more than 4300 digits: past that, the text is read again to name where).
``NaN``, ``Infinity`` and numbers that overflow a double are not JSON and are
refused too. Every problem is
a :class:`~schedulers.core.validation.ScenarioError` naming where it is: the JSON
path of the bad number, or the document itself (``(body)``, ``(file)``) for its size
and depth.

:func:`nonfinite_paths` finds NaN or ±inf in a document about to be written; :func:`dump`
writes a result (Columns streamed a chunk at a time) and :func:`dumps` encodes one.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

from schedulers.core.columns import Columns
from schedulers.core.validation import ScenarioError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "check_depth",
    "dump",
    "dumps",
    "loads",
    "nonfinite_paths",
    "plain",
    "read",
]

MAX_BYTES = 64 * 2**20  # the API answers 413 well before this (API_MAX_BODY_BYTES)
MAX_DEPTH = 32  # the deepest scenario (federated inline DAGs) nests 6 levels
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300  # Python's own limit; any scenario field allows ≤ 19 digits

_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"')))
_CHUNK = 2**22


class _Bad:
    """A number the parser refused; :func:`loads` reports it with its JSON path."""

    __slots__ = ("allowed", "message")

    def __init__(self, message: str, allowed: str):
        self.message, self.allowed = message, allowed


def check_depth(text: str, where: str = "(body)", limit: int = MAX_DEPTH) -> None:
    """Raise unless ``text``'s arrays and objects nest at most ``limit`` levels (strings skipped).

    Linear, vectorised and recursion-free. Escaped backslashes go first, then escaped
    quotes (JSON reads escapes left to right, as ``str.replace`` does), so every quote
    left opens or closes a string; of the rest only brackets and quotes are kept; a
    bracket counts where an even number of quotes precede it, and the running sum of
    its ±1 steps is the depth.
    """
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    marks = unescaped.encode("utf-8", "surrogatepass").translate(None, _NOT_STRUCTURE)
    depth, quotes = 0, 0
    for start in range(0, len(marks), _CHUNK):
        chunk = np.frombuffer(marks[start : start + _CHUNK], dtype=np.uint8)
        is_quote = chunk == ord('"')
        inside = (quotes + np.cumsum(is_quote)) % 2 == 1
        steps = np.where(inside | is_quote, 0, np.where((chunk == ord("[")) | (chunk == ord("{")), 1, -1))
        running = depth + np.cumsum(steps, dtype=np.int64)
        if int(running.max()) > limit:
            raise ScenarioError.single(where, f"nested deeper than {limit} levels", f"≤ {limit} levels")
        depth, quotes = int(running[-1]), quotes + int(is_quote.sum())


def read(path: str, where: str = "(file)") -> Any:
    """Parse the user JSON file ``path`` (``-``: standard input), reading at most MAX_BYTES + 1 bytes of it.

    Only a regular file is opened (:func:`schedulers.core.safefile.open_regular`: never a device, FIFO,
    or a file under /proc, /sys or /dev), so ``/dev/zero`` or a named pipe is refused before any read.
    """
    from schedulers.core.safefile import UnsafeFile, open_regular, read_bounded

    if path == "-":
        data = read_bounded(sys.stdin.buffer, MAX_BYTES)
    else:
        try:
            with open_regular(Path(path)) as f:
                data = read_bounded(f, MAX_BYTES)
        except UnsafeFile as exc:
            raise ScenarioError.single(where, str(exc), "a regular JSON file, or '-' for standard input") from None
    if data is None:
        raise ScenarioError.single(where, f"more than {MAX_BYTES} bytes", f"≤ {MAX_BYTES} bytes")
    return loads(data, where)


def loads(text: str | bytes, where: str = "(body)") -> Any:
    """Parse user JSON; :class:`ScenarioError` (field ``where`` or the JSON path) if it is not acceptable."""
    if len(text) > MAX_BYTES:
        raise ScenarioError.single(where, f"{len(text)} bytes is too large", f"≤ {MAX_BYTES} bytes")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError.single(where, f"not UTF-8 text (byte {exc.start})", "UTF-8 JSON") from None
    check_depth(text, where)
    refused: list[_Bad] = []

    def parse_int(s: str) -> Any:
        if len(s.lstrip("-")) > MAX_INT_DIGITS:
            refused.append(_Bad(f"an integer with {len(s.lstrip('-'))} digits", f"at most {MAX_INT_DIGITS} digits"))
            return refused[-1]
        return int(s)

    def parse_float(s: str) -> Any:
        value = float(s)
        if not math.isfinite(value):
            refused.append(_Bad(f"{s[:30]} overflows a double", "a finite number"))
            return refused[-1]
        return value

    def parse_constant(s: str) -> Any:
        refused.append(_Bad(f"{s} is not a JSON number", "a finite number"))
        return refused[-1]

    # Integers take the C parser's fast path; only past Python's digit limit (a ValueError) is the
    # text read again with a hook per integer, to name where the long one is.
    hooks: dict[str, Any] = {"parse_float": parse_float, "parse_constant": parse_constant}
    try:
        doc = _json(text, where, **hooks)
    except ScenarioError:
        raise
    except ValueError:
        refused.clear()
        doc = _json(text, where, parse_int=parse_int, **hooks)
    if refused:
        raise ScenarioError(
            [
                {"field": path or where, "message": bad.message, "allowed": bad.allowed}
                for path, bad in _walk(doc)
                if isinstance(bad, _Bad)
            ]
        )
    return doc


def _json(text: str, where: str, **hooks: Any) -> Any:
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        message = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        raise ScenarioError.single(where, message, "a JSON document") from None


def _walk(doc: Any) -> Any:
    """``(path, value)`` of every scalar in ``doc``, iteratively (the depth is already bounded).

    Columns and float arrays (a result's schedule, records and series) come whole.
    """
    stack = [("", doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, np.ndarray) and node.dtype.kind != "f":
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node.tolist()))))
        else:
            yield path, node


def nonfinite_paths(doc: Any, limit: int = 5) -> list[str]:
    """JSON paths of up to ``limit`` NaN or infinite floats in ``doc`` (empty when it is valid JSON).

    Columns (schedule segments, job records) and numpy series are checked a column at a time.
    """
    if _all_finite(doc):
        return []
    found = []
    for path, value in _walk(doc):
        if isinstance(value, np.ndarray):
            for i in np.flatnonzero(~np.isfinite(value))[: limit - len(found)].tolist():
                found.append(f"{path}[{i}]")
        elif isinstance(value, Columns):
            bad = sorted((int(i), name) for name, col in _float_parts(value).items()
                         for i in np.flatnonzero(~np.isfinite(col))[:limit])  # fmt: skip
            found += [f"{path}[{i}].{name}" for i, name in bad[: limit - len(found)]]
        elif isinstance(value, float) and not math.isfinite(value):
            found.append(path)
        if len(found) >= limit:
            break
    return found[:limit]


def _float_parts(cols: Columns) -> dict[str, np.ndarray]:
    """The float columns, and any floats inside object columns, of ``cols``."""
    out = cols.float_columns()
    for name, col in cols.object_columns().items():
        out[name] = np.array([v if isinstance(v, float) else 0.0 for v in col.tolist()], dtype=float)
    return out


def _all_finite(doc: Any) -> bool:
    """The fast pass of :func:`nonfinite_paths` (no paths built): results run to millions of values."""
    isfinite = math.isfinite
    stack = [doc]
    while stack:
        node = stack.pop()
        values = node.values() if isinstance(node, dict) else node
        for v in values:
            if v.__class__ is float:
                if not isfinite(v):
                    return False
            elif isinstance(v, (dict, list)):
                stack.append(v)
            elif isinstance(v, np.ndarray):
                if v.dtype.kind == "f":
                    if not np.isfinite(v).all():
                        return False
                elif v.dtype == object:
                    stack.append(v.tolist())
            elif isinstance(v, Columns) and not all(np.isfinite(c).all() for c in _float_parts(v).values()):
                return False
    return True


def plain(value: Any) -> Any:
    """``json.dumps``'s ``default`` for results: Columns as their records, numpy arrays and scalars as lists/numbers."""
    if isinstance(value, Columns):
        return value.to_records()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(doc: Any, **kwargs: Any) -> str:
    """``json.dumps`` of a result (Columns and arrays included); NaN is refused as in every result."""
    return json.dumps(doc, default=plain, allow_nan=False, **kwargs)


def dump(doc: Any, fp: IO[str]) -> None:
    """Write ``doc`` as compact JSON to ``fp``, Columns streamed a chunk of records at a time.

    A run's two million segments never exist as one list of dicts: each chunk of 65,536
    records is encoded and written before the next is built.
    """
    enc = json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=plain)
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, _Text):
            fp.write(node.text)
        elif isinstance(node, dict):
            parts: list[Any] = [_Text("{")]
            for n, (k, v) in enumerate(node.items()):
                parts += [_Text(("," if n else "") + enc.encode(str(k)) + ":"), v]
            parts.append(_Text("}"))
            stack.extend(reversed(parts))
        elif isinstance(node, list) and any(isinstance(v, (dict, list, Columns)) for v in node):
            parts = [_Text("[")]
            for n, v in enumerate(node):
                parts += ([_Text(",")] if n else []) + [v]
            parts.append(_Text("]"))
            stack.extend(reversed(parts))
        elif isinstance(node, Columns):
            fp.write("[")
            for n, chunk in enumerate(node.chunks()):
                fp.write(("," if n else "") + enc.encode(chunk)[1:-1])
            fp.write("]")
        else:
            fp.write(enc.encode(node))


class _Text:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text
