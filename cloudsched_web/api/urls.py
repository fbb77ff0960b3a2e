"""/api/v1/: the ninja API, every view wrapped by errors.guard, and a JSON 404 for anything else."""

from django.urls import re_path

from cloudsched_web.api import errors
from cloudsched_web.api.api import api
from cloudsched_web.api.openapi import api_index


def _guarded(urlpatterns):
    for pattern in urlpatterns:
        if pattern.name == "api-root":
            pattern.callback = api_index  # ninja's root raises a (HTML) 404; ours lists the entry points
        pattern.callback = errors.guard(pattern.callback)
    return urlpatterns


patterns, _, app_name = api.urls  # the namespace ("api-1") that ninja reverses its own URLs in
urlpatterns = [
    *_guarded(list(patterns)),
    re_path(r"^(?P<rest>.*)$", errors.not_found, name="not-found"),
]
