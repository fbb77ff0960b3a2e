"""Content-Security-Policy: on every response, and no page needs what it forbids.

The browser tests (tests/browser) load the same pages in Chromium with the policy on and fail on
any violation; these tests read the header and the rendered HTML.
"""

from html.parser import HTMLParser

import pytest

from tests import site_pages

pytestmark = pytest.mark.django_db


def _policy(response):
    value = response.headers.get("Content-Security-Policy")
    assert value, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in value.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def _assert_strict(policy):
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    for name, sources in policy.items():
        for source in sources:
            # Only this origin (and data: images): no host, scheme-wide source, wildcard, inline or eval.
            assert source in ("'self'", "'none'") or (name == "img-src" and source == "data:"), (name, source)


class _Inline(HTMLParser):
    """Collects what a strict policy blocks: inline scripts, event-handler attributes, inline styles."""

    def __init__(self):
        super().__init__()
        self.found = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
        if "style" in attrs:
            self.found.append(f"<{tag} style=…>")
        if tag == "style":
            self.found.append("<style>")
        if tag == "script":
            if attrs.get("src"):
                src = attrs["src"]
                same_origin = src.startswith(("/", "{% static ", "{% url ")) and not src.startswith("//")
                if not same_origin:
                    self.found.append(f"<script src={src}>")
            elif attrs.get("type") != "application/json":
                self._in_inline_script = True
        if tag == "a" and (attrs.get("href") or "").lower().startswith("javascript:"):
            self.found.append("<a href=javascript:…>")

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.found.append(f"<script>{data.strip()[:40]}…")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False


def _inline_parts(html):
    parser = _Inline()
    parser.feed(html)
    return parser.found


@pytest.fixture
def site(alice):
    return site_pages.build(alice, admin=site_pages.superuser())


def test_every_page_type_sends_the_policy_and_needs_nothing_it_forbids(client, alice, site):
    pages = [("anonymous", url) for url in site.anonymous]
    client.force_login(alice)
    pages += [("owner", url) for url in site.owner]
    assert pages  # the loop below checks each
    for who, url in pages:
        response = client.get(url)
        assert response.status_code == (404 if url == "/no/such/page/" else 200), url
        _assert_strict(_policy(response))
        assert _inline_parts(response.content.decode()) == [], (who, url)


def test_the_admin_pages_need_nothing_the_policy_forbids(client, site):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="root"))
    assert site.staff  # the loop below checks each
    for url in site.staff:
        response = client.get(url)
        assert response.status_code == 200, url
        _assert_strict(_policy(response))
        assert _inline_parts(response.content.decode()) == [], url
        assert "/static/css/admin.css" in response.content.decode()  # the JSON views' style, as a file


def test_json_static_redirect_and_error_responses_carry_it_too(client, alice, site):
    client.force_login(alice)
    for url in [
        f"/runs/{site.run.pk}/status.json",
        f"/share/{site.run.share_token}/data.json?kind=gantt",
        "/api/v1/runs",
        "/api/v1/openapi.json",
        "/static/js/pages/run.js",
        "/static/vendor/chart.js/dist/chart.umd.js",
        "/api/v1/no-such-endpoint",
    ]:
        _assert_strict(_policy(client.get(url)))
    _assert_strict(_policy(client.post(f"/scenarios/{site.scenario.pk}/clone/")))  # a redirect


def test_the_checker_sees_what_the_policy_would_block():
    """The HTML check above is not vacuous: it flags each kind of inline code."""
    html = (
        '<script>alert(1)</script><form onsubmit="return confirm(1)"></form><p style="color:red"></p>'
        '<script src="https://cdn.example.org/x.js"></script><script type="application/json">{}</script>'
        '<script src="/static/js/run.js"></script>'
    )
    assert len(_inline_parts(html)) == 4


def test_no_template_source_holds_inline_code():
    """Pages not in the list above (a new page, an error page) are held to the same rule at the source."""
    from pathlib import Path

    from django.conf import settings

    roots = [Path(settings.BASE_DIR, "templates"), *Path(settings.BASE_DIR, "cloudsched_web").glob("*/templates")]
    sources = [f for root in roots for f in root.rglob("*.html")]
    assert len(sources) >= 20
    found = {str(f.relative_to(settings.BASE_DIR)): _inline_parts(f.read_text()) for f in sources}
    assert {name: parts for name, parts in found.items() if parts} == {}
