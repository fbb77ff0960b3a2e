"""Login throttling keyed on the account *and* the client, so that nobody can lock someone else out.

Two counters of failed attempts, each over the last ``LOGIN_FAILURE_WINDOW_S`` seconds:

- per (client, account): ``LOGIN_FAILURES_PER_USER`` failures block that account *from that client*;
- per client: ``LOGIN_FAILURES_PER_IP`` failures block every log-in from that client.

There is deliberately no counter per account across clients: it would let anyone lock an account
out by failing from elsewhere. The client is ``REMOTE_ADDR``, or, when that is a trusted proxy
(``TRUSTED_PROXIES``), the right-most address of ``CLIENT_IP_HEADER`` that is not a trusted proxy
(what lies left of it was written by the client and is never believed). An IPv6 client counts as
its /64, which one subscriber usually holds whole.

Only attempts that reach authentication count: the counting runs after the CSRF check (a POST it
refuses is no attempt), and an attempt refused before the password is checked gives its slots back.
Both log-in forms (the site's and the admin's) are throttled. Every attempt takes a slot of each
counter *before* the password is checked, so parallel guesses cannot all pass a check made before
any of them failed; a successful log-in gives its slots back and clears that client's counter for
the account. A slot is one cache key claimed with ``add`` (atomic on the database, Redis and
local-memory caches) that expires on its own, so a counter is a sliding window and a blocked client
is told exactly when its oldest failure expires. The counters live in the ``throttle`` cache (its
own table, never culled by cached pages). A blocked client gets the 429 page with ``Retry-After``.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import math
import time

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import caches
from django.dispatch import receiver
from django.shortcuts import render
from django.urls import reverse

log = logging.getLogger(__name__)
THROTTLED_LOGIN_VIEWS = ("login", "admin:login")


def _parse(text: str):
    """An address from a header or REMOTE_ADDR (``[v6]:port`` and ``v4:port`` too), or None."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        return None
    return (addr.ipv4_mapped or addr) if addr.version == 6 else addr


@functools.lru_cache(maxsize=8)
def _networks(specs: tuple[str, ...]):
    return tuple(ipaddress.ip_network(spec, strict=False) for spec in specs)


def _trusted(addr) -> bool:
    return any(addr in net for net in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request) -> str:
    """The address of the client behind any trusted proxies (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "")
    addr = _parse(remote)
    if addr is None:
        return remote[:64] or "unknown"
    if _trusted(addr):
        header = request.META.get("HTTP_" + settings.CLIENT_IP_HEADER.upper().replace("-", "_"), "")
        for hop in reversed(header.split(",")):
            parsed = _parse(hop)
            if parsed is None:  # a malformed hop: stop at the last address a trusted proxy vouched for
                break
            addr = parsed
            if not _trusted(addr):
                break
    return str(addr)


def client_id(request) -> str:
    """What the counters key on: the client's address, or its /64 for IPv6."""
    addr = _parse(client_address(request))
    if addr is not None and addr.version == 6:
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return client_address(request)


def _account(username) -> str:
    # Hashed: a cache key must not carry spaces or control characters, nor grow with the input.
    return hashlib.sha256((username or "").strip().lower().encode("utf-8", "replace")).hexdigest()[:32]


def _slots(key: str, limit: int) -> list[str]:
    return [f"{key}:{i}" for i in range(max(limit, 1))]


CLAIM_TRIES = 5  # rounds of claiming before a failing cache lets the attempt through


def take_slot(key: str, limit: int, window: int) -> tuple[str | None, int]:
    """Claim one of ``limit`` slots of ``key`` for ``window`` s: ``(slot, 0)``, or ``(None, seconds to wait)``.

    ``(None, 0)`` when the cache refused a free slot (broken cache): the attempt is let through.
    """
    cache, names = caches["throttle"], _slots(key, limit)
    for attempt in range(CLAIM_TRIES):
        now = time.time()
        live = cache.get_many(names)
        for name in names:
            if name not in live and cache.add(name, now + window, window):
                return name, 0
        live = cache.get_many(names)  # every add lost a race, or the cache is failing (a busy database)
        if len(live) == len(names):  # another thread's clock read may be a little later than ours: at most window
            return None, min(window, max(1, math.ceil(min(live.values()) - time.time())))
        time.sleep(0.05 * (attempt + 1))  # a free slot whose add failed: the database cache drops errors; retry
    log.warning("throttle cache refused a free slot of %s %d times; attempt allowed", key, CLAIM_TRIES)
    return None, 0


def _blocked(request, retry_after: int):
    response = render(request, "429.html", {"retry_after_min": math.ceil(retry_after / 60)}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


@functools.lru_cache(maxsize=1)
def _login_paths() -> frozenset[str]:
    return frozenset(reverse(name) for name in THROTTLED_LOGIN_VIEWS)


@receiver(user_logged_in)
def _mark_success(sender, request=None, user=None, **kwargs):
    if request is not None:
        request.login_succeeded = True


@receiver(user_login_failed)
def _mark_failure(sender, credentials=None, request=None, **kwargs):
    if request is not None:
        request.login_failed = True


class LoginRateLimitMiddleware:
    """Counts in ``process_view``, which runs after the CSRF check's: a POST the CSRF check refused never
    reaches it, so a form on another site cannot spend anyone's attempts. An attempt that did not reach
    authentication (a blank field) gives its slots back; only a password checked and refused
    (``user_login_failed``) keeps them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        taken = getattr(request, "login_slots", None)
        if taken is None:
            return response
        if getattr(request, "login_succeeded", False):
            # The slots of this attempt go back; the account's failures from this client are forgiven.
            # The client's other failures stay counted: logging in to one's own account between
            # guesses at others must not reset the per-client counter.
            self._release([*taken, *_slots(request.login_pair_key, settings.LOGIN_FAILURES_PER_USER)])
        elif not getattr(request, "login_failed", False):
            self._release(taken)  # refused before the password was checked: no attempt at it
        return response

    @staticmethod
    def _release(names):
        try:
            caches["throttle"].delete_many(names)
        except Exception:
            log.exception("login throttle cache unavailable; counters not released")

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method != "POST" or request.path not in _login_paths():
            return None
        per_user, per_client, window = (
            settings.LOGIN_FAILURES_PER_USER,
            settings.LOGIN_FAILURES_PER_IP,
            settings.LOGIN_FAILURE_WINDOW_S,
        )
        client = client_id(request)
        pair_key = f"login-fail:{client}:{_account(request.POST.get('username'))}"
        taken: list[str] = []
        try:
            slot, retry = take_slot(pair_key, per_user, window)
            taken += [slot] if slot else []
            if not retry:
                slot, retry = take_slot(f"login-fail-client:{client}", per_client, window)
                taken += [slot] if slot else []
            if retry:
                caches["throttle"].delete_many(taken)
                return _blocked(request, retry)
        except Exception:  # a broken cache must not take log-in down: fail open, loudly
            log.exception("login throttle cache unavailable; attempt allowed")
        request.login_slots, request.login_pair_key = taken, pair_key
        return None
