"""docs/extending.md, sections 1–6, run as written (the commands are read from the page, so page and test cannot
drift): in a stand-in for a fresh checkout after ./run.sh, the CLI part (sections 1–3) makes the package, installs
it and runs it; the server is then "restarted" (discovery refreshed in this process, which serves the live
server) and the API part (sections 5–6) runs against it with a real token.

The stand-in checkout is a temporary directory (so `../my-orders` is temporary too) holding the library and a
`.venv/bin` whose `python` is this interpreter with the install directory on its path, and whose `pip` installs
there (`-e` becomes a plain install): the shared virtualenv is never written. Runs are queued, not executed (no
broker here; tests/integration runs plug-ins in a real worker)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model

from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs import services
from cloudsched_web.runs.models import Study
from cloudsched_web.scenarios.models import Scenario
from tests.docblocks import fenced
from tests.plugin_pkg import on_path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "extending.md"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PIP = '''#!{python}
"""The checkout's pip, for this test: installs into {site} (never the shared virtualenv); -e is a plain install."""
import subprocess, sys

args = [a for a in sys.argv[1:] if a not in ("-e", "--editable")]
if args[:1] != ["install"]:
    sys.exit(f"this test's pip knows only `install`, not {{args}}")
cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade", "--target", {site!r},
       *{isolation!r}, *args[1:]]
done = subprocess.run(cmd, capture_output=True, text=True)
with open({log!r}, "a") as f:
    f.write(done.stderr)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
'''


def _parts() -> tuple[list[str], list[str], list[str]]:
    text = DOC.read_text()
    tutorial = text[text.index("## 1. The algorithm") : text.index("## 7. The other families")]
    cli, web = tutorial.split("## 4. Restart the server", 1)
    return fenced(cli, "sh"), fenced(web, "sh"), fenced(cli, "")


def _checkout(tmp_path: Path) -> tuple[Path, Path, Path]:
    checkout, site, log = tmp_path / "cloudsched", tmp_path / "site", tmp_path / "pip.log"
    venv_bin = checkout / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    site.mkdir()
    (checkout / "schedulers").symlink_to(ROOT / "schedulers")
    try:
        import wheel  # noqa: F401

        isolation = ["--no-build-isolation"]  # builds offline with the venv's setuptools
    except ImportError:
        isolation = []  # pip fetches setuptools into an isolated build environment
    (venv_bin / "python").write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    (venv_bin / "pip").write_text(PIP.format(python=sys.executable, site=str(site), isolation=isolation, log=str(log)))
    for tool in venv_bin.iterdir():
        tool.chmod(0o755)
    return checkout, site, log


def _json_values(text: str) -> list:
    decoder, values, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        value, i = decoder.raw_decode(text, i)
        values.append(value)
    return values


def _bash(script: str, cwd: Path, log: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    env |= kwargs.pop("env", {})
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, **kwargs)  # fmt: skip
    pip_log = log.read_text() if log.exists() else ""
    if done.returncode and "setuptools" in pip_log and "satisf" in pip_log:
        pytest.skip(f"pip could not fetch setuptools to build the package here (offline, no `wheel`): {pip_log[-200:]}")
    assert done.returncode == 0, f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    return done


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the page's commands use curl and jq")
def test_the_tutorial_runs_top_to_bottom(live_server, tmp_path, monkeypatch):
    cli, web, shown = _parts()
    assert len(cli) == 4 and len(web) == 2 and shown  # sections 1, 2, 3 (install, run); 5 and 6
    checkout, site, log = _checkout(tmp_path)

    # sections 1-3: the package, installed, listed and run on the CLI
    done = _bash("\n".join(cli), checkout, log)
    printed = done.stdout.splitlines()
    expected = [line.split("…")[0] for line in shown[0].splitlines() if line.strip()]
    assert len(expected) == 2
    for start in expected:  # `families` prints what the page shows, up to where it shortens
        assert any(line.startswith(start) for line in printed), (start, printed)
    result = json.loads((tmp_path / "my-orders" / "result.json").read_text())
    assert [r["algorithm"] for r in result["runs"]] == ["easy", "measy", "easy:wfp3", "my-lxf"]
    assert result["plugins"]["my-lxf"]["name"] == "backfill.my-lxf"
    assert result["plugins"]["my-lxf"]["package"] == "my-orders"
    assert '"backfill.my-lxf"' in done.stdout  # what the page's jq prints

    # section 4: restart the server (a fresh discovery in this process, which serves live_server)
    monkeypatch.setattr(services, "send", lambda run_ids: True)  # no broker: the runs stay queued
    reader = get_user_model().objects.create_user("reader")
    _, token = ApiToken.issue(reader, "extending.md")
    with on_path(site, "my_orders"):
        # sections 5-6: the scenario through the API, found again by name, and a study of it
        port = str(urlsplit(live_server.url).port)
        done = _bash("\n".join(web), checkout, log, input=token + "\n", env={"PORT": port})
    origin, created, study_out = _json_values(done.stdout)  # what the page's three jq filters print
    assert origin["package"] == "my-orders" and origin["entry_point"] == "my_orders.orders:largest_xfactor"
    scenario = Scenario.objects.get(owner=reader, name="EASY against LXF")
    assert scenario.config["algorithms"] == ["easy", "measy", "easy:wfp3", "my-lxf"]
    assert scenario.config["workload"]["n_jobs"] == 5000
    study = Study.objects.get(scenario=scenario)
    loads = sorted(run.config["workload"]["load"] for run in study.runs.all())
    assert loads == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert all("my-lxf" in run.config["algorithms"] for run in study.runs.all())
    assert created == {"id": scenario.pk, "name": "EASY against LXF"}
    assert study_out["id"] == study.pk and sorted(study_out["runs"]) == sorted(r.pk for r in study.runs.all())
