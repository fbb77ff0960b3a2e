from django.contrib import admin, messages
from django.db import transaction

from cloudsched_web.runs import services
from cloudsched_web.runs.models import Run, Study, StudyReading
from cloudsched_web.scenarios.admin import TrashAdmin, pretty_json


def requeue(runs):
    """Put finished or stuck runs back in the queue and send them after the commit."""
    ids = list(runs.exclude(status=Run.Status.RUNNING).filter(trashed_at=None).values_list("id", flat=True))
    Run.objects.filter(id__in=ids).update(
        status=Run.Status.QUEUED, progress=0.0, progress_message="requeued by an admin", error="",
        started_at=None, finished_at=None, heartbeat_at=None,
    )  # fmt: skip
    if ids:
        # Checked again when the runs finish: the default reading's verdicts (its runs have no reading) or the
        # alternative reading's whose runs these are.
        Study.objects.filter(runs__id__in=ids, runs__reading=None).update(verdicts=None)
        StudyReading.objects.filter(runs__id__in=ids).update(verdicts=None)
        transaction.on_commit(lambda: services.send(ids))
    return ids


@admin.register(Run)
class RunAdmin(TrashAdmin):
    list_display = (
        "id",
        "ran_as",
        "family_name",
        "owner",
        "study",
        "status",
        "progress",
        "created_at",
        "finished_at",
        "trashed",
    )
    list_filter = ("status", "scenario__family", "scenario__owner")
    search_fields = ("scenario_name", "scenario__name", "scenario__owner__username", "error")
    exclude = ("result_blob", "config", "summary", "point")
    readonly_fields = (
        "scenario", "scenario_name", "study", "point_pretty", "config_pretty", "status", "progress",
        "progress_message", "error", "created_at", "started_at", "finished_at", "heartbeat_at", "attempts",
        "summary_table", "share_token", "trashed_at",
    )  # fmt: skip
    actions = ("requeue_runs",)
    list_select_related = ("scenario", "scenario__owner", "study")

    def get_queryset(self, request):
        # The list never reads a result, a configuration or a study's claims: one query per page.
        return super().get_queryset(request).defer(
            "result_blob", "result_files", "page", "config", "summary", "point", "scenario__config",
            "study__claims", "study__description",
        )  # fmt: skip

    @admin.display(description="scenario (name when run)", ordering="scenario_name")
    def ran_as(self, obj):
        renamed = obj.renamed_to
        return f"{obj.title} (now “{renamed}”)" if renamed else obj.title

    @admin.display(description="family", ordering="scenario__family")
    def family_name(self, obj):
        return obj.scenario.family

    @admin.display(description="owner", ordering="scenario__owner")
    def owner(self, obj):
        return obj.scenario.owner

    @admin.display(description="result summary")
    def summary_table(self, obj):
        return pretty_json(obj.summary)

    @admin.display(description="scenario as run (formatted)")
    def config_pretty(self, obj):
        return pretty_json(obj.config)

    @admin.display(description="study point")
    def point_pretty(self, obj):
        return pretty_json(obj.point)

    @admin.action(description="Requeue the selected runs (not those running)")
    def requeue_runs(self, request, queryset):
        ids = requeue(queryset)
        messages.success(request, f"Requeued {len(ids)} run(s).")


@admin.register(Study)
class StudyAdmin(TrashAdmin):
    list_display = ("id", "name", "scenario", "preset", "scale", "axes", "created_at", "trashed")
    list_filter = ("scenario__family", "scenario__owner")
    search_fields = ("name", "scenario__name", "scenario__owner__username")
    readonly_fields = ("scenario", "axes", "claims_pretty", "preset", "scale", "verdicts_pretty", "created_at",
                       "share_token", "trashed_at")  # fmt: skip
    exclude = ("claims", "verdicts")
    actions = ("requeue_failed", "duplicate")
    list_select_related = ("scenario",)

    def get_queryset(self, request):
        return super().get_queryset(request).defer("scenario__config")

    @admin.display(description="claims")
    def claims_pretty(self, obj):
        return pretty_json(obj.claims)

    @admin.display(description="verdicts")
    def verdicts_pretty(self, obj):
        return pretty_json(obj.verdicts)

    @admin.action(description="Requeue the failed and cancelled runs of the selected studies")
    def requeue_failed(self, request, queryset):
        runs = Run.objects.filter(study__in=queryset, status__in=[Run.Status.FAILED, Run.Status.CANCELLED])
        messages.success(request, f"Requeued {len(requeue(runs))} run(s).")

    @admin.action(description="Duplicate the selected studies (new runs of the same points)")
    def duplicate(self, request, queryset):
        for study in queryset:
            runs = list(study.runs.filter(reading=None).order_by("id"))  # the default reading's; then each other's
            readings = [(r, [x.config for x in r.runs.order_by("id")]) for r in study.readings.all()]
            services.submit_study(
                study.scenario, [r.config for r in runs], points=[r.point for r in runs],
                name=f"copy of {study.name}"[:200], description=study.description, claims=study.claims,
                preset=study.preset, scale=study.scale, readings=readings,
            )  # fmt: skip
        messages.success(request, f"Duplicated {queryset.count()} study(ies).")
