"""The run pages: a run's result page and its chart data, exports, the diff of two schedules, cancel, delete,
share links, and the trash (the study pages: ``runs.study_views``)."""

import json
from urllib.parse import urlencode

import orjson
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_POST

from cloudsched_web.results import charts, checks, cuts, exports, kinds, queries, stamp, store
from cloudsched_web.runs import describe, page, trash
from cloudsched_web.runs.claims import study_claims
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.responses import (
    attachment,
    dist_figure,
    has_jobs,
    int_or,
    query_error,
    result_of,
    toggle_share,
)
from cloudsched_web.scenarios.services import clone_config
from cloudsched_web.traces.lists import traces_of


def _get_run_for_user(request, pk):
    return get_object_or_404(
        Run.objects.select_related("scenario", "study", "reading"), pk=pk, scenario__owner=request.user
    )


def _render_run(request, run, shared=False, token=None):
    stored = run.page if run.status == Run.Status.SUCCEEDED else None
    if stored:  # computed by the worker: no parse of the full result (see runs/page.py)
        doc, validity, can_swf = stored["header"], stored["validity"], stored["can_swf"]
    else:  # runs stored before Run.page existed: read the whole result once
        full = run.load_result() if run.status == Run.Status.SUCCEEDED else None
        summary = page.summarize(full) if full else None
        doc = summary["header"] if summary else None
        validity = summary["validity"] if summary else None
        can_swf = bool(summary) and summary["can_swf"]
    ctx = {
        "run": run,
        "shared": shared,
        "token": token,
        "status": run.status_dict(),
        "payload": charts.run_page_payload(doc) if doc else None,
        "table": charts.summary_table(doc) if doc else None,
        "validity": validity,
        "stamp": stamp.stamp(run, doc, public=shared),
        "can_swf": can_swf,
        "traces": traces_of(run.config, run.scenario.owner),
        "workload": describe.workload(run.config, doc),
        "dropped": describe.dropped(doc),
        "share_url": _share_url(request, run) if not shared else None,
        "cuts": cuts.schedule_cuts(doc) if doc else [],
        "run_claims": study_claims(run.study, run.reading) if run.study_id and run.study.preset else None,
        "same_workload": 0 if shared else _same_workload(request, run).count(),
        "downloads": _downloads(run) if doc and not shared else None,
        "has_jobs": bool(doc) and has_jobs(run),
    }
    return render(request, "runs/detail.html", ctx)


def _size(size):
    return ("" if size["exact"] else "about ") + filesizeformat(size["bytes"])


def _downloads(run):
    """The table files' links, one run per line, each with its size ("about" where it is an estimate)."""
    parsed = result_of(run)
    if parsed is None:
        return None
    sizes = exports.download_sizes(parsed)
    url = reverse("run_export", args=[run.pk, "KIND"])
    lines = []
    for r in sizes["runs"]:
        cells = []
        for export in TABLES:
            f = r["files"].get(export)
            links = [] if f is None else [
                {"label": "CSV", "url": url.replace("KIND", export) + f"?run={r['i']}", "size": _size(f["csv"])},
                {"label": "Parquet", "url": url.replace("KIND", export + ".parquet") + f"?run={r['i']}",
                 "size": _size(f["parquet"])},
            ]  # fmt: skip
            cells.append({"rows": f"{f['rows']:,}" if f else "", "links": links})
        lines.append({"algorithm": r["algorithm"], "repetition": r["repetition"], "cells": cells})
    every = [{"url": url.replace("KIND", e) + "?run=all", "size": _size(s)} if (s := sizes["all_csv"].get(e)) else None
             for e in TABLES]  # fmt: skip
    return {"lines": lines, "all": every, "tables": list(TABLES)}


def _share_url(request, obj):
    """The absolute address of a run's share link (shown in a read-only field to copy), or None."""
    if obj.share_token is None:
        return None
    return request.build_absolute_uri(reverse("run_shared", args=[obj.share_token]))


@login_required
def detail(request, pk):
    return _render_run(request, _get_run_for_user(request, pk))


@login_required
def status(request, pk):
    return JsonResponse(_get_run_for_user(request, pk).status_dict())


def _data(request, run, other=None):
    """Chart data of a kind of ``results.kinds`` (the API answers through the same registry): ``kind=gantt&run=i``,
    ``kind=series&rep=r``, ``kind=strips&rep=r`` (DVFS), ``kind=diff&a=i&b=j`` (``offset``, ``limit``: a page of
    its changed jobs), ``kind=jobs``, ``kind=dist``.

    ``other`` (the owner's run named by ``with=<pk>``, same workload digest): ``b`` indexes its runs.
    """
    parsed = result_of(run)
    if parsed is None:
        return JsonResponse({"error": "this run has no result yet"}, status=404)
    try:
        data = kinds.read(parsed, request.GET.get("kind", "gantt"), request.GET,
                          other=result_of(other) if other is not None else None)  # fmt: skip
    except queries.QueryError as exc:
        return query_error(exc)
    # orjson: a window of 100,000 bars is a few MB of numbers (json: 10× slower); gzip_page compresses it
    return HttpResponse(orjson.dumps(data), content_type="application/json")


def _run_dist_figure(request, run, chart, fmt):
    return dist_figure(request, result_of(run), chart, fmt, run.title, f"run-{run.pk}")


@login_required
def run_dist_figure(request, pk, chart, fmt):
    return _run_dist_figure(request, _get_run_for_user(request, pk), chart, fmt)


def shared_run_dist_figure(request, token, chart, fmt):
    return _run_dist_figure(request, _shared_run(token), chart, fmt)


def _same_workload(request, run):
    """The owner's other finished runs with ``run``'s workload digest (one indexed query), newest first."""
    if not run.workload_digest:
        return Run.objects.none()
    mine = Run.objects.filter(scenario__owner=request.user, status=Run.Status.SUCCEEDED)
    return (
        mine.filter(workload_digest=run.workload_digest)
        .exclude(pk=run.pk)
        .select_related("scenario")
        .only("pk", "config", "finished_at", "point", "study_id", "scenario__name")
        .order_by("-finished_at", "-pk")
    )


def _other_run(request, run):
    """The run named by ``with=<pk>``: the owner's, finished, on the same workload; 404 otherwise."""
    raw = request.GET.get("with", "")
    if not raw:
        return None
    try:
        pk = int(raw)
    except ValueError:
        raise Http404("with: not a run number") from None
    other = Run.objects.filter(pk=pk, scenario__owner=request.user, status=Run.Status.SUCCEEDED).first()
    if other is None or not run.workload_digest or other.workload_digest != run.workload_digest:
        raise Http404("with: no finished run of yours on the same workload")
    return other


@login_required
@gzip_page
def data(request, pk):
    run = _get_run_for_user(request, pk)
    return _data(request, run, _other_run(request, run))


EXPORTS = ("scenario", "json", "metrics", "summary", "schedule", "swf", "jobs", "series",
           "schedule.parquet", "jobs.parquet", "series.parquet")  # fmt: skip
TABLES = {"schedule": "segments", "jobs": "jobs", "series": "series"}


def _export(run, kind, index=0):
    """A download; table files (CSV, Parquet) are of run ``index`` (CSV: every run when None), streamed."""
    if kind not in EXPORTS:
        raise Http404("unknown export")
    if kind == "scenario":
        body = json.dumps(run.config, indent=2)
        return attachment(HttpResponse(body, content_type="application/json"), f"run-{run.pk}-scenario.json")
    parsed = result_of(run)
    if parsed is None:
        raise Http404("this run has no result")
    doc = parsed.doc
    if kind == "json":
        body = store.stream_json(doc, parsed.manifest)
        return attachment(StreamingHttpResponse(body, content_type="application/json"), exports.filename(run.pk, kind))
    if kind == "metrics":
        return attachment(
            HttpResponse(exports.metrics_csv(doc), content_type="text/csv"), exports.filename(run.pk, kind)
        )
    if kind == "summary":
        return attachment(
            HttpResponse(exports.summary_csv(doc), content_type="text/csv"), exports.filename(run.pk, kind)
        )
    if kind == "swf":
        text = exports.workload_swf(parsed)
        if text is None:
            raise Http404("this family's job records do not carry submit time, runtime and size")
        return attachment(HttpResponse(text, content_type="text/plain"), exports.filename(run.pk, kind))
    return _table_export(run, parsed, kind, index)


def _table_export(run, parsed, kind, index):
    table = TABLES[kind.split(".")[0]]
    try:
        one = {"i": index, "algorithm": parsed.run(index).get("algorithm", "")} if index is not None else None
        name = exports.filename(run.pk, kind, one)
        if not kind.endswith(".parquet"):
            chunks = (
                exports.schedule_csv(parsed, index) if table == "segments" else exports.table_csv(parsed, table, index)
            )
            return attachment(StreamingHttpResponse(chunks, content_type="text/csv"), name)
        if index is None:
            raise Http404("Parquet: one run per file (?run=i)")
        stored = exports.parquet_file(parsed, table, index)
        if stored is not None:  # the stored file as it is: its size is known
            return FileResponse(stored, as_attachment=True, filename=name, content_type=PARQUET)
        chunks = exports.table_parquet(parsed, table, index)
    except queries.QueryError as exc:
        raise Http404(str(exc)) from None
    if chunks is None:
        raise Http404("this run has no such table")
    return attachment(StreamingHttpResponse(chunks, content_type=PARQUET), name)


PARQUET = "application/vnd.apache.parquet"


@login_required
def export(request, pk, kind):
    raw = request.GET.get("run", "0")
    return _export(_get_run_for_user(request, pk), kind, None if raw == "all" else int_or(request, "run", 0))


@login_required
def result_json(request, pk):
    return _export(_get_run_for_user(request, pk), "json")


CANDIDATES_PER_PAGE = 50


@login_required
def diff(request, pk):
    run = _get_run_for_user(request, pk)
    candidates = Paginator(_same_workload(request, run), CANDIDATES_PER_PAGE).get_page(request.GET.get("page"))
    return _render_diff(request, run, other=_other_run(request, run), candidates=candidates)


def _render_diff(request, run, token=None, other=None, candidates=None):
    """Two runs of one result (``a``, ``b``), or run ``a`` of this result and run ``b`` of ``other``."""
    parsed = result_of(run)
    if parsed is None:
        raise Http404("this run has no result")
    runs = charts.runs_index(parsed.doc)
    other_parsed = result_of(other) if other is not None else None
    runs_b = charts.runs_index(other_parsed.doc) if other_parsed is not None else runs
    a = int_or(request, "a", 0)
    b = int_or(request, "b", 0 if other is not None else (1 if len(runs) > 1 else 0))
    if not 0 <= a < len(runs):
        a = 0
    if not 0 <= b < len(runs_b):
        b = min(0 if other is not None else 1, len(runs_b) - 1)
    ctx = {"run": run, "runs": runs, "runs_b": runs_b, "a": a, "b": b, "token": token, "shared": token is not None,
           "other": other, "candidates": [_candidate(c) for c in candidates] if candidates else [],
           "candidates_page": candidates,  # every one, a page at a time (the pager says which of how many)
           "candidates_query": urlencode({"a": a, "b": b, **({"with": other.pk} if other else {})})}  # fmt: skip
    ctx["time_unit"] = checks.time_unit({"series": parsed.series_arrays(0)}) if runs else "s"
    return render(request, "runs/diff.html", ctx)


def _candidate(run):
    """A run on the same workload, as the diff page lists it: number, scenario, algorithms, when."""
    cfg = run.config or {}
    return {"pk": run.pk, "name": cfg.get("name") or run.scenario.name, "algorithms": cfg.get("algorithms", []),
            "repetitions": cfg.get("repetitions", 1), "point": run.point, "finished_at": run.finished_at}  # fmt: skip


@login_required
@require_POST
def cancel(request, pk):
    run = _get_run_for_user(request, pk)
    updated = Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLED, finished_at=timezone.now()
    )
    messages.info(request, "Run cancelled." if updated else "The run had already finished.")
    return redirect("run", pk=run.pk)


@login_required
@require_POST
def delete(request, pk):
    run = _get_run_for_user(request, pk)
    trash.trash(run)
    messages.success(request, trash.moved_message(f"run {run.pk}"))
    return redirect("study", pk=run.study_id) if run.study_id else redirect("scenario", pk=run.scenario_id)


@login_required
@require_POST
def share(request, pk):
    run = _get_run_for_user(request, pk)
    toggle_share(request, run)
    return redirect("run", pk=run.pk)


def _shared_run(token):
    return get_object_or_404(Run.objects.select_related("scenario", "study", "reading"), share_token=token)


def shared(request, token):
    return _render_run(request, _shared_run(token), shared=True, token=token)


@gzip_page
def shared_data(request, token):
    return _data(request, _shared_run(token))


def shared_export(request, token, kind):
    if kind not in ("scenario", "metrics", "summary"):
        raise Http404("not shared")
    return _export(_shared_run(token), kind)


def shared_diff(request, token):
    return _render_diff(request, _shared_run(token), token=token)


@login_required
@require_POST
def shared_clone(request, token):
    """A logged-in viewer of a share link copies the scenario into their own scenarios."""
    run = _shared_run(token)
    copy = clone_config(request.user, run.config, run.title)  # the name it ran under, as its page shows
    messages.success(request, f"Cloned into your scenarios as “{copy.name}”.")
    return redirect("scenario", pk=copy.pk)


@login_required
def trash_list(request):
    page = Paginator(trash.items(request.user), settings.LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    ctx = {"items": trash.load(page.object_list), "page": page, "keep_days": trash.keep_days()}
    return render(request, "runs/trash.html", ctx)


@login_required
@require_POST
def trash_restore(request, kind, pk):
    obj = trash.get_for_user(request.user, kind, pk)
    if obj is None:
        raise Http404("no such item")
    try:
        restored = trash.restore(obj)
    except trash.RestoreError as exc:
        messages.error(request, f"Cannot restore {kind} {pk}: {exc}.")
        return redirect("trash")
    messages.success(request, f"Restored {obj}." if restored else f"{obj} was not in the trash.")
    return redirect({"scenario": "scenario", "study": "study", "run": "run"}[kind], pk=obj.pk)
