"""In Chromium: the run page reveals a silent worker as it polls; deleting goes to the Trash and back."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scenario(alice, toy_scenario):
    return Scenario.objects.create(owner=alice, family="toy", name="doomed", config=toy_scenario)


def test_the_polling_run_page_shows_when_its_worker_stops_answering(page, live_server, alice, scenario, settings):
    settings.RUN_HEARTBEAT_EVERY_S = 5
    run = Run.objects.create(
        scenario=scenario, config=scenario.config, status=Run.Status.RUNNING, progress=0.45, attempts=1,
        started_at=timezone.now(), heartbeat_at=timezone.now() + timedelta(seconds=60), task_id="t",
    )  # fmt: skip
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    assert page.locator("#run-stalled").is_hidden()
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=11))  # the worker died
    page.wait_for_selector("#run-stalled", state="visible", timeout=15_000)  # the next poll shows it
    assert "stopped answering at" in page.inner_text("#run-stalled")
    assert page.inner_text("#status-text") == "running"


def test_move_to_trash_asks_nothing_and_the_trash_page_restores(page, live_server, alice, scenario):
    _login(page, live_server.url)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.click("#delete-scenario")
    page.wait_for_selector("text=Moved scenario")
    assert dialogs == [] and not Scenario.objects.filter(pk=scenario.pk).exists()
    page.click("nav >> text=Trash")
    page.click(f"#trash-scenario-{scenario.pk} button")
    page.wait_for_selector("text=Restored")
    assert Scenario.objects.filter(pk=scenario.pk).exists()
