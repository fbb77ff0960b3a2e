"""A heavy run is spread over the workers as its (algorithm, repetition) units and merged (runs/fanout.py).

Celery runs eagerly here: the coordinator's helper tasks run inside its ``apply_async``, so they take
the units first and the coordinator merges what they wrote. The merged result must be the one the
run gives in one piece (machine timings aside).
"""

import os
import time

import pytest

import schedulers
from cloudsched_web.runs import fanout
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation, run_unit_parts
from cloudsched_web.scenarios.models import Scenario
from tests.golden import without_timing

pytestmark = pytest.mark.django_db


@pytest.fixture
def heavy(alice):
    config = {**schedulers.example("backfill"), "repetitions": 2}
    config["algorithms"] = ["easy", "measy"]
    return Scenario.objects.create(owner=alice, family="backfill", name="two by two", config=config)


def _run(scenario, settings, spread):
    settings.RUN_FAN_OUT_MIN_CPU_S = 0 if spread else -1
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    run_simulation(run.pk)
    run.refresh_from_db()
    return run


def test_a_spread_run_stores_the_result_of_a_whole_run(heavy, settings, monkeypatch):
    """Four units, three of them taken by helper tasks, merge into the whole run's document."""
    taken = []
    real = fanout.run_unit
    monkeypatch.setattr(
        fanout, "run_unit", lambda config, parts, unit, *a: taken.append(unit) or real(config, parts, unit, *a)
    )
    spread = _run(heavy, settings, spread=True)
    assert spread.status == Run.Status.SUCCEEDED, spread.error
    assert sorted(taken) == sorted(schedulers.units(heavy.config))  # every unit once
    whole = _run(heavy, settings, spread=False)
    assert len(taken) == 4  # the whole run took no unit
    assert without_timing(spread.load_result()) == without_timing(whole.load_result())
    assert spread.summary.keys() == whole.summary.keys()
    assert not (fanout.Parts(spread.pk, spread.task_id, []).dir.parent).exists()  # the parts are gone


def test_a_failing_unit_fails_alone_and_the_run_keeps_the_others(heavy, settings, monkeypatch):
    real = schedulers.run_unit

    def broken(config, algorithm, repetition, progress=None):
        if (algorithm, repetition) == ("measy", 1):
            raise ZeroDivisionError("a bug in repetition 1")
        return real(config, algorithm, repetition, progress)

    monkeypatch.setattr(schedulers, "run_unit", broken)
    run = _run(heavy, settings, spread=True)
    assert (run.status, run.outcome) == (Run.Status.SUCCEEDED, "partly failed")
    assert run.error == ("1 of 4 units failed (the others' results are kept): measy repetition 1: a bug in "
                         "repetition 1")  # fmt: skip
    result = run.load_result()
    assert [(r["algorithm"], r["repetition"]) for r in result["runs"]] == [("easy", 0), ("measy", 0), ("easy", 1)]
    assert result["failures"] == [{"algorithm": "measy", "repetition": 1, "error": "a bug in repetition 1",
                                   "type": "ZeroDivisionError"}]  # fmt: skip


def test_a_helper_of_an_attempt_that_lost_the_row_does_nothing(heavy, settings):
    """Cancelled, finished or taken over: the helper finds no row of its attempt and takes no unit."""
    run = Run.objects.create(scenario=heavy, config=heavy.config, status=Run.Status.RUNNING, task_id="newer")
    parts = fanout.Parts(run.pk, "older", schedulers.units(heavy.config))
    parts.create()
    run_unit_parts(run.pk, "older")
    assert parts.finished() == [] and parts.take() is not None  # nothing was claimed by the helper
    parts.remove()


def test_a_unit_whose_holder_stopped_is_taken_again(heavy):
    units = schedulers.units(heavy.config)
    parts = fanout.Parts(1, "attempt", units)
    parts.create()
    held = [parts.take() for _ in units]
    assert held == units and parts.take() is None  # each unit is taken once
    claim = parts.dir / f"{parts._stem(held[0])}.claim"
    os.utime(claim, (time.time() - 100, time.time() - 100))
    parts.release_stale(after_s=1000)
    assert parts.take() is None  # still fresh enough
    parts.release_stale(after_s=60)
    assert parts.take() == held[0]  # its holder stopped touching it: free again
    parts.remove()


def test_small_runs_are_not_spread(heavy, settings):
    settings.RUN_FAN_OUT_MIN_CPU_S = 10**6
    assert fanout.units_to_spread(heavy.config) is None
    settings.RUN_FAN_OUT_MIN_CPU_S = 0
    assert fanout.units_to_spread(heavy.config) == schedulers.units(heavy.config)
    assert fanout.units_to_spread({**heavy.config, "repetitions": 1, "algorithms": ["easy"]}) is None


def test_a_family_without_an_estimate_is_spread(settings):
    """A family with no footprint (the test toy; its cost is unknown before it runs): its runs of two units or
    more are spread."""
    settings.RUN_FAN_OUT_MIN_CPU_S = 60
    config = {**schedulers.example("toy"), "repetitions": 2}
    assert not schedulers.estimate(config).detail.get("estimated")
    assert fanout.units_to_spread(config) == schedulers.units(config)
