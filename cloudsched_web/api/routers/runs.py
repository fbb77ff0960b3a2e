"""Runs: status and progress, cancel, results (summary, jobs, segments, series), share links, exports."""

from typing import Literal

from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils import timezone
from ninja import Field as NField
from ninja import Query, Router, Schema, Status

from cloudsched_web.api.common import MAX_PAGE, get_run_for_user, owner, page, share_response
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.out import run_out, run_status
from cloudsched_web.api.routers.scenarios import TRASH_NOTE
from cloudsched_web.api.schemas import (
    DbId,
    JobDistributions,
    JobsPage,
    ResultSummary,
    RunOut,
    RunPage,
    RunStatus,
    SegmentsOut,
    SeriesOut,
    ShareOut,
)
from cloudsched_web.results import exports, kinds, queries, store
from cloudsched_web.runs import trash
from cloudsched_web.runs.models import Run

router = Router(tags=["runs"])
RunIndex = NField(0, ge=0, le=10**6, description="which algorithm × repetition (see `runs` in the result summary)")


class RunFilter(Schema):
    scenario: DbId | None = None
    study: DbId | None = None
    status: Literal["queued", "running", "succeeded", "failed", "cancelled"] | None = None
    offset: int = NField(0, ge=0, le=10**9)
    limit: int = NField(50, ge=1, le=MAX_PAGE)


class SegmentQuery(Schema):
    run: int = RunIndex
    start: float | None = NField(None, description="window start (simulated seconds); default: the schedule's start")
    end: float | None = NField(None, description="window end; default: the schedule's end")
    limit: int = NField(2000, ge=1, le=queries.MAX_SEGMENTS)
    offset: int = NField(0, ge=0, le=10**9, description="skip this many of the window's segments (start order)")


class JobQuery(Schema):
    run: int = RunIndex
    offset: int = NField(0, ge=0, le=10**9)
    limit: int = NField(100, ge=1, le=queries.MAX_JOBS_PAGE)
    order_by: str | None = NField(None, max_length=100, description="a job field; prefix with - for descending")


class DistributionQuery(Schema):
    measure: str | None = NField(None, max_length=100, description="a per-job measure; default: the family's first")
    repetition: int | None = NField(None, ge=0, le=10**6, description="one repetition; default: all pooled")


class SeriesQuery(Schema):
    run: int = RunIndex
    points: int = NField(1000, ge=2, le=queries.MAX_SERIES_POINTS)
    names: str | None = NField(None, max_length=1000, description="comma-separated series names; default: all")


def _parsed(run):
    parsed = queries.get_result(run) if run.status == Run.Status.SUCCEEDED else None
    if parsed is None:
        raise ApiError(409, "not_ready", f"run {run.pk} is {run.status}: results exist once it has succeeded")
    return parsed


@router.get("", response=RunPage, summary="Your runs, newest first")
def list_runs(request, filters: Query[RunFilter]):
    qs = Run.objects.defer("result_blob").filter(scenario__owner=owner(request))
    for field in ("scenario", "study", "status"):
        if getattr(filters, field) is not None:
            qs = qs.filter(**{field: getattr(filters, field)})
    return page(qs, filters.offset, filters.limit, lambda r: run_out(request, r))


@router.get("/{run_id}", response=RunOut, summary="One run: status, progress, summary metrics")
def get_run(request, run_id: DbId):
    return run_out(request, get_run_for_user(request, run_id))


@router.get("/{run_id}/status", response=RunStatus, summary="Status and progress (cheap: poll this)")
def get_status(request, run_id: DbId):
    return run_status(get_run_for_user(request, run_id))


@router.post("/{run_id}/cancel", response=RunOut, summary="Cancel a queued or running run")
def cancel_run(request, run_id: DbId):
    run = get_run_for_user(request, run_id)
    Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLED, finished_at=timezone.now()
    )
    run.refresh_from_db()
    return run_out(request, run)


@router.delete("/{run_id}", response={204: None}, summary="Move a run to the trash", description=TRASH_NOTE)
def delete_run(request, run_id: DbId):
    trash.trash(get_run_for_user(request, run_id))
    return Status(204, None)


@router.get("/{run_id}/result", response=ResultSummary, summary="Summary metrics and the list of runs inside")
def get_result(request, run_id: DbId):
    return queries.summary(_parsed(get_run_for_user(request, run_id)))


@router.get("/{run_id}/result/jobs", response=JobsPage, summary="Per-job records, paginated")
def get_jobs(request, run_id: DbId, q: Query[JobQuery]):
    parsed = _parsed(get_run_for_user(request, run_id))
    return queries.jobs(parsed, q.run, offset=q.offset, limit=q.limit, order_by=q.order_by)


@router.get(
    "/{run_id}/result/distributions",
    response=JobDistributions,
    summary="Per-job distributions: CDF and box plot per algorithm, a box per run",
    description="The CDF is `cdf_points` quantiles of all the jobs' values of `measure` (linear interpolation); "
    "a box holds min, q1, median, q3, max, mean, n, Tukey whiskers (1.5 IQR) and the outliers beyond them, counted; "
    "a run's box also lists them (`outliers.values`), or per row of a 320-row chart over `box_range` where there are more.",
)
def get_distributions(request, run_id: DbId, q: Query[DistributionQuery]):
    parsed = _parsed(get_run_for_user(request, run_id))
    query = {"measure": q.measure or "", "rep": "" if q.repetition is None else str(q.repetition)}
    return kinds.read(parsed, "dist", query)  # the run page's distributions, through the same registry


@router.get(
    "/{run_id}/result/charts/{kind}",
    response=dict,
    summary="Chart data exactly as the run page draws it (gantt, bar, series, strips, diff, jobs, dist)",
    description="The result engine's chart kinds (`cloudsched_web/results/kinds.py`), answered by the same functions "
    "as the run page's charts; the query string holds the kind's parameters: gantt: run, t0, t1, row0, rows, pixels "
    "(and side, a, b for the diff's sides); bar (a Gantt bar's exact times): run (or side, a, b), resource, job, t0, t1; "
    "series, strips: rep, t0, t1, points; diff: a, b, offset, limit; jobs: alg, "
    "rep, order, offset, limit; dist: measure, rep, pixels, log. A bad parameter is a 400 naming it and its range.",
)
def get_chart(request, run_id: DbId, kind: Literal[tuple(kinds.KINDS)]):  # type: ignore[valid-type]
    return kinds.read(_parsed(get_run_for_user(request, run_id)), kind, request.GET)


@router.get(
    "/{run_id}/result/segments",
    response=SegmentsOut,
    summary="Schedule segments in a time window",
    description="At most `limit` segments from `offset`, in start order; a page also ends before its JSON would "
    "pass 1 MB (`cut_by`: `limit` or `bytes`). `truncated` says more follow; `next_offset` is where they start.",
)
def get_segments(request, run_id: DbId, q: Query[SegmentQuery]):
    parsed = _parsed(get_run_for_user(request, run_id))
    return queries.segments(parsed, q.run, start=q.start, end=q.end, limit=q.limit, offset=q.offset)


@router.get("/{run_id}/result/series", response=SeriesOut, summary="Time series downsampled to N points")
def get_series(request, run_id: DbId, q: Query[SeriesQuery]):
    parsed = _parsed(get_run_for_user(request, run_id))
    names = [n.strip() for n in q.names.split(",") if n.strip()] if q.names else None
    return queries.series(parsed, q.run, points=q.points, names=names)


@router.post("/{run_id}/share", response={200: ShareOut, 201: ShareOut}, summary="Create (or get) the share link")
def share_run(request, run_id: DbId):
    return share_response(request, get_run_for_user(request, run_id), "run_shared")


@router.delete("/{run_id}/share", response={204: None}, summary="Revoke the share link")
def unshare_run(request, run_id: DbId):
    get_run_for_user(request, run_id).unshare()
    return Status(204, None)


EXPORTS = {
    "result.json": "application/json",
    "metrics.csv": "text/csv",
    "summary.csv": "text/csv",
    "schedule.csv": "text/csv",
    "workload.swf": "text/plain",
    "jobs.csv": "text/csv",
    "series.csv": "text/csv",
    "schedule.parquet": "application/vnd.apache.parquet",
    "jobs.parquet": "application/vnd.apache.parquet",
    "series.parquet": "application/vnd.apache.parquet",
}
TABLES = {"schedule": "segments", "jobs": "jobs", "series": "series"}
EXPORT_DOC = {
    "responses": {
        "200": {
            "description": "The file, as an attachment",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "text/csv": {"schema": {"type": "string"}},
                "text/plain": {"schema": {"type": "string"}},
                "application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    }
}


class ExportQuery(Schema):
    run: int = NField(
        0, ge=0, le=10**6, description="CSV and Parquet: which run (algorithm × repetition); one per file"
    )
    all: bool = NField(False, description="CSV only: every run in one file, one after the other (streamed)")
    repetition: int = NField(0, ge=0, le=10**6, description="workload.swf: which repetition's workload")


@router.get(
    "/{run_id}/exports/{name}",
    summary="Download the result as JSON, CSV, Parquet or SWF",
    description="Table files (CSV, Parquet) hold one run each (`run`); `all=true` puts every run in one CSV. "
    "They stream: CSV a chunk of rows at a time; `schedule.parquet` a row group at a time (segments as read "
    "back: one row per segment, `task` as text); `jobs.parquet` and `series.parquet` are the stored files.",
    openapi_extra=EXPORT_DOC,
)
def export(request, run_id: DbId, name: Literal[tuple(EXPORTS)], q: Query[ExportQuery]):  # type: ignore[valid-type]
    run = get_run_for_user(request, run_id)
    parsed = _parsed(run)
    kind = {"result.json": "json", "workload.swf": "swf"}.get(
        name, name if name.endswith(".parquet") else name.split(".")[0]
    )
    one = None
    if name.endswith((".csv", ".parquet")) and name.split(".")[0] in TABLES:
        if q.all and name.endswith(".parquet"):
            raise ApiError(400, "invalid", "Parquet exports hold one run per file: ask for each `run`", field="all")
        if not q.all:
            one = {"i": q.run, "algorithm": parsed.run(q.run).get("algorithm", "")}
    if name == "result.json":
        response = StreamingHttpResponse(store.stream_json(parsed.doc, parsed.manifest), content_type=EXPORTS[name])
    elif name == "metrics.csv":
        response = HttpResponse(exports.metrics_csv(parsed.doc), content_type="text/csv")
    elif name == "summary.csv":
        response = HttpResponse(exports.summary_csv(parsed.doc), content_type="text/csv")
    elif name.endswith(".csv") and name.split(".")[0] in TABLES:
        index = None if q.all else q.run
        chunks = exports.schedule_csv(parsed, index) if name == "schedule.csv" else (
            exports.table_csv(parsed, TABLES[name.split(".")[0]], index))  # fmt: skip
        response = StreamingHttpResponse(chunks, content_type="text/csv")
    elif name.endswith(".parquet"):
        table = TABLES[name.split(".")[0]]
        stored = exports.parquet_file(parsed, table, q.run)
        if stored is not None:
            response = FileResponse(stored, content_type=EXPORTS[name])
        else:
            chunks = exports.table_parquet(parsed, table, q.run)
            if chunks is None:
                raise ApiError(404, "no_table", f"this run has no {name.split('.')[0]}")
            response = StreamingHttpResponse(chunks, content_type=EXPORTS[name])
    else:
        text = exports.workload_swf(parsed, q.repetition)
        if text is None:
            raise ApiError(
                404, "no_workload", "this result's job records have no submit time, runtime and size to write as SWF"
            )
        response = HttpResponse(text, content_type="text/plain")
    response["Content-Disposition"] = f'attachment; filename="{exports.filename(run.pk, kind, one)}"'
    return response
