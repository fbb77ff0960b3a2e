"""Where real SWF traces live, and which paths a scenario may name.

Traces are never committed: a user names a file by path or uploads it. Directories
to search are ``$CLOUDSCHED_TRACE_DIRS`` (``os.pathsep``-separated) and, in a
development checkout, ``../shared/workloads/traces``. A server that takes scenarios
from untrusted users sets ``CLOUDSCHED_RESTRICT_TRACE_PATHS=1`` (the web app does),
and then a scenario may only name files inside those directories.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["check_trace_path", "check_trace_text", "find_trace", "trace_dirs"]

SUFFIXES = (".swf", ".swf.gz")
_SHARED = Path(__file__).resolve().parents[3] / "shared" / "workloads" / "traces"


def trace_dirs() -> list[Path]:
    dirs = [Path(d) for d in os.environ.get("CLOUDSCHED_TRACE_DIRS", "").split(os.pathsep) if d]
    if _SHARED.is_dir():
        dirs.append(_SHARED)
    return dirs


def find_trace(filename: str) -> Path | None:
    """The first ``filename`` found in the trace directories, if any."""
    for root in trace_dirs():
        if (root / filename).is_file():
            return root / filename
    return None


def check_trace_path(path: str, field: str = "workload.path") -> list[dict[str, str]]:
    """Validation errors for a trace named by path (empty list when it is usable)."""
    try:
        return _check(path, field)
    except (OSError, ValueError) as exc:  # a name too long for the file system, a NUL byte, ...
        return [
            {"field": field, "message": f"not a usable path ({type(exc).__name__})", "allowed": "a readable SWF file"}
        ]


def check_trace_text(text: str, field: str) -> list[dict[str, str]]:
    """Validation errors for SWF given as text (an upload): it is parsed, never opened as a file."""
    from schedulers.core.swf import SwfError, read_swf

    try:
        read_swf(text)
    except SwfError as exc:
        allowed = "SWF v2.2: one record of 18 numbers per line, each ≥ 0 or −1 for unknown; ';' comments"
        return [{"field": field, "message": str(exc), "allowed": allowed}]
    return []


def _check(path: str, field: str) -> list[dict[str, str]]:
    p = Path(path).expanduser()
    if not path.endswith(SUFFIXES):
        return [{"field": field, "message": "not an SWF file name", "allowed": "a path ending in .swf or .swf.gz"}]
    if os.environ.get("CLOUDSCHED_RESTRICT_TRACE_PATHS") == "1":
        resolved = p.resolve()
        roots = [r.resolve() for r in trace_dirs()]
        if not any(resolved.is_relative_to(r) for r in roots):
            allowed = "a file inside " + ", ".join(str(r) for r in roots) if roots else "an uploaded trace"
            return [
                {
                    "field": field,
                    "message": "this server only reads traces from its trace directories",
                    "allowed": allowed,
                }
            ]
    if not p.is_file():
        return [{"field": field, "message": f"no such file: {path}", "allowed": "a readable SWF file"}]
    return []
