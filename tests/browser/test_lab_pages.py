"""The laboratory pages in a real Chromium against a live server and a real Celery worker.

Screenshots land in CLOUDSCHED_SHOTS (default: var/screens/tests/) so a person can look at them.
"""

import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.browser.conftest import shoot
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
FAMILIES = [f for f in schedulers.all_families() if f != "toy"]

DRAWN = """(sel) => [...document.querySelectorAll(sel)].map((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true;
  return false; })"""


def _shot(page, tmp_path, name):
    shoot(page, name)  # kept in var/screens/tests/ (tests/browser/conftest.py), not the test's tmp dir


def _drawn(page, selector):
    flags = page.evaluate(DRAWN, selector)
    return bool(flags) and all(flags)


def _wait_results(page):
    page.wait_for_selector("#results", timeout=120_000)
    page.wait_for_function("() => document.body.dataset.timelineLoaded", timeout=30_000)


def test_each_family_is_built_in_the_wizard_run_and_charted(page, live_server, alice, worker, tmp_path):
    """Every installed family: the form builds a valid scenario, the worker runs it, every chart type draws."""
    _login(page, live_server.url)
    assert FAMILIES  # the loop below checks each
    for family in FAMILIES:
        page.goto(f"{live_server.url}/scenarios/new/?family={family}")
        page.fill("#w-name", f"browser {family}")
        page.fill("#w-repetitions", "1")
        page.click("#save-button")
        page.wait_for_selector("#run-button")
        scenario = Scenario.objects.get(name=f"browser {family}")
        assert scenario.config["repetitions"] == 1 and scenario.family == family
        page.click("#run-button")
        _wait_results(page)
        assert page.inner_text("#status-text") == "succeeded"
        assert "checks" in page.inner_text("#validity-badge")
        for alg in scenario.config["algorithms"]:
            assert alg in page.inner_text("#summary-table")
        assert _drawn(page, "#comparison-chart"), family
        assert _drawn(page, "#gantt-charts canvas"), family
        assert _drawn(page, "#series-charts canvas"), family
        if any(
            s.get("freq_ghz")
            for r in Run.objects.get(scenario=scenario).load_result()["runs"]
            for s in r["schedule"][:5]
        ):
            assert _drawn(page, "#freq-charts canvas"), family
        _shot(page, tmp_path, f"result-{family}")


def test_tables_take_pasted_csv_and_errors_sit_next_to_the_cell(page, live_server, alice, tmp_path):
    if "federated" not in FAMILIES:
        pytest.skip("needs a family with a table of objects (federated clouds)")
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=federated")
    page.click("[data-csv-toggle='datacenter.clouds']")
    page.fill("#w-datacenter\\.clouds-csv", "name,servers,server_capacity\nbig,40,4\nbroken,0,2\n")
    page.click("#save-button")
    error = page.locator("[data-error-path='datacenter.clouds[1].servers']")
    assert "≥ 1" in error.inner_text()
    assert page.locator("td.has-error").count() == 1
    _shot(page, tmp_path, "wizard-error")
    assert not Scenario.objects.exists()
    page.fill("[aria-label='datacenter.clouds[1].servers']", "8")
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    clouds = Scenario.objects.get().config["datacenter"]["clouds"]
    assert [(c["name"], c["servers"]) for c in clouds] == [("big", 40), ("broken", 8)]


def test_a_workload_tab_with_pasted_jobs(page, live_server, alice):
    if "backfill" not in FAMILIES:
        pytest.skip("needs backfill")
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:jobs']")
    page.click("[data-csv-toggle='workload.jobs']")
    page.fill("#w-workload\\.jobs-csv", "submit_s,processors,runtime_s\n0,4,100\n10,2,50\n")
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    workload = Scenario.objects.get().config["workload"]
    assert workload["kind"] == "jobs" and [j["runtime_s"] for j in workload["jobs"]] == [100.0, 50.0]


def test_zoom_is_linked_share_link_works_logged_out_until_revoked(page, live_server, alice, worker, tmp_path, csp):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=toy")
    page.click("#save-button")
    page.click("#run-button")
    _wait_results(page)
    page.click("#zoom-in")
    page.wait_for_function("() => document.getElementById('timeline-status').textContent.startsWith('window')")
    ranges = page.evaluate(
        "() => [...Object.values(cloudsched.gantt), ...Object.values(cloudsched.series)]"
        ".map((c) => [c.scales.x.min, c.scales.x.max])"
    )
    assert len(ranges) >= 3 and all(r == ranges[0] for r in ranges)
    page.click("#create-share")
    link = page.input_value("#share-url").removeprefix(live_server.url)  # the field holds the absolute address
    anonymous = csp.attach(page.context.browser.new_context().new_page())
    anonymous.goto(live_server.url + link)
    _wait_results(anonymous)
    assert _drawn(anonymous, "#gantt-charts canvas") and _drawn(anonymous, "#comparison-chart")
    assert anonymous.locator("#cancel, #create-share, #revoke-share").count() == 0
    _shot(anonymous, tmp_path, "shared-run")
    anonymous.goto(live_server.url + link.replace("/share/", "/share/", 1) + "diff/")
    anonymous.wait_for_function("() => document.body.dataset.timelineLoaded")
    assert _drawn(anonymous, "#gantt-a") and _drawn(anonymous, "#gantt-b")
    _shot(anonymous, tmp_path, "shared-diff")
    page.click("#revoke-share")
    page.wait_for_selector("#create-share")
    assert anonymous.goto(live_server.url + link).status == 404


def test_a_preset_runs_as_a_study_with_claims_and_a_curve(page, live_server, alice, worker, tmp_path):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/presets/?family=toy")
    page.click("#preset-toy-machines_sweep button")
    page.wait_for_selector("#study-chart")
    study = Study.objects.get()
    page.wait_for_function("() => document.getElementById('study-status').dataset.finished === '1'", timeout=90_000)
    assert study.runs.filter(status=Run.Status.SUCCEEDED).count() == 3
    claims = page.inner_text("#claims")
    assert "Graham" in claims and "reproduced" in claims and "measured: lpt/fcfs makespan_s" in claims
    assert _drawn(page, "#study-chart")
    assert page.locator("#study-table tbody tr").count() == 3
    _shot(page, tmp_path, "study")


def test_an_emptied_name_is_refused_at_its_field_not_replaced(page, live_server, alice):
    """The wizard sends an emptied required text as it is: the server names the field, nothing says 'scenario'."""
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family={FAMILIES[0]}")
    page.fill("#w-name", "")
    page.click("#save-button")
    page.wait_for_load_state()
    assert not Scenario.objects.exists()
    assert "at least 1 character" in page.inner_text("body")
