"""The Celery app (cookiecutter-django wiring: CELERY_ settings namespace, autodiscovery)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cloudsched_web.settings")

app = Celery("cloudsched")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
