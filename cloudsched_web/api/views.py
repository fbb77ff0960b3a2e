"""The API-token profile page: create (shown once), list, revoke."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from cloudsched_web.api.auth import rate_limit
from cloudsched_web.api.models import ApiToken

MAX_ACTIVE_TOKENS = 20


def _get_token_for_user(request, pk):
    return get_object_or_404(ApiToken, pk=pk, user=request.user)


def _render(request, new_token=None, error=None, status=200):
    ctx = {
        "tokens": ApiToken.objects.filter(user=request.user),
        "new_token": new_token,
        "error": error,
        "rate_limit": rate_limit(),
        "api_root": request.build_absolute_uri("/api/v1/"),
    }
    return render(request, "api/tokens.html", ctx, status=status)


@never_cache  # the response may hold a plaintext token: no cache may keep it
@login_required
def tokens(request):
    if request.method != "POST":
        return _render(request)
    name = request.POST.get("name", "").strip()
    if not 1 <= len(name) <= 100:
        return _render(request, error="name: give the token a name of 1 to 100 characters", status=400)
    if ApiToken.objects.filter(user=request.user, revoked_at=None).count() >= MAX_ACTIVE_TOKENS:
        error = f"you already have {MAX_ACTIVE_TOKENS} active tokens: revoke one first"
        return _render(request, error=error, status=400)
    _, plaintext = ApiToken.issue(request.user, name)
    # Rendered in this response only (not redirected): the plaintext is never stored anywhere.
    return _render(request, new_token=plaintext)


@login_required
@require_POST
def revoke(request, pk):
    token = _get_token_for_user(request, pk)
    token.revoke()
    messages.info(request, f"Token “{token.name}” revoked: requests with it now get 401.")
    return redirect("api_tokens")
