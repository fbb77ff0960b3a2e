"""The one Celery task: run a stored scenario through the library (STYLE.md "Celery and results")."""

import functools
import importlib
import logging
import pkgutil
import resource
import socket
import threading
import time
import uuid
from contextlib import contextmanager

import pyarrow
from celery import group, shared_task, signals
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

import schedulers
from cloudsched_web.runs import fanout, page
from cloudsched_web.runs.models import Run, heartbeat_every_s, stale_after_s
from schedulers import plugins
from schedulers.core.estimate import ARROW_CPU_THREADS, ARROW_IO_THREADS
from schedulers.plugins import RunLimit, stop_on, time_limit

log = logging.getLogger(__name__)
PROGRESS_EVERY_S = 0.5
# Imported by runs lazily (schedulers.core.lazy, the result store): loaded before the pool forks, too.
WARM_MODULES = ("scipy.special", "scipy.sparse", "scipy.optimize", "scipy.stats", "pyarrow.parquet")


@functools.cache
def warm_imports():
    """Import every module of the library and what runs import lazily, once, in the worker's main process.

    Called just before the prefork pool forks a child (``worker_before_create_process``), so each
    child starts with them loaded (shared copy-on-write) instead of paying ~0.2 CPU-s of imports in
    its first run — once per child, and again for every child that replaces a dead one. The library
    keeps its lazy imports for the CLI's start-up time (bench/startup.py). Nothing here opens a
    database connection, starts a thread or touches the broker.
    """
    started = time.process_time()
    for info in pkgutil.walk_packages(schedulers.__path__, "schedulers."):
        if not info.name.endswith("__main__"):  # the CLI entry point runs when imported
            importlib.import_module(info.name)
    for name in WARM_MODULES:
        importlib.import_module(name)
    # The pools' sizes the memory estimate counts, on any host: sizes only, no thread starts before a task.
    pyarrow.set_cpu_count(ARROW_CPU_THREADS)
    pyarrow.set_io_thread_count(ARROW_IO_THREADS)
    plugins.log_left_out(log)  # the worker's log names every plug-in it cannot run
    from cloudsched_web.results import store  # noqa: F401

    log.info("worker: imports warmed in %.2f CPU-s before forking the pool", time.process_time() - started)


@signals.worker_before_create_process.connect
def _warm_before_fork(sender=None, **kwargs):
    warm_imports()


class Cancelled(Exception):
    pass


class RunTimeLimit(RunLimit):  # a plug-in interrupted by it lets it through, with a note naming it
    pass


# Celery's own soft limit (should it fire before ours) and a cancellation are the run's, never a plug-in's failure.
stop_on(SoftTimeLimitExceeded, Cancelled)


class UnitFailed(Exception):
    """A unit of a spread run failed; its message is the run's error."""


def _time_limit(seconds):
    """Our own soft limit (SIGALRM in the worker process's main thread): Celery's prefork soft limit did not fire
    reliably in our tests; this one does, and Celery's hard limit (soft + 60 s) still kills a run that ignores it."""
    return time_limit(seconds, RunTimeLimit)


def _claim(run_id, task_id, worker=""):
    """Claim the run with a conditional update so that it executes once.

    A queued row is claimed. So is a "running" row whose attempt carried this
    same task id — the worker running it died and the broker redelivered the
    message (acks_late + reject_on_worker_lost) — or whose heartbeat went stale.
    A duplicate message (another task id) for a live run is ignored.
    """
    now = timezone.now()
    stale = now - timezone.timedelta(seconds=stale_after_s())
    claimable = Q(status=Run.Status.QUEUED) | Q(status=Run.Status.RUNNING) & (
        Q(task_id=task_id) | Q(heartbeat_at__lt=stale)
    )
    rows = Run.objects.defer("result_blob", "page")  # a retried run's old result: megabytes never used here
    run = rows.filter(id=run_id).filter(claimable).first()
    if run is None:
        return None
    if run.attempts >= Run.MAX_ATTEMPTS:  # its worker died every time: a crash loop, not bad luck
        Run.objects.filter(id=run_id, status=run.status).update(
            status=Run.Status.FAILED,
            finished_at=now,
            error=f"the worker running this run died {run.attempts} times (killed, or out of memory)"
            + (f" while running {run.progress_message}" if run.progress_message else "")
            + "; not retried",
        )
        return None
    updated = Run.objects.filter(id=run_id, status=run.status, heartbeat_at=run.heartbeat_at).update(
        status=Run.Status.RUNNING,
        started_at=now,
        heartbeat_at=now,
        attempts=run.attempts + 1,
        error="",
        task_id=task_id,
        worker=worker[:200],
    )
    return rows.get(id=run_id) if updated else None


def _mine(run_id, attempt):
    """The row while this attempt still owns it (not cancelled, not taken over by a newer attempt)."""
    return Run.objects.filter(id=run_id, status=Run.Status.RUNNING, task_id=attempt)


def _progress_writer(run_id, attempt):
    last = [0.0, None]  # when, and the message written then

    def report(fraction, message=""):
        now = time.monotonic()
        # a new message (the next unit) is always written: a failed or killed run names the unit it was in
        if now - last[0] < PROGRESS_EVERY_S and fraction < 1.0 and message == last[1]:
            return
        last[0], last[1] = now, message
        rows = _mine(run_id, attempt).update(
            progress=round(float(fraction), 4), progress_message=str(message)[:200], heartbeat_at=timezone.now()
        )
        if rows == 0:  # cancelled (or taken over) while we ran
            raise Cancelled()

    return report


@contextmanager
def _heartbeat(run_id, attempt):
    """Beat every ``RUN_HEARTBEAT_EVERY_S`` from a thread, so a long silent phase never looks abandoned."""
    stop = threading.Event()
    every_s = heartbeat_every_s()

    def beat():
        try:
            while not stop.wait(every_s):
                _mine(run_id, attempt).update(heartbeat_at=timezone.now())
        finally:
            connection.close()  # this thread's own database connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def failures_text(failures, succeeded):
    """The error of a run whose other units succeeded ("" when none failed): every failed unit, named."""
    if not failures:
        return ""
    units = "; ".join(f"{f['algorithm']} repetition {f['repetition']}: {f['error']}" for f in failures)
    return f"{len(failures)} of {len(failures) + succeeded} units failed (the others' results are kept): {units}"


def _finish(run_id, attempt, **fields):
    _mine(run_id, attempt).update(finished_at=timezone.now(), **fields)


def _limit_memory():
    """Cap this worker process's address space so a runaway run fails alone (MemoryError)."""
    limit_mb = getattr(settings, "RUN_MEMORY_LIMIT_MB", 0)
    if limit_mb:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = limit_mb * 1024 * 1024
        if soft == resource.RLIM_INFINITY or soft > want:
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    return limit_mb


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=3)
def run_simulation(self, run_id):
    try:
        _execute(self, run_id)
    finally:
        _check_study_claims(run_id)


def _check_study_claims(run_id):
    """The run that finishes a preset study checks the study's claims (Study.check_claims stores them once)."""
    run = Run.objects.filter(id=run_id, study__isnull=False).select_related("study__scenario").first()
    if run is None:
        return
    try:
        run.study.check_claims()
    except Exception:  # a bug in a claim's check must not fail the run; the study page retries
        log.exception("checking the claims of study %s failed", run.study_id)


def _execute(self, run_id):
    attempt = self.request.id or f"direct-{uuid.uuid4()}"
    run = _claim(run_id, attempt, self.request.hostname or socket.gethostname())
    if run is None:
        log.info("run %s already claimed or finished; nothing to do", run_id)
        return
    in_worker = not (self.request.is_eager or self.request.called_directly)  # limits belong to worker processes
    limit_mb = _limit_memory() if in_worker else 0
    limit_s = settings.CELERY_TASK_SOFT_TIME_LIMIT if in_worker else 0
    try:
        with _time_limit(limit_s), _heartbeat(run_id, attempt):
            units = fanout.units_to_spread(run.config)
            if units is None:
                result = schedulers.run(run.config, progress=_progress_writer(run_id, attempt))
            else:
                result = _run_spread(run, attempt, units)
        run.store_result(result, attempt, indexes=False)
        page_data = page.summarize(result)
    except Cancelled:
        return
    except MemoryError:
        _finish(run_id, attempt, status=Run.Status.FAILED, error=f"the run exceeded the memory limit of {limit_mb} MB")
        return
    except schedulers.ScenarioError as exc:
        _finish(run_id, attempt, status=Run.Status.FAILED, error=exc.format())
        return
    except UnitFailed as exc:
        _finish(run_id, attempt, status=Run.Status.FAILED, error=str(exc))
        return
    except (SoftTimeLimitExceeded, RunTimeLimit) as exc:
        where = "".join(f" ({n})" for n in getattr(exc, "__notes__", []))  # the plug-in it interrupted, if any
        _finish(
            run_id,
            attempt,
            status=Run.Status.FAILED,
            error=f"the run exceeded its time limit of {settings.CELERY_TASK_SOFT_TIME_LIMIT} s{where}",
        )
        return
    except Exception as exc:  # a bug in an algorithm: record it readably, never retry
        log.exception("run %s failed", run_id)
        _finish(run_id, attempt, status=Run.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        return
    summary = {alg: {k: v["mean"] for k, v in metrics.items()} for alg, metrics in result["summary"].items()}
    _mine(run_id, attempt).update(
        status=Run.Status.SUCCEEDED,
        error=failures_text(result.get("failures", []), len(result["runs"])),
        progress=1.0,
        progress_message="done",
        summary=summary,
        result_blob=run.result_blob,
        result_files=run.result_files,
        workload_digest=run.workload_digest,
        page=page_data,
        finished_at=timezone.now(),
    )
    del result, page_data  # the indexes read the stored files: the worker's peak stays the run's
    _build_indexes(run_id, attempt, run)


def _run_spread(run, attempt, units):
    """Run ``units`` here and on every free worker (runs/fanout.py), then merge them as ``schedulers.run`` would."""
    parts = fanout.Parts(run.id, attempt, units)
    parts.create()
    report = _progress_writer(run.id, attempt)
    total = len(units)
    try:
        try:  # helpers: any free worker takes units too; without a broker this task does them all
            group(run_unit_parts.s(run.id, attempt) for _ in range(total - 1)).apply_async()
        except Exception:
            log.warning("run %s: could not send its helper tasks; running its units here", run.id, exc_info=True)
        while True:
            unit = parts.take()
            if unit is not None:
                base = len(parts.finished())

                def check(fraction, _base=base, _unit=unit):
                    report((_base + fraction) / total, f"{_unit[0]} repetition {_unit[1]}")

                fanout.run_unit(run.config, parts, unit, check, heartbeat_every_s())
                continue
            finished = len(parts.finished())
            if finished == total:
                break
            parts.release_stale(stale_after_s())
            report(finished / total, f"{finished} of {total} units done; the others on other workers")
            time.sleep(fanout.POLL_S)
        records, failures, errors = parts.results()
        if errors:
            raise UnitFailed(errors[0])
        return schedulers.merge(run.config, records, failures)
    finally:
        parts.remove()


def _still_mine(run_id, attempt):
    """A check for a helper's unit: raises Cancelled once the attempt no longer owns the row (every 0.5 s)."""
    last = [0.0]

    def check(fraction=0.0):
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        if not _mine(run_id, attempt).exists():
            raise Cancelled()

    return check


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def run_unit_parts(self, run_id, attempt):
    """A helper of a spread run: take its units while any is left (runs/fanout.py)."""
    run = _mine(run_id, attempt).only("config").first()
    if run is None:  # finished, cancelled or taken over before this helper started
        return
    in_worker = not (self.request.is_eager or self.request.called_directly)
    if in_worker:
        _limit_memory()
    parts = fanout.Parts(run_id, attempt, schedulers.units(run.config))
    unit = None
    try:
        with _time_limit(settings.CELERY_TASK_SOFT_TIME_LIMIT if in_worker else 0):
            while (unit := parts.take()) is not None:
                fanout.run_unit(run.config, parts, unit, _still_mine(run_id, attempt), heartbeat_every_s())
    except Cancelled:
        return
    except (MemoryError, SoftTimeLimitExceeded, RunTimeLimit) as exc:  # the coordinator fails the run with it
        if unit is None:
            return
        limit = (
            "memory limit"
            if isinstance(exc, MemoryError)
            else f"time limit of {settings.CELERY_TASK_SOFT_TIME_LIMIT} s"
        )
        parts.fail(unit, f"a unit of the run ({unit[0]}, repetition {unit[1]}) exceeded the {limit}")


def _build_indexes(run_id, attempt, run):
    """The charts' whole-run indexes (results.indexes), once the run is visible as succeeded.

    They cost more than writing the result (200k jobs × 4 backfill algorithms: 14 CPU s, 39 before the
    one read per run, against 3.4 s for the files and the checks), so they are not in the way of the
    result: until they are on the row, pages build what
    they need on the fly, as for results stored before indexes existed. A newer attempt or a
    deletion in between wins (the row is only updated while this attempt still owns it)."""
    from cloudsched_web.results import indexes

    try:
        files = indexes.build(run.load_header(), run.result_files)
    except Exception:  # the result stands without them
        log.exception("building the chart indexes of run %s failed; pages compute them on the fly", run_id)
        return
    Run.objects.filter(id=run_id, status=Run.Status.SUCCEEDED, task_id=attempt).update(result_files=files)


@shared_task
def sweep_queued_runs():
    """Periodic sweep (Celery beat): requeue abandoned runs, resend runs that never reached the broker,
    and purge what has been in the trash longer than ``TRASH_KEEP_DAYS``."""
    from cloudsched_web.runs import trash
    from cloudsched_web.runs.models import mark_sweep
    from cloudsched_web.runs.services import requeue_abandoned, requeue_stale

    mark_sweep()  # pages promise a requeue only while the sweeper is seen running
    requeue_abandoned(stale_after_s())
    trash.purge()
    return requeue_stale()
