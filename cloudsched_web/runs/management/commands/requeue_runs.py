"""Resend queued runs to the broker (after a broker outage or a restart)."""

from django.core.management.base import BaseCommand

from cloudsched_web.runs.services import requeue_stale


class Command(BaseCommand):
    help = "Send queued runs that never reached the broker again (--all: every queued run)."

    def add_arguments(self, parser):
        parser.add_argument("--all", action="store_true", help="resend every queued run")

    def handle(self, *args, **opts):
        ids = requeue_stale(everything=opts["all"])
        self.stdout.write(f"resent {len(ids)} queued run(s)")
