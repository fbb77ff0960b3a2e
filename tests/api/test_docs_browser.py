"""Chromium (Playwright) on the API docs and token pages: the docs work offline, a token is shown once."""

import os
from urllib.parse import urlsplit

import pytest

from cloudsched_web.api.models import ApiToken, token_digest
from tests.conftest import PASSWORD
from tests.services import launch_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("CLOUDSCHED_SCREENSHOTS")  # a directory to keep the screenshots in


@pytest.fixture
def page(live_server):
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    local = urlsplit(live_server.url).netloc
    outside = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(30_000)

        def offline(route):  # the server has no internet: anything not on it fails, and is recorded
            if urlsplit(route.request.url).netloc == local:
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", offline)
        page.outside = outside
        yield page
        browser.close()


def _shot(page, tmp_path, name):
    path = os.path.join(SHOTS or str(tmp_path), name)
    page.screenshot(path=path, full_page=False)


def test_docs_page_renders_every_operation_without_a_cdn(page, live_server, tmp_path):
    page.goto(live_server.url + "/api/v1/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/scenarios/{scenario_id}/studies" in [p.replace("\u200b", "") for p in paths]
    assert page.outside == []
    _shot(page, tmp_path, "api-docs.png")


def test_token_page_shows_a_new_token_once(page, live_server, alice, tmp_path):
    page.goto(live_server.url + "/account/tokens/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.fill("input[name=name]", "notebook")
    page.click("#new-token-form button[type=submit]")
    token = page.inner_text("#token-value").strip()
    assert ApiToken.objects.get(user=alice).digest == token_digest(token)
    _shot(page, tmp_path, "api-tokens.png")
    page.goto(live_server.url + "/account/tokens/")
    assert token not in page.content()
    assert "notebook" in page.content()
