"""Where real SWF traces live, and which paths a scenario may name.

Traces are never committed: a user names a file by path or uploads it. Directories
to search are ``$CLOUDSCHED_TRACE_DIRS`` (``os.pathsep``-separated) and, in a
development checkout, ``../shared/workloads/traces``. A server that takes scenarios
from untrusted users sets ``CLOUDSCHED_RESTRICT_TRACE_PATHS=1`` (the web app does),
and then a scenario may only name files inside those directories.

**Trace references.** A scenario may also name a trace by its content:
``workload.trace = "sha256:<64 hex digits>"``, the SHA-256 of the SWF text (after gunzip;
:func:`content_ref`). Where a reference resolves is the business of the current
:class:`TraceCatalog`: the default one (the CLI) finds a file with that content in the trace
directories — a file named ``<hex>.swf`` / ``<hex>.swf.gz`` first, else any ``*.swf[.gz]``
there whose content hashes to it; the web app installs its own (the ``Trace`` table, files
in its storage) with :func:`set_catalog`. Either way the family reads a file (a ``Path``),
never text carried in the scenario. Presets that call for a real log ask
:func:`locate_log` and say, when it is missing, which log and how to add it.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "DirectoryCatalog",
    "Summary",
    "TraceCatalog",
    "catalog",
    "check_trace_path",
    "check_trace_ref",
    "check_trace_text",
    "content_ref",
    "exact_summary",
    "find_trace",
    "locate_log",
    "natural_load",
    "recording_misses",
    "set_catalog",
    "summary",
    "swf_error",
    "trace_dirs",
    "trace_file",
]

SUFFIXES = (".swf", ".swf.gz")
REF_RE = re.compile(r"sha256:[0-9a-f]{64}")
REF_ALLOWED = "'sha256:' followed by the 64 lowercase hex digits of the trace's SHA-256"
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
        return [swf_error(exc, field)]
    return []


SWF_ALLOWED = "SWF v2.2: one record of 18 numbers per line, each ≥ 0 or −1 for unknown; ';' comments"


def swf_error(exc: Exception, field: str, quote: bool = True) -> dict[str, str]:
    """A validation error for SWF content that did not parse (its message names the line and field;
    with ``quote=False`` it leaves out the excerpt of the bad line: for files that may be no SWF at all)."""
    message = str(exc) if quote else getattr(exc, "brief", str(exc))
    return {"field": field, "message": message, "allowed": SWF_ALLOWED}


def _check(path: str, field: str) -> list[dict[str, str]]:
    p = Path(path).expanduser()
    if not path.endswith(SUFFIXES):
        return [{"field": field, "message": "not an SWF file name", "allowed": "a path ending in .swf or .swf.gz"}]
    if os.environ.get("CLOUDSCHED_RESTRICT_TRACE_PATHS") == "1":
        resolved = p.resolve()
        roots = [r.resolve() for r in trace_dirs()]
        if not any(resolved.is_relative_to(r) for r in roots):
            # Never the directories' absolute paths: they say nothing a user needs, much about the server.
            where = "a file inside the server's trace directories (CLOUDSCHED_TRACE_DIRS), or "
            allowed = (where if roots else "") + "a stored trace (workload.trace)"
            return [
                {
                    "field": field,
                    "message": "this server only reads traces from its trace directories",
                    "allowed": allowed,
                }
            ]
    if not p.is_file():
        what = "not a regular file (a device, FIFO or directory)" if p.exists() else "no such file"
        return [{"field": field, "message": f"{what}: {path}", "allowed": "a readable SWF file"}]
    return []


def content_ref(source: str | bytes | Path) -> str:
    """The reference of a trace: ``sha256:`` + the SHA-256 of its SWF text (gzip undone, so a
    compressed and a plain copy of one log are the same trace). Reads are bounded as in read_swf."""
    from schedulers.core.swf import text_blocks

    digest = hashlib.sha256()
    for block, _ in text_blocks(source):
        digest.update(block)
    return "sha256:" + digest.hexdigest()


class TraceCatalog:
    """Where ``workload.trace`` references resolve (see the module docstring)."""

    where = "a trace directory"

    def summary(self, ref: str) -> dict[str, Any] | None:
        """The exact :class:`Summary` of the trace ``ref`` (what a cost estimate reads), or None if it is
        missing. By default the file is read through (:func:`exact_summary`); a catalog that summarised
        its traces when it stored them answers from that."""
        path = self.path(ref)
        return exact_summary(path) if path is not None else None

    def path(self, ref: str) -> Path | None:
        """A local file holding the trace ``ref``, or None."""
        raise NotImplementedError

    def log(self, filename: str) -> dict[str, str] | None:
        """Workload keys naming the real log ``filename`` (``{"path": …}`` or ``{"trace": …}``), or None."""
        raise NotImplementedError

    def how_to_add(self, filename: str = "") -> str:
        """What to do so that a missing trace (or the log ``filename``) is found."""
        raise NotImplementedError

    def missing(self, ref: str, field: str) -> dict[str, str]:
        """The validation error for a reference this catalog cannot give (one wording, wherever it is found)."""
        return {"field": field, "message": f"no trace {ref} in {self.where}", "allowed": self.how_to_add()}


class DirectoryCatalog(TraceCatalog):
    """The CLI's catalog: the trace directories (:func:`trace_dirs`)."""

    where = "the trace directories"

    def __init__(self) -> None:
        self._digests: dict[tuple[str, int, int], str] = {}  # (file, mtime_ns, size) → its ref

    def path(self, ref: str) -> Path | None:
        digest = ref.removeprefix("sha256:")
        for root in trace_dirs():
            for suffix in SUFFIXES:
                if (root / f"{digest}{suffix}").is_file():
                    return root / f"{digest}{suffix}"
        for root in trace_dirs():
            for file in sorted(root.glob("*.swf*")):
                if file.name.endswith(SUFFIXES) and file.is_file() and self._ref(file) == ref:
                    return file
        return None

    def _ref(self, file: Path) -> str | None:
        st = file.stat()
        key = (str(file.resolve()), st.st_mtime_ns, st.st_size)
        if key not in self._digests:
            from schedulers.core.swf import SwfError

            try:
                self._digests[key] = content_ref(file)
            except SwfError:  # unreadable or over the limits: never this trace
                self._digests[key] = ""
        return self._digests[key] or None

    def log(self, filename: str) -> dict[str, str] | None:
        found = find_trace(filename)
        return {"path": str(found)} if found is not None else None

    def how_to_add(self, filename: str = "") -> str:
        what = filename or "a file with that content (e.g. named <sha256>.swf.gz)"
        return f"put {what} in $CLOUDSCHED_TRACE_DIRS or ../shared/workloads/traces"


_catalog: TraceCatalog = DirectoryCatalog()


def catalog() -> TraceCatalog:
    return _catalog


def set_catalog(new: TraceCatalog) -> TraceCatalog:
    """Install the catalog trace references resolve in (the web app's, at start); returns the old one."""
    global _catalog
    old, _catalog = _catalog, new
    return old


def check_trace_ref(ref: str, field: str = "workload.trace") -> list[dict[str, str]]:
    """Validation errors for a trace named by reference (empty list when the catalog has it)."""
    if not REF_RE.fullmatch(ref):
        return [{"field": field, "message": "not a trace reference", "allowed": REF_ALLOWED}]
    if _catalog.path(ref) is None:
        return [_catalog.missing(ref, field)]
    return []


def trace_file(ref: str, field: str = "workload.trace") -> Path:
    """The file of the trace ``ref`` (what a family reads); a ScenarioError naming ``field`` if it is gone."""
    from schedulers.core.validation import ScenarioError

    errors = check_trace_ref(ref, field)
    if errors:
        raise ScenarioError(errors)
    path = _catalog.path(ref)
    assert path is not None
    return path


def locate_log(filename: str) -> tuple[dict[str, Any] | None, str]:
    """For a preset that calls for the real log ``filename``: the workload keys naming it and where it
    is, or ``(None, what is missing and how to add it)``."""
    keys = _catalog.log(filename)
    if keys is not None:
        return keys, f"{filename} ({keys.get('trace') or keys.get('path')})"
    missing = f"{filename} is not in {_catalog.where}: {_catalog.how_to_add(filename)}"
    recorder = _misses.get()
    if recorder is not None and missing not in recorder:
        recorder.append(missing)
    return None, missing


_misses: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("trace_misses", default=None)


@contextlib.contextmanager
def recording_misses() -> Iterator[list[str]]:
    """Collect what :func:`locate_log` could not find inside the block (``schedulers.preset`` reports them)."""
    found: list[str] = []
    token = _misses.set(found)
    try:
        yield found
    finally:
        _misses.reset(token)


def natural_load(submit, size, runtime, processors: int) -> float:
    """Offered load of jobs sorted by submit time: Σ size·runtime / (processors × (last − first submit))."""
    import numpy as np

    span = float(submit[-1] - submit[0]) if len(submit) > 1 else 0.0
    return float(np.dot(size, runtime) / (processors * span)) if span > 0 else float("inf")


class Summary:
    """What a stored trace shows instead of its text, added up a block at a time (:func:`summary`)."""

    def __init__(self) -> None:
        from schedulers.core.trace_jobs import HeaderLines

        self.header = HeaderLines("MaxProcs", "MaxNodes")
        self.jobs = self.usable = self.largest = self.size_sum = 0
        self.first, self.last, self.work = float("inf"), float("-inf"), 0.0

    def add(self, block: Any) -> None:
        import numpy as np

        self.header.add(block.header)
        c = block.columns
        size = np.where(c["alloc_procs"] > 0, c["alloc_procs"], c["req_procs"])
        ok = (c["submit"] >= 0) & (c["run_time"] >= 0) & (size > 0)
        self.jobs += len(block)
        if ok.any():
            self.usable += int(np.count_nonzero(ok))
            self.largest = max(self.largest, int(size[ok].max()))
            self.size_sum += int(size[ok].sum())
            self.first = min(self.first, float(c["submit"][ok].min()))
            self.last = max(self.last, float(c["submit"][ok].max()))
            self.work += float(np.dot(size[ok], c["run_time"][ok]))

    def result(self) -> dict[str, Any]:
        # The machine the trace was logged on, as the families read it (trace_jobs.Widths.machine).
        processors, source = next(
            ((v, k) for k, v in (("MaxProcs", self.header.int("MaxProcs")), ("MaxNodes", self.header.int("MaxNodes")))
             if v), (self.largest, "largest job"))  # fmt: skip
        span = self.last - self.first if self.usable else 0.0
        load = self.work / (processors * span) if processors and span > 0 else None
        return {"jobs": self.jobs, "usable_jobs": self.usable, "processors": int(processors),
                "processors_from": source, "largest_job": int(self.largest), "span_s": span,
                "natural_load": load, "size_sum": int(self.size_sum)}  # fmt: skip


_exact: dict[tuple[str, int, int], dict[str, Any]] = {}


def exact_summary(source: Path | bytes) -> dict[str, Any]:
    """The :class:`Summary` of a whole SWF file (plain or gzip, every member) or text, read through a
    block at a time: never a sample, so neither a first megabyte of comments nor a gzip trailer that
    states only its last member's size can mislead it. A file's is kept per (file, mtime, size)."""
    from schedulers.core.swf import parse_block, text_blocks

    key = None
    if isinstance(source, Path):
        st = source.stat()
        key = (str(source.resolve()), st.st_mtime_ns, st.st_size)
        if key in _exact:
            return _exact[key]
    total = Summary()
    for block, first_line in text_blocks(source):
        total.add(parse_block(block, first_line))
    found = total.result()
    if key is not None:
        if len(_exact) >= 64:
            _exact.clear()
        _exact[key] = found
    return found


def summary(trace: Any) -> dict[str, Any]:
    """What a stored trace shows instead of its text: jobs (records), processors (the header's
    ``MaxProcs``, else ``MaxNodes``, else the largest job; ``processors_from`` says which), the largest
    usable job (``largest_job``), the submit span and the natural offered load of its usable jobs
    (known submit, runtime ≥ 0, size > 0; :func:`natural_load`'s formula; None when the span is 0).
    ``trace`` is a parsed :class:`~schedulers.core.swf.SwfTrace`; a stream of blocks adds up in
    :class:`Summary`."""
    total = Summary()
    total.add(trace)
    return total.result()
