import json

from django.contrib import admin, messages
from django.db.models import TextField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils.html import format_html

from cloudsched_web.scenarios.models import Scenario


def pretty_json(value):
    return format_html('<pre class="mono json-view">{}</pre>', json.dumps(value, indent=2))


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "family", "owner", "algorithms", "updated_at")
    list_filter = ("family", "owner")
    search_fields = ("name", "owner__username")
    readonly_fields = ("created_at", "updated_at", "config_pretty")
    actions = ("duplicate",)

    def get_queryset(self, request):
        # The list reads the algorithms as an annotation, never a configuration (it may hold a big trace).
        qs = super().get_queryset(request).select_related("owner")
        if request.resolver_match and request.resolver_match.url_name.endswith("changelist"):
            qs = qs.defer("config")
        return qs.annotate(algorithms_json=Cast(KT("config__algorithms"), TextField()))

    @admin.display(description="algorithms")
    def algorithms(self, obj):
        return ", ".join(json.loads(obj.algorithms_json or "[]"))[:80]

    @admin.display(description="configuration (formatted)")
    def config_pretty(self, obj):
        return pretty_json(obj.config)

    @admin.action(description="Duplicate the selected scenarios")
    def duplicate(self, request, queryset):
        for scenario in queryset:
            config = {**scenario.config, "name": f"copy of {scenario.name}"[:200]}
            Scenario.objects.create(owner=scenario.owner, family=scenario.family, name=config["name"], config=config)
        messages.success(request, f"Duplicated {queryset.count()} scenario(s).")
