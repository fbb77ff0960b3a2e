from django.contrib import admin

from cloudsched_web.scenarios.models import Scenario


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "family", "owner", "updated_at")
    list_filter = ("family", "owner")
    search_fields = ("name", "owner__username")
    readonly_fields = ("created_at", "updated_at")
