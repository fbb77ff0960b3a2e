"""Create one demo scenario per installed scheduler family (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

import schedulers
from cloudsched_web.scenarios.models import Scenario


class Command(BaseCommand):
    help = "Load one demo scenario per scheduler family for a user (default: the first superuser)."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="username that owns the demos")

    def handle(self, *args, **opts):
        users = get_user_model().objects
        user = users.filter(username=opts["user"]).first() if opts["user"] else users.filter(is_superuser=True).first()
        if user is None:
            raise CommandError("no such user; create an admin first")
        for name in schedulers.all_families():
            config = schedulers.example(name)
            config["name"] = f"Demo: {name}"
            _, cfg = schedulers.validate(config)
            _, created = Scenario.objects.get_or_create(
                owner=user, family=name, name=config["name"], defaults={"config": cfg.model_dump(mode="json")}
            )
            self.stdout.write(f"{'created' if created else 'kept'} demo scenario for {name}")
