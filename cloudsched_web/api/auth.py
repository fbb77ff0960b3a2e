"""Who is calling: a personal bearer token (scripts) or the browser session (the pages' own calls).

Token requests are rate-limited per token in fixed windows kept in Django's
cache (``API_RATE_LIMIT`` requests per ``API_RATE_WINDOW_S`` seconds). The
session path checks CSRF on unsafe methods, as the pages' forms do.
"""

import logging
import time

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from ninja.security import HttpBearer
from ninja.security.apikey import APIKeyCookie
from ninja.utils import check_csrf

from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.models import ApiToken, token_digest

log = logging.getLogger(__name__)
LAST_USED_RESOLUTION_S = 60  # write last_used_at at most once a minute per token


def rate_limit():
    return getattr(settings, "API_RATE_LIMIT", 600), getattr(settings, "API_RATE_WINDOW_S", 60)


def _count(key, window):
    cache = caches["throttle"]
    cache.add(key, 0, timeout=window + 5)
    try:
        return cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=window + 5)
        return 1


def _check_rate(token_id):
    limit, window = rate_limit()
    now = time.time()
    bucket = int(now // window)
    try:
        count = _count(f"api-rate:{token_id}:{bucket}", window)
    except Exception:  # a broken cache must not take the API down: fail open, loudly
        log.warning("rate limit cache unavailable; request allowed", exc_info=True)
        return
    if count > limit:
        retry = max(1, int((bucket + 1) * window - now) + 1)
        raise ApiError(
            429,
            "rate_limited",
            f"rate limit of {limit} requests per {window} s exceeded for this token; retry in {retry} s",
            allowed=f"{limit} requests per {window} s",
            headers={"Retry-After": str(retry)},
        )


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        row = ApiToken.objects.select_related("user").filter(digest=token_digest(token.strip())).first()
        if row is None or not row.user.is_active:
            raise ApiError(401, "invalid_token", "unknown API token", headers={"WWW-Authenticate": "Bearer"})
        if not row.is_active:
            raise ApiError(
                401, "revoked_token", "this API token has been revoked", headers={"WWW-Authenticate": "Bearer"}
            )
        _check_rate(row.pk)
        now = timezone.now()
        if not row.last_used_at or (now - row.last_used_at).total_seconds() > LAST_USED_RESOLUTION_S:
            ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        request.user = row.user
        return row.user


class SessionAuth(APIKeyCookie):
    """The logged-in browser session; CSRF is checked only once a session user is found.

    (Ninja's own SessionAuth checks CSRF first, so an anonymous POST would get 403
    instead of the 401 that tells a script to send its token.)
    """

    param_name = settings.SESSION_COOKIE_NAME

    def __init__(self):
        super().__init__(csrf=False)

    def authenticate(self, request, key):
        user = getattr(request, "user", None)
        if not (user and user.is_authenticated):
            return None
        if check_csrf(request):
            raise ApiError(
                403, "csrf_failed", "CSRF check failed: send the csrftoken cookie's value in an X-CSRFToken header"
            )
        return user
