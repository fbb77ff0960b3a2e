"""Bring your own scheduler in the browser: the example package, built and installed by pip,
is seen by the web server and a restarted worker; the wizard offers its algorithm marked as a plug-in, and
a run of it beside EASY shows its results and names it on the reproducibility stamp."""

import pytest
from django.db import connection

from tests.browser.test_run_flow import _login
from tests.plugin_pkg import on_path, pip_install_example
from tests.services import Worker, point_broker, redis_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def example_site(tmp_path):
    site = tmp_path / "site"
    why = pip_install_example(site, tmp_path)
    if why:
        pytest.skip(why)
    with on_path(site):  # the live server runs in this process: its discovery sees the package
        yield site


def test_the_example_plugin_appears_in_the_wizard_marked_and_runs(page, live_server, alice, example_site, tmp_path):
    with redis_server(tmp_path) as url:
        point_broker(url)
        worker = Worker(url, connection.settings_dict["NAME"], tmp_path / "w.log", PYTHONPATH=str(example_site))
        try:
            worker.wait_ready()
            _login(page, live_server.url)
            page.goto(live_server.url + "/scenarios/new/?family=backfill")
            page.wait_for_selector("#wizard .wizard-root")
            box = page.locator("#w-algorithms-easy-lxf")
            label = page.locator("label[for='w-algorithms-easy-lxf']")
            assert "[plug-in, cloudsched-example-plugins 0.1.0]" in label.get_attribute("title")
            assert "easy-lxf" in page.inner_text("#plugin-note")
            for name in ("fcfs", "keasy", "reasy", "measy"):  # keep the run small: easy beside the plug-in
                page.locator(f"#w-algorithms-{name}").uncheck()
            box.check()
            page.click("#save-button")
            page.wait_for_selector("#run-button")
            page.click("#run-button")
            page.wait_for_selector("#results", timeout=90_000)
            assert page.inner_text("#status-text") == "succeeded", worker.log()
            table = page.inner_text("#summary-table")
            assert "easy-lxf" in table and "easy" in table
            body = page.inner_text("body")
            assert "backfill.easy-lxf" in body and "cloudsched-example-plugins 0.1.0" in body  # the stamp
        finally:
            worker.stop()
