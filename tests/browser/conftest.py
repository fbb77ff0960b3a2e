"""The Chromium page and the real Celery worker, shared by every browser test module.

Every page opened through ``csp.attach`` (the ``page`` fixture is) reports Content-Security-Policy
violations; a test that caused one fails at teardown. The policy forbids eval in the page too, so a
test waits with a function (``wait_for_function("() => …")``), never a bare expression string,
which Playwright would eval inside the page.
"""

import os
from pathlib import Path

import pytest
from django.conf import settings

from tests.services import launch_chromium, worker_on_own_redis

# The browser fires `securitypolicyviolation` for every blocked script, handler, style or fetch;
# turn it into a console error the watcher collects (Chromium also logs "Refused to …" itself).
_REPORT_VIOLATIONS = """document.addEventListener('securitypolicyviolation', (e) => console.error(
  `CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'} at ${e.sourceFile}:${e.lineNumber}`));"""


def screens_dir() -> Path:
    """Where browser tests keep full-page screenshots of each page type, for a person to look at:
    ``$CLOUDSCHED_SHOTS``, else ``var/screens/tests/`` (gitignored). Created on first use."""
    folder = Path(os.environ.get("CLOUDSCHED_SHOTS") or settings.VAR_DIR / "screens" / "tests")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page, name: str) -> Path:
    """A full-page screenshot of ``page`` as ``<screens_dir>/<name>.png``."""
    path = screens_dir() / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def shots():
    return screens_dir()


class CspWatch:
    def __init__(self):
        self.violations = []

    def attach(self, page):
        page.add_init_script(_REPORT_VIOLATIONS)
        page.on("console", lambda msg: self._console(page, msg))
        return page

    def _console(self, page, msg):
        if msg.text.startswith("CSP violation") or "Content Security Policy" in msg.text:
            self.violations.append(f"{page.url}: {msg.text}")


@pytest.fixture
def csp():
    watch = CspWatch()
    yield watch
    assert watch.violations == [], "Content-Security-Policy violations:\n" + "\n".join(watch.violations)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls in the test are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, csp):
    page = csp.attach(browser.new_page())
    page.set_default_timeout(30_000)
    return page


@pytest.fixture
def worker(tmp_path):
    with worker_on_own_redis(tmp_path) as w:
        yield w
