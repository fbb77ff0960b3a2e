"""Deleting moves scenarios, studies and runs to a trash; their owner or an admin restores them.

A scenario goes to the trash with its live studies and runs, a study with its live runs, all
stamped with one ``trashed_at``, so that a restore brings back exactly what went in together
(a run trashed on its own before stays in the trash). Trashed rows are hidden by the default
managers (pages, API, share links: 404); the sweeper purges them after ``TRASH_KEEP_DAYS``.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.services import collect_orphans

KINDS = {"scenario": Scenario, "study": Study, "run": Run}


class RestoreError(Exception):
    pass


def keep_days():
    return settings.TRASH_KEEP_DAYS


def purge_date(trashed_at):
    return trashed_at + timedelta(days=keep_days())


def _stop(runs, now):
    """Trashed work stops: queued and running runs are cancelled (a worker's next write sees it)."""
    runs.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLED, finished_at=now, progress_message="cancelled: moved to the trash"
    )


@transaction.atomic
def trash(obj):
    """Move ``obj`` (a Scenario, Study or Run) and what hangs from it to the trash; returns the stamp."""
    now = timezone.now()
    if isinstance(obj, Scenario):
        runs = Run.objects.filter(scenario=obj)
        Study.objects.filter(scenario=obj).update(trashed_at=now)
    elif isinstance(obj, Study):
        runs = Run.objects.filter(study=obj)
    else:
        runs = Run.objects.filter(pk=obj.pk)
    _stop(runs, now)
    runs.update(trashed_at=now)
    type(obj).objects.filter(pk=obj.pk).update(trashed_at=now)
    obj.trashed_at = now
    return now


def moved_message(what):
    return f"Moved {what} to the trash. Restore it from the Trash page within {keep_days()} days."


def _parent_in_trash(obj):
    if isinstance(obj, Scenario):
        return None
    if obj.scenario.trashed_at is not None:
        return f"its scenario “{obj.scenario.name}” is in the trash: restore the scenario first"
    if isinstance(obj, Run) and obj.study_id and obj.study.trashed_at is not None:
        return f"its study “{obj.study.name}” is in the trash: restore the study first"
    return None


@transaction.atomic
def restore(obj):
    """Bring ``obj`` back with everything trashed together with it (same stamp); False if it was live."""
    stamp = obj.trashed_at
    if stamp is None:
        return False
    problem = _parent_in_trash(obj)
    if problem:
        raise RestoreError(problem)
    if isinstance(obj, Scenario):
        Study.all_objects.filter(scenario=obj, trashed_at=stamp).update(trashed_at=None)
        Run.all_objects.filter(scenario=obj, trashed_at=stamp).update(trashed_at=None)
    elif isinstance(obj, Study):
        Run.all_objects.filter(study=obj, trashed_at=stamp).update(trashed_at=None)
    type(obj).all_objects.filter(pk=obj.pk).update(trashed_at=None)
    obj.trashed_at = None
    return True


def get_for_user(user, kind, pk):
    """An object of ``user``, trashed or not (``None`` for another user's or an unknown kind)."""
    model = KINDS.get(kind)
    if model is None:
        return None
    owner = {"owner": user} if model is Scenario else {"scenario__owner": user}
    return model.all_objects.filter(pk=pk, **owner).first()


@dataclass
class Item:
    kind: str
    obj: object
    trashed_at: datetime

    @property
    def purge_on(self):
        return purge_date(self.trashed_at)

    @property
    def contents(self):
        """What comes back with it: the runs and studies trashed together with it."""
        if self.kind == "scenario":
            runs = Run.all_objects.filter(scenario=self.obj, trashed_at=self.trashed_at).count()
            studies = Study.all_objects.filter(scenario=self.obj, trashed_at=self.trashed_at).count()
            return f"{runs} run(s), {studies} study(ies)"
        if self.kind == "study":
            return f"{Run.all_objects.filter(study=self.obj, trashed_at=self.trashed_at).count()} run(s)"
        return ""


def items(user):
    """The user's trash, newest first: each thing the user deleted, not what came along with it — every one.

    Returns ``(kind, pk, trashed_at)`` rows (three queries of two columns each, however full the trash); a page
    of them becomes :class:`Item` objects through :func:`load`."""
    scenarios = Scenario.all_objects.filter(owner=user, trashed_at__isnull=False).values_list("pk", "trashed_at")
    studies = (
        Study.all_objects.filter(scenario__owner=user, trashed_at__isnull=False)
        .filter(Q(scenario__trashed_at__isnull=True) | ~Q(trashed_at=F("scenario__trashed_at")))
        .values_list("pk", "trashed_at")
    )
    runs = Run.all_objects.filter(scenario__owner=user, trashed_at__isnull=False).values_list(
        "pk", "trashed_at", "scenario__trashed_at", "study__trashed_at"
    )
    found = [("scenario", pk, at) for pk, at in scenarios] + [("study", pk, at) for pk, at in studies]
    found += [("run", pk, at) for pk, at, with_scenario, with_study in runs if at not in (with_scenario, with_study)]
    return sorted(found, key=lambda row: (row[2], row[0], row[1]), reverse=True)


def load(rows):
    """:class:`Item` objects for ``(kind, pk, trashed_at)`` rows of :func:`items`, in their order."""
    related = {"scenario": (), "study": ("scenario",), "run": ("scenario", "study")}
    objects = {}
    for kind, model in KINDS.items():
        pks = [pk for k, pk, _ in rows if k == kind]
        if pks:
            found = model.all_objects.filter(pk__in=pks).select_related(*related[kind])
            if model is Run:
                found = found.defer("result_blob", "page")
            objects.update({(kind, o.pk): o for o in found})
    return [Item(kind, objects[(kind, pk)], at) for kind, pk, at in rows if (kind, pk) in objects]


def purge(now=None):
    """Delete for good what has been in the trash longer than ``TRASH_KEEP_DAYS`` (the sweeper calls this),
    then the traces that nothing refers to and nobody holds any more (``traces.services.collect_orphans``)."""
    cutoff = (now or timezone.now()) - timedelta(days=keep_days())
    deleted = 0
    for model in (Scenario, Study, Run):  # a scenario's delete cascades to its runs and studies
        deleted += model.all_objects.filter(trashed_at__lt=cutoff).delete()[0]
    return deleted + collect_orphans()
