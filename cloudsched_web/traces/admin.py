from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from cloudsched_web.traces.lists import traces_of
from cloudsched_web.traces.models import Trace, TraceHolder
from cloudsched_web.traces.services import referenced


def trace_summary_html(config):
    """The summary and download link of each trace a configuration refers to (admin pages); never its text."""
    rows = []
    for t in traces_of(config, None):
        trace = t["trace"]
        if trace is None:
            rows.append((t["ref"], "not stored on this server", "", ""))
            continue
        load = "n/a" if trace.natural_load is None else f"{trace.natural_load:.3f}"
        what = f"{trace.jobs} jobs, {trace.processors} processors, span {trace.span_s:.0f} s, natural load {load}"
        rows.append((trace.name, what, reverse("admin:traces_trace_change", args=[trace.pk]),
                     reverse("trace_download", args=[trace.pk])))  # fmt: skip
    if not rows:
        return "—"
    return format_html_join("", '<p><b>{}</b>: {} · <a href="{}">trace</a> · <a href="{}">download</a></p>', rows)


class TraceHolderInline(admin.TabularInline):
    model = TraceHolder
    extra = 0
    fields = ("user", "name", "created_at")
    readonly_fields = ("created_at",)
    verbose_name_plural = "users who may use it (each under their own name)"


@admin.register(Trace)
class TraceAdmin(admin.ModelAdmin):
    list_display = ("name", "short_ref", "jobs", "processors", "span_s", "natural_load", "stored_bytes", "owner",
                    "created_at")  # fmt: skip
    list_filter = ("imported",)
    search_fields = ("name", "sha256", "owner__username")
    readonly_fields = ("sha256", "ref", "download", "jobs", "usable_jobs", "processors", "processors_from",
                       "largest_job", "span_s", "natural_load", "text_bytes", "stored_bytes", "created_at")  # fmt: skip
    fields = ("name", "owner", "imported", *readonly_fields)
    inlines = [TraceHolderInline]

    def has_delete_permission(self, request, obj=None):
        """Not while a scenario or run (trashed ones too) refers to it: they would no longer run."""
        return super().has_delete_permission(request, obj) and (obj is None or not referenced(obj))

    def has_add_permission(self, request):
        return False  # traces come in through uploads and `manage.py import_trace` (parsed and summarised)

    @admin.display(description="reference")
    def short_ref(self, obj):
        return obj.ref[:19] + "…"

    @admin.display(description="file")
    def download(self, obj):
        return format_html('<a href="{}">download (.swf.gz)</a>', reverse("trace_download", args=[obj.pk]))
