from django.conf import settings
from django.db import models


class Live(models.Manager):
    """The default manager: rows not in the trash. Every page, API list and detail goes through it."""

    def get_queryset(self):
        return super().get_queryset().filter(trashed_at=None)


class Trashable(models.Model):
    """Deleting moves a row to the trash (``trashed_at``); ``runs/trash.py`` restores and purges.

    ``objects`` hides trashed rows (also through related managers such as ``scenario.runs``);
    ``all_objects`` sees them (the trash page, the admin, the purge).
    """

    trashed_at = models.DateTimeField(null=True, blank=True, db_index=True, editable=False)

    objects = Live()
    all_objects = models.Manager()  # noqa: DJ012 - ruff reads models.Manager() as a field

    class Meta:
        abstract = True


class Scenario(Trashable):
    """A saved, validated scenario (docs/design.md "Scenario (input)") owned by one user."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scenarios")
    family = models.CharField(max_length=32, db_index=True)
    name = models.CharField(max_length=200)
    key = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="A stable identifier a loader finds this scenario by (demos: demo-<family>); a rename keeps it.",
    )
    description = models.TextField(blank=True, default="", help_text="What the scenario is for (free text).")
    config = models.JSONField(help_text="The validated scenario as the library takes it.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "key"], condition=~models.Q(key=""), name="scenario_key_unique_per_owner"
            )
        ]

    def __str__(self):
        return f"{self.name} ({self.family})"

    def accepted(self, family, config):
        """Take the accepted scenario (``scenarios.services.accept``): its family, configuration and name."""
        self.family, self.config = family.name, config
        self.name = self.config.get("name") or self.name
