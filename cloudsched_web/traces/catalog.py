"""The web's trace catalog: ``workload.trace`` references resolve to stored Trace files.

Installed by ``TracesConfig.ready`` in every web and worker process, so validation (on save)
and the worker (on run) both find a trace in the ``Trace`` table and read its file — a
``Path``, never text from the scenario. A run's cost is estimated from the summary stored with the
trace (:meth:`StoredTraces.summary`). Presets that call for a real log find it among the
imported traces (no owner), by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedulers.core.traces import SUFFIXES, TraceCatalog


class StoredTraces(TraceCatalog):
    where = "the stored traces"

    def path(self, ref: str) -> Path | None:
        from cloudsched_web.traces.models import Trace
        from cloudsched_web.traces.services import local_path

        # Only what finding the file needs (a migration may run this with the table of an earlier schema).
        trace = Trace.objects.filter(sha256=ref.removeprefix("sha256:")).only("pk", "sha256", "file").first()
        if trace is None:
            return None
        path = local_path(trace)
        return path if path.is_file() else None

    def summary(self, ref: str) -> dict[str, Any] | None:
        """The summary computed while the trace was streamed in at upload (exact, every job); a trace stored
        before ``size_sum`` was kept is read through once per process instead."""
        from cloudsched_web.traces.models import Trace
        from cloudsched_web.traces.services import SUMMARY_FIELDS

        row = Trace.objects.filter(sha256=ref.removeprefix("sha256:")).values(*SUMMARY_FIELDS).first()
        if row is None or row["size_sum"] is None:
            return super().summary(ref)
        return row

    def log(self, filename: str) -> dict[str, str] | None:
        from cloudsched_web.traces.models import Trace

        stem = filename
        for suffix in SUFFIXES[::-1]:
            stem = stem.removesuffix(suffix)
        names = {filename, stem, f"{stem}.swf", f"{stem}.swf.gz"}
        trace = Trace.objects.filter(imported=True, name__in=names).order_by("-created_at").first()
        return {"trace": trace.ref} if trace is not None else None

    def missing(self, ref: str, field: str) -> dict[str, str]:
        # The same words as for another user's trace (services.check_refs): a reference says nothing
        # about whether someone else stored that content.
        return {
            "field": field,
            "message": f"no stored trace {ref} that you can use",
            "allowed": "a trace you uploaded, or one imported with manage.py import_trace (GET /api/v1/traces)",
        }

    def how_to_add(self, filename: str = "") -> str:
        if filename:
            return f"an administrator imports it with `python manage.py import_trace /path/to/{filename}`"
        return "upload it (the scenario form's trace file, POST /api/v1/traces) or `manage.py import_trace FILE`"
