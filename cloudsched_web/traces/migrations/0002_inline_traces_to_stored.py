"""Inline SWF text of stored scenarios and runs becomes stored Traces, referenced by ``workload.trace``.

For each scenario (trashed ones too) and each run whose configuration holds a trace workload
with inline text (backfill/federated ``workload.swf``, vm_reservations ``workload.text``): the
text is stored as a Trace (gzip file in the default storage, SHA-256, summary; same content =
same Trace, owned by the scenario's owner) and the configuration keeps only
``"trace": "sha256:…"``. Every other key is unchanged, so the scenario stays valid and its
runs reproduce. Text that no longer parses is left inline (reported). Reversible: going back
writes the text into the configuration again from the stored file.
"""

import gzip
import hashlib

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import migrations

INLINE_FIELDS = {"backfill": ("swf", ""), "federated": ("swf", None), "vm_reservations": ("text", None)}


def _inline(config):
    family = config.get("family") if isinstance(config, dict) else None
    wl = config.get("workload") if family in INLINE_FIELDS else None
    if not isinstance(wl, dict) or wl.get("kind") != "trace":
        return None
    field, unused = INLINE_FIELDS[family]
    text = wl.get(field)
    return (wl, field, unused, text) if isinstance(text, str) and text.strip() else None


def _store(Trace, TraceHolder, text, name, owner_id, cache):
    from schedulers.core.swf import read_swf
    from schedulers.core.traces import summary

    data = text.encode("utf-8", "surrogateescape")
    digest = hashlib.sha256(data).hexdigest()
    if digest in cache:
        trace = cache[digest]
    else:
        trace = Trace.objects.filter(sha256=digest).first()
        if trace is None:
            info = summary(read_swf(data))
            blob = gzip.compress(data, compresslevel=6, mtime=0)
            name_in_storage = f"traces/{digest}.swf.gz"
            if not default_storage.exists(name_in_storage):
                name_in_storage = default_storage.save(name_in_storage, ContentFile(blob))
            trace = Trace.objects.create(
                sha256=digest, name=name[:200], file=name_in_storage, owner_id=owner_id,
                text_bytes=len(data), stored_bytes=len(blob),
                **{k: info[k] for k in ("jobs", "usable_jobs", "processors", "span_s", "natural_load")},
            )  # fmt: skip
        cache[digest] = trace
    if owner_id is not None:
        TraceHolder.objects.get_or_create(trace=trace, user_id=owner_id, defaults={"name": name[:200]})
    return f"sha256:{digest}"


def forwards(apps, schema_editor):
    from schedulers.core.swf import SwfError

    Trace = apps.get_model("traces", "Trace")
    TraceHolder = apps.get_model("traces", "TraceHolder")
    Scenario = apps.get_model("scenarios", "Scenario")
    Run = apps.get_model("runs", "Run")
    cache = {}
    families = list(INLINE_FIELDS)
    rows = [(Scenario, Scenario.objects.filter(family__in=families), "owner_id"),
            (Run, Run.objects.filter(scenario__family__in=families).select_related("scenario"), None)]  # fmt: skip
    for model, queryset, owner_attr in rows:
        for pk in queryset.values_list("pk", flat=True):
            row = model.objects.select_related(*([] if owner_attr else ["scenario"])).get(pk=pk)
            found = _inline(row.config)
            if found is None:
                continue
            wl, field, unused, text = found
            owner_id = getattr(row, owner_attr) if owner_attr else row.scenario.owner_id
            name = f"{row.config.get('name') or 'scenario'} (inline trace)"
            try:
                ref = _store(Trace, TraceHolder, text, name, owner_id, cache)
            except SwfError as exc:
                print(f"\n  {model.__name__} {pk}: inline trace left as it is (it does not parse: {exc})")
                continue
            row.config = {**row.config, "workload": {**wl, field: unused, "trace": ref}}
            row.save(update_fields=["config"])


def backwards(apps, schema_editor):
    Trace = apps.get_model("traces", "Trace")
    for model in (apps.get_model("scenarios", "Scenario"), apps.get_model("runs", "Run")):
        for pk in model.objects.filter(config__workload__trace__startswith="sha256:").values_list("pk", flat=True):
            row = model.objects.get(pk=pk)
            wl = dict(row.config["workload"])
            family = row.config.get("family")
            trace = Trace.objects.filter(sha256=wl["trace"].removeprefix("sha256:")).first()
            if family not in INLINE_FIELDS or trace is None:
                continue
            with default_storage.open(trace.file.name, "rb") as f:
                text = gzip.decompress(f.read()).decode("utf-8", "surrogateescape")
            wl.pop("trace")
            wl[INLINE_FIELDS[family][0]] = text
            row.config = {**row.config, "workload": wl}
            row.save(update_fields=["config"])


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0001_initial"),
        ("scenarios", "0002_trash"),
        ("runs", "0009_trash"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
