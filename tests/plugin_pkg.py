"""A real installed plug-in package for tests: a module plus a ``.dist-info`` with ``entry_points.txt``,
written into a directory that goes on ``sys.path`` (what ``pip install --target`` leaves), so discovery
goes through ``importlib.metadata`` exactly as for a pip-installed package."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from schedulers import plugins

MODULE = "cloudsched_test_orders"
SOURCE = '''
import time

import numpy as np

from schedulers.backfill.policy import queue_order
from schedulers.vm_reservations.policy import NEW, pm_choice


@queue_order("widest job first")
def widest(now, jobs):
    return -jobs.size


@queue_order()
def raising(now, jobs):
    """Divides by zero."""
    return jobs.size * (1 / 0)


@queue_order("one key too few")
def short(now, jobs):
    return jobs.index[:-1]


@queue_order("reads now but says it is static")
def undeclared(now, jobs):
    return now - jobs.submit


@queue_order("sleeps", dynamic=True)
def sleepy(now, jobs):
    time.sleep(30)
    return jobs.index


@queue_order("exits the process")
def exits(now, jobs):
    raise SystemExit(3)


not_an_order = 42


@pm_choice("every request on PM 0")
def pm_zero(fit):
    return 0 if fit.peak.size else NEW
'''

ENTRY_POINTS = {
    "backfill.widest": "widest",
    "backfill.raising": "raising",
    "backfill.short": "short",
    "backfill.undeclared": "undeclared",
    "backfill.sleepy": "sleepy",
    "backfill.exits": "exits",
    "vm_reservations.pm-zero": "pm_zero",  # over-fills PM 0: an invalid decision in another family
}


def write(target: Path, entry_points: dict[str, str] | None = None, version: str = "0.3.1",
          source: str = SOURCE) -> Path:  # fmt: skip
    """Write the package into ``target``; returns the module file."""
    entry_points = ENTRY_POINTS if entry_points is None else entry_points
    target.mkdir(parents=True, exist_ok=True)
    module = target / f"{MODULE}.py"
    module.write_text(source)
    info = target / f"cloudsched_test_orders-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: cloudsched-test-orders\nVersion: {version}\n")
    lines = [
        f"{name} = {MODULE}:{attr}" if ":" not in attr else f"{name} = {attr}" for name, attr in entry_points.items()
    ]
    (info / "entry_points.txt").write_text("[cloudsched.algorithms]\n" + "\n".join(lines) + "\n")
    return module


@contextmanager
def installed(target: Path, **kwargs):
    """The package on ``sys.path`` for the block (discovery refreshed on the way in and out)."""
    module = write(target, **kwargs)
    with on_path(target, MODULE):
        yield module


def package_fixture(entry_points: dict[str, str], source: str):
    """A module-scoped pytest fixture: the package with ``source`` and ``entry_points`` installed."""

    @pytest.fixture(scope="module")
    def package(tmp_path_factory):
        with installed(tmp_path_factory.mktemp("site"), entry_points=entry_points, source=source) as module:
            yield module

    return package


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cloudsched-example-plugins"


def pip_install_example(target: Path, work: Path) -> str | None:
    """``pip install --target target`` of the example package (a real build: its wheel's dist-info and entry
    points), built from a copy in ``work`` (pip builds in the source tree: never in the checkout). Returns
    None, or why pip could not build it here (offline without ``wheel``), for the caller to skip."""
    source = work / EXAMPLE.name
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    try:
        import wheel  # noqa: F401

        isolation = ["--no-build-isolation", "--no-index"]  # builds offline with the venv's setuptools
    except ImportError:
        isolation = []  # pip fetches setuptools and wheel into an isolated build environment
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", *isolation, "--target", str(target),
           str(source)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return f"pip could not build the example here: {done.stderr[-300:]}" if done.returncode else None


@contextmanager
def on_path(site: Path, module: str = "cloudsched_example_plugins"):
    """An installed site (``pip install --target``) on ``sys.path`` for the block, discovery refreshed; ``module``
    and its submodules are forgotten afterwards."""
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    plugins.refresh()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
            sys.modules.pop(name)
        importlib.invalidate_caches()
        plugins.refresh()
