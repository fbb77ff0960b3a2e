"""Storing traces, finding their files, and keeping trace text out of stored scenarios.

Every way a trace enters the server — an upload on the scenario form or the API, SWF text
inline in a scenario, ``manage.py import_trace``, the data migration of older scenarios —
goes through :func:`store`: the source is read once as a stream through the library's bounded
reader, its text hashed (SHA-256), parsed and summarised a block at a time, and the file kept
gzipped in the default storage as ``traces/<sha256>.swf.gz`` — in constant memory, whatever the
text inflates to. See docs/formats.md, "Stored traces".
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import shutil
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

import schedulers
from cloudsched_web.ratelimit import take_slot
from cloudsched_web.traces.models import Trace, TraceHolder
from schedulers.core.swf import GZIP_MAGIC, SwfError, parse_block, text_blocks
from schedulers.core.traces import REF_RE, Summary, catalog, swf_error

# The inline SWF field of each family's trace workload, and its value when unused.
INLINE_FIELDS = {"backfill": ("swf", ""), "federated": ("swf", None), "vm_reservations": ("text", None)}


SUMMARY_FIELDS = (
    "jobs", "usable_jobs", "processors", "processors_from", "largest_job", "span_s", "natural_load", "size_sum",
)  # fmt: skip


def max_upload_bytes():
    return settings.TRACE_UPLOAD_MAX_BYTES


def store(
    source, name: str, owner=None, field: str = "file", imported: bool = False, quote: bool = True
) -> tuple[Trace, bool]:
    """The Trace holding SWF ``source`` (text or gzip; ``bytes`` or a binary file), created if new;
    ``(trace, created)``. ``source`` is read once, a block at a time (:func:`_ingest`), so memory stays
    constant whatever it inflates to.

    Malformed or oversized content is a ScenarioError naming ``field`` with the line and
    column the reader reported (:func:`schedulers.core.traces.swf_error`; ``quote=False`` leaves
    out the excerpt of the bad line).
    """
    with tempfile.TemporaryFile(prefix="trace-") as blob:
        try:
            digest, text_bytes, info = _ingest(source, blob)
        except SwfError as exc:
            raise schedulers.ScenarioError([swf_error(exc, field, quote)]) from None
        existing = Trace.objects.filter(sha256=digest).first()
        if existing is not None:
            hold(existing, owner, name)
            return existing, False
        if info["usable_jobs"] == 0:
            raise schedulers.ScenarioError.single(
                field,
                f"the trace has no usable job ({info['jobs']} records)",
                "at least one record with submit ≥ 0, runtime ≥ 0 and a size > 0",
            )
        stored_bytes = blob.seek(0, io.SEEK_END)
        name_in_storage = f"traces/{digest}.swf.gz"
        if not default_storage.exists(name_in_storage):  # content-addressed: a file left by a lost row is the same
            blob.seek(0)
            name_in_storage = default_storage.save(name_in_storage, File(blob))
    try:
        with transaction.atomic():
            trace = Trace.objects.create(
                sha256=digest,
                name=(name or digest[:12])[:200],
                file=name_in_storage,
                owner=owner,
                imported=imported,
                text_bytes=text_bytes,
                stored_bytes=stored_bytes,
                **{k: info[k] for k in SUMMARY_FIELDS},
            )
    except IntegrityError:  # the same content stored concurrently
        trace = Trace.objects.get(sha256=digest)
        hold(trace, owner, name)
        return trace, False
    hold(trace, owner, name)
    return trace, True


def _ingest(source, blob) -> tuple[str, int, dict]:
    """Read SWF ``source`` once, a block of lines at a time, through the library's bounded reader
    (:func:`schedulers.core.swf.text_blocks`): hash the text, parse and summarise it, and write the
    file to keep into ``blob`` — the gzip as sent, or the text gzipped. Returns (sha256, text bytes, summary)."""
    if isinstance(source, bytes | bytearray | memoryview):
        source = io.BytesIO(source)
    gzipped = source.read(2) == GZIP_MAGIC
    source.seek(0)
    out = None if gzipped else gzip.GzipFile(fileobj=blob, mode="wb", compresslevel=6, mtime=0)
    digest, total, size = hashlib.sha256(), Summary(), 0
    for block, first_line in text_blocks(_Tee(source, blob) if gzipped else source):
        digest.update(block)
        size += len(block)
        total.add(parse_block(block, first_line))
        if out is not None:
            out.write(block)
    if out is not None:
        out.close()  # (leaves blob open)
    return digest.hexdigest(), size, total.result()


class _Tee:
    """A binary file whose reads are also written to ``copy`` (the gzip as sent, kept as it is)."""

    def __init__(self, source, copy):
        self.source, self.copy = source, copy

    def read(self, n: int = -1) -> bytes:
        data = self.source.read(n)
        self.copy.write(data)
        return data


def hold(trace: Trace, user, name: str = "") -> None:
    """``user`` may use ``trace`` from now on, knowing it as ``name`` (a name given earlier is kept)."""
    if user is not None:
        TraceHolder.objects.get_or_create(trace=trace, user=user, defaults={"name": (name or trace.name)[:200]})


def store_upload(uploaded, owner, name: str = "", field: str = "file") -> tuple[Trace, bool]:
    """An uploaded file (Django ``UploadedFile``) as a Trace; its size is checked before it is read."""
    limit = max_upload_bytes()
    if uploaded.size > limit:
        raise schedulers.ScenarioError.single(
            field, f"the file has {uploaded.size:,} bytes", f"at most {limit:,} bytes (TRACE_UPLOAD_MAX_BYTES)"
        )
    with upload_slot(owner, field):
        uploaded.seek(0)
        return store(uploaded, name or uploaded.name or "", owner, field)


UPLOAD_SLOT_S = 900  # a slot left by a process that died mid-store frees itself after this


@contextlib.contextmanager
def upload_slot(owner, field: str = "file"):
    """One of the ``TRACE_UPLOADS_PER_USER`` traces ``owner`` may have being parsed and stored at a time
    (0: no cap): one user's parallel uploads cannot hold every web thread. Else a ScenarioError on ``field``."""
    limit = settings.TRACE_UPLOADS_PER_USER
    if owner is None or limit <= 0:
        yield
        return
    slot, retry = take_slot(f"trace-upload:{owner.pk}", limit, UPLOAD_SLOT_S)
    if slot is None and retry:
        raise schedulers.ScenarioError.single(
            field, f"{limit} of your uploads are being stored right now",
            f"at most {limit} at a time per user (TRACE_UPLOADS_PER_USER); send this one when one of them is done",
        )  # fmt: skip
    try:
        yield
    finally:
        if slot is not None:
            caches["throttle"].delete(slot)


def local_path(trace: Trace) -> Path:
    """A local file with the trace (the storage's own when it has paths; else a copy in var/trace-cache)."""
    try:
        return Path(default_storage.path(trace.file.name))
    except NotImplementedError:  # remote storage: fetch once per machine
        cache = Path(settings.VAR_DIR) / "trace-cache" / f"{trace.sha256}.swf.gz"
        if not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            part = cache.with_suffix(".part")
            with default_storage.open(trace.file.name, "rb") as src, part.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            part.replace(cache)
        return cache


def refs(config) -> list[str]:
    """The trace references a scenario makes (``workload.trace``)."""
    wl = config.get("workload") if isinstance(config, dict) else None
    ref = wl.get("trace") if isinstance(wl, dict) else None
    return [ref] if isinstance(ref, str) and ref else []


def referenced(trace: Trace) -> bool:
    """Whether any scenario or run, trashed ones included, refers to ``trace``."""
    from cloudsched_web.runs.models import Run
    from cloudsched_web.scenarios.models import Scenario

    return any(m.all_objects.filter(config__workload__trace=trace.ref).exists() for m in (Scenario, Run))


def collect_orphans() -> int:
    """Delete the traces nobody can reach any more: not imported, held by no user (their uploader's
    account is gone) and referred to by no scenario or run, trashed ones included. The trash sweeper
    calls this after a purge; a trace's file goes with its row (see ``models``). Returns how many."""
    orphans = [t for t in Trace.objects.filter(imported=False, holders__isnull=True) if not referenced(t)]
    for trace in orphans:
        trace.delete()
    return len(orphans)


def by_ref(ref: str) -> Trace | None:
    return Trace.objects.filter(sha256=ref.removeprefix("sha256:")).first() if REF_RE.fullmatch(ref) else None


def check_refs(config, user) -> list[dict]:
    """Errors for references to traces ``user`` may not use (another user's are "not found", as missing ones)."""
    return [
        catalog().missing(ref, "workload.trace")
        for ref in refs(config)
        if not Trace.visible_to(user).filter(sha256=ref.removeprefix("sha256:")).exists()
    ]


def grant(user, config) -> None:
    """``user`` may use the traces of ``config`` from now on (a clone of a shared run or scenario)."""
    for ref in refs(config):
        trace = by_ref(ref)
        if trace is not None:
            hold(trace, user, f"trace of {config.get('name') or 'a shared scenario'}")


def absorb_inline(config: dict, owner) -> dict:
    """A validated scenario with its inline SWF text moved into a Trace and referenced (the text is gone)."""
    family = config.get("family")
    wl = config.get("workload")
    if owner is None or family not in INLINE_FIELDS or not isinstance(wl, dict) or wl.get("kind") != "trace":
        return config  # (no owner: nobody to store it for; an imported trace comes only from import_trace)
    field, unused = INLINE_FIELDS[family]
    text = wl.get(field)
    if not isinstance(text, str) or not text.strip():
        return config
    trace, _ = store(text.encode("utf-8", "surrogateescape"), _name(config), owner, f"workload.{field}")
    return {**config, "workload": {**wl, field: unused, "trace": trace.ref}}


def use_trace(config: dict, trace: Trace) -> dict:
    """``config`` with its workload reading ``trace`` (a trace workload, replacing any inline text or path)."""
    family = config.get("family")
    if family not in INLINE_FIELDS:
        allowed = "a family with SWF trace workloads: " + ", ".join(INLINE_FIELDS)
        raise schedulers.ScenarioError.single("trace_file", f"{family} takes no SWF trace", allowed)
    wl = config.get("workload") if isinstance(config.get("workload"), dict) else {}
    wl = dict(wl) if wl.get("kind") == "trace" else {"kind": "trace"}
    for key in (INLINE_FIELDS[family][0], "path"):
        wl.pop(key, None)
    return {**config, "workload": {**wl, "trace": trace.ref}}


def _name(config):
    return f"{config.get('name') or 'scenario'} (inline trace)"
