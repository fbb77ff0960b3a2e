"""The /api/v1/ NinjaAPI: routers, authentication, JSON errors, offline docs."""

from django.shortcuts import render
from ninja.openapi.docs import DocsBase
from ninja.parser import Parser

from cloudsched_web.api import errors
from cloudsched_web.api.auth import SessionAuth, TokenAuth
from cloudsched_web.api.openapi import CloudschedAPI
from cloudsched_web.api.routers import families, runs, scenarios, studies, traces, trash
from schedulers.core import jsonio

DESCRIPTION = """\
Scripted experiments against a cloudsched server: families and their scenario schemas,
scenarios, stored SWF traces, runs and studies, results (windowed, paginated, downsampled) and exports.

Authenticate with a personal token (`Authorization: Bearer cs_…`, created at
[/account/tokens/](/account/tokens/)) or, from the site's own pages, the session cookie
plus an `X-CSRFToken` header. Other users' objects answer 404. Errors are JSON:
`{"error": {"code", "message", "field", "allowed"}}`.
"""


class BoundedParser(Parser):
    """Request bodies through the library's bounded JSON reader (depth, size, digits), like scenario bodies."""

    def parse_body(self, request):
        return jsonio.loads(request.body, "(body)")


class OfflineSwagger(DocsBase):
    """Swagger UI from npm's swagger-ui-dist through staticfiles: the docs page needs no CDN."""

    def render_page(self, request, api, **kwargs):
        settings = {"url": self.get_openapi_url(api, kwargs), "layout": "BaseLayout", "deepLinking": True}
        return render(request, "api/docs.html", {"api": api, "swagger_settings": settings})


api = CloudschedAPI(
    title="cloudsched API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="api-1",
    auth=[TokenAuth(), SessionAuth()],
    docs=OfflineSwagger(),
    parser=BoundedParser(),
)
errors.install(api)
api.add_router("/families", families.router)
api.add_router("/scenarios", scenarios.router)
api.add_router("/scenarios", studies.submit)
api.add_router("/runs", runs.router)
api.add_router("/studies", studies.router)
api.add_router("/trash", trash.router)
api.add_router("/traces", traces.router)
