"""Submitting runs and studies: rows first, Celery messages after the transaction commits."""

import itertools
import logging
import math

import orjson
from celery import group
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import schedulers
from cloudsched_web.celery import RUN_TASK, app
from cloudsched_web.runs import budget
from cloudsched_web.runs.models import Run, Study, StudyReading
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.services import check_refs
from schedulers.core.sweep import expand, flatten, varying_paths
from schedulers.reproduce import preset_readings

log = logging.getLogger(__name__)
MAX_STUDY_POINTS = 200
BROKER_DOWN = (
    "not yet sent to the task queue: its broker (Redis) could not be reached at {clock}; the run is kept "
    "and sent when the broker answers again (the sweeper retries every sweep)"
)
MAX_STUDY_CONFIG_BYTES = 64 * 10**6  # the scenarios a study stores, summed


def _publish(run_ids):
    """Publish runs already marked dispatched (``dispatched_at``, the outbox mark the sweeper relies on);
    if the broker is down, the marks are taken back and the sweeper resends them.

    The task is named, not imported: the tasks module calls this one (its sweeper), and a name is how the
    broker carries it anyway (eager in tests: the registered task runs in-process)."""
    try:
        if len(run_ids) == 1:
            app.signature(RUN_TASK, args=(run_ids[0],)).delay()
        else:  # a group, so that several workers share a study
            group(app.signature(RUN_TASK, args=(rid,)) for rid in run_ids).apply_async()
    except Exception:  # broker down: the rows stay queued, undispatched, and the sweeper resends them
        log.warning("could not send runs %s to the broker; they stay queued", run_ids, exc_info=True)
        Run.objects.filter(id__in=run_ids, status=Run.Status.QUEUED).update(
            dispatched_at=None,
            progress_message=BROKER_DOWN.format(clock=timezone.localtime().strftime("%H:%M:%S %Z")),
        )
        return False
    Run.objects.filter(id__in=run_ids, status=Run.Status.QUEUED).exclude(
        progress_message__startswith="requeued"
    ).update(progress_message=SENT)
    return True


SENT = "sent to the task queue; waiting for a worker"
HELD = "waiting for your earlier runs: each user has {n} run(s) at a time at the head of the task queue"


def _waiting_at_broker(owner_id, starting=None):
    """Runs of ``owner_id`` sent to the broker that no worker has taken yet (``starting``: one being taken)."""
    sent = Run.objects.filter(scenario__owner_id=owner_id, status=Run.Status.QUEUED, dispatched_at__isnull=False)
    return sent.exclude(id=starting).count() if starting else sent.count()


def release(owner_ids=None, starting=None):
    """Send queued runs to the broker fairly: at most ``RUN_DISPATCH_PER_OWNER`` runs of each owner wait
    at the broker at a time (0: no bound); the oldest of each owner's held runs go, owners interleaved.
    So the broker's queue holds a few runs per user, whatever one user queued, and a run another user
    submits is at most that many runs per user away from a free worker. Called on submission, when a
    worker takes a run (``starting``: that run no longer waits) and when one ends (``runs.apps``), and by
    the sweeper. Returns the ids sent."""
    from cloudsched_web.celery import app

    # Tasks run in-process (CELERY_TASK_ALWAYS_EAGER): one after another anyway, and holding would nest them.
    per_owner = 0 if app.conf.task_always_eager else settings.RUN_DISPATCH_PER_OWNER
    held = Run.objects.filter(status=Run.Status.QUEUED, dispatched_at=None)
    if owner_ids is not None:
        held = held.filter(scenario__owner_id__in=list(owner_ids))
    batches = []
    for owner_id in sorted(set(held.values_list("scenario__owner_id", flat=True))):
        mine = held.filter(scenario__owner_id=owner_id).order_by("created_at", "id")
        if per_owner > 0:
            ids = list(mine.values_list("id", flat=True)[: max(per_owner - _waiting_at_broker(owner_id, starting), 0)])
            mine.exclude(id__in=ids).exclude(progress_message__startswith=BROKER_DOWN[:30]).update(
                progress_message=HELD.format(n=per_owner)
            )
        else:
            ids = list(mine.values_list("id", flat=True))
        batches.append(ids)
    now, sent = timezone.now(), []
    for rid in (i for batch in itertools.zip_longest(*batches) for i in batch if i is not None):
        # Claimed by a conditional update: two releases at once never send one run twice.
        if Run.objects.filter(id=rid, status=Run.Status.QUEUED, dispatched_at=None).update(dispatched_at=now):
            sent.append(rid)
    if sent and not _publish(sent):
        return []
    return sent


def send(run_ids):
    """Queue ``run_ids`` (rows already queued and undispatched): released with their owners' other runs."""
    owners = Run.objects.filter(id__in=run_ids).values_list("scenario__owner_id", flat=True).distinct()
    return release(list(owners))


def check_queue_room(owner, adding, field):
    """Refuse ``adding`` more runs when ``owner`` would hold more than ``RUN_QUEUE_MAX_PER_USER`` queued or
    running runs (0: no cap)."""
    cap = settings.RUN_QUEUE_MAX_PER_USER
    if cap <= 0 or owner is None:
        return
    have = Run.objects.filter(scenario__owner=owner, status__in=(Run.Status.QUEUED, Run.Status.RUNNING)).count()
    if have + adding > cap:
        raise schedulers.ScenarioError.single(
            field,
            f"you have {have:,} runs queued or running; this would add {adding:,}",
            f"at most {cap:,} queued or running runs per user (RUN_QUEUE_MAX_PER_USER); wait for some to finish",
        )


def submit_run(scenario, checked=None):
    """Queue a run of ``scenario``. It is validated and held to the run budget here (the library may have
    tightened its limits since saving; what the worker could not run is never queued), unless the caller
    passes the ``(family, model)`` it has just checked so (``api.common.validate_scenario``)."""
    if checked is None:
        budget.check(schedulers.validate(scenario.config))
    check_queue_room(scenario.owner, 1, "(runs)")
    run = Run.objects.create(scenario=scenario, config=scenario.config, scenario_name=scenario.name)
    transaction.on_commit(lambda: send([run.id]))
    return run


def _validated(configs):
    """Validate every point first: a study is created whole or not at all. Returns the ``(family, model)``
    of each point (what the run budget estimates from, without validating again)."""
    errors = []
    checked = []
    for i, config in enumerate(configs):
        try:
            checked.append(schedulers.validate(config))
        except schedulers.ScenarioError as exc:
            errors += [{**e, "field": f"points[{i}].{e['field']}"} for e in exc.errors]
    if errors:
        raise schedulers.ScenarioError(errors)
    return checked


def _check_size(points, config_bytes, field):
    """Refuse a study before anything is built: ``points`` × the scenario's size is what it would store."""
    if not 1 <= points <= MAX_STUDY_POINTS:
        raise schedulers.ScenarioError.single(field, f"a study of {points:,} points", f"1..{MAX_STUDY_POINTS} points")
    if points * config_bytes > MAX_STUDY_CONFIG_BYTES:
        raise schedulers.ScenarioError.single(
            field,
            f"{points:,} points × a {config_bytes / 1e6:.1f} MB scenario would store "
            f"{points * config_bytes / 1e6:,.0f} MB of scenarios",
            f"at most {MAX_STUDY_CONFIG_BYTES // 10**6} MB in all (fewer points, or a stored trace for the jobs)",
        )


def _prepared(scenario, configs, points):
    """Everything a study needs that reads or computes: done outside any transaction (short write locks)."""
    _check_size(len(configs), max((len(orjson.dumps(c)) for c in configs), default=0), "points")
    checked = _validated(configs)
    budget.check_points(checked)
    configs = [cfg.model_dump(mode="json") for _, cfg in checked]
    refused = [{**e, "field": f"points[{i}].{e['field']}"} for i, c in enumerate(configs)
               for e in check_refs(c, scenario.owner)]  # fmt: skip
    if refused:  # a sweep over workload.trace names only traces the owner may use
        raise schedulers.ScenarioError(refused)
    axes = varying_paths(configs)
    if points is None:
        flat = [flatten(c) for c in configs]
        points = [{a: f.get(a) for a in axes} for f in flat]
    return configs, points, axes


def _create_study(scenario, configs, points, axes, readings=(), **fields):
    """The study's rows in one short transaction; its runs go to the broker once it commits.

    ``readings``: a preset's declared readings, default first, as ``(reading, configs)``; the default's
    configs are ``configs`` (its runs have no reading), each alternative's are the same points with its
    parameters applied, run after them and counted against the queue like any run."""
    adding = len(configs) + sum(len(cs) for r, cs in readings if not r.default)
    check_queue_room(scenario.owner, adding, "points")
    with transaction.atomic():
        study = Study.objects.create(scenario=scenario, axes=axes, **fields)
        rows = [
            Run(scenario=scenario, scenario_name=scenario.name, study=study, config=c, point=p)
            for c, p in zip(configs, points, strict=True)
        ]
        for i, (r, cs) in enumerate(readings):
            row = StudyReading.objects.create(
                study=study, position=i, name=r.name, text=r.text, default=r.default, why=r.why, params=dict(r.params),
                algorithms=list(r.algorithms),
            )  # fmt: skip
            if not r.default:
                rows += [Run(scenario=scenario, scenario_name=scenario.name, study=study, config=c, point=p,
                             reading=row) for c, p in zip(cs, points, strict=True)]  # fmt: skip
        ids = [r.id for r in Run.objects.bulk_create(rows)]
        transaction.on_commit(lambda: send(ids))
    return study


def submit_study(
    scenario, configs, points=None, name="", description="", claims=(), preset="", scale="paper", readings=()
):
    """Create a study of ``configs`` (full scenarios) under ``scenario`` and queue all its runs; ``readings``
    as :func:`_create_study` takes them (each alternative's configs checked as the points are)."""
    configs, points, axes = _prepared(scenario, configs, points)
    readings = [(r, cs if r.default else _prepared(scenario, cs, points)[0]) for r, cs in readings]
    return _create_study(
        scenario, configs, points, axes, readings=readings, name=name or scenario.name, description=description,
        claims=list(claims), preset=preset, scale=scale,
    )  # fmt: skip


def submit_sweep(scenario, axes, name=""):
    """Sweep one or two scenario paths (``{"workload.load": [0.5, 0.7, 0.9]}``) over ``scenario``.

    The grid's size is counted from the axis lengths before a single point is built.
    """
    if not 1 <= len(axes) <= 2:
        raise schedulers.ScenarioError.single("axes", f"{len(axes)} swept parameters", "1 or 2")
    _check_size(math.prod(len(v) for v in axes.values()), len(orjson.dumps(scenario.config)), "axes")
    grid = expand(scenario.config, axes)
    return submit_study(
        scenario, [c for _, c in grid], points=[p for p, _ in grid], name=name or f"sweep of {scenario.name}"
    )


def _reading_prepared(probe, reading, configs, points):
    """An alternative reading's points, checked as the default's are; an error names the reading."""
    try:
        return _prepared(probe, configs, points)[0]
    except schedulers.ScenarioError as exc:
        errors = [{**e, "field": f"readings[{reading.name}].{e['field']}"} for e in exc.errors]
        raise schedulers.ScenarioError(errors) from None


def create_preset_study(owner, family, preset, scale="paper", readings=True):
    """Save the first scenario of a paper preset and run the whole preset (at ``scale``) as a study.

    With ``readings`` (the default), each alternative reading the preset declares runs the same points
    with its parameters applied (:meth:`schedulers.core.claims.Reading.apply`, as ``claims`` does), so the
    study page shows a verdict per reading; the runs they add count against the limits like any."""
    doc = schedulers.preset(family, preset, scale)
    name, description = doc.get("name") or preset, doc.get("description", "")
    declared = preset_readings(family, preset) if readings else []
    scenarios = doc["scenarios"]
    alternatives = [r for r in declared if not r.default]
    variants = [[r.apply(s) for s in scenarios] for r in alternatives]
    total = len(scenarios) * (1 + len(variants))
    if variants and total > MAX_STUDY_POINTS:
        raise schedulers.ScenarioError.single(
            "readings",
            f"{len(scenarios)} points under {1 + len(variants)} readings: {total} runs",
            f"at most {MAX_STUDY_POINTS} runs per study; create it without the alternative readings",
        )
    probe = Scenario(owner=owner, family=family)  # the owner whose traces the points may name
    configs, points, axes = _prepared(probe, scenarios, None)
    # Validated and held to the run budget like the default's points; their axes are the default's.
    extra = iter([_reading_prepared(probe, r, v, points) for r, v in zip(alternatives, variants, strict=True)])
    with_configs = [(r, configs if r.default else next(extra)) for r in declared]
    with transaction.atomic():
        # Named after the figure and the preset it came from (the first point's own name says only the point).
        saved = f"{name} · preset {family}/{preset}, {scale} scale"[:200]
        scenario = Scenario.objects.create(
            owner=owner, family=family, name=saved, description=description, config={**configs[0], "name": saved}
        )
        study = _create_study(
            scenario, configs, points, axes, readings=with_configs, name=name, description=description,
            claims=list(doc.get("claims", [])), preset=preset, scale=scale,
        )  # fmt: skip
    study.missing_traces = doc.get("missing_traces", [])  # real logs not stored here: the caller says so
    return study


REDISPATCH_AFTER_S = 6 * 3600


def requeue_abandoned(stale_after_s):
    """Running rows whose heartbeat stopped (their worker was killed whole) go back to the queue.

    The new message carries a new task id, so if the old attempt is somehow alive it can no
    longer write: every write of an attempt is conditioned on its own task id.
    """
    stale = timezone.now() - timezone.timedelta(seconds=stale_after_s)
    return Run.objects.filter(status=Run.Status.RUNNING, heartbeat_at__lt=stale).update(
        status=Run.Status.QUEUED, dispatched_at=None, task_id="", progress=0.0,
        progress_message="requeued: its worker stopped answering; waiting for a worker",
    )  # fmt: skip


def requeue_stale(everything=False):
    """Resend queued runs that never reached the broker (or whose message is presumed lost), fairly
    (:func:`release`): returns the ids sent.

    ``everything`` resends every queued run (start-up after a broker that lost its data);
    claiming by conditional update makes duplicate messages harmless.
    """
    queued = Run.objects.filter(status=Run.Status.QUEUED)
    if not everything:
        lost = timezone.now() - timezone.timedelta(seconds=REDISPATCH_AFTER_S)
        queued = queued.filter(Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=lost))
    queued.filter(dispatched_at__isnull=False).update(dispatched_at=None)  # presumed lost: sent again
    return release()
