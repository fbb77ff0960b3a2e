"""The example package (examples/cloudsched-example-plugins) installed by pip, as docs/extending.md says:
its entry point makes `easy-lxf` a backfill algorithm in a fresh process (what a restarted worker sees)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugin_pkg import pip_install_example

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    why = pip_install_example(target, tmp_path_factory.mktemp("src"))
    if why:
        pytest.skip(why)
    return target


def _python(site, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, check=True, timeout=300)


def test_families_lists_the_installed_example_with_its_origin(site):
    out = _python(site, "-m", "schedulers", "families").stdout
    line = next(x for x in out.splitlines() if "easy-lxf" in x)
    assert "plug-in from cloudsched-example-plugins 0.1.0" in line
    assert "cloudsched_example_plugins.orders:largest_xfactor" in line


def test_the_example_runs_beside_easy_and_the_result_names_it(site):
    code = (
        "import json, schedulers; r = schedulers.run({'family': 'backfill', 'algorithms': ['easy', 'easy-lxf'], "
        "'datacenter': {'processors': 64}, 'workload': {'n_jobs': 200, 'feitelson': {'max_size': 64}}}); "
        "print(json.dumps([r['plugins'], schedulers.schema('backfill')['properties']['algorithms']['items']['enum']]))"
    )
    plugins, enum = json.loads(_python(site, "-c", code).stdout)
    assert plugins["easy-lxf"]["name"] == "backfill.easy-lxf" and plugins["easy-lxf"]["version"] == "0.1.0"
    assert len(plugins["easy-lxf"]["sha256"]) == 64
    assert "easy-lxf" in enum  # what the wizard draws the algorithm checkboxes from


def test_every_family_gets_one_example_algorithm(site):
    out = _python(site, "-m", "schedulers", "families").stdout
    for name in ("easy-lxf", "measy-thrifty", "ffd-snug", "data-local", "race-to-idle", "lpt-green"):
        line = next(x for x in out.splitlines() if name in x)
        assert "plug-in from cloudsched-example-plugins 0.1.0" in line, line


def test_the_examples_own_tests_pass_against_the_installed_package(site, tmp_path):
    tests = ROOT / "examples" / "cloudsched-example-plugins" / "tests"
    done = _python(site, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tests))
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_tutorials_code_is_the_example_packages_code():
    """docs/extending.md quotes each example plug-in (a reader copies it): every Python block of section 7
    is a verbatim part of one of the package's modules, and each module is under 40 lines."""
    import re

    text = (ROOT / "docs" / "extending.md").read_text()
    section = text[text.index("## 7. The other families") : text.index("## When a plug-in goes wrong")]
    src = ROOT / "examples" / "cloudsched-example-plugins" / "src" / "cloudsched_example_plugins"
    modules = {p.name: p.read_text() for p in src.glob("*.py")}
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    quoted = [name for block in blocks for name, code in modules.items() if block in code]
    assert len(blocks) == 6 and len(quoted) == 5  # the backfill rule block is the tutorial's own
    assert all(len(code.splitlines()) <= 40 for code in modules.values())
