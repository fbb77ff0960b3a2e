import uuid
import zlib

import orjson
from django.conf import settings
from django.db import models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

import schedulers
from cloudsched_web.scenarios.models import Scenario, Trashable

MISSED_BEATS = 3  # a run whose worker missed this many heartbeats is abandoned and requeued
SILENT_BEATS = 2  # after this many missed beats its page says the worker stopped answering


def heartbeat_every_s():
    return settings.RUN_HEARTBEAT_EVERY_S


def stale_after_s():
    """No heartbeat for this long: the sweeper requeues the run (default MISSED_BEATS × the heartbeat)."""
    return settings.RUN_STALE_AFTER_S or MISSED_BEATS * heartbeat_every_s()


def sweep_every_s():
    return settings.CELERY_BEAT_SCHEDULE["sweep-queued-runs"]["schedule"]


SWEEP_MARK = "cloudsched:last-sweep"  # in the shared cache: when the beat's sweeper last ran (an ISO time)
SWEEP_LATE = 2  # no sweep for this many intervals (+ a minute): pages stop promising one


def mark_sweep(now=None):
    """Record that the sweeper ran (called by the sweep task; pages read it before promising a requeue)."""
    from django.core.cache import cache

    cache.set(SWEEP_MARK, (now or timezone.now()).isoformat(), timeout=SWEEP_LATE * sweep_every_s() + 60)


def last_sweep():
    """When the sweeper last ran, or None when it has not run lately (no worker with the beat is up)."""
    from django.core.cache import cache

    try:
        mark = cache.get(SWEEP_MARK)
    except Exception:  # a cache that cannot answer must not break a status page
        return None
    return timezone.datetime.fromisoformat(mark) if mark else None


def no_sweeper_text():
    return (
        f"No sweeper has run in the last {SWEEP_LATE * sweep_every_s() + 60} s (no worker with the beat is running), "
        "so nothing requeues it until one starts (./run.sh starts one; docs/deployment.md)."
    )


# Time left is shown once the run is this far along and has run this long (before, the rate is noise).
ETA_MIN_PROGRESS = 0.03
ETA_MIN_ELAPSED_S = 3.0


def remaining_text(seconds):
    """A person's reading of a time left: "about 2 min left", "about 1 h 05 min left"."""
    if seconds < 45:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"about {hours} h {minutes:02d} min left"
    days, hours = divmod(hours, 24)
    return f"about {days} d {hours} h left"


def _clock(t):
    return timezone.localtime(t).strftime("%H:%M:%S %Z")


def workload_digest_of(scenario):
    """``schedulers.workload_digest`` of a result's (normalised) scenario; empty when it cannot be told."""
    if not isinstance(scenario, dict):
        return ""
    try:
        return schedulers.workload_digest(scenario)
    except schedulers.ScenarioError:  # a family no longer installed
        return ""


class Shareable(models.Model):
    """Read-only access by an unguessable token (a UUID4), never by primary key."""

    share_token = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        abstract = True

    def share(self):
        """Create the token if there is none; returns whether it was created."""
        if self.share_token is not None:
            return False
        self.share_token = uuid.uuid4()
        self.save(update_fields=["share_token"])
        return True

    def unshare(self):
        self.share_token = None
        self.save(update_fields=["share_token"])


class Study(Shareable, Trashable):
    """A set of runs of one base scenario: a parameter sweep or a paper preset.

    Each point is a full scenario (kept on its run); ``axes`` names the scenario
    paths that vary across points, so pages can plot metric against parameter.
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="studies")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    claims = models.JSONField(default=list, blank=True, help_text="The paper's claims, shown beside the measurements.")
    axes = models.JSONField(default=list, blank=True, help_text="Scenario paths swept across the points.")
    preset = models.CharField(max_length=100, blank=True, help_text="The paper preset this study runs, if any.")
    scale = models.CharField(max_length=8, default="paper", help_text="paper, or small (the preset's reduction).")
    verdicts = models.JSONField(
        null=True, blank=True, help_text="Each claim checked against the results when the study finished."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"

    def __str__(self):
        return f"study {self.pk}: {self.name}"

    @property
    def owner(self):
        return self.scenario.owner

    def share(self):
        """Share the study and each of its runs (its page links to them); returns whether the study's link is new."""
        with transaction.atomic():
            for run in self.runs.filter(share_token__isnull=True):
                run.share()
            return super().share()

    def unshare(self):
        """Revoke the study's link and its runs' links (a link given out through the study stops opening)."""
        with transaction.atomic():
            Run.all_objects.filter(study=self).update(share_token=None)
            super().unshare()

    def status_counts(self):
        counts = dict.fromkeys(Run.Status.values, 0)
        for status in self.runs.values_list("status", flat=True):
            counts[status] += 1
        return counts

    @property
    def is_finished(self):
        return not self.runs.exclude(status__in=Run.FINISHED).exists()

    def check_claims(self):
        """Check the preset's claims once the runs of a reading have all finished, and store the verdicts once:
        the default reading's in ``verdicts`` (the runs without a reading), each alternative's on its
        :class:`StudyReading`. Each reading is checked on its own runs as soon as they are done, so the
        default's verdicts do not wait for the alternatives.

        A failed point leaves the claims that need it "not evaluated". Returns the default reading's
        verdicts (None while its runs are left, or for a study that is not a preset).
        """
        if not self.preset:
            return self.verdicts
        pending = [r for r in self.readings.all() if not r.default and r.verdicts is None]
        defaults = self.runs.filter(reading=None)
        defaults_done = not defaults.exclude(status__in=Run.FINISHED).exists()
        if self.verdicts is None and defaults_done:
            verdicts = self._check(defaults)
            Study.objects.filter(pk=self.pk, verdicts__isnull=True).update(verdicts=verdicts)
            self.verdicts = verdicts
        for reading in pending:
            # A reading that reruns some algorithms takes the others' results from the default's runs.
            if not reading.runs.exclude(status__in=Run.FINISHED).exists() and (defaults_done or not reading.algorithms):
                verdicts = self._check(reading.runs.all(), reading, defaults)
                StudyReading.objects.filter(pk=reading.pk, verdicts__isnull=True).update(verdicts=verdicts)
                reading.verdicts = verdicts
        return self.verdicts

    def _check(self, runs, reading=None, defaults=None):
        """The preset's verdicts on ``runs`` (one reading's points, in the study's order); a ``reading`` that
        reruns only some algorithms has each point's other results from ``defaults``, the default reading's
        runs of the same points (:meth:`schedulers.core.claims.Reading.merged`, as ``claims`` does)."""
        from schedulers.core.claims import Reading
        from schedulers.reproduce import check_study

        def summary(run):
            return run.summary if run is not None and run.status == Run.Status.SUCCEEDED else None

        runs = list(runs.order_by("id").only("config", "status", "summary"))
        if reading is not None and reading.algorithms:
            merge = Reading(reading.name, reading.text, reading.params, algorithms=tuple(reading.algorithms)).merged
            base = list(defaults.order_by("id").only("status", "summary"))
            summaries = [merge(summary(r), summary(d)) for r, d in zip(runs, base, strict=True)]
        else:
            summaries = [summary(r) for r in runs]
        points = [(r.config.get("name", ""), s, r.config) for r, s in zip(runs, summaries, strict=True)]
        try:
            return check_study(self.scenario.family, self.preset, points)
        except schedulers.ScenarioError:  # the preset is gone from this installation
            return []

    @staticmethod
    def finished_from(counts):
        """Whether a study with these ``status_counts()`` has no run left to do."""
        return counts[Run.Status.QUEUED] + counts[Run.Status.RUNNING] == 0


class StudyReading(models.Model):
    """One reading of what a preset's paper leaves open (``schedulers.core.claims.Reading``), as the study
    was created with it: a preset study runs its points once per reading it declares.

    The default reading's runs are the study's runs without a reading (``Run.reading`` null) and its
    verdicts are ``Study.verdicts``, what every page showed before readings existed; an alternative's
    runs point here and its verdicts are stored here. A study created before readings, or from a
    preset that declares none, has no rows.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="readings")
    position = models.PositiveSmallIntegerField(help_text="The preset's order, the default first.")
    name = models.CharField(max_length=100)
    text = models.TextField(blank=True, help_text="What the reading takes the paper to mean.")
    default = models.BooleanField(default=False)
    why = models.TextField(blank=True, help_text="For the default: why it is the default.")
    params = models.JSONField(default=dict, blank=True, help_text="The scenario parameters the reading sets.")
    algorithms = models.JSONField(
        default=list, blank=True,
        help_text="The only algorithms whose runs the reading changes; the others' results are the default reading's "
                  "(empty: all).",
    )  # fmt: skip
    verdicts = models.JSONField(
        null=True, blank=True, help_text="An alternative's claims checked when its runs finished (the default's: the study's)."
    )  # fmt: skip

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["study", "position"], name="one_reading_per_position")]

    def __str__(self):
        return f"reading {self.name!r} of study {self.study_id}"


class Run(Shareable, Trashable):
    """One execution of a scenario. This row, not Celery's result backend, is the truth."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)
    MAX_ATTEMPTS = 3  # a run whose worker died this many times fails instead of being retried

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="runs", null=True, blank=True)
    point = models.JSONField(default=dict, blank=True, help_text="For a study run: its values of the swept paths.")
    reading = models.ForeignKey(
        StudyReading, on_delete=models.CASCADE, related_name="runs", null=True, blank=True,
        help_text="For a preset study's run under an alternative reading: that reading (empty: the default).",
    )  # fmt: skip
    config = models.JSONField(help_text="The scenario as it was when the run was submitted.")
    scenario_name = models.CharField(
        max_length=200,
        blank=True,
        help_text="The scenario's name when the run was submitted: the run's title, whatever the scenario is called now.",
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)
    progress_message = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    dispatched_at = models.DateTimeField(
        null=True, blank=True, help_text="When the message reached the broker (empty: waiting for the broker)."
    )
    worker = models.CharField(
        max_length=200, blank=True, help_text="Host name of the worker that ran the last attempt."
    )
    task_id = models.CharField(max_length=64, blank=True, help_text="Celery task id of the current attempt.")
    summary = models.JSONField(default=dict, blank=True, help_text="Per-algorithm mean metrics.")
    page = models.JSONField(
        null=True, blank=True, editable=False, help_text="Result page data computed by the worker (runs/page.py)."
    )
    result_blob = models.BinaryField(
        null=True, blank=True, editable=False, help_text="The result's header (zlib JSON); the columns are files."
    )
    result_files = models.JSONField(
        default=dict, blank=True, editable=False, help_text="Manifest of the result's Parquet files (runs.store)."
    )
    workload_digest = models.CharField(
        max_length=80, blank=True, db_index=True, editable=False,
        help_text="schedulers.workload_digest of the result's scenario: runs that share it faced the same instances.",
    )  # fmt: skip

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"run {self.pk} of {self.title} [{self.status}]"

    def save(self, *args, **kwargs):
        if not self.scenario_name and self.scenario_id:  # the snapshot of the name it ran under
            self.scenario_name = self.scenario.name[:200]
        super().save(*args, **kwargs)

    @property
    def title(self):
        """The scenario name this run ran under (its snapshot), not the scenario's current name."""
        return self.scenario_name or self.scenario.name

    @property
    def renamed_to(self):
        """The scenario's current name when it was renamed since this run, else None."""
        current = self.scenario.name
        return current if self.scenario_name and current != self.scenario_name else None

    @property
    def family(self):
        return self.config.get("family", "")

    @property
    def is_finished(self):
        return self.status in self.FINISHED

    @property
    def outcome(self):
        """The status as pages say it: a run that succeeded with some units failed (its ``error`` names them,
        the result keeps the others) is "partly failed"."""
        if self.status == self.Status.SUCCEEDED and self.error:
            return "partly failed"
        return self.status

    def status_dict(self):
        """What pages poll and the API returns for a run's progress (one shape for both)."""
        stalled = self.stalled()
        remaining = None if stalled else self.remaining_s()
        return {
            "id": self.pk,
            "status": self.status,
            "outcome": self.outcome,
            "progress": self.progress,
            "message": self.progress_message,
            "error": self.error,
            "finished": self.is_finished,
            "wall_time_s": self.wall_time_s,
            "stalled": stalled,
            "remaining_s": None if remaining is None else round(remaining, 1),
            "remaining": "" if remaining is None else remaining_text(remaining),
        }

    def remaining_s(self, now=None):
        """Seconds left, at the run's average rate so far: elapsed × (1 − p) / p for progress fraction p,
        estimated at the worker's last report (progress or heartbeat) and counted down since.

        The average over the whole attempt is the smoothing: one slow or fast progress step moves it
        little, unlike the rate between the last two reports. ``None`` until it means something
        (progress ≥ ETA_MIN_PROGRESS after ETA_MIN_ELAPSED_S), and when the run is not running.
        """
        if self.status != self.Status.RUNNING or self.started_at is None:
            return None
        p = float(self.progress or 0.0)
        now = now or timezone.now()
        reported = min(self.heartbeat_at or now, now)  # the worker's last word: progress or a beat
        elapsed = (reported - self.started_at).total_seconds()
        if not ETA_MIN_PROGRESS <= p < 1.0 or elapsed < ETA_MIN_ELAPSED_S:
            return None
        # The estimate made at the last report, counting down since: a worker that stops reporting
        # never makes the time left grow (it reaches 0, and the stalled note takes over).
        return max(elapsed * (1.0 - p) / p - (now - reported).total_seconds(), 0.0)

    def stalled(self, now=None):
        """A running run whose worker stopped beating: since when, and when it is retried (or not).

        ``None`` while the heartbeat is fresh (less than SILENT_BEATS beats old) or the run is
        not running. The sweeper requeues it ``stale_after_s()`` after the last beat.
        """
        if self.status != self.Status.RUNNING or self.heartbeat_at is None:
            return None
        now = now or timezone.now()
        silent_s = (now - self.heartbeat_at).total_seconds()
        if silent_s <= SILENT_BEATS * heartbeat_every_s():
            return None
        since = self.heartbeat_at
        retry = since + timezone.timedelta(seconds=stale_after_s())
        text = f"The worker running this run stopped answering at {_clock(since)} (no heartbeat for {silent_s:.0f} s)."
        if self.attempts >= self.MAX_ATTEMPTS:
            retry = None
            text += f" It has been tried {self.attempts} times and will be marked failed, not retried."
        elif last_sweep() is None:  # no promise that nobody will keep
            retry = None
            text += " " + no_sweeper_text()
        elif retry > now:
            text += f" It will be requeued at about {_clock(retry)}, at the next sweep after that (every {sweep_every_s()} s)."
        else:
            text += f" It will be requeued at the next sweep (every {sweep_every_s()} s)."
        return {"since": since.isoformat(), "retry_at": retry.isoformat() if retry else None, "text": text}

    @property
    def waiting_for_broker(self):
        return self.status == self.Status.QUEUED and self.dispatched_at is None

    @property
    def wall_time_s(self):
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None

    def store_result(self, result, attempt="", indexes=True):
        """Write the result's columns as files and keep its header (results.store) on this row (not saved).

        ``indexes=False`` leaves the charts' whole-run indexes (results.indexes) for later: the worker
        builds them after it has released the run (pages compute them on the fly until then)."""
        from cloudsched_web.results import indexes as whole_run
        from cloudsched_web.results import store

        if self.pk is None:
            self.save()  # the files are named after the run
        header, self.result_files = store.save(self.pk, attempt, result)
        if indexes:
            self.result_files = whole_run.build(header, self.result_files)  # the charts' whole-run indexes
        self.workload_digest = workload_digest_of(result.get("scenario"))
        # orjson: ~3× faster than json both ways; level 1: same size here, 4× faster than 6.
        self.result_blob = zlib.compress(orjson.dumps(header), 1)

    def load_header(self):
        """The result without its schedule, job records and series (small: summary, metrics, extras)."""
        if not self.result_blob:
            return None
        return orjson.loads(zlib.decompress(bytes(self.result_blob)))

    def load_result(self):
        """The whole result document, read back from the columns (costs the full size: exports, tests)."""
        from cloudsched_web.results import store

        header = self.load_header()
        if header is None or not self.result_files:
            return header
        return store.full_document(header, self.result_files)


@receiver(post_delete, sender=Run)
def _delete_result_files(sender, instance, **kwargs):
    """A deleted run's Parquet files go with it, once the deletion is committed."""
    from cloudsched_web.results import store

    run_id = instance.pk
    if run_id is not None:
        transaction.on_commit(lambda: store.delete(run_id))
