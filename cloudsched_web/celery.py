"""The Celery app (cookiecutter-django wiring: CELERY_ settings namespace, autodiscovery)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cloudsched_web.settings")

app = Celery("cloudsched")
# The run task's name: services send it by name (the tasks module imports services), the signals match it.
RUN_TASK = "cloudsched_web.runs.tasks.run_simulation"
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
