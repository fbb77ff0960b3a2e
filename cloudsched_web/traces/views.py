"""Trace pages: the user's traces (with an upload form) and downloads, owner-checked.

A trace's text is never put in a page: pages show its summary (:func:`traces_of`) and link
to the download, which streams the stored gzip file.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

import schedulers
from cloudsched_web.traces.lists import download_response, traces_of
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import max_upload_bytes, store_upload


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
