"""A web process imports the URLconf with every view when it loads the application (cloudsched_web/wsgi.py),
and gunicorn loads it in the master before forking (scripts/gunicorn.conf.py ``preload_app``)."""

import runpy
import subprocess
import sys

from tests.services import ROOT

# In a fresh interpreter: the WSGI application loaded as gunicorn loads it, then the first request a
# worker serves (the login page), with the test settings (static files from the finders: no collectstatic needed). Prints the project's and the libraries' modules that request imported.
CHILD = """
import os, sys
os.environ.update({"DJANGO_SETTINGS_MODULE": "cloudsched_web.test_settings", "CLOUDSCHED_VAR_DIR": sys.argv[1],
                   "ALLOWED_HOSTS": "testserver", "DEBUG": "0", "SECURE_HTTPS": "0"})
import cloudsched_web.wsgi
before = set(sys.modules)
from django.test import Client
assert Client().get("/accounts/login/").status_code == 200
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in ("cloudsched_web", "ninja", "pydantic"))
print(" ".join(new))
"""


def _imported_by_first_request(code, tmp_path):
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_the_first_request_imports_no_view(tmp_path):
    assert _imported_by_first_request(CHILD, tmp_path) == []


def test_without_the_warm_up_the_first_request_imports_the_views(tmp_path):
    # The check above can fail: the same request, with the warm-up left out, imports the views.
    code = CHILD.replace("import cloudsched_web.wsgi", "import django; django.setup()")
    assert "cloudsched_web.runs.views" in _imported_by_first_request(code, tmp_path)


def test_gunicorn_preloads_the_application_unless_told_not_to(monkeypatch):
    config = str(ROOT / "scripts" / "gunicorn.conf.py")
    monkeypatch.delenv("WEB_PRELOAD", raising=False)
    assert runpy.run_path(config)["preload_app"] is True
    monkeypatch.setenv("WEB_PRELOAD", "0")
    assert runpy.run_path(config)["preload_app"] is False
