"""Standard Workload Format (SWF v2.2) reader and writer (docs/workload-models.md §6).

The reader returns columns as numpy arrays, keeps the header comments, accepts
floats in any field, comments anywhere and ``.gz`` data, and names the line of any
malformed record.

Safety (a server reads traces its users send):

- A ``str`` is always SWF *content*, never a file name. Only a :class:`~pathlib.Path`
  is opened, and only when it is a regular file outside ``/proc``, ``/sys`` and
  ``/dev`` (no devices, FIFOs or kernel files); whether a server may read a path at
  all is :func:`schedulers.core.traces.check_trace_path`'s business.
- Every read streams: the source is read, gunzipped and cut into blocks of whole lines
  a block at a time (:func:`text_blocks`), bounded as it goes to :data:`MAX_BYTES` bytes
  of text and :data:`MAX_LINES` lines (``CLOUDSCHED_SWF_MAX_BYTES`` /
  ``CLOUDSCHED_SWF_MAX_LINES``) and lines of :data:`MAX_LINE` bytes, so memory is
  constant whatever the source holds; :func:`iter_swf` parses block by block, and a
  caller that has what it needs stops reading (:mod:`schedulers.core.trace_jobs`).
- An error quotes at most :data:`EXCERPT` characters of the bad line, escaped
  (``SwfError.brief`` is the message without it).

Speed: the common case (records of decimal numbers) is parsed vectorised — numpy
squeezes the blanks to single spaces, pyarrow's CSV reader checks the field counts and
converts (correctly rounded, so a value is ``float(token)`` bit for bit) — at over a
million lines per CPU-second; anything it does not take (``nan``, a stray byte, a wrong
field count) goes to the line-by-line reader, which also produces every error message.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from schedulers.core.safefile import UnsafeFile, open_regular

__all__ = [
    "FIELDS",
    "MAX_BYTES",
    "MAX_LINES",
    "SwfError",
    "SwfTrace",
    "file_version",
    "iter_swf",
    "load_bytes",
    "open_swf",
    "parse_block",
    "read_swf",
    "read_swf_file",
    "text_blocks",
    "write_swf",
]

FIELDS = (
    "job", "submit", "wait", "run_time", "alloc_procs", "avg_cpu_time", "used_mem",
    "req_procs", "req_time", "req_mem", "status", "user", "group", "executable",
    "queue", "partition", "preceding_job", "think_time",
)  # fmt: skip
N_FIELDS = len(FIELDS)
MAX_BYTES = int(os.environ.get("CLOUDSCHED_SWF_MAX_BYTES", 1 << 30))
MAX_LINES = int(os.environ.get("CLOUDSCHED_SWF_MAX_LINES", 10_000_000))
CHUNK = 1 << 19  # bytes the vectorised parser takes at a time (fits the CPU cache; bounds scratch memory)
RAW_BLOCK = 1 << 20  # bytes read from a file (or taken from a buffer) at a time
MAX_LINE = CHUNK  # the longest line read: an SWF record has 18 numbers, so this only stops junk early
GZIP_MAGIC = b"\x1f\x8b"
EXCERPT = 40
_NUMBER_BYTES = b"0123456789+-.eE \n"  # what the vectorised path takes (with the blanks below)
_OTHER_BLANKS = b"\t\r\x0b\x0c"  # the rest of bytes.split()'s whitespace
_BLANKS_TO_SPACE = bytes.maketrans(_OTHER_BLANKS, b"    ")
_HEADER_RE = re.compile(r";\s*([A-Za-z][\w ]*?)\s*:\s*(.*)$")
_LEADING_INT = re.compile(r"-?\d+")


class SwfError(ValueError):
    """A malformed or unreadable SWF trace; the message names the line (and field)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, brief: str = ""):
        super().__init__(message)
        self.line, self.column = line, column
        self.brief = brief or message  # the message without any quotation of the input


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
        f"(limits: CLOUDSCHED_SWF_MAX_BYTES = {MAX_BYTES:,} bytes and CLOUDSCHED_SWF_MAX_LINES = {MAX_LINES:,} "
        "lines, after decompression)"
    )


def open_swf(path: Path) -> BinaryIO:
    """A trace file opened for reading: a regular file only (:func:`schedulers.core.safefile.open_regular`)."""
    try:
        return open_regular(Path(path))
    except UnsafeFile as exc:
        raise SwfError(f"SWF trace {exc}") from None


def _raw_blocks(source: str | Path | bytes | BinaryIO) -> Iterator[bytes]:
    """The raw (possibly gzipped) bytes of ``source`` a block at a time, at most MAX_BYTES of them."""
    if isinstance(source, str):
        source = source.encode("utf-8", errors="surrogateescape")
    if isinstance(source, bytes | bytearray | memoryview):
        data = memoryview(source)
        if len(data) > MAX_BYTES:
            raise _too_big(f"{MAX_BYTES:,} bytes")
        for lo in range(0, len(data), RAW_BLOCK):
            yield bytes(data[lo : lo + RAW_BLOCK])
        return
    if isinstance(source, Path):
        with open_swf(source) as f:
            yield from _raw_blocks(f)
        return
    if not hasattr(source, "read"):
        raise TypeError(f"read_swf takes SWF text (str), bytes, a binary file or a pathlib.Path, not "
                        f"{type(source).__name__}")  # fmt: skip
    total = 0
    while block := source.read(RAW_BLOCK):
        total += len(block)
        if total > MAX_BYTES:
            raise _too_big(f"{MAX_BYTES:,} bytes")
        yield block


def _inflate(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """Gunzip (possibly multi-member, NUL-padded) data, at most CHUNK bytes of output per step."""
    d = None
    try:
        for data in blocks:
            while True:
                if d is None:
                    data = data.lstrip(b"\x00")
                    if not data:
                        break
                    d = zlib.decompressobj(wbits=31)
                out = d.decompress(data, CHUNK)
                if out:
                    yield out
                if d.eof:
                    data, d = d.unused_data, None
                    continue
                data = d.unconsumed_tail
                if not data and len(out) < CHUNK:
                    break  # this member needs the next block
    except zlib.error as exc:
        raise SwfError(f"SWF gzip data is corrupt or truncated: {exc}") from None
    if d is not None:
        raise SwfError("SWF gzip data is corrupt or truncated: unexpected end of data")


def text_blocks(source: str | Path | bytes | BinaryIO) -> Iterator[tuple[bytes, int]]:
    """The SWF text of ``source`` in blocks of whole lines: ``(block, number of its first line)``.

    gzip is undone on the way (detected by its magic bytes); the text is bounded by MAX_BYTES and
    MAX_LINES as it streams, and no line may be longer than MAX_LINE, so memory stays constant
    whatever the source holds — a read of a bomb stops at the first bound it crosses.
    """
    blocks = _raw_blocks(source)
    first = next(blocks, b"")
    while len(first) < 2 and (more := next(blocks, b"")):
        first += more
    chained = itertools.chain([first], blocks)
    pieces = _inflate(chained) if first[:2] == GZIP_MAGIC else chained
    pending, size, lines, lineno = b"", 0, 0, 1
    for piece in pieces:
        size += len(piece)
        if size > MAX_BYTES:
            raise _too_big(f"{MAX_BYTES:,} bytes")
        lines += piece.count(b"\n")
        if lines > MAX_LINES:
            raise _too_big(f"{MAX_LINES:,} lines")
        pending += piece
        if len(pending) < CHUNK:
            continue
        cut = pending.rfind(b"\n") + 1
        if cut:
            yield pending[:cut], lineno
            lineno += pending.count(b"\n", 0, cut)
            pending = pending[cut:]
        if len(pending) > MAX_LINE:
            raise SwfError(f"SWF line {lineno}: longer than {MAX_LINE:,} bytes: {excerpt(pending)}", line=lineno)
    if pending:
        yield pending, lineno


def load_bytes(source: str | Path | bytes | BinaryIO) -> bytes:
    """The whole SWF text of ``source`` as bytes (read, decompressed and bounded as :func:`text_blocks`)."""
    return b"".join(block for block, _ in text_blocks(source))


def iter_swf(source: str | Path | bytes | BinaryIO) -> Iterator[SwfTrace]:
    """``source`` parsed a block of lines at a time: one :class:`SwfTrace` per block (its records and
    its comment lines), in file order. A caller that stops early reads no further: memory and time
    are those of the records it takes. Errors are the same as :func:`read_swf`'s."""
    for block, first in text_blocks(source):
        yield parse_block(block, first)


def read_swf(source: str | Path | bytes | BinaryIO) -> SwfTrace:
    """Parse SWF from its text (``str``), raw possibly gzipped ``bytes``, a binary file or a ``Path``.

    A ``str`` is never taken for a file name: pass ``Path(name)`` to read a file.
    """
    parts = list(iter_swf(source))
    header = [line for part in parts for line in part.header]
    columns = {}
    for name in FIELDS:
        columns[name] = np.concatenate([p.columns[name] for p in parts] or [np.zeros(0)])
        for p in parts:
            del p.columns[name]  # free each block's column once copied
    return SwfTrace(columns=columns, header=header)


def file_version(path: Path) -> tuple[str, int, int]:
    """(resolved path, modification time, size): what a cache of a file's contents is keyed by."""
    st = Path(path).stat()
    return str(Path(path).resolve()), st.st_mtime_ns, st.st_size


def read_swf_file(path: Path) -> SwfTrace:
    """``read_swf(path)``, parsed once per file version (:func:`file_version`); the arrays are read-only,
    so no caller can change the shared copy. A run takes only the jobs it uses with
    :func:`schedulers.core.trace_jobs.scan` instead, which never holds a whole large trace."""
    return _read_file_version(*file_version(Path(path)))


@functools.lru_cache(maxsize=2)
def _read_file_version(path: str, mtime_ns: int, size: int) -> SwfTrace:
    trace = read_swf(Path(path))
    for column in trace.columns.values():
        column.setflags(write=False)
    return trace


def parse_block(block: bytes, first_line: int = 1) -> SwfTrace:
    """Records and comment lines of a block of whole lines whose first line is ``first_line``."""
    fast = _parse_chunk(block)
    if fast is not None:
        arrays, header = fast
        linenos = None
    else:
        values, header, linenos = _parse_lines(block, first_line)
        arrays = [np.ascontiguousarray(values[:, i]) for i in range(N_FIELDS)]
    _check_values(arrays, block, first_line, linenos)
    return SwfTrace(columns=dict(zip(FIELDS, arrays, strict=True)), header=header)


def _parse_lines(data: bytes, first_line: int = 1) -> tuple[np.ndarray, list[str], np.ndarray | None]:
    """The reference reader: one line at a time; every error message comes from here."""
    header: list[str] = []
    rows: list[list[float]] = []
    linenos: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=first_line):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b";"):
            header.append(line.decode("utf-8", errors="replace"))
            continue
        parts = line.split()
        if len(parts) != N_FIELDS:
            brief = f"SWF line {lineno}: expected {N_FIELDS} fields, found {len(parts)}"
            raise SwfError(f"{brief}: {excerpt(line)}", line=lineno, brief=brief)
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            col = next(i for i, p in enumerate(parts) if not _is_float(p))
            brief = f"SWF line {lineno}: field {col + 1} ({FIELDS[col]}) is not a number"
            raise SwfError(f"{brief}: {excerpt(parts[col])}", line=lineno, column=col + 1, brief=brief) from None
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


def _check_values(columns: list[np.ndarray], raw: bytes, first_line: int, linenos: np.ndarray | None) -> None:
    """−1 is SWF's "unknown"; any other negative value, NaN or infinity is an error (the first one named)."""
    bad_rows = [np.flatnonzero(~np.isfinite(c) | ((c < 0) & (c != -1)))[:1] for c in columns]
    if not any(r.size for r in bad_rows):
        return
    row = min(int(r[0]) for r in bad_rows if r.size)
    col = next(i for i, r in enumerate(bad_rows) if r.size and r[0] == row)
    if linenos is None:
        linenos = _parse_lines(raw, first_line)[2]
    line = int(linenos[row])
    raise SwfError(
        f"SWF line {line}: field {col + 1} ({FIELDS[col]}) is {float(columns[col][row])!r}; "
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
