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

:func:`nonfinite_paths` finds NaN or ±inf in a document about to be written.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import numpy as np

from schedulers.core.validation import ScenarioError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "check_depth", "loads", "nonfinite_paths"]

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
    """``(path, value)`` of every scalar in ``doc``, iteratively (the depth is already bounded)."""
    stack = [("", doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
        else:
            yield path, node


def nonfinite_paths(doc: Any, limit: int = 5) -> list[str]:
    """JSON paths of up to ``limit`` NaN or infinite floats in ``doc`` (empty when it is valid JSON)."""
    if _all_finite(doc):
        return []
    found = []
    for path, value in _walk(doc):
        if isinstance(value, float) and not math.isfinite(value):
            found.append(path)
            if len(found) >= limit:
                break
    return found


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
    return True
