"""The study pages: a sweep's points as a chart that fills in as runs finish, its claims and verdicts,
each point's per-job distributions, the figures and CSV downloads, and their share links."""

import hashlib
import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from cloudsched_web.results import charts, exports, kinds, queries
from cloudsched_web.runs import trash
from cloudsched_web.runs.claims import study_claims, study_readings
from cloudsched_web.runs.models import Run, Study
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


def _get_study_for_user(request, pk):
    return get_object_or_404(Study.objects.select_related("scenario"), pk=pk, scenario__owner=request.user)


def _study_payload(study):
    """The chart's payload and the runs it is drawn from: the default reading's (an alternative reading runs the
    same points again, so it would draw each point twice; its verdicts are in the claims table)."""
    runs = list(study.runs.filter(reading=None).order_by("id"))
    states = ",".join(f"{r.pk}{r.status[0]}{r.finished_at}" for r in runs)
    key = f"study-payload:{study.pk}:" + hashlib.sha256(states.encode()).hexdigest()
    payload = cache.get(key)
    if payload is None:
        pairs = [(run, _run_summary(run)) for run in runs if run.status == Run.Status.SUCCEEDED]
        payload = charts.study_payload(study, [(run, summary) for run, summary in pairs if summary], runs)
        cache.set(key, payload, 3600)
    return runs, payload


def _run_summary(run):
    """A finished run's summary statistics, parsed once per result (a study page refreshes as runs finish)."""
    key = f"run-summary:{run.pk}:{run.finished_at.timestamp() if run.finished_at else 0}"
    summary = cache.get(key)
    if summary is None:
        doc = run.load_header() or {}
        summary = doc.get("summary", {})
        cache.set(key, summary, 24 * 3600)
    return summary


def _render_study(request, study, token=None):
    _, payload = _study_payload(study)
    runs = list(study.runs.select_related("reading").order_by("id"))  # every reading's, for the runs table
    counts = study.status_counts()
    # Normally done by the worker that finished a reading's last run; cancelled runs land here.
    study.check_claims()
    ctx = {
        "study": study,
        "runs": runs,
        "readings": study_readings(study),
        "counts": counts,
        "payload": payload,
        "token": token,
        "shared": token is not None,
        "finished": Study.finished_from(counts),
        "claims": study_claims(study),
        "has_points": any(r.status == Run.Status.SUCCEEDED and has_jobs(r) for r in runs),
        "share_url": None
        if token or study.share_token is None
        else request.build_absolute_uri(reverse("study_shared", args=[study.share_token])),
    }
    return render(request, "runs/study.html", ctx)


@login_required
def study(request, pk):
    return _render_study(request, _get_study_for_user(request, pk))


def _study_status(request, study):
    """The study's run counts; with ``?payload=1`` also the chart's payload and each run's status, so the
    page draws points as runs arrive (study.js) instead of an empty chart until the end."""
    counts = study.status_counts()
    out = {"counts": counts, "finished": Study.finished_from(counts)}
    if request.GET.get("payload") == "1":
        _, payload = _study_payload(study)
        out["payload"] = payload
        out["runs"] = [list(r) for r in study.runs.order_by("id").values_list("id", "status")]  # every reading's
    return JsonResponse(out)


@login_required
def study_status(request, pk):
    return _study_status(request, _get_study_for_user(request, pk))


def shared_study_status(request, token):
    return _study_status(request, _shared_study(token))


def _study_figure(request, study, fmt):
    """One metric of the study's chart as an SVG or PDF file, drawn from the page's own payload."""
    from cloudsched_web.results import figures

    if fmt not in figures.FORMATS:
        raise Http404("no such figure format")
    _, payload = _study_payload(study)
    metric = request.GET.get("metric", "")
    if metric not in payload["metrics"]:
        allowed = ", ".join(sorted(payload["metrics"])) or "none yet: no run of the study has finished"
        return JsonResponse({"error": f"metric: no metric {metric[:80]!r} in this study's results", "field": "metric",
                             "allowed": allowed}, status=400)  # fmt: skip
    spec = payload["specs"].get(metric) or {}
    title = f"{study.name}: {spec.get('label') or metric}"
    body = figures.figure_bytes(payload, metric, fmt, title)
    response = HttpResponse(body, content_type=figures.FORMATS[fmt])
    return attachment(response, f"study-{study.pk}-{re.sub(r'[^A-Za-z0-9_.-]', '_', metric)}.{fmt}")


@login_required
def study_figure(request, pk, fmt):
    return _study_figure(request, _get_study_for_user(request, pk), fmt)


def shared_study_figure(request, token, fmt):
    return _study_figure(request, _shared_study(token), fmt)


def _study_jobs(request, study):
    """The per-job distributions of one point of ``study`` (``point``: the run's number), as ``kind=dist``."""
    point = Run.objects.filter(study=study, pk=int_or(request, "point", 0), status=Run.Status.SUCCEEDED).first()
    parsed = result_of(point) if point is not None else None
    if parsed is None:
        return JsonResponse({"error": "no finished run of this study with that number", "field": "point"}, status=404)
    try:
        return JsonResponse(kinds.read(parsed, "dist", request.GET))
    except queries.QueryError as exc:
        return query_error(exc)


def _study_dist_figure(request, study, chart, fmt):
    """A per-job distribution chart of one point of ``study`` (``point``: a finished run's number) as a file."""
    finished = Run.objects.filter(study=study, status=Run.Status.SUCCEEDED)
    done = list(finished.order_by("pk").values_list("pk", flat=True))
    raw = request.GET.get("point", "")
    if not raw.isdigit() or int(raw) not in done:
        allowed = ", ".join(map(str, done)) or "none yet: no run of the study has finished"
        return JsonResponse({"error": f"point: no finished run {raw[:20]!r} in this study", "field": "point",
                             "allowed": allowed}, status=400)  # fmt: skip
    point = Run.objects.get(pk=int(raw))
    where = ", ".join(f"{k}={v}" for k, v in (point.point or {}).items())
    title = f"{study.name} ({where})" if where else study.name
    return dist_figure(request, result_of(point), chart, fmt, title, f"study-{study.pk}-run-{point.pk}")


@login_required
def study_dist_figure(request, pk, chart, fmt):
    return _study_dist_figure(request, _get_study_for_user(request, pk), chart, fmt)


def shared_study_dist_figure(request, token, chart, fmt):
    return _study_dist_figure(request, _shared_study(token), chart, fmt)


@login_required
def study_export(request, pk):
    """The study's points as CSV: every run (finished or not), its swept values, each algorithm's metric means and CIs."""
    study = _get_study_for_user(request, pk)
    runs = list(study.runs.filter(reading=None).order_by("id"))  # the chart's points (an alternative's: its runs)
    rows = [(r, _run_summary(r) if r.status == Run.Status.SUCCEEDED else {}) for r in runs]
    body = exports.points_csv(study.scenario.family, rows)
    return attachment(HttpResponse(body, content_type="text/csv"), f"study-{study.pk}-points.csv")


@login_required
def study_jobs(request, pk):
    return _study_jobs(request, _get_study_for_user(request, pk))


def shared_study_jobs(request, token):
    return _study_jobs(request, _shared_study(token))


@login_required
@require_POST
def study_share(request, pk):
    st = _get_study_for_user(request, pk)
    toggle_share(request, st)
    return redirect("study", pk=st.pk)


def _shared_study(token):
    return get_object_or_404(Study.objects.select_related("scenario"), share_token=token)


def shared_study(request, token):
    return _render_study(request, _shared_study(token), token)


@login_required
@require_POST
def shared_study_clone(request, token):
    """A logged-in viewer of a shared study copies its base scenario into their own scenarios."""
    scenario = _shared_study(token).scenario
    copy = clone_config(request.user, scenario.config, scenario.name)
    messages.success(request, f"Cloned into your scenarios as “{copy.name}”.")
    return redirect("scenario", pk=copy.pk)


@login_required
@require_POST
def study_delete(request, pk):
    st = _get_study_for_user(request, pk)
    trash.trash(st)
    messages.success(request, trash.moved_message(f"study “{st.name}” with its runs"))
    return redirect("studies")


@login_required
def studies(request):
    rows = Study.objects.filter(scenario__owner=request.user).select_related("scenario").defer("scenario__config")
    page = Paginator(rows.order_by("-created_at", "-pk"), settings.LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "runs/studies.html", {"studies": page.object_list, "page": page})
