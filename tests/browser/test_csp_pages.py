"""Every page type in Chromium with the Content-Security-Policy on: it works, and nothing is blocked.

Screenshots land in CLOUDSCHED_SHOTS (default: var/screens/tests/) so a person can look at them.
"""

import re

import pytest

from cloudsched_web.api.models import ApiToken
from tests import site_pages
from tests.browser.conftest import screens_dir
from tests.browser.test_lab_pages import DRAWN
from tests.browser.test_run_flow import _login
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _works(url):
    """What "the page works" means for ``url``: a selector only its scripts produce, and charts that must be drawn."""
    if "/diff/" in url:
        return "#diff-table tr", "#gantt-a, #gantt-b"
    if url.startswith("/share/study/") or (url.startswith("/studies/") and url != "/studies/"):
        return "#study-table tr", "#study-chart"
    if url.startswith(("/runs/", "/share/")):
        return "#gantt-charts canvas", "#comparison-chart, #gantt-charts canvas"
    if url.startswith("/scenarios/new/") or url.endswith("/edit/"):
        return "#w-name", None
    if url == "/api/v1/docs":
        return ".opblock-summary-path", None
    return None, None


def _visit(page, base, url, folder, csp):
    response = page.goto(base + url)
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy, url
    page.wait_for_load_state("load")
    ready, charts = _works(url)
    try:
        if ready:
            page.wait_for_selector(ready, state="attached")
        if charts:
            page.wait_for_function(f"(sel) => ({DRAWN})(sel).every(Boolean)", arg=charts)
    finally:
        name = "page-" + (url.strip("/").replace("/", "_").replace("?", "_") or "home")
        name = re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "token", name)  # one file per page type
        page.screenshot(path=str(folder / f"{name[:80]}.png"), full_page=True)
    assert csp.violations == [], url


def test_every_page_type_works_under_the_policy_without_a_violation(browser, csp, live_server, alice, tmp_path):
    root = site_pages.superuser(password=PASSWORD)
    site = site_pages.build(alice, admin=root)
    folder = screens_dir()

    anonymous = csp.attach(browser.new_context().new_page())
    for url in site.anonymous:
        _visit(anonymous, live_server.url, url, folder, csp)

    owner = csp.attach(browser.new_context().new_page())
    _login(owner, live_server.url)
    for url in site.owner:
        _visit(owner, live_server.url, url, folder, csp)
    # Revoking a token asks first (a listener from static/js/confirm.js, no inline onsubmit): dismissing keeps it.
    token, _ = ApiToken.issue(alice, "notebook")
    owner.goto(f"{live_server.url}/account/tokens/")
    asked = []
    owner.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    owner.click("form[action*='/revoke/'] button")
    owner.wait_for_load_state("load")
    assert asked and "Revoke this token?" in asked[0]
    token.refresh_from_db()
    assert token.is_active
    assert csp.violations == []

    staff = csp.attach(browser.new_context().new_page())
    staff.goto(live_server.url + "/admin/login/")
    staff.fill("#id_username", "root")
    staff.fill("#id_password", PASSWORD)
    staff.click("input[type=submit]")
    for url in site.staff:
        _visit(staff, live_server.url, url, folder, csp)
    assert csp.violations == []

    # The watcher is not deaf: inline code on one of these pages is blocked and reported.
    staff.evaluate("document.body.insertAdjacentHTML('beforeend', '<img src=\"/x\" onerror=\"window.ran = 1\">')")
    for _ in range(50):  # the report arrives asynchronously
        if csp.violations:
            break
        staff.wait_for_timeout(100)
    assert staff.evaluate("window.ran") is None
    assert any("script-src-attr" in v for v in csp.violations), csp.violations
    csp.violations.clear()
