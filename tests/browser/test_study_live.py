"""A study's chart fills in as its runs finish: no empty chart area until the end, no reload per
run; the figure's SVG/PDF links follow the metric shown."""

import pytest

from cloudsched_web.runs import services
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from tests.browser.conftest import shoot
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_points_appear_as_runs_finish_without_a_reload(page, live_server, alice, toy_scenario, monkeypatch):
    monkeypatch.setattr(services, "send", lambda ids: True)  # the runs stay queued until the test runs them
    scenario = Scenario.objects.create(owner=alice, family="toy", name="live", config=toy_scenario)
    study = services.submit_sweep(scenario, {"datacenter.machines": [1, 2, 4]})
    runs = list(study.runs.order_by("id"))
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    assert page.is_visible("#study-waiting") and page.evaluate("() => document.body.dataset.studyPoints") == "0"
    assert page.get_attribute("#study-figure-svg", "href") is None
    page.evaluate("() => { window.__samePage = true; }")
    run_simulation.apply(args=[runs[0].pk])
    assert Run.objects.get(pk=runs[0].pk).status == Run.Status.SUCCEEDED
    page.wait_for_function("() => Number(document.body.dataset.studyPoints) > 0", timeout=20_000)
    assert page.evaluate("() => window.__samePage === true")  # drawn in place, not by reloading
    assert not page.is_visible("#study-waiting")
    metric = page.input_value("#study-metric")
    assert page.get_attribute("#study-figure-svg", "href").endswith(f"/studies/{study.pk}/figure.svg?metric={metric}")
    assert page.inner_text(f"#study-runs tr[data-run='{runs[0].pk}'] .run-status") == "succeeded"
    points = int(page.evaluate("() => document.body.dataset.studyPoints"))
    run_simulation.apply(args=[runs[1].pk])
    page.wait_for_function(f"() => Number(document.body.dataset.studyPoints) > {points}", timeout=20_000)
    assert page.evaluate("() => window.__samePage === true")
    shoot(page, "study-live")
    run_simulation.apply(args=[runs[2].pk])  # the last one: the page reloads once for the verdicts
    page.wait_for_function("() => document.getElementById('study-status').dataset.finished === '1'", timeout=20_000)
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    svg = page.request.get(live_server.url + page.get_attribute("#study-figure-svg", "href"))
    assert svg.ok and b"<svg" in svg.body()
