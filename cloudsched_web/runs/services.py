"""Submitting runs: the row first, the Celery message after the transaction commits."""

import logging

from django.db import transaction

from cloudsched_web.runs.models import Run

log = logging.getLogger(__name__)


def _send(run_id):
    from cloudsched_web.runs.tasks import run_simulation

    try:
        run_simulation.delay(run_id)
    except Exception:  # broker down: the row stays queued and `requeue_runs` resends it
        log.exception("could not send run %s to the broker; it stays queued", run_id)


def submit_run(scenario):
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    transaction.on_commit(lambda: _send(run.id))
    return run


def requeue_stale():
    """Resend every queued run (after a broker outage); claiming makes duplicates harmless."""
    ids = list(Run.objects.filter(status=Run.Status.QUEUED).values_list("id", flat=True))
    for run_id in ids:
        _send(run_id)
    return ids
