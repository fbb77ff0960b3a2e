"""Parameter sweeps over scenario dicts: set a dotted path, expand a grid, find varying paths."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["expand", "flatten", "set_path", "varying_paths"]


def set_path(scenario: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``scenario`` with ``a.b.c`` set to ``value`` (missing levels are created)."""
    out = copy.deepcopy(scenario)
    node = out
    keys = path.split(".")
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ValueError(f"{path}: {key} is not an object")
    node[keys[-1]] = value
    return out


def expand(scenario: dict[str, Any], axes: Mapping[str, Sequence[Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The grid of one or more swept paths: ``[(point values, scenario), ...]``."""
    names = list(axes)
    points = []
    for combo in itertools.product(*(axes[n] for n in names)):
        point = dict(zip(names, combo, strict=True))
        s = scenario
        for path, value in point.items():
            s = set_path(s, path, value)
        points.append((point, s))
    return points


def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def varying_paths(scenarios: Sequence[dict[str, Any]], ignore: Sequence[str] = ("name",)) -> list[str]:
    """Paths whose value differs between scenarios (the axes of a preset study)."""
    flats = [flatten(s) for s in scenarios]
    keys = sorted(set().union(*flats)) if flats else []
    return [k for k in keys if k not in ignore and len({repr(f.get(k)) for f in flats}) > 1]
