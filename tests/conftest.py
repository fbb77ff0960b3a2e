import os

import pytest
from django.contrib.auth import get_user_model
from hypothesis import settings

from tests import toy_family

# Property tests: no per-example deadline (a loaded machine stretches an example past 200 ms and the
# test fails for no reason) and derandomised, so a CI run is repeatable; HYPOTHESIS_PROFILE=explore
# searches with fresh random examples.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

toy_family.install()


@pytest.fixture
def toy_scenario():
    return toy_family.TOY.example()


PASSWORD = "correct horse battery staple"


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", "alice@example.org", PASSWORD)


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", "bob@example.org", PASSWORD)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttling counters live in the (per-process) cache: every test starts from zero."""
    from django.core.cache import cache

    cache.clear()


def pytest_sessionfinish(session, exitstatus):
    """Result files written by this session (results.store) go with it."""
    import shutil
    from pathlib import Path

    from django.conf import settings

    root = Path(settings.MEDIA_ROOT)
    if root.name.startswith("test-media-"):
        shutil.rmtree(root, ignore_errors=True)
    var = Path(settings.VAR_DIR)
    if var.name.startswith("cloudsched-test-var-"):  # made by test_settings for this session
        shutil.rmtree(var, ignore_errors=True)
