"""Trace pages: the user's traces (with an upload form) and downloads, owner-checked.

A trace's text is never put in a page: pages show its summary (:func:`traces_of`) and link
to the download, which streams the stored gzip file.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render

import schedulers
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import by_ref, max_upload_bytes, refs, store_upload


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


@login_required
def trace_list(request):
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            messages.error(request, "file: choose an .swf or .swf.gz file to upload")
        else:
            try:
                trace, created = store_upload(upload, request.user, request.POST.get("name", "").strip())
            except schedulers.ScenarioError as exc:
                for e in exc.errors:
                    messages.error(request, f"{e['field']}: {e['message']} (allowed: {e['allowed']})")
            else:
                shown = trace.name_for(request.user)  # theirs: never another user's name for the same content
                messages.success(request, f"{'Stored' if created else 'Already stored'}: {shown} ({trace.ref}).")
                return redirect("traces")
    page = Paginator(Trace.visible_to(request.user), settings.LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    for t in page.object_list:
        t.shown_name = t.name_for(request.user)
    context = {"traces": page.object_list, "page": page, "max_bytes": max_upload_bytes()}
    return render(request, "traces/list.html", context)


@login_required
def download(request, pk):
    return download_response(get_object_or_404(Trace.visible_to(request.user), pk=pk))


def shared_download(request, token):
    """The trace of a shared run, for whoever holds the share link (to reproduce it with the CLI)."""
    from cloudsched_web.runs.models import Run

    run = get_object_or_404(Run.objects.only("config"), share_token=token)
    found = [t["trace"] for t in traces_of(run.config, None) if t["trace"] is not None]
    if not found:
        raise Http404("this run reads no stored trace")
    return download_response(found[0])
