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

Speed: the common case (records of decimal numbers) is parsed vectorised — numpy
squeezes the blanks to single spaces, pyarrow's CSV reader checks the field counts and
converts (correctly rounded, so a value is ``float(token)`` bit for bit) — at over a
million lines per CPU-second; anything it does not take (``nan``, a stray byte, a wrong
field count) goes to the line-by-line reader, which also produces every error message.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["FIELDS", "MAX_BYTES", "MAX_LINES", "SwfError", "SwfTrace", "load_bytes", "read_swf", "read_swf_file",
           "write_swf"]

FIELDS = (
    "job", "submit", "wait", "run_time", "alloc_procs", "avg_cpu_time", "used_mem",
    "req_procs", "req_time", "req_mem", "status", "user", "group", "executable",
    "queue", "partition", "preceding_job", "think_time",
)  # fmt: skip
N_FIELDS = len(FIELDS)
MAX_BYTES = int(os.environ.get("CLOUDSCHED_SWF_MAX_BYTES", 1 << 30))
MAX_LINES = int(os.environ.get("CLOUDSCHED_SWF_MAX_LINES", 10_000_000))
CHUNK = 1 << 19  # bytes the vectorised parser takes at a time (fits the CPU cache; bounds scratch memory)
EXCERPT = 40
_FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
_NUMBER_BYTES = b"0123456789+-.eE \n"  # what the vectorised path takes (with the blanks below)
_OTHER_BLANKS = b"\t\r\x0b\x0c"  # the rest of bytes.split()'s whitespace
_BLANKS_TO_SPACE = bytes.maketrans(_OTHER_BLANKS, b"    ")
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


def read_swf_file(path: Path) -> SwfTrace:
    """``read_swf(path)``, parsed once per file version: repetitions and algorithms of a run (and
    later runs in the same worker) share it. Keyed by the resolved path, modification time and size,
    so an edited file is read again; the arrays are read-only, so no caller can change the shared copy.
    The safety checks of :func:`load_bytes` run on every first read of a version."""
    path = Path(path)
    st = path.stat()
    return _read_file_version(str(path.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=2)
def _read_file_version(path: str, mtime_ns: int, size: int) -> SwfTrace:
    trace = read_swf(Path(path))
    for column in trace.columns.values():
        column.setflags(write=False)
    return trace


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
    """Vectorised parse in chunks of whole lines (small chunks: each pass stays in the CPU cache).

    ``None`` means "use the line reader": it names the error, or reads what this path does not take.
    """
    parts: list[list[np.ndarray]] = []
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
    values = np.empty((sum(p[0].size for p in parts), N_FIELDS), order="F")  # each field one contiguous column
    for i in range(N_FIELDS):
        np.concatenate([p[i] for p in parts] or [np.zeros(0)], out=values[:, i])
    return values, header, None


def _parse_chunk(data: bytes) -> tuple[list[np.ndarray], list[str]] | None:
    """Vectorised parse of SWF records made of numbers; ``None`` means "use the line reader".

    Comment lines are dropped; every run of blanks (space, tab, CR, VT, FF: what ``bytes.split``
    splits on besides the newline) that follows a token becomes one space, the others go, so each
    record is one line of 18 tokens separated by single spaces. pyarrow's CSV reader (space
    delimiter, no quoting, no null values) then checks the field count of every line and converts
    each token with a correctly rounded decimal parser (fast_float), so a value equals Python's
    ``float(token)`` bit for bit. Only bytes of decimal numbers (digits, ``+ - . e E``) may
    appear in records: ``nan``, ``inf``, ``1_000`` and every stray byte take the line reader.
    Returns one (read-only) array per field, and the comment lines.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    header: list[str] = []
    if b";" in data:
        data, header = _drop_comments(data)
        if data is None:
            return None  # a ';' inside a record: let the line reader name it
    rest = data.translate(None, _NUMBER_BYTES)
    if rest:
        if rest.translate(None, _OTHER_BLANKS):
            return None  # nan, inf, 1_000, stray bytes
        data = data.translate(_BLANKS_TO_SPACE)
    b = np.frombuffer(data, dtype=np.uint8)
    token = b > 32
    if not token.any():
        return [np.zeros(0)] * N_FIELDS, header
    # Keep tokens, newlines and the first space after a token (every space after a token is kept).
    keep = b != 32
    keep[1:] |= token[:-1]
    text = b[keep]
    options = _csv_options()
    read = functools.partial(
        pacsv.read_csv, read_options=options[0], parse_options=options[1], convert_options=options[2]
    )
    try:
        table = read(pa.py_buffer(text))
    except pa.ArrowInvalid:
        # A kept space before a line end (trailing whitespace) is an empty field: drop it and retry.
        drop = np.zeros(text.size, dtype=bool)
        drop[:-1] = (text[:-1] == 32) & (text[1:] == 10)
        drop[-1] = text[-1] == 32
        if not drop.any():
            return None  # a wrong field count or a token that is no number
        try:
            table = read(pa.py_buffer(text[~drop]))
        except pa.ArrowInvalid:
            return None
    if any(column.null_count for column in table.columns):
        return None
    return [column.to_numpy() for column in table.columns], header


def _drop_comments(data: bytes) -> tuple[bytes | None, list[str]]:
    """``data`` without its comment lines, and those lines; ``None`` if a record holds a ';'."""
    keep: list[bytes] = []
    header: list[str] = []
    done = 0
    at = data.find(b";")
    while at >= 0:
        lo = data.rfind(b"\n", 0, at) + 1
        hi = data.find(b"\n", at)
        hi = len(data) if hi < 0 else hi
        line = data[lo:hi].strip()
        if not line.startswith(b";"):
            return None, header
        header.append(line.decode("utf-8", errors="replace"))
        keep.append(data[done:lo])
        done = hi
        at = data.find(b";", hi)
    keep.append(data[done:])
    return b"".join(keep), header


@functools.cache
def _csv_options():
    """pyarrow CSV options for the normalised text (imported on first use: start-up time)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [str(i) for i in range(N_FIELDS)]
    return (
        pacsv.ReadOptions(column_names=names, use_threads=False, block_size=CHUNK + (CHUNK >> 1)),
        pacsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=True
        ),
        pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.float64()), null_values=[], strings_can_be_null=False
        ),
    )


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
