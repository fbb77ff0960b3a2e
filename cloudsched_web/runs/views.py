import hashlib
import json
import re

import orjson
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_POST

from cloudsched_web.results import charts, checks, cuts, exports, gantt, jobdiff, jobstats, queries, series, store
from cloudsched_web.results import strips as strip_chart
from cloudsched_web.runs import claims as preset_claims
from cloudsched_web.runs import describe, page, trash
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.views import clone_config
from cloudsched_web.traces.views import traces_of


def _get_run_for_user(request, pk):
    return get_object_or_404(Run.objects.select_related("scenario", "study"), pk=pk, scenario__owner=request.user)


def _get_study_for_user(request, pk):
    return get_object_or_404(Study.objects.select_related("scenario"), pk=pk, scenario__owner=request.user)


def _parsed(run):
    return queries.get_result(run) if run.status == Run.Status.SUCCEEDED else None


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
        "stamp": charts.stamp(run, doc, public=shared),
        "can_swf": can_swf,
        "traces": traces_of(run.config, run.scenario.owner),
        "workload": describe.workload(run.config, doc),
        "dropped": describe.dropped(doc),
        "share_url": _share_url(request, run) if not shared else None,
        "cuts": cuts.schedule_cuts(doc) if doc else [],
        "run_claims": _study_claims(run.study) if run.study_id and run.study.preset else None,
        "same_workload": 0 if shared else _same_workload(request, run).count(),
        "downloads": _downloads(run) if doc and not shared else None,
        "has_jobs": bool(doc) and _has_jobs(run),
    }
    return render(request, "runs/detail.html", ctx)


def _has_jobs(run):
    """Whether some run of the stored result keeps per-job records (read off the manifest: no file opened)."""
    return any(r.get("jobs") for r in (run.result_files or {}).get("runs", []))


def _size(size):
    return ("" if size["exact"] else "about ") + filesizeformat(size["bytes"])


def _downloads(run):
    """The table files' links, one run per line, each with its size ("about" where it is an estimate)."""
    parsed = _parsed(run)
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


def _int(request, name, default=0):
    raw = request.GET.get(name, "")
    if raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise queries.QueryError(name, f"{raw!r} is not an integer", "an integer") from None


def _data(request, run, other=None):
    """Windowed chart data: ``kind=gantt&run=i``, ``kind=series&rep=r``, ``kind=strips&rep=r`` (DVFS) or
    ``kind=diff&a=i&b=j``.

    ``other`` (the owner's run named by ``with=<pk>``, same workload digest): ``b`` indexes its runs.
    """
    parsed = _parsed(run)
    if parsed is None:
        return JsonResponse({"error": "this run has no result yet"}, status=404)
    kind = request.GET.get("kind", "gantt")
    t0, t1 = request.GET.get("t0"), request.GET.get("t1")
    try:
        if kind == "gantt" and request.GET.get("side") in ("a", "b"):  # the diff page: a side, with each job's status
            a, b = _int(request, "a"), _int(request, "b", 1)
            parsed_b = _parsed(other) if other is not None else parsed
            side, index = (parsed, a) if request.GET["side"] == "a" else (parsed_b, b)
            data = gantt.gantt(
                side, index, t0, t1, request.GET.get("row0", 0), request.GET.get("rows", gantt.ROWS),
                request.GET.get("pixels", gantt.PIXELS), status=jobdiff.status_of(parsed, a, parsed_b, b),
            )
            data["bars"]["statuses"] = jobdiff.STATUSES
            if data.get("occupancy"):
                data["occupancy"]["statuses"] = jobdiff.STATUSES
        elif kind == "gantt":
            data = gantt.gantt(
                parsed, _int(request, "run"), t0, t1, request.GET.get("row0", 0),
                request.GET.get("rows", gantt.ROWS), request.GET.get("pixels", gantt.PIXELS),
            )  # fmt: skip
        elif kind == "series":
            data = series.series(parsed, _int(request, "rep"), t0, t1, request.GET.get("points") or series.POINTS)
        elif kind == "strips":
            data = strip_chart.strips(parsed, _int(request, "rep"), t0, t1, request.GET.get("points") or series.POINTS)
        elif kind == "diff":
            data = jobdiff.diff(parsed, _int(request, "a"), _int(request, "b", 1),
                                 other=_parsed(other) if other is not None else None)  # fmt: skip
        elif kind in ("jobs", "dist"):
            data = _job_data(request, parsed, kind)
        else:
            raise queries.QueryError("kind", f"unknown kind {kind!r}", "gantt, series, strips, diff, jobs or dist")
    except queries.QueryError as exc:
        return JsonResponse({"error": str(exc), "field": exc.field, "allowed": exc.allowed}, status=400)
    # orjson: a window of 100,000 bars is a few MB of numbers (json: 10× slower); gzip_page compresses it
    return HttpResponse(orjson.dumps(data), content_type="application/json")


def _job_data(request, parsed, kind):
    """``kind=jobs``: a page of the per-job table (``alg``, ``rep``, ``order``, ``offset``, ``limit``);
    ``kind=dist``: the distributions of one per-job ``measure`` (``rep``: one repetition, default all pooled;
    ``pixels``, ``log``: the box chart's height and scale, which its outliers are drawn for)."""
    get = request.GET.get
    if kind == "jobs":
        return jobstats.table_page(parsed, get("alg") or None, get("rep") or None, get("order") or None,
                                   get("offset", 0), get("limit", 50))  # fmt: skip
    measures = jobstats.measures_of(parsed)
    measure = get("measure") or (measures[0]["key"] if measures else "")
    if not measures:
        return {"measure": None, "measures": [], "algorithms": [], "runs": []}
    return jobstats.distributions(parsed, measure, get("rep") or None, get("pixels") or jobstats.OUTLIER_PIXELS,
                                  get("log") in ("1", "true"))  # fmt: skip


def _dist_figure(request, parsed, chart, fmt, title, name):
    """A per-job distribution chart (``cdf`` or ``box``) as an SVG or PDF file, drawn from the payload the page
    draws with the same query (``measure``, ``rep``, ``pixels``, ``log``: 1 or 0, default the measure's)."""
    from cloudsched_web.results import jobfigures

    if fmt not in jobfigures.FORMATS or chart not in jobfigures.CHARTS:
        raise Http404("no such figure")
    if parsed is None or not jobstats.measures_of(parsed):
        raise Http404("these results keep no per-job records")
    raw_log = request.GET.get("log", "")
    try:
        if raw_log not in ("", "0", "1", "true", "false"):
            raise queries.QueryError("log", f"{raw_log[:20]!r} is not a yes or no", "1 or 0")
        measures = jobstats.measures_of(parsed)
        key = request.GET.get("measure") or measures[0]["key"]
        log = next((m["log"] for m in measures if m["key"] == key), False) if raw_log == "" else raw_log in ("1", "true")
        # the scale first: the rows of dense outliers are cut for it
        data = jobstats.distributions(parsed, key, request.GET.get("rep") or None,
                                      request.GET.get("pixels") or jobstats.OUTLIER_PIXELS, log)  # fmt: skip
    except queries.QueryError as exc:
        return JsonResponse({"error": str(exc), "field": exc.field, "allowed": exc.allowed}, status=400)
    body = jobfigures.figure_bytes(data, chart, fmt, log, title)
    key = re.sub(r"[^A-Za-z0-9_.-]", "_", data["measure"]["key"])
    return _attachment(HttpResponse(body, content_type=jobfigures.FORMATS[fmt]), f"{name}-{key}-{chart}.{fmt}")


def _run_dist_figure(request, run, chart, fmt):
    return _dist_figure(request, _parsed(run), chart, fmt, run.title, f"run-{run.pk}")


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
        .order_by("-finished_at")[:50]
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


def _attachment(response, name):
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


EXPORTS = ("scenario", "json", "metrics", "summary", "schedule", "swf", "jobs", "series",
           "schedule.parquet", "jobs.parquet", "series.parquet")  # fmt: skip
TABLES = {"schedule": "segments", "jobs": "jobs", "series": "series"}


def _export(run, kind, index=0):
    """A download; table files (CSV, Parquet) are of run ``index`` (CSV: every run when None), streamed."""
    if kind not in EXPORTS:
        raise Http404("unknown export")
    if kind == "scenario":
        body = json.dumps(run.config, indent=2)
        return _attachment(HttpResponse(body, content_type="application/json"), f"run-{run.pk}-scenario.json")
    parsed = _parsed(run)
    if parsed is None:
        raise Http404("this run has no result")
    doc = parsed.doc
    if kind == "json":
        body = store.stream_json(doc, parsed.manifest)
        return _attachment(StreamingHttpResponse(body, content_type="application/json"), exports.filename(run.pk, kind))
    if kind == "metrics":
        return _attachment(HttpResponse(exports.metrics_csv(doc), content_type="text/csv"), exports.filename(run.pk, kind))
    if kind == "summary":
        return _attachment(HttpResponse(exports.summary_csv(doc), content_type="text/csv"), exports.filename(run.pk, kind))
    if kind == "swf":
        text = exports.workload_swf(parsed)
        if text is None:
            raise Http404("this family's job records do not carry submit time, runtime and size")
        return _attachment(HttpResponse(text, content_type="text/plain"), exports.filename(run.pk, kind))
    return _table_export(run, parsed, kind, index)


def _table_export(run, parsed, kind, index):
    table = TABLES[kind.split(".")[0]]
    try:
        one = {"i": index, "algorithm": parsed.run(index).get("algorithm", "")} if index is not None else None
        name = exports.filename(run.pk, kind, one)
        if not kind.endswith(".parquet"):
            chunks = exports.schedule_csv(parsed, index) if table == "segments" else exports.table_csv(parsed, table, index)
            return _attachment(StreamingHttpResponse(chunks, content_type="text/csv"), name)
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
    return _attachment(StreamingHttpResponse(chunks, content_type=PARQUET), name)


PARQUET = "application/vnd.apache.parquet"


@login_required
def export(request, pk, kind):
    raw = request.GET.get("run", "0")
    return _export(_get_run_for_user(request, pk), kind, None if raw == "all" else _int_or(request, "run", 0))


@login_required
def result_json(request, pk):
    return _export(_get_run_for_user(request, pk), "json")


@login_required
def diff(request, pk):
    run = _get_run_for_user(request, pk)
    return _render_diff(request, run, other=_other_run(request, run), candidates=_same_workload(request, run))


def _render_diff(request, run, token=None, other=None, candidates=()):
    """Two runs of one result (``a``, ``b``), or run ``a`` of this result and run ``b`` of ``other``."""
    parsed = _parsed(run)
    if parsed is None:
        raise Http404("this run has no result")
    runs = charts.runs_index(parsed.doc)
    other_parsed = _parsed(other) if other is not None else None
    runs_b = charts.runs_index(other_parsed.doc) if other_parsed is not None else runs
    a = _int_or(request, "a", 0)
    b = _int_or(request, "b", 0 if other is not None else (1 if len(runs) > 1 else 0))
    if not 0 <= a < len(runs):
        a = 0
    if not 0 <= b < len(runs_b):
        b = min(0 if other is not None else 1, len(runs_b) - 1)
    ctx = {"run": run, "runs": runs, "runs_b": runs_b, "a": a, "b": b, "token": token, "shared": token is not None,
           "other": other, "candidates": [_candidate(c) for c in candidates]}  # fmt: skip
    ctx["time_unit"] = checks.time_unit({"series": parsed.series_arrays(0)}) if runs else "s"
    return render(request, "runs/diff.html", ctx)


def _candidate(run):
    """A run on the same workload, as the diff page lists it: number, scenario, algorithms, when."""
    cfg = run.config or {}
    return {"pk": run.pk, "name": cfg.get("name") or run.scenario.name, "algorithms": cfg.get("algorithms", []),
            "repetitions": cfg.get("repetitions", 1), "point": run.point, "finished_at": run.finished_at}  # fmt: skip


def _int_or(request, name, default):
    try:
        return int(request.GET.get(name, default))
    except ValueError:
        return default


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


def _toggle_share(request, obj):
    if request.POST.get("revoke"):
        obj.unshare()
        messages.info(request, "Share link revoked: it no longer opens.")
    else:
        obj.share()
        messages.success(request, "Share link created: anyone with it can view this page read-only.")


@login_required
@require_POST
def share(request, pk):
    run = _get_run_for_user(request, pk)
    _toggle_share(request, run)
    return redirect("run", pk=run.pk)


def _shared_run(token):
    return get_object_or_404(Run.objects.select_related("scenario", "study"), share_token=token)


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


# Studies


def _study_payload(study):
    runs = list(study.runs.order_by("id"))
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
    runs, payload = _study_payload(study)
    counts = study.status_counts()
    if Study.finished_from(counts):
        study.check_claims()  # normally done by the worker that finished the last run; cancelled studies land here
    ctx = {
        "study": study,
        "runs": runs,
        "counts": counts,
        "payload": payload,
        "token": token,
        "shared": token is not None,
        "finished": Study.finished_from(counts),
        "claims": _study_claims(study),
        "has_points": any(r.status == Run.Status.SUCCEEDED and _has_jobs(r) for r in runs),
        "share_url": None if token or study.share_token is None
        else request.build_absolute_uri(reverse("study_shared", args=[study.share_token])),
    }
    return render(request, "runs/study.html", ctx)


def _study_claims(study):
    """The claims beside a study: its verdicts once checked, else the preset's claims (not yet evaluated)."""
    if study.verdicts:
        return study.verdicts
    if study.preset:
        return preset_claims.preset_claims(study.scenario.family, study.preset) or [{"text": c} for c in study.claims]
    return [{"text": c, "verdict": "not checked"} for c in study.claims]


@login_required
def study(request, pk):
    return _render_study(request, _get_study_for_user(request, pk))


def _study_status(request, study):
    """The study's run counts; with ``?payload=1`` also the chart's payload and each run's status, so the
    page draws points as runs arrive (study.js) instead of an empty chart until the end."""
    counts = study.status_counts()
    out = {"counts": counts, "finished": Study.finished_from(counts)}
    if request.GET.get("payload") == "1":
        runs, payload = _study_payload(study)
        out["payload"] = payload
        out["runs"] = [[r.pk, r.status] for r in runs]
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
    return _attachment(response, f"study-{study.pk}-{re.sub(r'[^A-Za-z0-9_.-]', '_', metric)}.{fmt}")


@login_required
def study_figure(request, pk, fmt):
    return _study_figure(request, _get_study_for_user(request, pk), fmt)


def shared_study_figure(request, token, fmt):
    return _study_figure(request, _shared_study(token), fmt)


def _study_jobs(request, study):
    """The per-job distributions of one point of ``study`` (``point``: the run's number), as ``kind=dist``."""
    point = Run.objects.filter(study=study, pk=_int_or(request, "point", 0), status=Run.Status.SUCCEEDED).first()
    parsed = _parsed(point) if point is not None else None
    if parsed is None:
        return JsonResponse({"error": "no finished run of this study with that number", "field": "point"}, status=404)
    try:
        return JsonResponse(_job_data(request, parsed, "dist"))
    except queries.QueryError as exc:
        return JsonResponse({"error": str(exc), "field": exc.field, "allowed": exc.allowed}, status=400)


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
    return _dist_figure(request, _parsed(point), chart, fmt, title, f"study-{study.pk}-run-{point.pk}")


@login_required
def study_dist_figure(request, pk, chart, fmt):
    return _study_dist_figure(request, _get_study_for_user(request, pk), chart, fmt)


def shared_study_dist_figure(request, token, chart, fmt):
    return _study_dist_figure(request, _shared_study(token), chart, fmt)


@login_required
def study_export(request, pk):
    """The study's points as CSV: every run (finished or not), its swept values, each algorithm's metric means and CIs."""
    study = _get_study_for_user(request, pk)
    runs = list(study.runs.order_by("id"))
    rows = [(r, _run_summary(r) if r.status == Run.Status.SUCCEEDED else {}) for r in runs]
    body = exports.points_csv(study.scenario.family, rows)
    return _attachment(HttpResponse(body, content_type="text/csv"), f"study-{study.pk}-points.csv")


@login_required
def study_jobs(request, pk):
    return _study_jobs(request, _get_study_for_user(request, pk))


def shared_study_jobs(request, token):
    return _study_jobs(request, _shared_study(token))


@login_required
@require_POST
def study_share(request, pk):
    st = _get_study_for_user(request, pk)
    _toggle_share(request, st)
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
def trash_list(request):
    ctx = {"items": trash.items(request.user), "keep_days": trash.keep_days()}
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


@login_required
def studies(request):
    rows = Study.objects.filter(scenario__owner=request.user).select_related("scenario").defer("scenario__config")
    page = Paginator(rows.order_by("-created_at", "-pk"), settings.LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "runs/studies.html", {"studies": page.object_list, "page": page})
