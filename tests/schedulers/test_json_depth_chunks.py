"""JSON nesting depth and string state carry across the reader's 4 Mi-mark chunks."""

import pytest

from schedulers.core import jsonio
from schedulers.core.validation import ScenarioError

CHUNK_MARKS = 2**22  # brackets and quotes per vectorised chunk of check_depth


def test_depth_reached_after_the_first_chunk_counts_what_the_first_chunk_opened():
    text = "[" * 20 + "[]" * (CHUNK_MARKS // 2) + "[" * 20 + "]" * 40
    assert len(text) > CHUNK_MARKS
    jsonio.check_depth(text, limit=40)  # the limit
    with pytest.raises(ScenarioError, match="nested deeper than 39 levels"):
        jsonio.check_depth(text, limit=39)  # limit + 1 levels


def test_a_string_that_spans_a_chunk_boundary_stays_a_string():
    text = '["' + "[" * CHUNK_MARKS + '"]'
    jsonio.check_depth(text, limit=1)
    with pytest.raises(ScenarioError):
        jsonio.check_depth(text, limit=0)
