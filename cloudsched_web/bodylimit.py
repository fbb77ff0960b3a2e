"""What a request body may cost before any view (or the CSRF check, or the log-in throttle) reads it.

A form or JSON body is read whole into memory and parsed there, so its size is bounded by
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MiB by default) and refused from its ``Content-Length`` before a
byte of it is read: a 48 MB urlencoded POST costs what its headers cost, logged in or not. Files are
different: a multipart upload streams each file to a temporary file on disk (beyond
``FILE_UPLOAD_MAX_MEMORY_SIZE``), so a multipart body may be as large as a trace upload
(``TRACE_UPLOAD_MAX_BYTES``); its text fields together are still held to ``DATA_UPLOAD_MAX_MEMORY_SIZE``
and its fields to ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (Django counts them while parsing). Large SWF text
goes through a file field, never a text field.

Each refusal is a page naming what was too large and the limit (413, or 400 for too many fields).
The API (``/api/``) answers in JSON with its own guard (``cloudsched_web.api.errors.guard``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.shortcuts import render

MULTIPART_ENVELOPE_BYTES = 64 * 1024  # boundaries, headers and the small text fields around a file


def content_length(request) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


def multipart_limit() -> int:
    return settings.TRACE_UPLOAD_MAX_BYTES + MULTIPART_ENVELOPE_BYTES


def _refuse(request, status, field, message, allowed):
    context = {"field": field, "message": message, "allowed": allowed}
    return render(request, "413.html", context, status=status)


class BodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("GET", "HEAD", "OPTIONS") or request.path.startswith("/api/"):
            return self.get_response(request)
        refused = self.check(request)
        return refused or self.get_response(request)

    def check(self, request):
        size, limit = content_length(request), settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if not request.content_type.startswith("multipart/"):
            if limit is not None and size > limit:
                return _refuse(request, 413, "(body)", f"the request body has {size:,} bytes",
                               f"at most {limit:,} bytes for a form (DATA_UPLOAD_MAX_MEMORY_SIZE); "
                               "send a trace as a file")  # fmt: skip
            if request.content_type != "application/x-www-form-urlencoded":
                return None  # read by the view that expects it (bounded by the same limit)
        elif size > multipart_limit():
            return _refuse(request, 413, "file", f"the upload has {size:,} bytes",
                           f"at most {settings.TRACE_UPLOAD_MAX_BYTES:,} bytes (TRACE_UPLOAD_MAX_BYTES)")  # fmt: skip
        try:
            request.POST  # noqa: B018 - parsed here, files streamed to disk, so that a refusal is a clear page
        except RequestDataTooBig:
            return _refuse(request, 413, "(text fields)", "the form's text fields are too large together",
                           f"at most {limit:,} bytes of text fields (DATA_UPLOAD_MAX_MEMORY_SIZE); "
                           "send a trace as a file, not as text")  # fmt: skip
        except TooManyFieldsSent:
            n = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            return _refuse(request, 400, "(fields)", "the form has too many fields",
                           f"at most {n:,} fields (DATA_UPLOAD_MAX_NUMBER_FIELDS)")  # fmt: skip
        return None
