"""A comparison a claim fails by less than the repetitions' spread says so (95 % CIs of the means)."""

from __future__ import annotations

from schedulers.core.claims import Table, best_at_every_point, less_than_at_every_point


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
