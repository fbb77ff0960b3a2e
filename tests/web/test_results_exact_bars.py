"""A Gantt bar's exact times (kind ``bar``): the bars travel in ticks of the window, the tooltip asks for one."""

import pytest

import schedulers
from cloudsched_web.results import kinds
from cloudsched_web.results.bars import plain_bars
from cloudsched_web.results.queries import QueryError, get_result
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def parsed(alice):
    config = schedulers.example("backfill")
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="exact bars", config=config)
    return get_result(finished_run(scenario))


def test_every_bar_of_the_whole_run_finds_its_exact_times_in_the_window_its_ticks_bound(parsed):
    """At whole-run zoom the bars are placed to q (not the stored times); asking ``bar`` with the bar's job and
    resource over [start − q, end + q] gives its stored segment, every digit."""
    g = kinds.read(parsed, "gantt", {"run": "0", "rows": "200"})
    bars, q = plain_bars(g["bars"]), g["bars"]["q"]
    stored = parsed.stored(0).table("segments", ["start", "end", "resource", "job"]).to_pylist()
    exact = {(s["resource"], str(s["job"]), s["start"]): s["end"] for s in stored}
    assert bars["job"] and len(bars["job"]) == len(stored)
    off = 0
    for k in range(0, len(bars["job"]), 7):
        resource, job, s, e = g["resources"][bars["r"][k]], bars["job"][k], bars["s"][k], bars["e"][k]
        answer = kinds.read(parsed, "bar", {"run": "0", "resource": resource, "job": job, "t0": s - q, "t1": e + q})
        assert answer["segments"] and not answer["truncated"]
        best = min(answer["segments"], key=lambda x: abs(x["start"] - s) + abs(x["end"] - e))
        assert exact[(resource, job, best["start"])] == best["end"] and best["task"].startswith(job + ".")
        off += best["start"] != s
    assert off, "the demo has bars whose stored times are not multiples of q: the drawn ticks would not do"


def test_the_diff_page_asks_each_side(parsed):
    a = kinds.read(parsed, "gantt", {"side": "a", "a": "0", "b": "1"})
    b = kinds.read(parsed, "gantt", {"side": "b", "a": "0", "b": "1"})
    for side, g, index in (("a", a, 0), ("b", b, 1)):
        bars = plain_bars(g["bars"])
        resource, job = g["resources"][bars["r"][0]], bars["job"][0]
        answer = kinds.read(parsed, "bar", {"side": side, "a": "0", "b": "1", "resource": resource, "job": job,
                                            "t0": bars["s"][0] - 1, "t1": bars["e"][0] + 1})  # fmt: skip
        stored = parsed.stored(index).table("segments", ["start", "end", "resource", "job"]).to_pylist()
        mine = [(x["start"], x["end"]) for x in stored if x["resource"] == resource and str(x["job"]) == job]
        assert answer["index"] == index and {(x["start"], x["end"]) for x in answer["segments"]} <= set(mine)
        assert answer["segments"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"run": "0", "job": "1", "t0": "0", "t1": "10"}, "resource"),
        ({"run": "9", "resource": "p0", "job": "1"}, "run"),
        ({"run": "0", "resource": "p0", "job": "1", "t0": "5", "t1": "1"}, "t1"),
        ({"run": "0", "resource": "p0", "job": "1", "t0": "x"}, "t0"),
    ],
)
def test_a_bad_question_names_its_field(parsed, query, field):
    with pytest.raises(QueryError) as caught:
        kinds.read(parsed, "bar", query)
    assert caught.value.field == field


def test_only_the_named_job_on_the_named_resource_is_answered(parsed):
    stored = parsed.stored(0).table("segments", ["start", "end", "resource", "job"]).to_pylist()
    s = stored[0]
    query = {"run": "0", "resource": s["resource"], "t0": s["start"], "t1": s["end"]}
    assert [x["start"] for x in kinds.read(parsed, "bar", {**query, "job": str(s["job"])})["segments"]] == [s["start"]]
    assert kinds.read(parsed, "bar", {**query, "job": "no such job"})["segments"] == []
    assert kinds.read(parsed, "bar", {**query, "resource": "no such row", "job": str(s["job"])})["segments"] == []
