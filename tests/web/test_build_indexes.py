"""``manage.py build_indexes``: stored results without (current) indexes get them; pages read the new ones."""

import io

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.utils import timezone

import schedulers
from cloudsched_web.results import gantt, queries, store
from cloudsched_web.runs.management.commands.build_indexes import _index_names, current
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(alice):
    """A backfill run stored as the worker stores it before its indexes are built."""
    config = schedulers.example("backfill")
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="idx", config=config)
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED,
                             started_at=timezone.now(), finished_at=timezone.now())  # fmt: skip
    run.store_result(schedulers.run(config), "a1", indexes=False)
    run.save()
    yield run
    store.delete(run.pk)  # the database rolls back, the files would stay for the next run with this number


def _call(*args):
    out = io.StringIO()
    call_command("build_indexes", *args, stdout=out)
    return out.getvalue()


def _gantt(run):
    parsed = queries.get_result(Run.objects.get(pk=run.pk))
    return parsed, gantt.gantt(parsed, 1)


def test_a_result_without_indexes_gets_them_and_pages_switch_to_them(stored):
    assert not current(stored.result_files)
    parsed_before, before = _gantt(stored)  # a web process parsed it before the indexes existed
    assert "index" not in parsed_before.manifest
    assert "built 1, already current 0" in _call()
    stored.refresh_from_db()
    assert current(stored.result_files)
    names = _index_names(stored.result_files)
    assert names and all(default_storage.exists(n) for n in names)
    parsed_after, after = _gantt(stored)
    assert parsed_after is not parsed_before and parsed_after.manifest["index"]["version"]  # not served stale
    assert after == before  # the same payload from the indexes
    assert "built 0, already current 1" in _call()


def test_older_indexes_are_rebuilt_and_the_replaced_files_pruned_only_when_asked(stored):
    _call()
    stored.refresh_from_db()
    files = stored.result_files
    for info in files["runs"]:  # as written before the diff's job index existed
        info["index"].pop("jobs", None)
    Run.objects.filter(pk=stored.pk).update(result_files=files)
    first = _index_names(files)
    assert not current(files)
    out = _call(str(stored.pk))
    assert "built 1" in out and "kept until the run is deleted" in out
    stored.refresh_from_db()
    assert current(stored.result_files) and all(default_storage.exists(n) for n in first)
    second = _index_names(stored.result_files)
    _call("--all", "--prune")
    stored.refresh_from_db()
    third = _index_names(stored.result_files)
    assert third.isdisjoint(second) and all(default_storage.exists(n) for n in third)
    assert not any(default_storage.exists(n) for n in second)  # replaced and pruned


def test_unknown_runs_are_named(stored):
    with pytest.raises(CommandError, match=r"runs: \[999999\]"):
        _call("999999")
