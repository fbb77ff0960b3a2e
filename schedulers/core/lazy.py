"""Modules imported when first used, not when the library is.

SciPy's sub-packages cost seconds of start-up between them (``scipy.stats`` alone ~0.6 s on a quiet
machine) while most commands (``families``, ``example``, ``schema``, a backfill run) never touch
them. ``sp = lazy("scipy.sparse")`` reads like the import it replaces; the module is imported at the
first attribute access, and each attribute is then cached on the proxy.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["lazy"]


class _LazyModule:
    def __init__(self, name: str) -> None:
        self.__name = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self.__name), attr)
        setattr(self, attr, value)  # later look-ups never come back here
        return value

    def __repr__(self) -> str:
        return f"<module {self.__name!r}, imported on first use>"


def lazy(name: str) -> Any:
    """The module ``name``, imported on first attribute access."""
    return _LazyModule(name)
