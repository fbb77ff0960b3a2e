"""Register an SWF file (plain or gzip) as a stored trace every user may use."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

import schedulers
from cloudsched_web.traces.services import store
from schedulers.core.swf import SwfError, open_swf


class Command(BaseCommand):
    help = (
        "Store an SWF trace file (.swf or .swf.gz) as a Trace with no owner (usable by every user and by "
        "presets that call for it by file name); prints its id, sha256 and summary. Same content = same trace."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="the SWF file")
        parser.add_argument("--name", default="", help="its name (default: the file name; presets look for that)")
        parser.add_argument(
            "--trace-dirs",
            action="store_true",
            help="instead of FILE: import every *.swf / *.swf.gz of the trace directories ($CLOUDSCHED_TRACE_DIRS "
            "and ../shared/workloads/traces beside the checkout) not yet imported under its file name (run.sh does "
            "this at start, so the paper presets find their logs)",
        )

    def handle(self, *args, **opts):
        if opts["trace_dirs"]:
            return self._import_dirs()
        if not opts["file"]:
            raise CommandError("give an SWF file, or --trace-dirs")
        self._import(Path(opts["file"]), opts["name"])

    def _import_dirs(self):
        from cloudsched_web.traces.models import Trace
        from schedulers.core.traces import trace_dirs

        known = set(Trace.objects.filter(imported=True).values_list("name", flat=True))
        files = sorted({p for d in trace_dirs() for p in (*d.glob("*.swf"), *d.glob("*.swf.gz")) if p.is_file()})
        new = [p for p in files if p.name not in known]
        self.stdout.write(f"{len(files)} trace files in the trace directories, {len(new)} not yet imported")
        for path in new:
            self._import(path, "")

    def _import(self, path: Path, name: str):
        # The library's opener and bounded reader, as for uploads: the real file behind the path (a
        # symlink is followed once, then never again), regular files only (no device, FIFO, /proc,
        # /sys or /dev), at most CLOUDSCHED_SWF_MAX_BYTES / _MAX_LINES read, a block at a time.
        try:
            f = open_swf(path)
        except SwfError as exc:
            raise CommandError(f"{exc} (give an .swf or .swf.gz file)") from None
        try:
            with f:
                trace, created = store(f, name or path.name, field=path.name, imported=True, quote=False)
        except schedulers.ScenarioError as exc:  # never the file's content: it may be no SWF at all
            e = exc.errors[0]
            raise CommandError(f"not imported: {e['field']}: {e['message']} (allowed: {e['allowed']})") from None
        if not created and (not trace.imported or name):
            # Uploaded first by a user, or renamed: importing makes it a server-wide trace under this name.
            trace.imported, trace.name = True, (name or path.name)[:200]
            trace.save(update_fields=["imported", "name"])
        load = "n/a" if trace.natural_load is None else f"{trace.natural_load:.3f}"
        self.stdout.write(
            f"{'imported' if created else 'already stored'}: trace {trace.pk} {trace.name!r}\n"
            f"  ref        {trace.ref}\n"
            f"  sha256     {trace.sha256}\n"
            f"  jobs       {trace.jobs} ({trace.usable_jobs} usable)\n"
            f"  processors {trace.processors} ({trace.processors_from}; largest job {trace.largest_job})\n"
            f"  span       {trace.span_s:.0f} s\n"
            f"  load       {load}\n"
            f"  stored     {trace.stored_bytes} bytes (text {trace.text_bytes})"
        )
