import json

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html

from cloudsched_web.scenarios.models import Scenario


def pretty_json(value):
    return format_html('<pre class="mono" style="max-height:40rem;overflow:auto">{}</pre>', json.dumps(value, indent=2))


class ScenarioAdminForm(forms.ModelForm):
    """Name lives twice (the row and ``config["name"]``); an edit of either is kept.

    ``Scenario.clean`` takes the name from the configuration, so a Name edit is
    written into the configuration first. The family comes from the configuration's
    ``family`` key and is read-only here.
    """

    class Meta:
        model = Scenario
        fields = ("owner", "name", "config")

    def clean(self):
        data = super().clean()
        config = data.get("config")
        if "name" in self.changed_data and isinstance(config, dict) and data.get("name"):
            data["config"] = {**config, "name": data["name"]}
        return data


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    form = ScenarioAdminForm
    list_display = ("name", "family", "owner", "algorithms", "updated_at")
    list_filter = ("family", "owner")
    search_fields = ("name", "owner__username")
    readonly_fields = ("family_from_config", "created_at", "updated_at", "config_pretty")
    fields = ("owner", "name", "family_from_config", "config", "config_pretty", "created_at", "updated_at")
    actions = ("duplicate",)

    @admin.display(description="algorithms")
    def algorithms(self, obj):
        return ", ".join(obj.config.get("algorithms", []))[:80]

    @admin.display(description="family")
    def family_from_config(self, obj):
        return format_html('{} <span class="help">(comes from the configuration\'s "family" key)</span>', obj.family)

    @admin.display(description="configuration (formatted)")
    def config_pretty(self, obj):
        return pretty_json(obj.config)

    @admin.action(description="Duplicate the selected scenarios")
    def duplicate(self, request, queryset):
        for scenario in queryset:
            config = {**scenario.config, "name": f"copy of {scenario.name}"[:200]}
            Scenario.objects.create(owner=scenario.owner, family=scenario.family, name=config["name"], config=config)
        messages.success(request, f"Duplicated {queryset.count()} scenario(s).")
