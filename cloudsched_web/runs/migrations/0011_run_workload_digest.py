"""Run.workload_digest: runs on the same workload (schedulers.workload_digest) found by one indexed query.

Existing results get theirs from the scenario their header stored; a run without a result keeps "".
"""

import zlib

import orjson
from django.db import migrations, models


def fill(apps, schema_editor):
    from cloudsched_web.runs.models import workload_digest_of

    Run = apps.get_model("runs", "Run")
    rows = Run.objects.exclude(result_blob=None).only("pk", "result_blob").iterator(chunk_size=200)
    for run in rows:
        header = orjson.loads(zlib.decompress(bytes(run.result_blob)))
        digest = workload_digest_of(header.get("scenario"))
        if digest:
            Run.objects.filter(pk=run.pk).update(workload_digest=digest)


class Migration(migrations.Migration):
    dependencies = [("runs", "0010_run_scenario_name")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="workload_digest",
            field=models.CharField(
                blank=True,
                db_index=True,
                editable=False,
                max_length=80,
                help_text="schedulers.workload_digest of the result's scenario: runs that share it faced the same instances.",
            ),  # fmt: skip
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
