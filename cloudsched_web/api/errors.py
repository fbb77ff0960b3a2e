"""JSON errors for everything under /api/: ``{"error": {"code", "message", "field"?, "allowed"?}}``.

Ninja's own errors (validation, auth, 404, uncaught exceptions) are mapped to the
same shape here, and :func:`guard` wraps the URL views so that what Django or
ninja answer outside a handler (405, an unknown path, a body over the size
limit) is JSON too, never an HTML page.
"""

import functools
import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from django.views import defaults
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

import schedulers
from cloudsched_web.results.queries import QueryError

log = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status, code, message, field=None, allowed=None, headers=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.allowed, self.headers = field, allowed, headers or {}


def payload(code, message, field=None, allowed=None, details=None):
    error = {"code": code, "message": message}
    if field:
        error["field"] = field
    if allowed:
        error["allowed"] = allowed
    if details:
        error["details"] = details
    return {"error": error}


def error_response(status, code, message, **extra):
    headers = extra.pop("headers", None) or {}
    response = JsonResponse(payload(code, message, **extra), status=status)
    for name, value in headers.items():
        response[name] = value
    return response


def _field_path(loc):
    # ninja prefixes the location with where the value came from and the parameter name
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header", "cookie", "form", "file"):
        parts = parts[2:] if len(parts) > 2 and parts[0] == "body" else parts[1:]
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else ("." if path else "") + str(part)
    return path or None


def _validation_details(errors):
    details = []
    for err in errors:
        ctx = err.get("ctx") or {}
        allowed = ", ".join(f"{k} {v}" for k, v in ctx.items() if k in ("ge", "gt", "le", "lt", "expected"))
        details.append({"field": _field_path(err.get("loc", ())) or "(body)", "message": err.get("msg", "invalid")})
        if allowed:
            details[-1]["allowed"] = allowed
    return details


def _scenario_error(exc):
    first = exc.errors[0] if exc.errors else {}
    return payload(
        "invalid",
        exc.format(),
        field=first.get("field"),
        allowed=first.get("allowed"),
        details=[{k: v for k, v in e.items() if v} for e in exc.errors],
    )


def install(api):
    """Register the JSON error handlers on a NinjaAPI."""

    @api.exception_handler(ApiError)
    def _api_error(request, exc):
        return error_response(
            exc.status, exc.code, exc.message, field=exc.field, allowed=exc.allowed, headers=exc.headers
        )

    @api.exception_handler(schedulers.ScenarioError)
    def _invalid_scenario(request, exc):
        return JsonResponse(_scenario_error(exc), status=400)

    @api.exception_handler(QueryError)
    def _invalid_query(request, exc):
        return error_response(400, "invalid", str(exc), field=exc.field, allowed=exc.allowed)

    @api.exception_handler(ValidationError)
    def _invalid_request(request, exc):
        details = _validation_details(exc.errors)
        first = details[0] if details else {}
        message = "; ".join(f"{d['field']}: {d['message']}" for d in details) or "invalid request"
        return error_response(
            400, "invalid", message, field=first.get("field"), allowed=first.get("allowed"), details=details
        )

    @api.exception_handler(AuthenticationError)
    def _unauthenticated(request, exc):
        message = "authentication required: send 'Authorization: Bearer <token>' (create one at /account/tokens/)"
        return error_response(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})

    @api.exception_handler(Throttled)
    def _throttled(request, exc):
        return error_response(429, "rate_limited", "too many requests")

    @api.exception_handler(Http404)
    def _not_found(request, exc):
        return error_response(404, "not_found", str(exc) or "not found")

    @api.exception_handler(HttpError)
    def _http_error(request, exc):
        code = {403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
        if "CSRF" in str(exc):
            code = "csrf_failed"
        return error_response(exc.status_code, code, str(exc))

    @api.exception_handler(RequestDataTooBig)
    def _too_big(request, exc):
        return _too_large()

    @api.exception_handler(Exception)
    def _server_error(request, exc):
        log.exception("API error on %s %s", request.method, request.path)
        return error_response(500, "server_error", "internal error; it has been logged")


def max_body_bytes(request=None):
    """The body limit; a trace upload (POST …/traces) may carry a file up to ``TRACE_UPLOAD_MAX_BYTES``."""
    if request is not None and request.method == "POST" and request.path.rstrip("/").endswith("/api/v1/traces"):
        return settings.TRACE_UPLOAD_MAX_BYTES + 64 * 1024  # the multipart envelope around the file
    return getattr(settings, "API_MAX_BODY_BYTES", min(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2**31, 20 * 2**20))


def _too_large(request=None):
    limit = max_body_bytes(request)
    return error_response(
        413, "too_large", f"request body over the limit of {limit} bytes", field="(body)", allowed=f"≤ {limit} bytes"
    )


def _content_length(request):
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def guard(view):
    """Wrap an API URL view: 413 before reading an oversized body, JSON for ninja's bare 405."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if _content_length(request) > max_body_bytes(request):
            return _too_large(request)
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and not response.get("Content-Type", "").startswith("application/json"):
            allowed = response.get("Allow", "")
            response = error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here",
                allowed=allowed,
                headers={"Allow": allowed},
            )
        return response

    return wrapped


def not_found(request, rest=""):
    return error_response(404, "not_found", f"no API endpoint at {request.path}; see /api/v1/docs")


# Project-wide handlers (cloudsched_web/urls.py): JSON under /api/, Django's own pages elsewhere.
def _is_api(request):
    return request.path.startswith("/api/")


def handler400(request, exception=None):
    if _is_api(request):
        return error_response(400, "bad_request", "bad request")
    return defaults.bad_request(request, exception)


def handler404(request, exception=None):
    if _is_api(request):
        return not_found(request)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if _is_api(request):
        return error_response(500, "server_error", "internal error; it has been logged")
    return defaults.server_error(request)
