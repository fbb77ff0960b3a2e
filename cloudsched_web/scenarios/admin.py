import json

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import TextField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.forms.fields import InvalidJSONInput, JSONString
from django.utils.html import format_html

import schedulers
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.scenarios.services import accept
from schedulers import ScenarioError
from schedulers.core import jsonio


def pretty_json(value):
    return format_html('<pre class="mono json-view">{}</pre>', json.dumps(value, indent=2))


class InTrash(admin.SimpleListFilter):
    title = "trash"
    parameter_name = "trash"

    def lookups(self, request, model_admin):
        return (("live", "not in the trash"), ("trashed", "in the trash"))

    def queryset(self, request, queryset):
        if self.value() == "live":
            return queryset.filter(trashed_at=None)
        if self.value() == "trashed":
            return queryset.exclude(trashed_at=None)
        return queryset


class TrashAdmin(admin.ModelAdmin):
    """Admins see trashed rows too (marked), and restore them; see runs/trash.py.

    Deleting from the admin works as on the site: the change page's Delete moves a live object to the
    trash (with what hangs from it) and only deletes for good what is already there; the list offers
    "move to the trash" and, named as such, Django's permanent delete.
    """

    list_per_page = settings.LIST_PAGE_SIZE
    delete_confirmation_template = "admin/trash_delete_confirmation.html"

    def get_queryset(self, request):
        qs = self.model.all_objects.get_queryset()
        ordering = self.get_ordering(request)
        return qs.order_by(*ordering) if ordering else qs

    def get_list_filter(self, request):
        return (InTrash, *super().get_list_filter(request))

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:  # Django's own: say what it does
            func, name, _ = actions["delete_selected"]
            plural = self.model._meta.verbose_name_plural
            actions["delete_selected"] = (func, name, f"Delete the selected {plural} permanently (no restore)")
        actions["trash_selected"] = self.get_action(TrashAdmin.trash_selected)
        actions["restore_from_trash"] = self.get_action(TrashAdmin.restore_from_trash)
        return actions

    def delete_model(self, request, obj):
        """A live object goes to the trash; one already in the trash is deleted for good."""
        from cloudsched_web.runs import trash

        if obj.trashed_at is None:
            trash.trash(obj)
        else:
            super().delete_model(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        if not self.model.all_objects.filter(pk=obj_id).exists():  # deleted for good: Django's answer
            return super().response_delete(request, obj_display, obj_id)
        from django.http import HttpResponseRedirect
        from django.urls import reverse

        from cloudsched_web.runs import trash

        messages.success(request, trash.moved_message(f"“{obj_display}”"))
        opts = self.model._meta
        return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))

    def render_delete_form(self, request, context):
        obj = context.get("object")
        context["in_trash"] = getattr(obj, "trashed_at", None) is not None
        from cloudsched_web.runs import trash

        context["keep_days"] = trash.keep_days()
        return super().render_delete_form(request, context)

    @admin.action(description="Move the selected items to the trash (restorable)")
    def trash_selected(self, request, queryset):
        from cloudsched_web.runs import trash

        live = list(queryset.filter(trashed_at=None))
        for obj in live:
            trash.trash(obj)
        messages.success(request, trash.moved_message(f"{len(live)} item(s)"))

    @admin.display(description="in trash since", ordering="trashed_at")
    def trashed(self, obj):
        return obj.trashed_at or ""

    @admin.action(description="Restore the selected items from the trash (with what was deleted with them)")
    def restore_from_trash(self, request, queryset):
        from cloudsched_web.runs import trash

        restored, refused = 0, []
        for obj in queryset.exclude(trashed_at=None):
            try:
                trash.restore(obj)
                restored += 1
            except trash.RestoreError as exc:
                refused.append(f"{obj}: {exc}")
        messages.success(request, f"Restored {restored} item(s).")
        for line in refused:
            messages.error(request, line)


class BoundedJSONField(forms.JSONField):
    """A JSON text field read by the library's bounded reader (``schedulers.core.jsonio``).

    Django's own field hands the text to ``json.loads``: a deeply nested document or an integer
    of 100,000 digits raised RecursionError or ValueError, a 500. Here it is a field error that
    says where and what is allowed, like the scenario form's and the API's.
    """

    def to_python(self, value):
        if self.disabled or value in self.empty_values or isinstance(value, (list, dict, int, float, JSONString)):
            return super().to_python(value)
        try:
            converted = jsonio.loads(value, "(configuration)")
        except ScenarioError as exc:
            raise forms.ValidationError(
                [f"{e['field']}: {e['message']} (allowed: {e['allowed']})" for e in exc.errors], code="invalid"
            ) from None
        return JSONString(converted) if isinstance(converted, str) else converted

    def bound_data(self, data, initial):
        """The posted value for redrawing the form (also bounded: an invalid form is shown again)."""
        if self.disabled or data is None:
            return super().bound_data(data, initial)
        try:
            return jsonio.loads(data)
        except ScenarioError:
            return InvalidJSONInput(data)


class ScenarioAdminForm(forms.ModelForm):
    """Name lives twice (the row and ``config["name"]``); an edit of either is kept.

    The accepted configuration's name is the row's, so a Name edit is written into the configuration first. The family comes from the configuration's
    ``family`` key and is read-only here.
    """

    class Meta:
        model = Scenario
        fields = ("owner", "name", "description", "config")
        field_classes = {"config": BoundedJSONField}

    def clean(self):
        """Accepted as the wizard and the API accept a scenario (``scenarios.services.accept``: validated, within
        the run limits, inline traces stored, only the owner's traces named)."""
        data = super().clean()
        config = data.get("config")
        if "name" in self.changed_data and isinstance(config, dict) and data.get("name"):
            data["config"] = config = {**config, "name": data["name"]}
        if config is not None and not self.has_error("config"):
            try:
                family, data["config"] = accept(config, data.get("owner"))
            except schedulers.ScenarioError as exc:
                self.add_error("config", [f"{f}: {m}" for f, m in exc.by_field().items()])
                return data
            self.instance.accepted(family, data["config"])
            data["name"] = self.instance.name  # the configuration's name wins (the form writes the row from data)
        return data


@admin.register(Scenario)
class ScenarioAdmin(TrashAdmin):
    form = ScenarioAdminForm
    list_display = ("name", "family", "owner", "algorithms", "updated_at", "trashed")
    list_filter = ("family", "owner")
    search_fields = ("name", "family", "owner__username", "owner__email", "description")
    readonly_fields = ("key", "family_from_config", "trace", "created_at", "updated_at", "config_pretty", "trashed_at")
    fields = (
        "owner", "name", "key", "description", "family_from_config", "trace", "config", "config_pretty", "created_at",
        "updated_at", "trashed_at",
    )  # fmt: skip
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

    @admin.display(description="family")
    def family_from_config(self, obj):
        return format_html('{} <span class="help">(comes from the configuration\'s "family" key)</span>', obj.family)

    @admin.display(description="trace")
    def trace(self, obj):
        from cloudsched_web.traces.admin import trace_summary_html

        return trace_summary_html(obj.config)

    @admin.display(description="configuration (formatted)")
    def config_pretty(self, obj):
        return pretty_json(obj.config)

    @admin.action(description="Duplicate the selected scenarios")
    def duplicate(self, request, queryset):
        for scenario in queryset:
            config = {**scenario.config, "name": f"copy of {scenario.name}"[:200]}
            Scenario.objects.create(owner=scenario.owner, family=scenario.family, name=config["name"], config=config)
        messages.success(request, f"Duplicated {queryset.count()} scenario(s).")
