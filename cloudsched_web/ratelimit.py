"""Login throttling: failed attempts are counted per (IP, username) and per IP in the cache.

The default cache is the database (shared by every web process, no extra service);
a blocked client gets a 429 page that says when to try again.
"""

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.shortcuts import render
from django.urls import reverse

WINDOW_S = getattr(settings, "LOGIN_FAILURE_WINDOW_S", 900)
PER_USER = getattr(settings, "LOGIN_FAILURES_PER_USER", 5)
PER_IP = getattr(settings, "LOGIN_FAILURES_PER_IP", 30)


def _ip(request):
    return request.META.get("REMOTE_ADDR", "unknown")


def _keys(request, username):
    ip = _ip(request)
    return f"login-fail:{ip}:{(username or '').lower()[:150]}", f"login-fail-ip:{ip}"


def _bump(key):
    cache.add(key, 0, WINDOW_S)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, WINDOW_S)
        return 1


@receiver(user_login_failed)
def _count_failure(sender, credentials, request=None, **kwargs):
    if request is not None:
        for key in _keys(request, credentials.get("username")):
            _bump(key)


class LoginRateLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path == reverse("login"):
            user_key, ip_key = _keys(request, request.POST.get("username"))
            if (cache.get(user_key) or 0) >= PER_USER or (cache.get(ip_key) or 0) >= PER_IP:
                context = {"retry_after_min": WINDOW_S // 60}
                response = render(request, "429.html", context, status=429)
                response["Retry-After"] = str(WINDOW_S)
                return response
        return self.get_response(request)
