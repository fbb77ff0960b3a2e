"""Create one demo scenario per installed scheduler family, once (found again by its stable key)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, transaction

import schedulers
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.models import Scenario


def demo_key(family):
    """The key a family's demo keeps for good: renaming the demo does not make it a stranger."""
    return f"demo-{family}"[:64]


def load_demo(user, family):
    """The user's demo of ``family``: ``(scenario, created)``; an existing one is kept as it is.

    Looked up by key among every row, trashed ones too: a demo the user put in the trash stays
    there rather than coming back (and the key is unique per owner, trashed or not).
    """
    key = demo_key(family)
    existing = Scenario.all_objects.filter(owner=user, key=key).first()
    if existing is not None:
        return existing, False
    config = schedulers.example(family)
    config["name"] = f"Demo: {family}"
    _, cfg = schedulers.validate(config)
    try:
        with transaction.atomic():
            scenario = Scenario.objects.create(
                owner=user, family=family, name=config["name"], key=key, config=cfg.model_dump(mode="json"),
                description=schedulers.all_families()[family].description,
            )  # fmt: skip
    except IntegrityError:  # another loader created it meanwhile
        return Scenario.all_objects.get(owner=user, key=key), False
    return scenario, True


class Command(BaseCommand):
    help = "Load one demo scenario per scheduler family for a user (default: the first superuser), once."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="username that owns the demos")
        parser.add_argument(
            "--run", action="store_true",
            help="queue one run of each demo created now (a first start), so the home page links to results",
        )  # fmt: skip

    def handle(self, *args, **opts):
        users = get_user_model().objects
        user = users.filter(username=opts["user"]).first() if opts["user"] else users.filter(is_superuser=True).first()
        if user is None:
            raise CommandError("no such user; create an admin first")
        for family in schedulers.all_families():
            scenario, created = load_demo(user, family)
            state = "created" if created else ("kept (in the trash)" if scenario.trashed_at else "kept")
            if created and opts["run"]:
                # Queued now, sent when the broker answers (the outbox): run.sh starts Redis and the worker next.
                run = submit_run(scenario)
                state += f", run {run.pk} queued"
            self.stdout.write(f"{state} demo scenario for {family}: “{scenario.name}”")
