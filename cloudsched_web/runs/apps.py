import logging

from django.apps import AppConfig

from cloudsched_web.celery import RUN_TASK

log = logging.getLogger(__name__)


def _ours(sender, args):
    return getattr(sender, "name", "") == RUN_TASK and args and not getattr(sender.request, "is_eager", False)


def _owner_released(run_id, starting=None):
    from cloudsched_web.runs.models import Run
    from cloudsched_web.runs.services import release

    owner = Run.objects.filter(id=run_id).values_list("scenario__owner_id", flat=True).first()
    if owner is not None:
        release([owner], starting=starting)


def release_when_taken(sender=None, args=(), **kwargs):
    """A worker took a run: its owner's next held run may wait at the broker in its place (services.release)."""
    if _ours(sender, args):
        try:
            _owner_released(args[0], starting=args[0])
        except Exception:  # the sweeper releases it later; the run itself must not fail for this
            log.exception("could not release the next run after run %s was taken", args[0])


def release_after_run(sender=None, args=(), **kwargs):
    """A run ended (or failed, or its worker gave up): anything its owner still holds may go."""
    if _ours(sender, args):
        try:
            _owner_released(args[0])
        except Exception:
            log.exception("could not release the next run after run %s", args[0])


class RunsConfig(AppConfig):
    name = "cloudsched_web.runs"

    def ready(self):
        from celery.signals import task_postrun, task_prerun

        # The tasks are registered in every process, web too: services send them by name, and with
        # CELERY_TASK_ALWAYS_EAGER (tests) the registered task runs in-process.
        from cloudsched_web.runs import tasks  # noqa: F401

        task_prerun.connect(release_when_taken, weak=False, dispatch_uid="runs-release-when-taken")
        task_postrun.connect(release_after_run, weak=False, dispatch_uid="runs-release-after-run")
