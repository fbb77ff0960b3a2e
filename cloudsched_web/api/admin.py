from django.contrib import admin
from django.utils import timezone

from cloudsched_web.api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("user", "prefix", "created_at", "last_used_at", "revoked_at")
    exclude = ("digest",)
    actions = ["revoke"]

    def has_add_permission(self, request):  # tokens are created by their owner, who sees the plaintext once
        return False

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        n = queryset.filter(revoked_at=None).update(revoked_at=timezone.now())
        self.message_user(request, f"{n} token(s) revoked.")
