"""Reading JSON a user wrote, and checking JSON we write: bounded, finite, never a traceback.

Every scenario, study file and API body is parsed by :func:`loads` (the CLI, the
web form and the API alike). It bounds the text's size, its nesting depth (checked
*before* parsing, so a ``"[" * 100000`` body costs one linear scan and never
reaches the recursive parser) and the length of integers (Python refuses to
convert more than 4300 digits; we stop well before). ``NaN``, ``Infinity`` and
numbers that overflow a double are not JSON and are refused too. Every problem is
a :class:`~schedulers.core.validation.ScenarioError` naming where it is: the JSON
path of the bad number, or the document itself (``(body)``, ``(file)``) for its size
and depth.

:func:`nonfinite_paths` finds NaN or ±inf in a document about to be written.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

from schedulers.core.validation import ScenarioError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "check_depth", "loads", "nonfinite_paths"]

MAX_BYTES = 64 * 2**20  # the API answers 413 well before this (API_MAX_BODY_BYTES)
MAX_DEPTH = 32  # the deepest scenario (federated inline DAGs) nests 6 levels
MAX_INT_DIGITS = 100  # any scenario integer is ≤ 2**63 - 1 (19 digits); a longer one gets its field's range error

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_CHUNK = 2**20
# Slow-path parsing (a Python call per number) only when a number may be too long or overflow.
_SUSPICIOUS_NUMBER = re.compile(rf"\d{{{MAX_INT_DIGITS + 1}}}|[eE][+-]?0*[1-9]\d{{2}}")


class _Bad:
    """A number the parser refused; :func:`loads` reports it with its JSON path."""

    __slots__ = ("allowed", "message")

    def __init__(self, message: str, allowed: str):
        self.message, self.allowed = message, allowed


def check_depth(text: str, where: str = "(body)", limit: int = MAX_DEPTH) -> None:
    """Raise unless ``text``'s arrays and objects nest at most ``limit`` levels (strings skipped).

    Linear and recursion-free: strings are cut out, the remaining brackets become
    ±1 steps whose running sum is the depth.
    """
    # Without an escaped quote every second '"' closes a string (fast); with one, find them properly.
    outside = _STRING.sub("", text) if '\\"' in text else "".join(text.split('"')[::2])
    brackets = outside.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    depth = 0
    for start in range(0, len(brackets), _CHUNK):
        chunk = np.frombuffer(brackets[start : start + _CHUNK], dtype=np.uint8)
        steps = np.where((chunk == ord("[")) | (chunk == ord("{")), 1, -1)
        running = depth + np.cumsum(steps, dtype=np.int64)
        if int(running.max()) > limit:
            raise ScenarioError.single(where, f"nested deeper than {limit} levels", f"≤ {limit} levels")
        depth = int(running[-1])


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

    hooks: dict[str, Any] = {"parse_constant": parse_constant}
    if _SUSPICIOUS_NUMBER.search(text):
        hooks.update(parse_int=parse_int, parse_float=parse_float)
    try:
        doc = json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        raise ScenarioError.single(
            where, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", "a JSON document"
        ) from None
    if refused:
        raise ScenarioError(
            [
                {"field": path or where, "message": bad.message, "allowed": bad.allowed}
                for path, bad in _walk(doc)
                if isinstance(bad, _Bad)
            ]
        )
    return doc


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
