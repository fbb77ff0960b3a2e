"""The home page names the families by their papers and lists the user's recent runs, saying how many there are."""

import pytest
from django.utils.html import escape

import schedulers
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios import views

pytestmark = pytest.mark.django_db


def test_new_scenarios_are_offered_by_paper(alice_client):
    page = alice_client.get("/").content.decode()
    assert schedulers.all_families()  # the loop below checks each
    for name, family in schedulers.all_families().items():
        assert f'?family={name}">{escape(family.description)}</a>' in page


def test_the_recent_runs_are_the_newest_and_their_count_is_said(alice_client, scenario, bob, toy_scenario):
    from cloudsched_web.scenarios.models import Scenario

    runs = [Run.objects.create(scenario=scenario, config=scenario.config, scenario_name=f"n{i}") for i in range(12)]
    theirs = Scenario.objects.create(owner=bob, family="toy", name="bob's", config=toy_scenario)
    Run.objects.create(scenario=theirs, config=toy_scenario, scenario_name="bob's run")
    page = alice_client.get("/").content.decode()
    recent = page.split('id="recent-runs"')[1].split("</section>")[0]
    shown = [r.pk for r in runs if f'href="/runs/{r.pk}/"' in recent]
    assert shown == [r.pk for r in runs[-views.RECENT_RUNS :]]
    assert f"The {views.RECENT_RUNS} most recent of your 12 runs" in recent
    assert "bob's run" not in page
