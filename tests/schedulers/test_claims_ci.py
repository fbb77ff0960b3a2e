"""A comparison a claim fails by less than the repetitions' spread says so (95 % CIs of the means)."""

from __future__ import annotations

import math

from schedulers.core.claims import (
    Table,
    at_every_point,
    best_at_every_point,
    difference,
    less_than_at_every_point,
    ratio,
    reduction,
)


def _table(n: int) -> Table:
    def m(mean: float, ci: float) -> dict:
        return {"x": {"mean": mean, "ci": ci, "n": n}}

    return Table.from_summaries(
        [("p1", {"a": m(10.2, 0.5), "b": m(10.0, 0.4)}), ("p2", {"a": m(12.0, 0.1), "b": m(10.0, 0.1)})]
    )


def test_a_failure_within_the_intervals_is_named():
    ok, text = less_than_at_every_point("x", "a", "b")(_table(10))
    assert not ok
    assert text.endswith("(not lower at p1, p2) (within the 95 % CIs of the repetitions at p1)")
    ok, text = best_at_every_point("x", "a", ["b"])(_table(10))
    assert not ok and text.endswith("(within the 95 % CIs of the repetitions at p1)")


def test_one_run_has_no_interval():
    ok, text = less_than_at_every_point("x", "a", "b")(_table(1))
    assert not ok and "CIs" not in text


def test_a_ratio_missing_its_threshold_within_the_interval_says_so():
    """a/b at p1 = 10.2/10 = 1.02 ± 1.02·√((0.5/10.2)² + (0.4/10)²) ≈ 0.06453 reaches the bound 1.0; at p2
    1.2 ± 0.0156 does not (by hand)."""
    h1 = 1.02 * math.hypot(0.5 / 10.2, 0.4 / 10.0)
    assert abs(h1 - 0.06453) < 1e-5
    ok, text = at_every_point(ratio("x", "a", "b"), None, 1.0)(_table(10))
    assert not ok
    assert text.endswith(
        "(outside at p1, p2) (the bound lies within the 95 % CI of the repetitions at p1: 1.02 ± 0.06453)"
    )


def test_a_reduction_and_a_difference_carry_their_intervals():
    # 1 − a/b at p1 = −2 % ± 6.5 %: a lower bound of 0 is within reach; of 10 % it is not
    ok, text = at_every_point(reduction("x", "a", "b"), 0.0, None, [0])(_table(10))
    assert not ok and text.endswith("repetitions at p1: -2.0% ± 6.5%)")
    ok, text = at_every_point(reduction("x", "a", "b"), 0.1, None, [0])(_table(10))
    assert not ok and "CI" not in text
    # a − b at p1 = 0.2 ± √(0.5² + 0.4²) ≈ 0.64
    ok, text = at_every_point(difference("x", "a", "b"), None, 0.0, [0])(_table(10))
    assert not ok and text.endswith("at p1: 0.2 ± 0.6403)")


def test_a_threshold_check_on_one_run_has_no_interval():
    ok, text = at_every_point(ratio("x", "a", "b"), None, 1.0)(_table(1))
    assert not ok and "CI" not in text


def test_a_ratio_whose_denominator_may_be_zero_is_unbounded():
    """b = 10 ± 12: its interval reaches 0, so a/b could be anything: the miss is named without a half-width."""
    t = Table.from_summaries(
        [("p1", {"a": {"x": {"mean": 30.0, "ci": 1.0, "n": 5}}, "b": {"x": {"mean": 10.0, "ci": 12.0, "n": 5}}})]
    )
    ok, text = at_every_point(ratio("x", "a", "b"), None, 2.0)(t)
    assert not ok and text.endswith("at p1: 3 with a denominator whose interval reaches 0)")
