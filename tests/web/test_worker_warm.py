"""A worker's main process imports what runs need before its prefork pool forks (runs/tasks.warm_imports)."""

import subprocess
import sys

from tests.services import ROOT

# In a fresh interpreter: Django set up as a worker has it, then the signal Celery's prefork pool sends
# in the parent before each fork, then a run of every family's example. Prints what the runs imported.
CHILD = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cloudsched_web.settings")
import django; django.setup()
from celery import signals
from cloudsched_web.runs import tasks
signals.worker_before_create_process.send(sender=None)
before = set(sys.modules)
import schedulers
for family in schedulers.all_families():
    schedulers.run(schedulers.example(family))
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in ("schedulers", "scipy", "pyarrow"))
print(" ".join(new))
"""


def _imported_by_runs(code):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_runs_import_nothing_after_the_pre_fork_warm_up():
    assert _imported_by_runs(CHILD) == []


def test_without_the_warm_up_a_first_run_imports_modules():
    # The check above can fail: the same runs, with the signal left out, import library modules.
    imported = _imported_by_runs(CHILD.replace("signals.worker_before_create_process.send(sender=None)", ""))
    assert any(m.startswith("schedulers.") for m in imported)
