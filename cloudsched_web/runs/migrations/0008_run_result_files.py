"""Results become columns: schedules, job records and series move from the database blob to Parquet files.

The blob keeps the header (summary, metrics, extras); ``result_files`` is the manifest
of the files (``results.store``). Reversible: going back writes the whole document into
the blob again.
"""

import zlib

import orjson
from django.db import migrations, models


def to_columns(apps, schema_editor):
    from cloudsched_web.results import store

    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(result_blob=None).only("id", "result_blob", "result_files").iterator(chunk_size=1):
        if run.result_files or not run.result_blob:
            continue
        doc = orjson.loads(zlib.decompress(bytes(run.result_blob)))
        header, manifest = store.save(run.pk, "migrated", doc)
        run.result_blob = zlib.compress(orjson.dumps(header), 1)
        run.result_files = manifest
        run.save(update_fields=["result_blob", "result_files"])


def to_blob(apps, schema_editor):
    from cloudsched_web.results import store

    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(result_blob=None).only("id", "result_blob", "result_files").iterator(chunk_size=1):
        if not run.result_files:
            continue
        header = orjson.loads(zlib.decompress(bytes(run.result_blob)))
        run.result_blob = zlib.compress(orjson.dumps(store.full_document(header, run.result_files)), 1)
        run.result_files = {}
        run.save(update_fields=["result_blob", "result_files"])


class Migration(migrations.Migration):
    dependencies = [("runs", "0007_study_verdicts")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="result_files",
            field=models.JSONField(
                blank=True, default=dict, editable=False, help_text="Manifest of the result's Parquet files (runs.store)."
            ),
        ),
        migrations.AlterField(
            model_name="run",
            name="result_blob",
            field=models.BinaryField(
                blank=True,
                editable=False,
                help_text="The result's header (zlib JSON); the columns are files.",
                null=True,
            ),
        ),
        migrations.RunPython(to_columns, to_blob),
    ]
