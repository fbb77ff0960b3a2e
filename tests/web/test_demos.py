"""Demos are loaded once per family, found again by their stable key: renaming or trashing one never
makes run.sh create another at its next start."""

import io

import pytest
from django.core.management import call_command
from django.db import IntegrityError

import schedulers
from cloudsched_web.scenarios.management.commands.load_demos import demo_key
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def _load(user):
    out = io.StringIO()
    call_command("load_demos", "--user", user.username, stdout=out)
    return out.getvalue()


def test_loading_twice_with_a_rename_between_creates_each_demo_once(alice):
    families = set(schedulers.all_families())
    first = _load(alice)
    assert first.count("created") == len(families)
    demos = Scenario.objects.filter(owner=alice)
    assert {s.key for s in demos} == {demo_key(f) for f in families}
    assert all(s.name.startswith("Demo: ") and s.description for s in demos)

    renamed = demos.get(key=demo_key("toy"))
    renamed.name = "my own toy study"
    renamed.config = {**renamed.config, "name": renamed.name}
    renamed.save()
    trashed = demos.exclude(pk=renamed.pk).first()
    Scenario.all_objects.filter(pk=trashed.pk).update(trashed_at="2026-01-01T00:00:00Z")

    second = _load(alice)
    assert "created" not in second and "kept (in the trash)" in second
    assert Scenario.all_objects.filter(owner=alice).count() == len(families)
    assert Scenario.objects.get(pk=renamed.pk).name == "my own toy study"
    assert not Scenario.objects.filter(owner=alice, name="Demo: toy").exists()


def test_each_user_has_their_own_demos(alice, bob):
    _load(alice)
    _load(bob)
    assert Scenario.objects.filter(owner=bob).count() == Scenario.objects.filter(owner=alice).count() > 0


def test_a_key_is_unique_per_owner_but_many_rows_have_none(alice, toy_scenario):
    Scenario.objects.create(owner=alice, family="toy", name="a", config=toy_scenario)
    Scenario.objects.create(owner=alice, family="toy", name="b", config=toy_scenario)
    Scenario.objects.create(owner=alice, family="toy", name="c", key="demo-toy", config=toy_scenario)
    with pytest.raises(IntegrityError):
        Scenario.objects.create(owner=alice, family="toy", name="d", key="demo-toy", config=toy_scenario)


def test_the_first_load_with_run_queues_one_run_of_each_demo_and_a_later_load_none(django_user_model):
    from cloudsched_web.runs.models import Run

    user = django_user_model.objects.create_superuser("first", "f@example.org", "pw-first-start-9")
    call_command("load_demos", "--user", user.username, "--run", stdout=io.StringIO())
    runs = Run.objects.filter(scenario__owner=user)
    families = sorted(runs.values_list("scenario__family", flat=True))
    assert families and families == sorted(schedulers.all_families())  # one run each, every family
    call_command("load_demos", "--user", user.username, "--run", stdout=io.StringIO())
    assert Run.objects.filter(scenario__owner=user).count() == len(families)  # kept demos are not run again
