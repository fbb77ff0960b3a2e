import resource

import pytest

# The Chromium page and the real Celery worker fixtures, shared by every browser test module.
from tests.browser.test_run_flow import page, worker  # noqa: F401


@pytest.fixture(autouse=True)
def _uncapped_address_space():
    """Chromium reserves a huge address space: lift a cap that an in-process task run left behind.

    `runs.tasks.run_simulation` called directly (tests/web/test_tasks.py) sets RLIMIT_AS on the
    pytest process itself, and a browser launched after it dies at start-up with SIGTRAP.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
