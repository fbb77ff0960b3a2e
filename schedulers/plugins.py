"""Plug-in algorithms: installed Python packages add algorithms to a family (docs/extending.md).

A package declares each algorithm as an entry point of the group ``cloudsched.algorithms`` named
``<family>.<algorithm>``, pointing at an object the family accepts (for ``backfill`` a
:class:`schedulers.backfill.policy.QueueOrder`, ``Backfill`` rule or ``TierChoice``; the family tells
which from the object)::

    [project.entry-points."cloudsched.algorithms"]
    "backfill.easy-widest" = "my_package.orders:widest_first"

Entry points are read once per process, when a family is first looked up (a worker sees a newly
installed package after a restart). Only installed packages are ever loaded: a scenario names an
algorithm, never code. A plug-in that cannot be loaded, names an unknown family, shadows a built-in
or hands the family an object it does not accept is left out and listed in :func:`broken` (``python
-m schedulers families`` prints why); the families and the other plug-ins work on.

While a run calls into a plug-in, :func:`guard` turns an exception it raises into a
:class:`PluginError` naming the plug-in, its package and the decision; a decision the family finds
invalid raises the same error through :func:`invalid`. Exceptions that stop the run from outside
(:class:`RunLimit` subclasses such as the worker's time limit, ``MemoryError``, ``KeyboardInterrupt``)
pass through unchanged with a note naming the plug-in they interrupted.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

__all__ = ["GROUP", "Plugin", "PluginError", "RunLimit", "broken", "connect", "discover", "guard", "index_in", "invalid",
           "is_stop", "keys_of", "log_left_out", "lookup", "refresh", "reraise", "stop_on", "time_limit"]  # fmt: skip

GROUP = "cloudsched.algorithms"
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


class RunLimit(Exception):
    """Raised by a caller's limit machinery (the worker's time limit): passes a plug-in guard unchanged."""


_STOPS: list[type[BaseException]] = [RunLimit, MemoryError]


def stop_on(*types: type[BaseException]) -> None:
    """Let ``types`` through every plug-in guard and unit, like :class:`RunLimit`: for a caller whose limit
    machinery raises its own exception (Celery's ``SoftTimeLimitExceeded``), so that a limit hit inside a
    plug-in ends the run as the run's limit, with a note naming the plug-in, never as the plug-in's failure."""
    _STOPS.extend(t for t in types if t not in _STOPS)


@contextmanager
def time_limit(seconds: float | None, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` after ``seconds`` (SIGALRM), in the main thread only; nothing when ``seconds`` is falsy.

    The caller's limit (the CLI's ``--time-limit``, the worker's soft limit): make ``error`` a :class:`RunLimit`
    (or register its type with :func:`stop_on`) so that it passes every plug-in guard with a note naming the
    plug-in it interrupted, and stops the whole run rather than one unit."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def alarm(signum: int, frame: Any) -> None:
        raise error()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def is_stop(exc: BaseException) -> bool:
    """Whether ``exc`` is the caller's limit or interruption rather than an algorithm's failure."""
    return isinstance(exc, (*_STOPS, KeyboardInterrupt))


@dataclass(frozen=True)
class Plugin:
    """One loaded plug-in algorithm and where it came from (what a result's stamp records)."""

    family: str
    name: str
    obj: Any = field(repr=False)
    entry_point: str  # "module:attribute"
    package: str  # the distribution that declares it
    version: str
    file: str  # the source file of the object
    sha256: str  # of that file's bytes
    description: str = ""

    def origin(self) -> dict[str, str]:
        """What a result records about this plug-in (JSON)."""
        return {"package": self.package, "version": self.version, "entry_point": self.entry_point,
                "file": self.file, "sha256": self.sha256}  # fmt: skip

    def label(self) -> str:
        return f"plug-in {self.family}.{self.name} ({self.package} {self.version})"


class PluginError(RuntimeError):
    """A plug-in raised, or returned a decision the simulator refuses: the run fails with this message."""

    def __init__(self, plugin: Plugin, decision: str, message: str) -> None:
        super().__init__(f"{plugin.label()} failed in its {decision}: {message}")
        self.plugin, self.decision = plugin, decision


_LOADED: dict[str, dict[str, Plugin]] | None = None
_BROKEN: list[dict[str, str]] = []
# The family registry sits above this module (it merges each family with its plug-ins): it hands over its
# families and what to forget on refresh when it is imported, so this module never imports it.
_FAMILIES: Callable[[], Any] | None = None
_ON_REFRESH: list[Callable[[], None]] = []


def connect(families: Callable[[], Any], on_refresh: Callable[[], None]) -> None:
    """Called once by :mod:`schedulers.registry`: where discovery finds the families (a mapping name → family
    with ``registered(name)``), and what :func:`refresh` must make the registry forget."""
    global _FAMILIES
    _FAMILIES = families
    if on_refresh not in _ON_REFRESH:
        _ON_REFRESH.append(on_refresh)


def refresh() -> None:
    """Forget what was discovered (tests; a long-lived process after installing a package)."""
    global _LOADED
    _LOADED = None
    _BROKEN.clear()
    for forget in _ON_REFRESH:
        forget()


def _source(module_name: str) -> tuple[str, str]:
    """The file of the entry point's module and its SHA-256 (the object may be an instance of a library class)."""
    path = getattr(sys.modules.get(module_name), "__file__", None) or ""
    try:
        with open(path, "rb") as f:
            return path, hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return path, ""


def _load(ep: Any, families: Any) -> Plugin:
    family, _, name = ep.name.partition(".")
    if family not in families:
        raise LookupError(f"no family {family!r} (entry point names are <family>.<algorithm>)")
    if not NAME.match(name):
        raise ValueError(f"algorithm name {name!r} is not lower-case letters, digits, '-' or '_' (≤ 40)")
    fam = families.registered(family)
    if fam.adopt is None:
        raise LookupError(f"family {family!r} takes no plug-ins yet")
    if name in fam.algorithms:
        raise ValueError(f"{name!r} is a built-in {family} algorithm")
    obj = ep.load()
    description = fam.adopt(obj)
    dist = ep.dist
    path, sha = _source(ep.module)
    return Plugin(family, name, obj, ep.value, dist.name if dist else "?", dist.version if dist else "?", path, sha,
                  description)  # fmt: skip


def _any_declared() -> bool:
    """Whether any installed distribution on ``sys.path`` declares the group (a plain scan of the
    ``entry_points.txt`` files): importing ``importlib.metadata`` costs ~50 ms of every CLI call that looks up
    a family taking plug-ins (bench/startup.py), which one that finds none need not pay."""
    tag = f"[{GROUP}]"
    for entry in sys.path:
        try:
            names = [e.name for e in os.scandir(entry or ".") if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    if tag in f.read():
                        return True
            except (OSError, UnicodeDecodeError):
                continue
    return False


def discover() -> dict[str, dict[str, Plugin]]:
    """Every loadable plug-in: family → algorithm → :class:`Plugin` (read once per process)."""
    global _LOADED
    if _LOADED is None and not _any_declared():
        _LOADED = {}
    if _LOADED is None:
        from importlib import metadata

        if _FAMILIES is None:
            raise RuntimeError("no family registry: schedulers.registry hands plugins its families when imported")
        families = _FAMILIES()
        loaded: dict[str, dict[str, Plugin]] = {}
        for ep in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
            where = f"{ep.name} = {ep.value}" + (f" ({ep.dist.name} {ep.dist.version})" if ep.dist else "")
            try:
                plugin = _load(ep, families)
            except Exception as exc:  # a broken package never takes the library down
                _BROKEN.append({"name": ep.name, "entry_point": where, "error": f"{type(exc).__name__}: {exc}"})
                continue
            if plugin.name in loaded.get(plugin.family, {}):
                _BROKEN.append({"name": ep.name, "entry_point": where,
                                "error": "another package already declares this name"})  # fmt: skip
                continue
            loaded.setdefault(plugin.family, {})[plugin.name] = plugin
        _LOADED = loaded
    return _LOADED


def broken(family: str | None = None) -> list[dict[str, str]]:
    """Entry points left out, with why (``{"name", "entry_point", "error"}``; ``name`` is ``<family>.<algorithm>``
    as declared), of one ``family`` or of all."""
    discover()
    return [b for b in _BROKEN if family is None or b["name"].partition(".")[0] == family]


def log_left_out(logger: Any) -> int:
    """Warn on ``logger`` about every plug-in left out (a server's log at start); returns how many."""
    left = broken()
    for b in left:
        logger.warning("plug-in left out: %s: %s", b["entry_point"], b["error"])
    return len(left)


def lookup(family: str, name: str) -> Plugin:
    """The plug-in ``name`` of ``family`` (KeyError if it is not installed)."""
    return discover()[family][name]


@contextmanager
def guard(plugin: Plugin, decision: str) -> Iterator[None]:
    """Run a call into ``plugin`` making ``decision``: its exceptions become a :class:`PluginError`."""
    try:
        yield
    except PluginError:
        raise
    except SystemExit as exc:  # sys.exit() in a plug-in ends its own unit, never the process running the others
        raise PluginError(plugin, decision, f"called sys.exit({exc.code!r})") from exc
    except BaseException as exc:
        if is_stop(exc):  # the caller's limit or the user's Ctrl-C: not ours to swallow
            exc.add_note(f"interrupted {plugin.label()} in its {decision}")
            raise
        if not isinstance(exc, Exception):
            raise
        raise PluginError(plugin, decision, f"{type(exc).__name__}: {exc}") from exc


def reraise(plugin: Plugin, decision: str) -> NoReturn:
    """The exception being handled, through :func:`guard`: called in an ``except BaseException:`` around a
    bare call into ``plugin``. The families call a plug-in bare and pay for the guard only when it raises
    (a with-block per call costs ~10 % of a dynamic queue order's run)."""
    with guard(plugin, decision):
        raise  # re-raises the caller's exception: this is only called from an except block


def index_in(value: Any, lo: int, hi: int) -> bool:
    """Whether a plug-in's answer is an integer (Python's or numpy's, not a bool) in ``lo…hi − 1``."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and lo <= value < hi


def keys_of(plugin: Plugin, decision: str, got: Any, n: int, where: str, item: str, names: Any = None,
            hint: str = "") -> np.ndarray:  # fmt: skip
    """A plug-in's order keys as floats, checked: ``n`` finite numbers, one per ``item`` (ints, floats or bools;
    never text, NaN or ±inf, which have no place in a total order). ``names[i]`` names the item of key ``i``
    (default ``"<item> i"``); ``hint`` is added to the message of a key that is not finite."""
    try:
        raw = np.asarray(got)
    except (TypeError, ValueError) as exc:
        raise invalid(plugin, decision, f"{where}: keys must be numbers ({exc})") from None
    if raw.dtype.kind not in "biuf":
        raise invalid(plugin, decision, f"{where}: keys must be numbers, got {raw.dtype} ({type(got).__name__}); "
                      "allowed: finite ints or floats")  # fmt: skip
    if raw.shape != (n,):
        raise invalid(plugin, decision, f"{where}: {n} keys expected (one per {item}), got shape {raw.shape}")
    keys = raw.astype(np.float64, copy=False)
    bad = np.flatnonzero(~np.isfinite(keys))
    if bad.size:
        i = int(bad[0])
        who = names[i] if names is not None else f"{item} {i}"
        more = f" ({bad.size} keys not finite)" if bad.size > 1 else ""
        raise invalid(plugin, decision, f"{where}: key {keys[i]:g} for {who}{more}; allowed: finite numbers{hint}")
    return keys


def invalid(plugin: Plugin, decision: str, message: str) -> PluginError:
    """The error for a decision the simulator refuses (``raise invalid(...)``)."""
    return PluginError(plugin, decision, "invalid decision: " + message)
