import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "cs_"


def token_digest(token):
    """SHA-256 of a token: tokens are 256-bit random, so a fast hash is enough (no rainbow tables)."""
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(models.Model):
    """A personal API token. Only its digest is stored; the token is shown once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to recognise it in lists.")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user, name):
        """Create a token for ``user``; returns ``(row, plaintext)``: the plaintext is never stored."""
        plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = cls.objects.create(user=user, name=name, prefix=plaintext[:10], digest=token_digest(plaintext))
        return row, plaintext

    @property
    def is_active(self):
        return self.revoked_at is None

    def revoke(self):
        ApiToken.objects.filter(pk=self.pk, revoked_at=None).update(revoked_at=timezone.now())
