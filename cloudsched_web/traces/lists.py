"""What the pages and the API show of stored traces: a scenario's traces, the wizard's picker rows, a download.

Shared by the trace, scenario and run pages, the admin and the API (views import these; no view imports another
app's views)."""

from django.http import FileResponse

from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import by_ref, refs

__all__ = ["download_response", "picker_rows", "traces_of"]


def traces_of(config, user):
    """The stored traces a scenario refers to, for a page shown as ``user`` (a missing one is shown as missing)."""
    out = []
    for ref in refs(config):
        trace = by_ref(ref)
        out.append({"ref": ref, "trace": trace, "name": trace.name_for(user) if trace else ""})
    return out


def picker_rows(user):
    """Every trace ``user`` may use (their uploads and the imported logs), newest first, as the scenario
    wizard's trace list shows it: all of them (the list is searched in the page, never cut)."""
    rows = []
    for t in Trace.visible_to(user):
        rows.append({
            "ref": t.ref, "name": t.name_for(user), "jobs": t.jobs, "usable_jobs": t.usable_jobs,
            "processors": t.processors, "processors_from": t.processors_from, "largest_job": t.largest_job,
            "span_s": t.span_s, "text_bytes": t.text_bytes, "stored_bytes": t.stored_bytes,
            "from": "imported" if t.imported else "uploaded",
        })  # fmt: skip
    return rows


def download_response(trace):
    response = FileResponse(trace.file.open("rb"), content_type="application/gzip", as_attachment=True)
    response["Content-Disposition"] = f'attachment; filename="{trace.sha256}.swf.gz"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
