"""The WSGI application. Importing it also imports the URLconf, with every view and what they import,
and compiles the project's templates (with their tag libraries), so a web process is ready before its
first request (gunicorn imports this in the master with
``preload_app``, scripts/gunicorn.conf.py, and forks the workers from it)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cloudsched_web.settings")
application = get_wsgi_application()


def _warm() -> None:
    from django.conf import settings
    from django.db import connections
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 — imports every view module now, not on the first request
    for folder in settings.TEMPLATES[0]["DIRS"]:  # kept compiled by the cached loader (DEBUG off)
        for path in sorted(folder.rglob("*.html")):
            get_template(str(path.relative_to(folder)))
    connections.close_all()  # nothing opened here may be shared by forked workers
    import logging

    from schedulers import plugins

    plugins.log_left_out(logging.getLogger("cloudsched_web"))  # an operator sees a broken package at start


_warm()
