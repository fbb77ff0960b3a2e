from django.conf import settings
from django.db import models, transaction
from django.db.models import OuterRef, Q, Subquery
from django.db.models.signals import post_delete
from django.dispatch import receiver


class Trace(models.Model):
    """An SWF trace kept as a file in the default storage (gzip), known by the SHA-256 of its text.

    Same content, same Trace: a second upload of it returns the first row and adds the uploader to
    ``users``. The summary is computed once, when it is stored. Scenarios refer to it as
    ``workload.trace = "sha256:<sha256>"`` (:attr:`ref`), never by carrying its text.
    """

    sha256 = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the SWF text")
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to="traces/", max_length=200, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_traces",
        help_text="Who stored it first (empty: imported from the command line, or the user was deleted).",
    )
    imported = models.BooleanField(
        default=False, help_text="Imported by `manage.py import_trace`: every user may use it, presets find it by name."
    )
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        through="TraceHolder",
        related_name="traces",
        help_text="Everyone who stored or was given it, each under their own name.",
    )
    jobs = models.PositiveBigIntegerField(help_text="Records in the trace")
    usable_jobs = models.PositiveBigIntegerField(help_text="Records with a known submit time, runtime and size")
    processors = models.PositiveIntegerField(
        help_text="The machine it was logged on: the header's MaxProcs, else MaxNodes, else the largest job"
    )
    processors_from = models.CharField(
        max_length=20, blank=True, help_text="Where `processors` comes from: MaxProcs, MaxNodes or largest job"
    )
    largest_job = models.PositiveIntegerField(null=True, blank=True, help_text="Processors of the widest usable job")
    span_s = models.FloatField(help_text="Last minus first submit time (s)")
    size_sum = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Σ processors of the usable jobs (what a run's cost is estimated from)"
    )
    natural_load = models.FloatField(null=True, blank=True, help_text="Σ size·runtime / (processors × span)")
    text_bytes = models.PositiveBigIntegerField(help_text="Size of the SWF text")
    stored_bytes = models.PositiveBigIntegerField(help_text="Size of the stored (gzip) file")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.name} ({self.ref[:19]}…)"

    @property
    def ref(self):
        return f"sha256:{self.sha256}"

    @classmethod
    def visible_to(cls, user):
        """The traces ``user`` may list, download and name in a scenario: theirs (held), and the imported ones.

        Each carries ``shown_name``: the name ``user`` gave it, else its own name if it was imported, else
        a neutral one — the same content uploaded by two users never shows one user's name to the other.
        """
        theirs = TraceHolder.objects.filter(trace=OuterRef("pk"), user=user).values("name")[:1]
        return (
            cls.objects.filter(Q(imported=True) | Q(holders__user=user)).distinct().annotate(held_as=Subquery(theirs))
        )

    def name_for(self, user):
        """The name ``user`` knows this trace by (see :meth:`visible_to`)."""
        held = getattr(self, "held_as", None)
        if held is None and user is not None and getattr(user, "pk", None):
            held = self.holders.filter(user=user).values_list("name", flat=True).first()
        return held or (self.name if self.imported else f"trace {self.sha256[:12]}")


class TraceHolder(models.Model):
    """A user who stored (or was given, by cloning a shared scenario) a trace, and their name for it."""

    trace = models.ForeignKey(Trace, on_delete=models.CASCADE, related_name="holders")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="trace_holdings")
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["trace", "user"], name="one_holding_per_user")]

    def __str__(self):
        return f"{self.user} holds {self.trace_id} as {self.name!r}"


@receiver(post_delete, sender=Trace)
def _delete_trace_file(sender, instance, **kwargs):
    """A deleted trace's stored file goes with it, once the deletion is committed."""
    name, storage = instance.file.name, instance.file.storage
    if name:
        transaction.on_commit(lambda: storage.delete(name))
