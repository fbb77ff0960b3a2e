"""Helpers shared by the routers: the caller, JSON bodies, owned objects (404 for others')."""

import logging

from django.urls import NoReverseMatch, reverse

import schedulers
from cloudsched_web.api.errors import ApiError
from cloudsched_web.runs import budget
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from schedulers.core import jsonio

MAX_PAGE = 200
log = logging.getLogger(__name__)


def owner(request):
    return request.auth


def json_body(request):
    """The request's JSON object, parsed by the library's bounded reader (a ScenarioError is a 400)."""
    data = jsonio.loads(request.body or b"null", "(body)")
    if not isinstance(data, dict):
        raise ApiError(400, "invalid", "the body must be a JSON object", field="(body)", allowed="a JSON object")
    return data


def validate_scenario(config):
    """``schedulers.validate`` and the run limits (runs.budget) with their answer as an API error; returns ``(family, model)``.

    A family that checks a trace path on disk may raise OSError for a path the OS
    refuses (too long, bad bytes): that is bad input, not a server error.
    """
    try:
        return budget.checked(schedulers.validate(config))  # and within this server's run limits
    except OSError as exc:
        log.warning("scenario validation raised %r; answered 400", exc)
        raise ApiError(
            400, "invalid", f"the scenario names a file the server cannot use: {exc.strerror}", field="workload"
        ) from None


def _missing(kind, pk):
    return ApiError(404, "not_found", f"no {kind} {pk}")


def get_scenario_for_user(request, pk):
    scenario = Scenario.objects.filter(pk=pk, owner=owner(request)).first()
    if scenario is None:
        raise _missing("scenario", pk)
    return scenario


def get_run_for_user(request, pk):
    # The result blob (MBs) is read only when a result is asked for and not already cached.
    run = Run.objects.defer("result_blob").filter(pk=pk, scenario__owner=owner(request)).first()
    if run is None:
        raise _missing("run", pk)
    return run


def get_study_for_user(request, pk):
    study = Study.objects.select_related("scenario").filter(pk=pk, scenario__owner=owner(request)).first()
    if study is None:
        raise _missing("study", pk)
    return study


def absolute(request, name, *args):
    try:
        return request.build_absolute_uri(reverse(name, args=args))
    except NoReverseMatch:  # a page the web app does not (yet) have
        return ""


def page(queryset, offset, limit, out):
    return {
        "count": queryset.count(),
        "offset": offset,
        "limit": limit,
        "items": [out(obj) for obj in queryset[offset : offset + limit]],
    }


def share_response(request, obj, url_name):
    """201 with the new share link, or 200 with the existing one (runs and studies alike)."""
    from ninja import Status

    created = obj.share()
    return Status(
        201 if created else 200, {"token": str(obj.share_token), "url": absolute(request, url_name, obj.share_token)}
    )
