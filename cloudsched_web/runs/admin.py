import json

from django.contrib import admin
from django.utils.html import format_html

from cloudsched_web.runs.models import Run


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "scenario", "family_name", "owner", "status", "progress", "created_at", "finished_at")
    list_filter = ("status", "scenario__family", "scenario__owner")
    search_fields = ("scenario__name", "scenario__owner__username", "error")
    exclude = ("result_blob",)
    readonly_fields = (
        "scenario", "config", "status", "progress", "progress_message", "error", "created_at", "started_at",
        "finished_at", "heartbeat_at", "attempts", "summary_table", "share_token",
    )  # fmt: skip

    @admin.display(description="family", ordering="scenario__family")
    def family_name(self, obj):
        return obj.scenario.family

    @admin.display(description="owner", ordering="scenario__owner")
    def owner(self, obj):
        return obj.scenario.owner

    @admin.display(description="result summary")
    def summary_table(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.summary, indent=2))
