"""Create the admin account once, with a generated password printed a single time."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create a superuser 'admin' with a generated password if no superuser exists."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, **opts):
        users = get_user_model().objects
        if users.filter(is_superuser=True).exists():
            self.stdout.write("an admin account exists already (password not shown again)")
            return
        password = secrets.token_urlsafe(12)
        users.create_superuser(opts["username"], "", password)
        self.stdout.write(self.style.SUCCESS(f"admin account: {opts['username']} / {password}  (shown once; keep it)"))
