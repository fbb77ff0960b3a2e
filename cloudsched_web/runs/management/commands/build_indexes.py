"""Build the whole-run chart and job indexes of stored results that lack them or have older ones."""

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError

from cloudsched_web.results import indexes, indexfiles
from cloudsched_web.runs.models import Run


def current(files: dict | None) -> bool:
    """Whether a result's manifest has this version's indexes on every run that has a schedule."""
    files = files or {}
    if (files.get("index") or {}).get("version") != indexfiles.VERSION:
        return False
    return all("jobs" in (r.get("index") or {}) for r in files.get("runs", []) if "segments" in r.get("files", {}))


def _index_names(files: dict | None) -> set:
    return {n for r in (files or {}).get("runs", []) for n in (r.get("index") or {}).values()}


def _without_indexes(files: dict) -> dict:
    """The manifest as the worker stores it before its indexes (they are built from the result files alone)."""
    runs = [{k: v for k, v in r.items() if k != "index"} for r in files.get("runs", [])]
    return {**{k: v for k, v in files.items() if k != "index"}, "runs": runs}


class Command(BaseCommand):
    help = (
        "Build the whole-run chart and job indexes (results.indexes) of succeeded runs stored without them or "
        "with an older set, so their pages and diffs take the fast paths. --all rebuilds every one."
    )

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", type=int, help="run numbers (default: every succeeded run)")
        parser.add_argument("--all", action="store_true", help="rebuild even indexes that are current")
        parser.add_argument("--prune", action="store_true",
                            help="delete the index files a rebuild replaced (do it when no web process may still "
                                 "serve the old ones, e.g. after a restart; else they go when the run is deleted)")  # fmt: skip

    def handle(self, *args, **opts):
        qs = Run.objects.filter(status=Run.Status.SUCCEEDED).exclude(result_blob=None).order_by("pk")
        if opts["runs"]:
            missing = sorted(set(opts["runs"]) - set(qs.filter(pk__in=opts["runs"]).values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"runs: {missing} are not succeeded runs with a stored result")
            qs = qs.filter(pk__in=opts["runs"])
        built = skipped = lost = 0
        for pk in qs.values_list("pk", flat=True):
            run = Run.objects.get(pk=pk)
            if not run.result_files or (current(run.result_files) and not opts["all"]):
                skipped += 1
                continue
            old = _index_names(run.result_files)
            files = indexes.build(run.load_header(), _without_indexes(run.result_files))
            # Only while the row still holds the result read here (a rerun or a deletion in between wins).
            if Run.objects.filter(pk=pk, status=Run.Status.SUCCEEDED, task_id=run.task_id,
                                  finished_at=run.finished_at).update(result_files=files):  # fmt: skip
                built += 1
                replaced = sorted(old - _index_names(files))
                if opts["prune"]:
                    for name in replaced:
                        default_storage.delete(name)
                fate = "deleted" if opts["prune"] else "kept until the run is deleted (--prune deletes them)"
                self.stdout.write(f"run {pk}: indexes built; {len(replaced)} replaced index file(s) {fate}")
            else:
                lost += 1
                for name in _index_names(files) - old:  # this build's own files: nothing refers to them
                    default_storage.delete(name)
                self.stdout.write(f"run {pk}: changed while its indexes were built; left as it is")
        self.stdout.write(f"built {built}, already current {skipped}, changed meanwhile {lost}")
