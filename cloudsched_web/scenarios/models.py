from django.conf import settings
from django.db import models

import schedulers


class Scenario(models.Model):
    """A saved, validated scenario (DESIGN.md "Scenario (input)") owned by one user."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scenarios")
    family = models.CharField(max_length=32, db_index=True)
    name = models.CharField(max_length=200)
    config = models.JSONField(help_text="The validated scenario as the library takes it.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self):
        return f"{self.name} ({self.family})"

    def clean(self):
        from django.core.exceptions import ValidationError

        try:
            family, cfg = schedulers.validate(self.config)
        except schedulers.ScenarioError as exc:
            raise ValidationError({"config": [f"{f}: {m}" for f, m in exc.by_field().items()]}) from None
        self.family = family.name
        self.config = cfg.model_dump(mode="json")
        self.name = self.config.get("name") or self.name
