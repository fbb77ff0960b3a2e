"""Deleting moves scenarios, studies and runs to a trash their owner (or an admin) restores from."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from cloudsched_web.runs import trash
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.tasks import sweep_queued_runs
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import shared_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(scenario):
    return shared_world(scenario)


def _urls(world):
    s, r, st, p = world["scenario"], world["run"], world["study"], world["point"]
    return [
        f"/scenarios/{s.pk}/", f"/scenarios/{s.pk}/edit/", f"/runs/{r.pk}/", f"/runs/{r.pk}/status.json",
        f"/runs/{r.pk}/result.json", f"/runs/{r.pk}/export/metrics/", f"/runs/{r.pk}/data.json",
        f"/runs/{p.pk}/", f"/studies/{st.pk}/", f"/studies/{st.pk}/status.json",
        f"/share/{r.share_token}/", f"/share/{r.share_token}/export/metrics/", f"/share/{r.share_token}/data.json",
        f"/share/study/{st.share_token}/",
    ]  # fmt: skip


def test_deleting_a_scenario_hides_it_its_runs_studies_and_share_links_and_keeps_the_rows(alice_client, world):
    urls = _urls(world)
    assert all(alice_client.get(u).status_code == 200 for u in urls)
    response = alice_client.post(f"/scenarios/{world['scenario'].pk}/delete/", follow=True)
    assert "Moved scenario" in response.content.decode() and "within 30 days" in response.content.decode()
    for url in urls:
        assert alice_client.get(url).status_code == 404, url
    home = alice_client.get("/").content.decode()
    assert world["scenario"].name not in home.split("<main")[1]
    assert "a sweep" not in alice_client.get("/studies/").content.decode()
    assert Scenario.all_objects.count() == 1 and Run.all_objects.count() == 2 and Study.all_objects.count() == 1


def test_the_trash_page_lists_what_was_deleted_and_a_restore_brings_it_all_back(alice_client, world):
    alice_client.post(f"/scenarios/{world['scenario'].pk}/delete/")
    page = alice_client.get("/trash/").content.decode()
    assert f'id="trash-scenario-{world["scenario"].pk}"' in page
    assert "2 run(s), 1 study(ies)" in page
    assert f'id="trash-run-{world["run"].pk}"' not in page  # it came along with its scenario
    response = alice_client.post(f"/trash/scenario/{world['scenario'].pk}/restore/")
    assert response.status_code == 302 and response["Location"] == f"/scenarios/{world['scenario'].pk}/"
    assert all(alice_client.get(u).status_code == 200 for u in _urls(world))  # share links open again
    assert "The trash is empty" in alice_client.get("/trash/").content.decode()


def test_a_run_deleted_on_its_own_stays_in_the_trash_when_its_scenario_comes_back(alice_client, world):
    run = world["run"]
    alice_client.post(f"/runs/{run.pk}/delete/")
    alice_client.post(f"/scenarios/{world['scenario'].pk}/delete/")
    page = alice_client.get("/trash/").content.decode()
    assert f'id="trash-run-{run.pk}"' in page and f'id="trash-scenario-{world["scenario"].pk}"' in page
    restore_run = alice_client.post(f"/trash/run/{run.pk}/restore/", follow=True).content.decode()
    assert "restore the scenario first" in restore_run
    alice_client.post(f"/trash/scenario/{world['scenario'].pk}/restore/")
    assert alice_client.get(f"/runs/{run.pk}/").status_code == 404
    assert alice_client.get(f"/runs/{world['point'].pk}/").status_code == 200
    alice_client.post(f"/trash/run/{run.pk}/restore/")
    assert alice_client.get(f"/runs/{run.pk}/").status_code == 200


def test_deleting_a_study_takes_its_runs_and_leaves_the_scenario(alice_client, world):
    response = alice_client.post(f"/studies/{world['study'].pk}/delete/")
    assert response.status_code == 302
    assert alice_client.get(f"/runs/{world['point'].pk}/").status_code == 404
    assert alice_client.get(f"/share/study/{world['study'].share_token}/").status_code == 404
    assert alice_client.get(f"/runs/{world['run'].pk}/").status_code == 200
    assert alice_client.get(f"/scenarios/{world['scenario'].pk}/").status_code == 200
    alice_client.post(f"/trash/study/{world['study'].pk}/restore/")
    assert alice_client.get(f"/runs/{world['point'].pk}/").status_code == 200


def test_deleting_a_queued_run_cancels_it(alice_client, scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    alice_client.post(f"/runs/{run.pk}/delete/")
    run = Run.all_objects.get(pk=run.pk)
    assert run.status == Run.Status.CANCELLED and run.trashed_at is not None


def test_another_user_can_neither_see_nor_restore_nor_delete_my_things(client, bob, world):
    client.force_login(bob)
    assert client.post(f"/scenarios/{world['scenario'].pk}/delete/").status_code == 404
    assert client.post(f"/runs/{world['run'].pk}/delete/").status_code == 404
    assert client.post(f"/studies/{world['study'].pk}/delete/").status_code == 404
    trash.trash(world["scenario"])
    assert world["scenario"].name not in client.get("/trash/").content.decode()
    assert client.post(f"/trash/scenario/{world['scenario'].pk}/restore/").status_code == 404
    assert Scenario.all_objects.get(pk=world["scenario"].pk).trashed_at is not None


def test_restore_of_an_unknown_kind_is_404_and_of_a_live_object_changes_nothing(alice_client, world):
    assert alice_client.post(f"/trash/user/{world['scenario'].pk}/restore/").status_code == 404
    page = alice_client.post(f"/trash/scenario/{world['scenario'].pk}/restore/", follow=True).content.decode()
    assert "was not in the trash" in page
    assert alice_client.get(f"/trash/scenario/{world['scenario'].pk}/restore/").status_code == 405


def test_the_sweeper_purges_what_has_been_in_the_trash_for_more_than_30_days(alice, world, toy_scenario):
    old = Scenario.objects.create(owner=alice, family="toy", name="old", config=toy_scenario)
    old_run = Run.objects.create(scenario=old, config=old.config)
    trash.trash(old)
    trash.trash(world["run"])
    Scenario.all_objects.filter(pk=old.pk).update(trashed_at=timezone.now() - timedelta(days=30, minutes=1))
    Run.all_objects.filter(pk=old_run.pk).update(trashed_at=timezone.now() - timedelta(days=30, minutes=1))
    Run.all_objects.filter(pk=world["run"].pk).update(trashed_at=timezone.now() - timedelta(days=29, hours=23))
    sweep_queued_runs()  # the periodic task, in-process
    assert not Scenario.all_objects.filter(pk=old.pk).exists()
    assert not Run.all_objects.filter(pk=old_run.pk).exists()
    assert Run.all_objects.filter(pk=world["run"].pk).exists()  # one day short: kept
    assert Scenario.objects.filter(pk=world["scenario"].pk).exists()


def test_the_scenario_page_asks_no_browser_confirm_and_the_nav_links_the_trash(alice_client, scenario):
    page = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "confirm(" not in page and "onsubmit" not in page
    assert 'href="/trash/"' in page


def test_the_home_list_sorts_by_the_last_live_run(alice_client, alice, scenario, toy_scenario):
    other = Scenario.objects.create(owner=alice, family="toy", name="other one", config=toy_scenario)
    Run.objects.create(scenario=other, config=other.config)
    newest = Run.objects.create(scenario=scenario, config=scenario.config)
    trash.trash(newest)
    page = alice_client.get("/?sort=last_run").content.decode()
    assert page.index("other one") < page.index(scenario.name)


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw-unused-123"))
    return client


def test_the_admin_sees_trashed_items_and_restores_them(admin_client, world):
    trash.trash(world["scenario"])
    listing = admin_client.get("/admin/scenarios/scenario/?trash=trashed").content.decode()
    assert world["scenario"].name in listing
    assert admin_client.get(f"/admin/runs/run/{world['run'].pk}/change/").status_code == 200
    admin_client.post(
        "/admin/scenarios/scenario/", {"action": "restore_from_trash", "_selected_action": [world["scenario"].pk]}
    )
    assert Run.objects.filter(pk=world["run"].pk).exists() and Study.objects.filter(pk=world["study"].pk).exists()


def test_a_run_deleted_on_its_own_stays_in_the_trash_when_its_study_comes_back(alice_client, scenario):
    from cloudsched_web.runs.services import submit_sweep

    study = submit_sweep(scenario, {"seed": [1, 2]})
    first, second = study.runs.order_by("pk")
    alice_client.post(f"/runs/{first.pk}/delete/")
    alice_client.post(f"/studies/{study.pk}/delete/")
    page = alice_client.get("/trash/").content.decode()
    assert f'id="trash-run-{first.pk}"' in page and f'id="trash-study-{study.pk}"' in page
    assert "1 run(s)" in page  # what comes back with the study: the run deleted with it, not the other
    assert (
        "restore the study first" in alice_client.post(f"/trash/run/{first.pk}/restore/", follow=True).content.decode()
    )
    alice_client.post(f"/trash/study/{study.pk}/restore/")
    assert alice_client.get(f"/runs/{second.pk}/").status_code == 200
    assert alice_client.get(f"/runs/{first.pk}/").status_code == 404  # still in the trash, as the user left it
    alice_client.post(f"/trash/run/{first.pk}/restore/")
    assert alice_client.get(f"/runs/{first.pk}/").status_code == 200


def test_a_full_trash_lists_every_deleted_thing_newest_first_a_page_at_a_time(alice_client, scenario):
    """No silent cap (it listed an arbitrary 500 of each kind): 520 runs deleted one by one and a study deleted with
    its run (one item), all counted and paged, newest first."""
    import re

    now = timezone.now()
    Run.objects.bulk_create([
        Run(scenario=scenario, config=scenario.config, trashed_at=now - timedelta(minutes=k)) for k in range(520)
    ])  # fmt: skip
    study = Study.objects.create(scenario=scenario, name="gone")
    Run.objects.create(scenario=scenario, config=scenario.config, study=study)
    trash.trash(study)
    pages, seen = [], []
    for number in range(1, 12):
        html = alice_client.get(f"/trash/?page={number}").content.decode()
        pages.append(html)
        seen += re.findall(r'<tr id="trash-(\w+)-(\d+)">', html)
    assert "deleted items 1–50 of 521" in pages[0] and "deleted items 501–521 of 521" in pages[10]
    assert len(seen) == len(set(seen)) == 521
    assert seen[0] == ("study", str(study.pk))  # the newest; its run came along with it, not an item of its own
    runs = [int(pk) for kind, pk in seen if kind == "run"]
    want = Run.all_objects.filter(study=None, trashed_at__isnull=False).order_by("-trashed_at", "-pk")
    assert runs == list(want.values_list("pk", flat=True))
