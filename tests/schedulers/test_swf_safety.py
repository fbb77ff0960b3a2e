"""The SWF reader on hostile input: text is content, reads are bounded, errors quote little.

A server parses traces that its users send, so a string naming a file must never be
opened, a path must never reach a device, FIFO or kernel file, and no read may grow
without bound (ISSUE: inline trace fields used to be opened when they named a file).
"""

import gzip
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schedulers.core import swf
from schedulers.core.swf import SwfError, read_swf

RECORD = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"


def test_a_string_naming_a_valid_trace_file_is_content_not_a_file(tmp_path):
    secret = tmp_path / "secret.swf"
    secret.write_text(RECORD * 3)
    with pytest.raises(SwfError, match="expected 18 fields, found 1") as info:
        read_swf(str(secret))
    # The message quotes the user's own string (escaped), never the file's records.
    assert "100 4 -1" not in str(info.value)
    assert len(read_swf(Path(secret))) == 3  # a Path is a file


@pytest.mark.parametrize("name", ["/etc/passwd", "/proc/self/environ", "/dev/zero", "var/secret_key"])
def test_server_file_names_as_text_never_read_the_file(name):
    with pytest.raises(SwfError) as info:
        read_swf(name)
    assert "root:" not in str(info.value) and "PATH=" not in str(info.value)


@pytest.mark.parametrize("name", ["/proc/self/environ", "/dev/zero", "/dev/null", "/sys/kernel/mm"])
def test_paths_into_kernel_and_device_files_are_refused(name):
    with pytest.raises(SwfError, match="not a regular file"):
        read_swf(Path(name))


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "trace.swf"
    os.mkfifo(fifo)
    outcome = {}

    def read():
        try:
            read_swf(fifo)
        except SwfError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "reading a FIFO blocked"
    assert "not a regular file" in outcome["error"]


def test_a_symlink_to_a_kernel_file_is_refused(tmp_path):
    link = tmp_path / "innocent.swf"
    link.symlink_to("/proc/self/environ")
    with pytest.raises(SwfError, match="not a regular file"):
        read_swf(link)


def test_reads_past_the_byte_limit_stop_with_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(swf, "MAX_BYTES", 10_000)
    with pytest.raises(SwfError, match="larger than this server reads"):
        read_swf(RECORD * 1000)
    big = tmp_path / "big.swf"
    big.write_text(RECORD * 1000)
    with pytest.raises(SwfError, match="10,000 bytes"):
        read_swf(big)


def test_a_gzip_bomb_stops_at_the_limit_without_inflating_it_all(monkeypatch):
    monkeypatch.setattr(swf, "MAX_BYTES", 1 << 20)
    bomb = gzip.compress(RECORD.encode() * 900_000, 1)  # 42 MB of valid records in ~0.4 MB
    with pytest.raises(SwfError, match="larger than this server reads: more than 1,048,576 bytes"):
        read_swf(bomb)


def test_a_bomb_without_line_ends_stops_at_the_longest_line():
    """A line longer than MAX_LINE is refused as soon as it is seen (no record is that long)."""
    bomb = gzip.compress(b"\x00" + b"0" * (40 << 20), 1)
    with pytest.raises(SwfError, match="SWF line 1: longer than 524,288 bytes") as info:
        read_swf(bomb)
    assert len(str(info.value)) < 200
    assert len(read_swf(RECORD.replace(" 1 1 1", " " * (swf.MAX_LINE - len(RECORD)) + "1 1 1", 1))) == 1


def test_reads_past_the_line_limit_stop(monkeypatch):
    monkeypatch.setattr(swf, "MAX_LINES", 100)
    assert len(read_swf(RECORD * 100)) == 100
    with pytest.raises(SwfError, match="100 lines"):
        read_swf(RECORD * 101)


def test_errors_quote_a_short_escaped_excerpt_only():
    line = "\x1b[31m" + "A" * 5000 + " <script>\n"
    with pytest.raises(SwfError) as info:
        read_swf(line)
    message = str(info.value)
    assert len(message) < 200
    assert "\x1b" not in message and "\\x1b" in message
    assert "A" * 100 not in message


def test_multi_member_gzip_reads_every_member():
    blob = gzip.compress(RECORD.encode()) + gzip.compress(RECORD.encode())
    assert len(read_swf(blob)) == 2


_token = st.one_of(
    st.integers(-1, 10**12).map(str),
    st.integers(0, 10**6).map(lambda i: f"{i / 100:.2f}"),
    st.sampled_from(
        [
            "-1",
            "0",
            "007",
            "1e3",
            "-0",
            "nan",
            "inf",
            "-",
            ".",
            "1.",
            ".5",
            "1.2.3",
            "+4",
            "4-",
            "x",
            "-2",
            "1e",
            "e5",
            "E5",
            "+",
            "+-1",
            "--1",
            "-+1",
            "1E+3",
            "1e-5",
            "-.5",
            "5.e2",
            "1_0",
            "0x1",
            "1e309",
            "4e-400",
            "12345678901234567890123",
            "0.1000000000000000055511151231257827",
            "9007199254740993",
            "1ee3",
            "1e3.5",
        ]
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
_line = st.one_of(
    st.lists(_token, min_size=18, max_size=18).map(" ".join),
    st.lists(_token, min_size=0, max_size=20).map("\t".join),
    st.lists(_token, min_size=18, max_size=18).map(lambda t: "\t " + " \x0b ".join(t) + " \x0c\t"),
    st.sampled_from(["", "; Version: 2.2", "  ; comment ; with ; semicolons", "1 2 3 ; 4", " \t ", "\x00", ";"]),
)


@settings(max_examples=400, derandomize=True, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_line, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_the_vectorised_parser_agrees_with_the_line_reader(lines, newline):
    data = newline.join(lines).encode()
    try:
        expected = swf._parse_lines(data)
    except SwfError:
        expected = None
    fast = swf._parse_fast(data)
    if expected is None:
        assert fast is None  # the fast path never accepts what the reference rejects
        return
    if fast is not None:
        assert fast[1] == expected[1]
        np.testing.assert_array_equal(fast[0], expected[0])  # bit for bit, NaN where NaN
        assert np.array_equal(np.signbit(fast[0]), np.signbit(expected[0]))


@settings(max_examples=100, derandomize=True, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(st.integers(-1, 10**10).map(str), st.integers(0, 10**5).map(lambda i: f"{i / 10:.1f}")),
            min_size=18,
            max_size=18,
        ),
        min_size=1,
        max_size=30,
    )
)
@example([["1e3", "-1", "2.5E-2", "+7"] + ["0"] * 14])
def test_well_formed_numbers_take_the_vectorised_path(rows):
    blanks = ["  ", "\t", " ", "\r"]
    data = ("; Version: 2.2\n" + "".join(
        blanks[i % 4] + blanks[(i + 1) % 4].join(r) + blanks[(i + 2) % 4] + "\n" for i, r in enumerate(rows)
    )).encode()  # fmt: skip
    fast = swf._parse_fast(data)
    assert fast is not None
    np.testing.assert_array_equal(fast[0], np.array([[float(t) for t in r] for r in rows]))
