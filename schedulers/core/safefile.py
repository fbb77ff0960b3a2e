"""Opening a file a user named, safely: a regular file only, and reads that are bounded.

The CLI's scenario files, ``manage.py import_trace`` and every SWF path go through
:func:`open_regular`: the path is resolved once (symlinks followed to the real file), a real
file under ``/proc``, ``/sys`` or ``/dev`` is refused, the resolved file is opened without
blocking (a FIFO would wait for a writer) and without following a symlink put in its place
since, and what was opened must be a regular file — never a device, FIFO, socket or directory.
Errors name the file by its last component only, never the server's absolute path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["UnsafeFile", "open_regular", "read_bounded"]

FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


class UnsafeFile(ValueError):
    """A path that is missing, unreadable or not a regular file; the message names it briefly."""

    def __init__(self, message: str, missing: bool = False):
        super().__init__(message)
        self.missing = missing


def open_regular(path: Path) -> BinaryIO:
    """``path``'s real file opened for binary reading; :class:`UnsafeFile` unless it is a regular file."""
    name = repr(path.name or str(path))
    try:
        resolved = path.expanduser().resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise UnsafeFile(f"{name}: cannot resolve the path ({type(exc).__name__})") from None
    if any(resolved.is_relative_to(root) for root in FORBIDDEN_ROOTS):
        raise UnsafeFile(f"{name} is not a regular file")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(resolved, flags)
    except FileNotFoundError:
        raise UnsafeFile(f"{name}: no such file", missing=True) from None
    except OSError as exc:
        raise UnsafeFile(f"cannot open {name}: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFile(f"{name} is not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bounded(f: BinaryIO, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``f``; ``None`` when it holds more (only ``limit + 1`` are read)."""
    data = f.read(limit + 1)
    return None if len(data) > limit else data
