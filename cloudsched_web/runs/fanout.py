"""One heavy run spread over every worker: its (algorithm, repetition) units.

A run's algorithms and repetitions are independent (``schedulers.run_unit``: each sees the
instance of ``stream(seed, rep, "workload")`` and its own ``stream(seed, rep, "algorithm:…")``),
and ``schedulers.merge`` puts their records back together as ``schedulers.run`` would have. So a
run whose estimate is at least ``RUN_FAN_OUT_MIN_CPU_S`` (or whose family has no estimate, as
ep_jobs) is executed as units:

* the task that claimed the run (the *coordinator*) sends ``units − 1`` helper tasks, then takes
  units itself until none is left, waits for the units other workers hold, merges and stores;
* a helper takes units while any is left and writes each record to the run's parts directory.

A unit is taken with an exclusive file create (``O_EXCL``), so it runs once however many tasks
look. Nothing waits on a helper that never starts: the coordinator takes every unit nobody has,
and a unit whose holder stopped touching its claim (a worker killed mid-unit) is taken again
after ``stale_after_s``. The parts live under ``MEDIA_ROOT/unit-parts/<run>/<attempt>/`` (one host,
or a shared ``MEDIA_ROOT``) and go when the coordinator ends. The row stays the source of truth:
every helper checks that the attempt still owns the row (not cancelled, not taken over) before
and while it runs a unit.
"""

import contextlib
import hashlib
import os
import pickle
import shutil
import time
from pathlib import Path

from django.conf import settings

import schedulers
from schedulers.plugins import is_stop

POLL_S = 0.2


def units_to_spread(config):
    """The run's ``(algorithm, repetition)`` units if it is worth spreading, else None."""
    min_cpu_s = getattr(settings, "RUN_FAN_OUT_MIN_CPU_S", -1)
    if min_cpu_s < 0:
        return None
    units = schedulers.units(config)
    if len(units) < 2:
        return None
    if min_cpu_s:
        est = schedulers.estimate(config)
        if est.detail.get("estimated") and est.cpu_s < min_cpu_s:
            return None  # a family that cannot estimate its cost (ep_jobs: no footprint) is spread
    return units


class Parts:
    """The claims, records and errors of one attempt's units, as files."""

    def __init__(self, run_id, attempt, units):
        tag = hashlib.sha256(attempt.encode()).hexdigest()[:16]
        self.dir = Path(settings.MEDIA_ROOT) / "unit-parts" / str(run_id) / tag
        self.units = [tuple(u) for u in units]

    def _stem(self, unit):
        algorithm, rep = unit
        return f"{hashlib.sha256(algorithm.encode()).hexdigest()[:16]}-{rep}"

    def _file(self, unit, suffix):
        return self.dir / f"{self._stem(unit)}.{suffix}"

    def create(self):
        """The attempt's directory; an older attempt's (its coordinator died) goes."""
        if self.dir.parent.is_dir():
            for old in self.dir.parent.iterdir():
                if old != self.dir:
                    shutil.rmtree(old, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)

    def take(self):
        """A unit nobody holds, now held by the caller; None when every unit is held or done."""
        if not self.dir.is_dir():  # the coordinator has finished (or given up): nothing to do
            return None
        for unit in self.units:
            try:
                os.close(os.open(self._file(unit, "claim"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            except FileNotFoundError:  # the directory went while we looked
                return None
            return unit
        return None

    def touch(self, unit):
        """The holder is alive (a claim not touched for ``stale_after_s`` is taken again)."""
        with contextlib.suppress(FileNotFoundError):
            os.utime(self._file(unit, "claim"))

    def _write(self, unit, suffix, obj):
        if not self.dir.is_dir():
            return
        tmp = self._file(unit, f"{suffix}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self._file(unit, suffix))

    def save(self, unit, record):
        self._write(unit, "part", record)

    def fail(self, unit, error):
        self._write(unit, "error", error)

    def finished(self):
        return [u for u in self.units if self._file(u, "part").exists() or self._file(u, "error").exists()]

    def release_stale(self, after_s):
        """Claims whose holder stopped touching them (killed worker) and left no record: free again."""
        now = time.time()
        for unit in self.units:
            claim = self._file(unit, "claim")
            try:
                old = now - claim.stat().st_mtime > after_s
            except FileNotFoundError:
                continue
            if old and not (self._file(unit, "part").exists() or self._file(unit, "error").exists()):
                claim.unlink(missing_ok=True)

    def results(self):
        """``(records, failures, errors)`` of every unit (our own pickles, written by this app's workers).

        A failure is a unit's own (``schedulers.failure_record``: the run keeps the other units); an error
        (text) fails the whole run: an invalid scenario, or a unit that hit the run's time or memory limit."""
        records, failures, errors = [], [], []
        for unit in self.units:
            if self._file(unit, "error").exists():
                with open(self._file(unit, "error"), "rb") as f:
                    got = pickle.load(f)
                (failures if isinstance(got, dict) else errors).append(got)
            else:
                with open(self._file(unit, "part"), "rb") as f:
                    records.append(pickle.load(f))
        return records, failures, errors

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.dir.parent.rmdir()  # the run's directory, once its last attempt is gone


def run_unit(config, parts, unit, check, keepalive_s):
    """Run one unit and write its record to ``parts``; a bug or an invalid scenario is written as its error.

    ``check(fraction)`` is called as the unit advances and raises to stop it (a cancelled run, a
    time limit: those propagate, as ``MemoryError`` does); the claim is touched at least every
    ``keepalive_s`` seconds meanwhile.
    """
    last = [time.monotonic()]

    def progress(fraction, message=""):
        now = time.monotonic()
        if now - last[0] >= keepalive_s:
            last[0] = now
            parts.touch(unit)
        check(fraction)

    try:
        record = schedulers.run_unit(config, unit[0], unit[1], progress=progress)
    except schedulers.ScenarioError as exc:
        parts.fail(unit, exc.format())
        return
    except Exception as exc:  # a failing algorithm fails its own unit, as in schedulers.run
        if is_stop(exc):  # the run's limits and a cancellation (plugins.stop_on, tasks.py) stop the whole run
            raise
        parts.fail(unit, schedulers.failure_record(unit[0], unit[1], exc))
        return
    parts.save(unit, record)
