"""Settings for the test suite: production settings, minus HTTPS enforcement.

The test client and the live server speak plain HTTP on loopback; everything
else (DEBUG off, secure headers) stays as in production.
"""

import os
import tempfile
from pathlib import Path

# The test suite never writes into the checkout's var/: its database, secret key, media and trace
# directory live in a temporary directory of this pytest process (inherited by the worker and server
# processes it starts, which read the same variable); conftest removes it when the session ends.
os.environ.setdefault("CLOUDSCHED_VAR_DIR", tempfile.mkdtemp(prefix="cloudsched-test-var-"))
os.environ.setdefault("STATIC_ROOT", os.path.join(os.environ["CLOUDSCHED_VAR_DIR"], "staticfiles"))

from cloudsched_web.settings import *  # noqa: F403

SECURE_HTTPS = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
SILENCED_SYSTEM_CHECKS = ["security.W004", "security.W008", "security.W012", "security.W016"]
# No collectstatic before tests: serve from the finders (static/, app static/ and the vendor files).
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
# Not the collectstatic target: WhiteNoise serves what is in STATIC_ROOT, and an old collection there
# must not decide what the tests see.
STATIC_ROOT = VAR_DIR / "test-static-root"  # noqa: F405
STATIC_ROOT.mkdir(exist_ok=True)

# One test database file per pytest process, so parallel test sessions never share (and clobber) one.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}  # noqa: F405

# Per-process cache in tests: no table needed by tests that never touch the database.
# The throttle alias shares the default's store (same LOCATION), so tests/conftest.py's cache.clear()
# starts every test with fresh login and API counters too.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "throttle": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}

# Result files of this test session: one directory, shared with the worker subprocesses it starts
# (they inherit the environment variable).
MEDIA_ROOT = Path(os.environ.setdefault("MEDIA_ROOT", str(VAR_DIR / f"test-media-{os.getpid()}")))  # noqa: F405
