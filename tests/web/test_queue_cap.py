"""One user's queued work is capped (RUN_QUEUE_MAX_PER_USER) and held back fairly at the broker."""

import pytest

import schedulers
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.services import release, submit_run, submit_study
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def no_broker(monkeypatch):
    """Messages recorded, not sent: these tests are about which runs go, not the broker."""
    from cloudsched_web.celery import app
    from cloudsched_web.runs import services

    app.conf.task_always_eager = False  # held back as on a server with workers
    sent = []
    monkeypatch.setattr(services, "_publish", lambda ids: sent.extend(ids) or True)
    yield sent
    app.conf.task_always_eager = True


def _scenario(owner):
    config = schedulers.example("vm_reservations")
    return Scenario.objects.create(owner=owner, family="vm_reservations", name="s", config=config)


def test_the_cap_admits_a_study_that_fills_it_and_refuses_one_more_run(alice, bob, settings, no_broker):
    settings.RUN_QUEUE_MAX_PER_USER = 4
    scenario = _scenario(alice)
    submit_study(scenario, [scenario.config] * 3)
    submit_run(scenario)  # the limit: 4
    with pytest.raises(schedulers.ScenarioError) as refused:
        submit_run(scenario)  # limit + 1
    error = refused.value.errors[0]
    assert (
        error["field"] == "(runs)"
        and "at most 4 queued or running runs per user (RUN_QUEUE_MAX_PER_USER)" in error["allowed"]
    )
    with pytest.raises(schedulers.ScenarioError) as study_refused:
        submit_study(scenario, [scenario.config] * 2)
    assert study_refused.value.errors[0]["field"] == "points"
    assert Run.objects.filter(scenario__owner=alice).count() == 4
    submit_run(_scenario(bob))  # another user's cap is theirs


def test_a_finished_run_makes_room(alice, settings, no_broker):
    settings.RUN_QUEUE_MAX_PER_USER = 1
    scenario = _scenario(alice)
    run = submit_run(scenario)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.SUCCEEDED)
    submit_run(scenario)


def test_each_owner_has_one_run_waiting_at_the_broker_and_owners_alternate(alice, bob, settings, no_broker):
    settings.RUN_DISPATCH_PER_OWNER = 1
    a = _scenario(alice)
    study = submit_study(a, [a.config] * 5)
    b = submit_run(_scenario(bob))
    ids = list(study.runs.order_by("id").values_list("id", flat=True))
    assert no_broker == [ids[0], b.id]
    assert release() == []  # nothing more while both wait
    Run.objects.filter(pk=ids[0]).update(status=Run.Status.RUNNING)  # a worker took alice's
    assert release([alice.pk]) == [ids[1]]
    held = Run.objects.get(pk=ids[2])
    assert held.dispatched_at is None and "waiting for your earlier runs" in held.progress_message


def test_the_run_being_taken_does_not_count_as_waiting(alice, settings, no_broker):
    settings.RUN_DISPATCH_PER_OWNER = 2
    a = _scenario(alice)
    study = submit_study(a, [a.config] * 4)
    ids = list(study.runs.order_by("id").values_list("id", flat=True))
    assert no_broker == ids[:2]
    assert release([alice.pk], starting=ids[0]) == [ids[2]]


def test_a_studys_stored_size_is_counted_from_its_largest_point(alice, monkeypatch, no_broker):
    """Points × the *largest* point's size: a study of one big point and small ones is held to it."""
    import orjson

    from cloudsched_web.runs import services

    small = {"family": "backfill", "seed": 1, "algorithms": ["easy"], "datacenter": {"processors": 8},
             "workload": {"kind": "jobs", "jobs": [{"submit_s": 0, "processors": 1, "runtime_s": 10}]}}  # fmt: skip
    big = {**small, "workload": {"kind": "jobs", "jobs": [{"submit_s": i, "processors": 1, "runtime_s": 10}
                                                          for i in range(300)]}}  # fmt: skip
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="s", config=small)
    big = schedulers.validate(big)[1].model_dump(mode="json")  # as the study stores it
    small = schedulers.validate(small)[1].model_dump(mode="json")
    largest = len(orjson.dumps(big))
    assert largest > 2 * len(orjson.dumps(small))
    monkeypatch.setattr(services, "MAX_STUDY_CONFIG_BYTES", 3 * largest)
    submit_study(scenario, [small, small, big])  # 3 × largest: the limit
    with pytest.raises(schedulers.ScenarioError) as refused:
        submit_study(scenario, [small, small, small, big])  # 4 × largest: over, though the small sum fits
    assert refused.value.errors[0]["field"] == "points"
