"""Refusing what a worker cannot run, before anything is queued .

``schedulers.estimate`` gives a scenario's peak memory and simulation CPU time; a scenario over
``RUN_MEMORY_LIMIT_MB`` (the worker's address-space limit; 0: none) or ``RUN_SOFT_TIME_LIMIT_S``
(``CELERY_TASK_SOFT_TIME_LIMIT``) is a ``ScenarioError`` naming the field that most drives it, the
estimate and the limit. Every submission path calls :func:`check` (one scenario) or
:func:`check_points` (a study); saving a scenario (form, API) calls :func:`check` too, so the
answer comes while the scenario is edited.
"""

from django.conf import settings

import schedulers
from schedulers.core.estimate import refusal


def limits():
    """(memory limit in MB, time limit in s) of this server's runs; 0 means none."""
    return getattr(settings, "RUN_MEMORY_LIMIT_MB", 0) or 0, getattr(settings, "CELERY_TASK_SOFT_TIME_LIMIT", 0) or 0


def errors(config):
    """The budget errors of a valid scenario (a dict or ``(family, model)``); empty when it fits."""
    return refusal(schedulers.estimate(config), *limits())


def check(config):
    """Raise the ScenarioError of a scenario over this server's limits."""
    if found := errors(config):
        raise schedulers.ScenarioError(found)


def check_points(configs):
    """A study's points (dicts or validated ``(family, model)`` pairs): every point over the limits, each
    error's field under ``points[i]``."""
    found = [{**e, "field": f"points[{i}].{e['field']}"} for i, c in enumerate(configs) for e in errors(c)]
    if found:
        raise schedulers.ScenarioError(found)


def checked(validated):
    """``schedulers.validate``'s ``(family, model)`` once it fits this server's limits (else the ScenarioError)."""
    check(validated)
    return validated
