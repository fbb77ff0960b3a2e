"""Read-only views of what a plug-in is shown: a write fails the plug-in's own run, naming the field.

Every family shows a plug-in numpy columns (a task's execution times per cloud, a pool's demands, …)
cut from the arrays its simulator keeps for every algorithm of the scenario. A plug-in that wrote into
one (``k = req.demand; k *= -1`` reads like "descending") would change the other algorithms' results;
:func:`view` hands out a :class:`ReadOnlyArray` instead, whose writes raise :class:`ReadOnlyError`
naming the field (the plug-in guard turns it into the plug-in's own failure). Arithmetic on such an
array gives plain, writeable arrays, so a plug-in computes with them as with any ndarray.

This is the first of two fences; the other is the plug-in's own copy of the instance
(``schedulers.result``): a view made writeable again (``a.flags.writeable = True``) still writes only
into the plug-in's copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ReadOnlyArray", "ReadOnlyError", "freeze", "frozen", "view", "wrote"]


class ReadOnlyError(TypeError):
    """A write into a view a plug-in may only read."""

    def __init__(self, field: str | None) -> None:
        self.field = field or "an array it was shown"
        super().__init__(f"wrote into {self.field}, which a plug-in may only read (compute on a copy: np.array(x))")


class ReadOnlyArray(np.ndarray):
    """An ndarray view that refuses writes with a :class:`ReadOnlyError` naming its field.

    Slices and views keep the name and stay read-only; a copy (``x.copy()``, ``np.array(x)``) is an
    ordinary writeable array; ufuncs return plain ndarrays.
    """

    field: str | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self.field = getattr(obj, "field", None)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not self.flags.writeable:
            raise ReadOnlyError(self.field)
        super().__setitem__(key, value)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            for o in out:
                if isinstance(o, ReadOnlyArray) and not o.flags.writeable:
                    raise ReadOnlyError(o.field)
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, ReadOnlyArray) else o for o in out)
        plain = tuple(x.view(np.ndarray) if isinstance(x, ReadOnlyArray) else x for x in inputs)
        return getattr(ufunc, method)(*plain, **kwargs)

    def __reduce__(self) -> Any:  # pickles (and deep-copies) as a plain array
        return np.asarray(self).copy().__reduce__()


def view(array: Any, field: str) -> ReadOnlyArray:
    """A read-only view of ``array`` (converted with ``np.asarray``) whose writes name ``field``."""
    out = np.asarray(array).view(ReadOnlyArray)
    out.field = field
    out.flags.writeable = False
    return out


def frozen(array: np.ndarray) -> np.ndarray:
    """A plain read-only view of ``array``: what a hot loop shows a plug-in (arithmetic on it costs what it costs
    on any array; a :class:`ReadOnlyArray`'s checks cost ~1 µs a ufunc). A write raises numpy's ValueError, which
    :func:`wrote` recognises; the caller then asks again with views of :func:`view` to name the field."""
    out = array.view()
    out.flags.writeable = False
    return out


def wrote(exc: BaseException) -> bool:
    """Whether ``exc`` is numpy refusing a write into a read-only array (a :func:`frozen` view)."""
    return isinstance(exc, ValueError) and "read-only" in str(exc)


def freeze(obj: Any, name: str, _seen: set[int] | None = None) -> Any:
    """Make the arrays reachable from ``obj``'s attributes read-only views naming them (``name.attr``), in place.

    For an object a family hands a plug-in whole (ep_jobs' job instance): call it on the plug-in's own
    copy. Attributes that are numpy arrays become :func:`view`; scipy sparse matrices keep their
    buffers read-only; dataclasses and plain objects are walked (once each), lists and dicts left as they are.
    """
    seen = set() if _seen is None else _seen
    if id(obj) in seen or not hasattr(obj, "__dict__"):
        return obj
    seen.add(id(obj))
    for key, value in list(vars(obj).items()):
        path = f"{name}.{key}"
        if isinstance(value, np.ndarray):
            object.__setattr__(obj, key, view(value, path))
        elif hasattr(value, "data") and hasattr(value, "indptr") and hasattr(value, "indices"):  # scipy CSR/CSC
            for buf in ("data", "indices", "indptr"):
                setattr(value, buf, view(getattr(value, buf), f"{path}.{buf}"))
        elif hasattr(value, "__dict__") and not callable(value) and not isinstance(value, type):
            freeze(value, path, seen)
    object.__setattr__(obj, "_readonly_name", name)
    object.__setattr__(obj, "__class__", _read_only_class(type(obj)))
    return obj


_CLASSES: dict[type, type] = {}


def _refuse(self: Any, key: str, value: Any = None) -> None:
    raise ReadOnlyError(f"{vars(self).get('_readonly_name', type(self).__name__)}.{key}")


def _read_only_class(cls: type) -> type:
    """A subclass of ``cls`` whose attributes cannot be set or deleted (``isinstance`` still holds)."""
    if getattr(cls, "_read_only", False):
        return cls
    if cls not in _CLASSES:
        _CLASSES[cls] = type(cls.__name__, (cls,), {"__setattr__": _refuse, "__delattr__": _refuse,
                                                    "_read_only": True, "__module__": cls.__module__})  # fmt: skip
    return _CLASSES[cls]
