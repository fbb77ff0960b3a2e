"""A real Chromium (Debian's, through Playwright) drives the whole flow against a live server and a real worker."""

import pytest

from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _login(page, base):
    page.goto(base + "/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("text=Your scenarios")


def test_login_create_run_and_see_the_result(page, live_server, alice, worker):
    _login(page, live_server.url)
    page.goto(live_server.url + "/scenarios/new/?family=toy")
    assert "toy example" in page.input_value("#id_config")
    page.click("text=Save scenario")
    page.wait_for_selector("#run-button")
    page.click("#run-button")
    page.wait_for_selector("#results", timeout=90_000)  # the page polls and reloads itself when done
    page.wait_for_function("() => document.body.dataset.timelineLoaded")  # Gantt data comes from the data endpoint
    assert page.inner_text("#status-text") == "succeeded"
    table = page.inner_text("#summary-table")
    assert "fcfs" in table and "lpt" in table and "makespan_s" in table
    assert page.locator("#comparison-chart").bounding_box()["height"] > 100
    # Chart.js really drew: the canvas has non-blank pixels.
    drawn = page.evaluate(
        "() => { const c = document.querySelector('#gantt-charts canvas');"
        " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " return d.some((v, i) => i % 4 === 3 && v > 0); }"
    )
    assert drawn


def test_a_bad_scenario_shows_field_errors_in_the_page(page, live_server, alice):
    _login(page, live_server.url)
    page.goto(live_server.url + "/scenarios/new/?family=toy")
    page.click("#tab-json")  # the raw JSON editor is the "advanced" tab beside the form
    page.fill("#id_config", '{"family": "toy", "repetitions": 1000, "datacenter": {"machines": 0}}')
    page.click("text=Save scenario")
    errors = page.inner_text("#config-errors")
    assert "repetitions" in errors and "≤ 100" in errors
    assert "datacenter.machines" in errors and "≥ 1" in errors
