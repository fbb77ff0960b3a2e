"""The real SWF logs some tests replay, found where the library finds traces.

They are never committed: ``schedulers.core.traces.find_trace`` looks in ``$CLOUDSCHED_TRACE_DIRS``
and in ``../shared/workloads/traces`` beside a development checkout. A fresh clone has neither,
and every test that needs a log skips, naming the file it looked for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedulers.core.traces import find_trace

NASA = "NASA-iPSC-1993-3.1-cln.swf.gz"
CTC = "CTC-SP2-1996-3.1-cln.swf.gz"
THUNDER = "LLNL-Thunder-2007-1.1-cln.swf.gz"
ATLAS = "LLNL-Atlas-2006-2.1-cln.swf.gz"


def trace(name: str) -> Path:
    """The log's path; a path that does not exist when the log is absent (the test is skipped then)."""
    return find_trace(name) or Path("/nonexistent/traces") / name


def needs_trace(*names: str) -> pytest.MarkDecorator:
    missing = [n for n in names if find_trace(n) is None]
    reason = (
        f"real trace {', '.join(missing)} not found: put the Parallel Workloads Archive logs in "
        "$CLOUDSCHED_TRACE_DIRS or ../shared/workloads/traces"
    )
    return pytest.mark.skipif(bool(missing), reason=reason)
