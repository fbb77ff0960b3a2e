"""Standard Workload Format (SWF v2.2) reader and writer (../shared/workloads/models.md §6).

The reader returns columns as numpy arrays (fast on 100k+ job traces), keeps the
header comments, accepts floats in any field, comments anywhere and ``.gz``
files, and names the line of any malformed record. The writer emits 18 fields,
−1 for unknown, sorted by submit time, job numbers from 1.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["FIELDS", "SwfError", "SwfTrace", "read_swf", "write_swf"]

FIELDS = (
    "job", "submit", "wait", "run_time", "alloc_procs", "avg_cpu_time", "used_mem",
    "req_procs", "req_time", "req_mem", "status", "user", "group", "executable",
    "queue", "partition", "preceding_job", "think_time",
)  # fmt: skip
_HEADER_RE = re.compile(r";\s*([A-Za-z][\w ]*?)\s*:\s*(.*)$")
_LEADING_INT = re.compile(r"-?\d+")


class SwfError(ValueError):
    """A malformed SWF file; the message names the line."""


@dataclass
class SwfTrace:
    """An SWF workload: ``header`` comment lines and one float array per field."""

    columns: dict[str, np.ndarray]
    header: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.columns["job"].size)

    def header_value(self, name: str) -> str | None:
        for line in self.header:
            m = _HEADER_RE.match(line)
            if m and m.group(1).lower() == name.lower():
                return m.group(2).strip()
        return None

    def header_int(self, name: str) -> int | None:
        """The leading integer of a header value (``MaxNodes: 338 (batch…)`` → 338)."""
        value = self.header_value(name)
        m = _LEADING_INT.match(value or "")
        return int(m.group()) if m else None


def _open_text(source: str | Path | bytes) -> str:
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and Path(source).exists()):
        data = Path(source).read_bytes()
    else:
        return str(source)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise SwfError(f"SWF gzip data is corrupt or truncated: {exc}") from None
    return data.decode("utf-8", errors="replace")


def read_swf(source: str | Path | bytes) -> SwfTrace:
    """Parse SWF from a path, raw (possibly gzipped) bytes or the text itself."""
    text = _open_text(source)
    header: list[str] = []
    rows: list[list[float]] = []
    linenos: list[int] = []
    for lineno, raw in enumerate(io.StringIO(text), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            header.append(line)
            continue
        parts = line.split()
        if len(parts) != 18:
            raise SwfError(f"SWF line {lineno}: expected 18 fields, found {len(parts)}: {line[:80]!r}")
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            raise SwfError(f"SWF line {lineno}: non-numeric field in {line[:80]!r}") from None
        linenos.append(lineno)
    data = np.array(rows, dtype=float).reshape(-1, 18)
    _check_values(data, linenos)
    columns = {name: data[:, i].copy() for i, name in enumerate(FIELDS)}
    return SwfTrace(columns=columns, header=header)


def _check_values(data: np.ndarray, linenos: list[int]) -> None:
    """−1 is SWF's "unknown"; any other negative value, NaN or infinity is an error."""
    bad = ~np.isfinite(data) | ((data < 0) & (data != -1))
    if bad.any():
        row, col = (int(i[0]) for i in np.nonzero(bad))
        raise SwfError(
            f"SWF line {linenos[row]}: field {col + 1} ({FIELDS[col]}) is {float(data[row, col])!r}; "
            "allowed: ≥ 0, or −1 for unknown"
        )


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_swf(trace: SwfTrace, path: str | Path | None = None) -> str:
    """Serialise ``trace`` (sorted by submit, jobs renumbered from 1); returns the text."""
    cols = trace.columns
    order = np.argsort(cols["submit"], kind="stable")
    header = list(trace.header) or ["; Version: 2.2"]
    if not any(h.lower().startswith("; version") for h in header):
        header.insert(0, "; Version: 2.2")
    lines = header[:]
    for i, idx in enumerate(order, start=1):
        values = [float(i)] + [cols[name][idx] if name in cols else -1.0 for name in FIELDS[1:]]
        lines.append(" ".join(_fmt(v) for v in values))
    text = "\n".join(lines) + "\n"
    if path is not None:
        p = Path(path)
        blob = text.encode()
        p.write_bytes(gzip.compress(blob) if p.suffix == ".gz" else blob)
    return text
