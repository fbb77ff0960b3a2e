"""Resend queued runs to the broker (after a broker outage or a restart)."""

from django.core.management.base import BaseCommand

from cloudsched_web.runs.services import requeue_stale


class Command(BaseCommand):
    help = "Send every queued run to the Celery broker again; claiming makes duplicates harmless."

    def handle(self, *args, **opts):
        ids = requeue_stale()
        self.stdout.write(f"resent {len(ids)} queued run(s)")
