"""Standard Workload Format (SWF v2.2) reader and writer (../shared/workloads/models.md §6).

The reader returns columns as numpy arrays, keeps the header comments, accepts
floats in any field, comments anywhere and ``.gz`` data, and names the line of any
malformed record.

Safety (a server reads traces its users send):

- A ``str`` is always SWF *content*, never a file name. Only a :class:`~pathlib.Path`
  is opened, and only when it is a regular file outside ``/proc``, ``/sys`` and
  ``/dev`` (no devices, FIFOs or kernel files); whether a server may read a path at
  all is :func:`schedulers.core.traces.check_trace_path`'s business.
- Every read is bounded before parsing: at most :data:`MAX_BYTES` bytes of text
  (after decompression, which stops at the limit) and :data:`MAX_LINES` lines, both
  settable with ``CLOUDSCHED_SWF_MAX_BYTES`` / ``CLOUDSCHED_SWF_MAX_LINES``.
- An error quotes at most :data:`EXCERPT` characters of the bad line, escaped.

Speed: a numpy tokenizer parses the common case (decimal numbers, no exponents)
at several million fields per second; anything it does not recognise falls back to
the line-by-line reader, which also produces every error message.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["FIELDS", "MAX_BYTES", "MAX_LINES", "SwfError", "SwfTrace", "load_bytes", "read_swf", "write_swf"]

FIELDS = (
    "job", "submit", "wait", "run_time", "alloc_procs", "avg_cpu_time", "used_mem",
    "req_procs", "req_time", "req_mem", "status", "user", "group", "executable",
    "queue", "partition", "preceding_job", "think_time",
)  # fmt: skip
N_FIELDS = len(FIELDS)
MAX_BYTES = int(os.environ.get("CLOUDSCHED_SWF_MAX_BYTES", 1 << 30))
MAX_LINES = int(os.environ.get("CLOUDSCHED_SWF_MAX_LINES", 10_000_000))
CHUNK = 1 << 20  # bytes the vectorised parser takes at a time (bounds its scratch memory)
EXCERPT = 40
_FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
_POW10_U64 = np.array([10**k for k in range(20)], dtype=np.uint64)
_HEADER_RE = re.compile(r";\s*([A-Za-z][\w ]*?)\s*:\s*(.*)$")
_LEADING_INT = re.compile(r"-?\d+")


class SwfError(ValueError):
    """A malformed or unreadable SWF trace; the message names the line (and field)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line, self.column = line, column


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


def excerpt(text: str | bytes, limit: int = EXCERPT) -> str:
    """A short, escaped quotation of ``text`` for an error message."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    cut = text[:limit]
    return repr(cut) + ("…" if len(text) > limit else "")


def _too_big(what: str) -> SwfError:
    return SwfError(
        f"SWF trace is larger than this server reads: more than {what} "
        f"(limits: {MAX_BYTES:,} bytes and {MAX_LINES:,} lines after decompression)"
    )


def _read_file(path: Path) -> bytes:
    """The bytes of a regular file, read with a bound; never a device, FIFO or kernel file."""
    resolved = path.expanduser().resolve()
    if any(resolved.is_relative_to(root) for root in _FORBIDDEN_ROOTS):
        raise SwfError(f"SWF trace {path.name!r} is not a regular file")
    try:
        fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SwfError(f"cannot open SWF trace {path.name!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SwfError(f"SWF trace {path.name!r} is not a regular file")
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _too_big(f"{MAX_BYTES:,} bytes")
    return data


def _decompress(data: bytes) -> bytes:
    """Gunzip (possibly multi-member) ``data``, stopping as soon as the output passes the limit."""
    out: list[bytes] = []
    total = 0
    try:
        while data:
            d = zlib.decompressobj(wbits=31)
            chunk = d.decompress(data, MAX_BYTES + 1 - total)
            out.append(chunk)
            total += len(chunk)
            if total > MAX_BYTES or d.unconsumed_tail:
                raise _too_big(f"{MAX_BYTES:,} bytes")
            if not d.eof:
                raise SwfError("SWF gzip data is corrupt or truncated: unexpected end of data")
            data = d.unused_data.lstrip(b"\x00")
    except zlib.error as exc:
        raise SwfError(f"SWF gzip data is corrupt or truncated: {exc}") from None
    return b"".join(out)


def load_bytes(source: str | Path | bytes) -> bytes:
    """The SWF text of ``source`` as bytes: read (bounded), decompressed (bounded), limits checked."""
    if isinstance(source, Path):
        data = _read_file(source)
    elif isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str):
        data = source.encode("utf-8", errors="surrogateescape")
    else:
        raise TypeError(f"read_swf takes SWF text (str), bytes or a pathlib.Path, not {type(source).__name__}")
    if data[:2] == b"\x1f\x8b":
        data = _decompress(data)
    if len(data) > MAX_BYTES:
        raise _too_big(f"{MAX_BYTES:,} bytes")
    if data.count(b"\n") > MAX_LINES:
        raise _too_big(f"{MAX_LINES:,} lines")
    return data


def read_swf(source: str | Path | bytes) -> SwfTrace:
    """Parse SWF from its text (``str``), raw possibly gzipped ``bytes``, or a ``Path`` to a file.

    A ``str`` is never taken for a file name: pass ``Path(name)`` to read a file.
    """
    data = load_bytes(source)
    parsed = _parse_fast(data)
    if parsed is None:
        parsed = _parse_lines(data)
    values, header, linenos = parsed
    _check_values(values, data, linenos)
    columns = {name: np.ascontiguousarray(values[:, i]) for i, name in enumerate(FIELDS)}
    return SwfTrace(columns=columns, header=header)


def _parse_lines(data: bytes) -> tuple[np.ndarray, list[str], np.ndarray | None]:
    """The reference reader: one line at a time; every error message comes from here."""
    header: list[str] = []
    rows: list[list[float]] = []
    linenos: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b";"):
            header.append(line.decode("utf-8", errors="replace"))
            continue
        parts = line.split()
        if len(parts) != N_FIELDS:
            raise SwfError(
                f"SWF line {lineno}: expected {N_FIELDS} fields, found {len(parts)}: {excerpt(line)}", line=lineno
            )
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            col = next(i for i, p in enumerate(parts) if not _is_float(p))
            raise SwfError(
                f"SWF line {lineno}: field {col + 1} ({FIELDS[col]}) is not a number: {excerpt(parts[col])}",
                line=lineno,
                column=col + 1,
            ) from None
        linenos.append(lineno)
    values = np.array(rows, dtype=float).reshape(-1, N_FIELDS)
    return values, header, np.array(linenos, dtype=np.int64)


def _is_float(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _parse_fast(data: bytes) -> tuple[np.ndarray, list[str], None] | None:
    """Vectorised parse in chunks of whole lines (scratch memory stays ~40× :data:`CHUNK`)."""
    parts: list[np.ndarray] = []
    header: list[str] = []
    lo = 0
    while lo < len(data):
        hi = data.find(b"\n", lo + CHUNK)
        hi = len(data) if hi < 0 else hi + 1
        parsed = _parse_chunk(data[lo:hi])
        if parsed is None:
            return None
        parts.append(parsed[0])
        header.extend(parsed[1])
        lo = hi
    values = np.concatenate(parts) if parts else np.zeros((0, N_FIELDS))
    return values, header, None


def _parse_chunk(data: bytes) -> tuple[np.ndarray, list[str]] | None:
    """Vectorised parse of well-formed SWF with plain decimal fields; ``None`` means "use the slow path".

    Tokens are runs of bytes > 32; each is read eight bytes at a time as an unaligned
    little-endian word ending at its last byte (at most 15 digits: exact in float64).
    The rare token with a decimal point goes through ``float`` itself. Either way the
    value equals ``float(token)`` bit for bit.
    """
    b = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(b == 10)
    header: list[str] = []
    semis = np.flatnonzero(b == 59)
    if semis.size:
        b = b.copy()
        for li in np.unique(np.searchsorted(newlines, semis)):
            lo = int(newlines[li - 1]) + 1 if li > 0 else 0
            hi = int(newlines[li]) if li < newlines.size else b.size
            line = data[lo:hi].strip()
            if not line.startswith(b";"):
                return None  # a ';' inside a record: let the slow path name it
            header.append(line.decode("utf-8", errors="replace"))
            b[lo:hi] = 32
    ws = b <= 32
    edges = np.diff(ws.view(np.int8), prepend=np.int8(1), append=np.int8(1))
    starts = np.flatnonzero(edges == -1)
    ends = np.flatnonzero(edges == 1)
    if starts.size % N_FIELDS:
        return None
    rows = starts.size // N_FIELDS
    if rows == 0:
        return np.zeros((0, N_FIELDS)), header
    # Every record holds exactly 18 tokens: the 1st and 18th token of each record share a line.
    first, last = starts[::N_FIELDS], starts[N_FIELDS - 1 :: N_FIELDS]
    line_first, line_last = np.searchsorted(newlines, first), np.searchsorted(newlines, last)
    if np.any(line_first != line_last) or np.any(np.diff(line_first) == 0):
        return None
    lengths = ends - starts
    longest = int(lengths.max())
    if longest > 15:
        return None  # more digits than float64 holds exactly: the slow path
    # Allowed bytes: digits, one '.' per token, a '-' as a token's first byte. The other bytes of
    # tokens are few ('-1' fields, decimals): find them, and check each.
    odd = np.flatnonzero((b > 32) & ((b - np.uint8(48)) >= 10))
    odd_bytes = b[odd]
    is_minus, is_dot = odd_bytes == 45, odd_bytes == 46
    if not np.all(is_minus | is_dot):
        return None  # exponents, 'nan', '+', stray characters: the slow path handles them exactly
    token = np.searchsorted(starts, odd, side="right") - 1
    if np.any(starts[token[is_minus]] != odd[is_minus]):
        return None  # a '-' inside a token
    negative = b[starts] == 45
    dots = np.bincount(token[is_dot], minlength=starts.size)
    if np.any(dots > 1) or np.any(lengths - negative - dots < 1):
        return None  # '1.2.3', a lone '-' or '.'
    dotted = np.flatnonzero(dots)
    # Eight bytes ending at each token's last byte, read as one little-endian word (unaligned). The
    # low nibbles weighted by powers of ten (SWAR) give Σ nibble·10^k exactly; the token's digits are
    # the last ones, so the value is that sum modulo 10^(its digit count).
    padded = np.concatenate((np.full(16, 48, dtype=np.uint8), b))
    words = np.ndarray((padded.size - 7,), dtype="<u8", buffer=padded, strides=(1,))
    digits = (lengths - negative).astype(np.int64)
    values = _eight_digits(words[ends + 8])  # padded[ends + 16 - 8 : ends + 16]
    long = digits > 8
    if long.any():
        values[long] += _eight_digits(words[ends[long]]) * np.uint64(100_000_000)
    values %= _POW10_U64[digits]
    values = values.astype(np.float64)
    values[negative] *= -1.0
    for i in dotted:
        try:
            values[i] = float(data[starts[i] : ends[i]])
        except ValueError:
            return None
    return values.reshape(rows, N_FIELDS), header


def _eight_digits(v: np.ndarray) -> np.ndarray:
    """Σ nibble·10^(7−j) over the 8 bytes of each little-endian word, first byte most significant.

    SWAR as in simdjson; exact for any low nibbles (≤ 15), not only digits.
    """
    v = ((v & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(2561)) >> np.uint64(8)
    v = ((v & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    return ((v & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)


def _check_values(data: np.ndarray, raw: bytes, linenos: np.ndarray | None) -> None:
    """−1 is SWF's "unknown"; any other negative value, NaN or infinity is an error."""
    bad = ~np.isfinite(data) | ((data < 0) & (data != -1))
    if bad.any():
        row, col = (int(i[0]) for i in np.nonzero(bad))
        if linenos is None:
            linenos = _parse_lines(raw)[2]
        line = int(linenos[row])
        raise SwfError(
            f"SWF line {line}: field {col + 1} ({FIELDS[col]}) is {float(data[row, col])!r}; "
            "allowed: ≥ 0, or −1 for unknown",
            line=line,
            column=col + 1,
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
