"""What the run and study pages share: a run's parsed result, query errors as 400s, attachments, share
toggles, and the per-job table and distributions (with their SVG/PDF figures) that both pages draw."""

import re

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse

from cloudsched_web.results import jobstats, queries
from cloudsched_web.runs.models import Run

__all__ = ["attachment", "dist_figure", "has_jobs", "int_or", "query_error", "result_of", "toggle_share"]


def result_of(run):
    """A succeeded run's parsed result (cached per process: ``queries.get_result``), else None."""
    return queries.get_result(run) if run.status == Run.Status.SUCCEEDED else None


def query_error(exc):
    """A bad query parameter: 400 with the error, the field it names and what it allows."""
    return JsonResponse({"error": str(exc), "field": exc.field, "allowed": exc.allowed}, status=400)


def attachment(response, name):
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def int_or(request, name, default):
    try:
        return int(request.GET.get(name, default))
    except ValueError:
        return default


def toggle_share(request, obj):
    if request.POST.get("revoke"):
        obj.unshare()
        messages.info(request, "Share link revoked: it no longer opens.")
    else:
        obj.share()
        messages.success(request, "Share link created: anyone with it can view this page read-only.")


def has_jobs(run):
    """Whether some run of the stored result keeps per-job records (read off the manifest: no file opened)."""
    return any(r.get("jobs") for r in (run.result_files or {}).get("runs", []))


def dist_figure(request, parsed, chart, fmt, title, name):
    """A per-job distribution chart (``cdf`` or ``box``) as an SVG or PDF file, drawn from the payload the page
    draws with the same query (``measure``, ``rep``, ``pixels``, ``log``: 1 or 0, default the measure's)."""
    from cloudsched_web.results import jobfigures

    if fmt not in jobfigures.FORMATS or chart not in jobfigures.CHARTS:
        raise Http404("no such figure")
    measures = jobstats.measures_of(parsed) if parsed is not None else []
    if not measures:
        raise Http404("these results keep no per-job records")
    raw_log = request.GET.get("log", "")
    try:
        if raw_log not in ("", "0", "1", "true", "false"):
            raise queries.QueryError("log", f"{raw_log[:20]!r} is not a yes or no", "1 or 0")
        key = request.GET.get("measure") or measures[0]["key"]
        log = (
            next((m["log"] for m in measures if m["key"] == key), False) if raw_log == "" else raw_log in ("1", "true")
        )
        # the scale first: the rows of dense outliers are cut for it
        data = jobstats.distributions(parsed, key, request.GET.get("rep") or None,
                                      request.GET.get("pixels") or jobstats.OUTLIER_PIXELS, log)  # fmt: skip
    except queries.QueryError as exc:
        return query_error(exc)
    body = jobfigures.figure_bytes(data, chart, fmt, log, title)
    key = re.sub(r"[^A-Za-z0-9_.-]", "_", data["measure"]["key"])
    return attachment(HttpResponse(body, content_type=jobfigures.FORMATS[fmt]), f"{name}-{key}-{chart}.{fmt}")
