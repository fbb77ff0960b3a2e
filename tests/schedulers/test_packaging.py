"""cloudsched as a package (pyproject.toml): its declared dependencies match what the library imports and what
requirements.txt pins; a wheel built from the tree holds the library and the `cloudsched` console script, works
from another directory, and a plug-in package's own tests pass from a copy of its folder against it."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
# Imported by the library only inside `try: … except ImportError` (schedulers/analysis.py)
OPTIONAL = {"orjson", "pandas"}
# import name → distribution name, where they differ
DIST = {"yaml": "pyyaml"}


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            pins[canonicalize_name(req.name)] = next(iter(req.specifier)).version
    return pins


def _third_party_imports() -> set[str]:
    found = set()
    for path in (ROOT / "schedulers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found |= {n.split(".")[0] for n in names}
    return {n for n in found if n not in sys.stdlib_module_names and n not in {"schedulers", "__future__"}}


def test_the_library_declares_every_package_it_imports_and_nothing_of_the_web():
    declared = {canonicalize_name(Requirement(d).name) for d in PROJECT["dependencies"]}
    imported = {canonicalize_name(DIST.get(n, n)) for n in _third_party_imports() - OPTIONAL}
    assert imported, "the scan found no third-party import"
    assert imported == declared  # numpy, scipy, pydantic, pyarrow
    assert not {"django", "celery"} & declared


def test_requirements_txt_pins_satisfy_the_declared_ranges():
    pins = _pins()
    reqs = [Requirement(d) for d in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["web"]]]
    assert len(reqs) >= 10
    for req in reqs:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is declared but not pinned in requirements.txt"
        assert req.specifier.contains(pins[name]), f"requirements.txt pins {req.name}=={pins[name]}, not {req}"
        for extra in req.extras:  # psycopg[binary] → psycopg-binary
            assert canonicalize_name(f"{req.name}-{extra}") in pins


def test_the_console_script_is_the_module_cli():
    assert PROJECT["scripts"] == {"cloudsched": "schedulers.__main__:main"}
    assert PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["schedulers", "schedulers.*"]


# --- a real build (slow: pip builds a wheel; without `wheel` installed pip fetches setuptools from PyPI) -------


def _pip(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    try:
        import wheel  # noqa: F401

        isolation = ["--no-build-isolation"]  # the venv's setuptools builds offline
    except ImportError:
        isolation = []
    cmd = [sys.executable, "-m", "pip", *args[:1], "--quiet", "--no-deps", *isolation, *args[1:]]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300)
    if done.returncode and not isolation and "setuptools" in done.stderr and "satisf" in done.stderr:
        pytest.skip(f"pip could not fetch setuptools to build here (offline, no `wheel`): {done.stderr[-200:]}")
    assert done.returncode == 0, done.stderr
    return done


def _tree_copy(dest: Path) -> Path:
    """What the build reads (pip builds in the source tree: never in the checkout)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "schedulers", dest / "schedulers", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    src = _tree_copy(tmp_path_factory.mktemp("build") / "cloudsched")
    _pip("wheel", "--wheel-dir", str(out), str(src), cwd=out)
    (whl,) = out.glob("cloudsched-*.whl")
    return whl


@pytest.fixture(scope="module")
def library(wheel_file, tmp_path_factory):
    """The wheel installed into a directory of its own (what a virtual environment's site-packages gets)."""
    site = tmp_path_factory.mktemp("lib")
    _pip("install", "--target", str(site), str(wheel_file), cwd=site)
    return site


def _env(*paths: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths)), "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.slow
def test_the_wheel_holds_the_library_its_script_and_its_extras(wheel_file):
    with zipfile.ZipFile(wheel_file) as z:
        names = z.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = z.read(info).decode()
        entry_points = z.read(info.replace("METADATA", "entry_points.txt")).decode()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"schedulers"}  # not the web app, the tests or the benchmarks
    assert "schedulers/backfill/policy.py" in names and "schedulers/analysis.py" in names
    assert "cloudsched = schedulers.__main__:main" in entry_points
    assert "Requires-Dist: numpy>=2.0" in metadata and "Provides-Extra: web" in metadata
    django = [line for line in metadata.splitlines() if line.lower().startswith("requires-dist: django")]
    assert django and all('extra == "web"' in line for line in django)  # Django, django-ninja: the web extra only


@pytest.mark.slow
def test_the_installed_cli_runs_an_example_from_another_directory(library, tmp_path):
    cli = library / "bin" / "cloudsched"
    env = _env(library)
    families = subprocess.run(
        [str(cli), "families"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert families.returncode == 0, families.stderr
    assert families.stdout.startswith("backfill ")
    usage = subprocess.run([str(cli), "run"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: cloudsched run")
    example = subprocess.run([str(cli), "example", "backfill"], capture_output=True, text=True, cwd=tmp_path, env=env,
                             timeout=120, check=True)  # fmt: skip
    (tmp_path / "s.json").write_text(example.stdout)
    subprocess.run([str(cli), "run", "s.json", "-o", "r.json"], cwd=tmp_path, env=env, timeout=300, check=True)
    code = "import schedulers; r = schedulers.load('r.json'); print(schedulers.__file__, r.jobs('easy').num_rows)"
    where, rows = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                                 timeout=120, check=True).stdout.split()  # fmt: skip
    assert Path(where).is_relative_to(library) and int(rows) == 200


@pytest.mark.slow
def test_the_example_plugins_tests_pass_from_a_copy_of_its_folder(library, tmp_path):
    """examples/cloudsched-example-plugins copied out of the checkout, installed, and its tests run from there:
    `schedulers` comes from the installed library (nothing of the checkout is on the path)."""
    folder = tmp_path / "cloudsched-example-plugins"
    shutil.copytree(ROOT / "examples" / folder.name, folder, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    site = tmp_path / "site"
    _pip("install", "--target", str(site), str(folder), cwd=tmp_path)
    env = _env(site, library)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:django"],
                          capture_output=True, text=True, cwd=folder, env=env, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout
    imported = subprocess.run([sys.executable, "-c", "import schedulers; print(schedulers.__file__)"], cwd=folder,
                              env=env, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert Path(imported.strip()).is_relative_to(library)
