"""Stored SWF traces: list, upload (multipart), one, download. See docs/formats.md, "Stored traces"."""

from ninja import Field as NField
from ninja import File, Form, Query, Router, Schema, Status
from ninja.files import UploadedFile

import schedulers
from cloudsched_web.api.common import MAX_PAGE, absolute, owner, page
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.schemas import DbId, TraceOut, TracePage
from cloudsched_web.traces.lists import download_response
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import store_upload

router = Router(tags=["traces"])

UPLOAD_DOC = (
    "Multipart form: `file` (an .swf or .swf.gz file, at most `TRACE_UPLOAD_MAX_BYTES`, 256 MiB by default, "
    "as sent; its text at most `CLOUDSCHED_SWF_MAX_BYTES`, 1 GiB, and 10 million lines) and an optional `name`. "
    "The text is parsed and summarised once. 201 with the new trace, or 200 with the stored one when the same "
    "content is already there (it is then yours to use too). Malformed SWF is a 400 naming `file` with the line "
    'and field. Refer to it in a scenario as `"workload": {"kind": "trace", "trace": ref}`.'
)


class TraceFilter(Schema):
    offset: int = NField(0, ge=0, le=10**9)
    limit: int = NField(50, ge=1, le=MAX_PAGE)


def trace_out(request, trace):
    return {
        "id": trace.pk,
        "ref": trace.ref,
        "sha256": trace.sha256,
        "name": trace.name_for(owner(request)),
        "jobs": trace.jobs,
        "usable_jobs": trace.usable_jobs,
        "processors": trace.processors,
        "processors_from": trace.processors_from,
        "largest_job": trace.largest_job,
        "span_s": trace.span_s,
        "natural_load": trace.natural_load,
        "text_bytes": trace.text_bytes,
        "stored_bytes": trace.stored_bytes,
        "imported": trace.imported,
        "created_at": trace.created_at,
        "download_url": absolute(request, "api-1:download_trace", trace.pk),
    }


def _get(request, trace_id):
    trace = Trace.visible_to(owner(request)).filter(pk=trace_id).first()
    if trace is None:
        raise ApiError(404, "not_found", f"no trace {trace_id}")
    return trace


@router.get("", response=TracePage, summary="The traces you may use: yours and the imported ones, newest first")
def list_traces(request, filters: Query[TraceFilter]):
    return page(Trace.visible_to(owner(request)), filters.offset, filters.limit, lambda t: trace_out(request, t))


@router.post("", response={200: TraceOut, 201: TraceOut}, summary="Upload an SWF trace", description=UPLOAD_DOC)
def upload_trace(request, file: File[UploadedFile], name: Form[str] = ""):
    if len(name) > 200:
        raise ApiError(400, "invalid", f"name: {len(name)} characters", "name", "at most 200 characters")
    try:
        trace, created = store_upload(file, owner(request), name.strip())
    except schedulers.ScenarioError as exc:  # a trace, not a scenario: the message starts at the field
        e = exc.errors[0]
        raise ApiError(400, "invalid", f"{e['field']}: {e['message']}", e["field"], e.get("allowed")) from None
    return Status(201 if created else 200, trace_out(request, trace))


@router.get("/{trace_id}", response=TraceOut, summary="One trace's summary")
def get_trace(request, trace_id: DbId):
    return trace_out(request, _get(request, trace_id))


@router.get(
    "/{trace_id}/download",
    summary="The trace file (gzip SWF)",
    url_name="download_trace",
    openapi_extra={"responses": {"200": {"description": "The gzip SWF file", "content": {"application/gzip": {}}}}},
)
def download_trace(request, trace_id: DbId):
    return download_response(_get(request, trace_id))
