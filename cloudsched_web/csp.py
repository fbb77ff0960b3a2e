"""Content-Security-Policy on every response (Django 5.2 has none built in).

The policy is one static header built from ``settings.SECURE_CSP`` (same shape as Django 6.0's
setting: ``{directive: [sources]}``), so moving to Django 6.0 means swapping this middleware for
``django.middleware.csp.ContentSecurityPolicyMiddleware``. No page needs a nonce: every script is a
file under /static/ and page data travels as ``json_script`` (type application/json, never run).
"""

from django.conf import settings


def header_value(policy: dict) -> str:
    """``{"script-src": ["'self'"], "upgrade-insecure-requests": True}`` → ``script-src 'self'; upgrade-insecure-requests``."""
    parts = []
    for directive, sources in policy.items():
        if sources is True:
            parts.append(directive)
        elif sources:
            parts.append(" ".join([directive, *sources]))
    return "; ".join(parts)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.value = header_value(settings.SECURE_CSP)

    def __call__(self, request):
        response = self.get_response(request)
        if self.value:
            response.headers.setdefault("Content-Security-Policy", self.value)
        return response
