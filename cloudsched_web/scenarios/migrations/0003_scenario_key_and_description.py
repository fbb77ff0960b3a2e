"""Scenario.key (a stable identifier loaders find a scenario by) and Scenario.description.

Existing demos get their key: per owner and family, the oldest scenario still called "Demo: <family>"
becomes ``demo-<family>`` (the key ``load_demos`` looks for), so the next start of run.sh keeps it
instead of creating another demo. Every other row keeps an empty key and description.
"""

from django.conf import settings
from django.db import migrations, models

DEMO_PREFIX = "Demo: "  # the name load_demos gave its scenarios before they had a key


def key_existing_demos(apps, schema_editor):
    Scenario = apps.get_model("scenarios", "Scenario")
    seen = set()
    demos = Scenario.objects.filter(name__startswith=DEMO_PREFIX).order_by("created_at", "pk")
    for pk, owner_id, family, name in demos.values_list("pk", "owner_id", "family", "name"):
        if name != DEMO_PREFIX + family or (owner_id, family) in seen:
            continue
        seen.add((owner_id, family))
        Scenario.objects.filter(pk=pk).update(key=f"demo-{family}"[:64])


class Migration(migrations.Migration):
    dependencies = [
        ("scenarios", "0002_trash"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="scenario",
            name="description",
            field=models.TextField(blank=True, default="", help_text="What the scenario is for (free text)."),
        ),
        migrations.AddField(
            model_name="scenario",
            name="key",
            field=models.CharField(
                blank=True,
                default="",
                help_text="A stable identifier a loader finds this scenario by (demos: demo-<family>); a rename keeps it.",
                max_length=64,
            ),
        ),
        migrations.AddConstraint(
            model_name="scenario",
            constraint=models.UniqueConstraint(
                condition=models.Q(("key", ""), _negated=True),
                fields=("owner", "key"),
                name="scenario_key_unique_per_owner",
            ),
        ),
        migrations.RunPython(key_existing_demos, migrations.RunPython.noop),
    ]
