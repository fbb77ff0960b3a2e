import numpy as np
import pytest

from schedulers.core.swf import FIELDS, SwfError, read_swf, write_swf
from tests import traces

SAMPLE = """; Version: 2.2
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: 338
    1  0  5  100  4  -1 -1  4  200 -1 1 1 1 1 1 -1 -1 -1

; a comment in the middle
    2  10.5  -1  142.00  1  -1 -1  -1  -1 -1 1 2 1 1 1 -1 -1 -1
"""


def test_it_reads_fields_headers_and_floats():
    trace = read_swf(SAMPLE)
    assert len(trace) == 2
    assert trace.columns["submit"].tolist() == [0.0, 10.5]
    assert trace.columns["run_time"].tolist() == [100.0, 142.0]
    assert trace.columns["req_procs"].tolist() == [4.0, -1.0]
    assert trace.header_int("MaxNodes") == 338
    assert trace.header_value("Version") == "2.2"


def test_it_names_the_bad_line():
    with pytest.raises(SwfError, match="line 3"):
        read_swf("; h\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n1 2 3\n")
    with pytest.raises(SwfError, match=r"line 1: field 6 \(avg_cpu_time\) is not a number: 'x'"):
        read_swf("1 2 3 4 5 x 7 8 9 10 11 12 13 14 15 16 17 18\n")


def test_writer_round_trips_and_sorts_by_submit():
    trace = read_swf(SAMPLE)
    trace.columns["submit"] = np.array([50.0, 10.5])
    text = write_swf(trace)
    lines = [line for line in text.splitlines() if not line.startswith(";")]
    assert all(len(line.split()) == 18 for line in lines)
    again = read_swf(text)
    assert again.columns["job"].tolist() == [1.0, 2.0]
    assert again.columns["submit"].tolist() == [10.5, 50.0]
    assert again.header_int("MaxProcs") == 338


@pytest.mark.slow
@traces.needs_trace(traces.NASA)
def test_real_trace_round_trips(tmp_path):
    path = traces.trace(traces.NASA)
    trace = read_swf(path)
    assert len(trace) == 18239
    assert trace.header_int("MaxProcs") == 128
    out = tmp_path / "nasa.swf.gz"
    write_swf(trace, out)
    again = read_swf(out)
    order = np.argsort(trace.columns["submit"], kind="stable")
    for name in FIELDS[1:]:
        assert np.array_equal(again.columns[name], trace.columns[name][order]), name


def test_it_rejects_negative_times_other_than_unknown_with_the_line():
    good = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"
    with pytest.raises(SwfError, match=r"line 2: field 2 \(submit\) is -5.0"):
        read_swf(good + "2 -5 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.raises(SwfError, match="line 1: field 4"):
        read_swf("1 0 5 nan 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n")


def test_it_rejects_truncated_gzip():
    import gzip

    blob = gzip.compress(SAMPLE.encode() * 50)
    with pytest.raises(SwfError, match="truncated"):
        read_swf(blob[: len(blob) // 2])


def test_a_file_is_parsed_once_per_version_and_shared_read_only(tmp_path):
    import os

    from schedulers.core.swf import read_swf_file

    line = "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    path = tmp_path / "log.swf"
    path.write_text(line)
    first = read_swf_file(path)
    assert read_swf_file(path) is first  # a second repetition reuses the parse
    with pytest.raises(ValueError, match="read-only"):
        first.columns["run_time"][0] = 1.0  # no caller can change the shared copy
    path.write_text(line + line.replace("1 0 10", "2 5 10", 1))
    os.utime(path, ns=(1, 1))
    again = read_swf_file(path)
    assert again is not first and np.array_equal(again.columns["submit"], [0.0, 5.0])
