"""The Chromium page and the real Celery worker, shared by every browser test module."""

import os

import pytest
from django.db import connection

from tests.services import Worker, launch_chromium, point_broker, redis_server


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls in the test are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page()
        page.set_default_timeout(30_000)
        yield page
        browser.close()


@pytest.fixture
def worker(tmp_path):
    with redis_server(tmp_path) as url:
        point_broker(url)
        w = Worker(url, connection.settings_dict["NAME"], tmp_path / "worker.log")
        w.wait_ready()
        yield w
        w.stop()
