# The Chromium page and the real Celery worker fixtures, shared by every browser test module.
from tests.browser.test_run_flow import page, worker  # noqa: F401
