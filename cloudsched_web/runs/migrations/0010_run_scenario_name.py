"""Run.scenario_name: the scenario's name when the run was submitted (the run page's title).

Filled for existing runs from what was stored with them: a single run's configuration is the scenario
as submitted, so its ``name`` is the scenario's name then. A study run's configuration carries the
point's own name (a preset names each point), so study runs take the scenario's current name, as
does a run whose configuration has no name. The configuration is read as ``config->name`` only (a
configuration can hold a 100 MB trace).
"""

from django.db import migrations, models
from django.db.models.fields.json import KT

BATCH = 500


def fill_scenario_names(apps, schema_editor):
    Run = apps.get_model("runs", "Run")
    rows = Run.objects.filter(scenario_name="").annotate(config_name=KT("config__name"))
    rows = rows.values_list("pk", "study_id", "config_name", "scenario__name")
    batch = []
    for pk, study_id, config_name, current in rows.iterator(chunk_size=BATCH):
        name = config_name if study_id is None and config_name else current
        batch.append(Run(pk=pk, scenario_name=(name or "")[:200]))
        if len(batch) >= BATCH:
            Run.objects.bulk_update(batch, ["scenario_name"])
            batch = []
    if batch:
        Run.objects.bulk_update(batch, ["scenario_name"])


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0009_trash"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="scenario_name",
            field=models.CharField(
                blank=True,
                help_text="The scenario's name when the run was submitted: the run's title, whatever the scenario is called now.",
                max_length=200,
            ),
        ),
        migrations.RunPython(fill_scenario_names, migrations.RunPython.noop),
    ]
