"""No plug-in can change another algorithm's result: for every family, plug-ins that write into each view they
are shown run *before* the papers' algorithms of the family's example. Each writing plug-in's own unit fails
with a message naming it and the field; every paper algorithm's result equals, bit for bit, a run without
the plug-in. Plug-ins that make a view writeable again (``flags.writeable = True``) or replace a job's
attributes write only into their own copy of the instance: the papers' results are unchanged too."""

from __future__ import annotations

import json

import pytest

import schedulers
from schedulers.core import jsonio
from tests.plugin_pkg import installed

# field -> how the plug-in shows it (the attribute path from the argument the family passes)
VIEWS = {
    "backfill": ("jobs", ["index", "submit", "size", "estimate"]),
    "vm_reservations": ("requests", ["index", "start", "end", "demand"]),
    "vm_fit": ("fit", ["peak", "occupancy", "lengths"]),
    "federated": ("task", ["etm", "erat", "tau"]),
    "dvfs_bot": ("task", ["level", "top", "current", "busy", "host_on", "energy_rank", "score"]),
    "ep_jobs": ("job", ["loads", "lam", "alpha", "leq", "ecost", "platform.capacity", "platform.B",
                        "platform.fraction", "platform.A.data"]),
}  # fmt: skip

HEADER = """
import numpy as np

from schedulers.backfill.policy import queue_order
from schedulers.dvfs_bot.policy import vm_choice
from schedulers.ep_jobs.policy import task_placement
from schedulers.federated.policy import cloud_choice
from schedulers.vm_reservations.policy import NEW, pm_choice


def _write(x, how):
    if how == "iop":
        if x.dtype == bool:
            x |= True
        else:
            x *= -1  # reads like "descending"
    elif how == "setitem":
        x[...] = 1
    else:  # "unlock": make the view writeable again, then write (reaches only the plug-in's own copy)
        x.flags.writeable = True
        x[...] = 1 if x.dtype != bool else True


def _first_fit(fit):
    ok = fit.fits()
    return int(ok.argmax()) if ok.any() else NEW


def _best_cloud(task):
    return int(np.argmin(task.tau))


def _best_vm(task):
    return int(np.argmax(task.score)) if task.score.max() > 0 else -1


def _first_server(job):
    return np.argmin(job.ecost, axis=1)
"""


# Per view: the family and the plug-in written around a write (``{fn}``, ``{arg}``, ``{field}``, ``{write}``).
TEMPLATES = {
    "backfill": (
        "backfill",
        '@queue_order("writes {field}")\ndef {fn}(now, {arg}):\n    {write}\n    return {arg}.index',
    ),
    "vm_reservations": (
        "vm_reservations",
        "def _{fn}_key({arg}):\n    {write}\n    return {arg}.index\n\n\n"
        '@pm_choice("writes {field}", order=_{fn}_key)\ndef {fn}(fit):\n    return _first_fit(fit)',
    ),
    "vm_fit": (
        "vm_reservations",
        '@pm_choice("writes {field}")\ndef {fn}({arg}):\n    {write}\n    return _first_fit({arg})',
    ),
    "federated": (
        "federated",
        '@cloud_choice("writes {field}")\ndef {fn}({arg}):\n    {write}\n    return _best_cloud({arg})',
    ),
    "dvfs_bot": ("dvfs_bot", '@vm_choice("writes {field}")\ndef {fn}({arg}):\n    {write}\n    return _best_vm({arg})'),
    "ep_jobs": (
        "ep_jobs",
        '@task_placement("writes {field}")\ndef {fn}({arg}):\n    {write}\n    return _first_server({arg})',
    ),
}


def _source() -> tuple[str, dict[str, str]]:
    """The plug-in module and its entry points: one plug-in per (view field, way of writing)."""
    lines, eps = [HEADER], {}
    for key, (arg, fields) in VIEWS.items():
        family, template = TEMPLATES[key]
        for field in fields:
            for how in ("iop", "setitem", "unlock"):
                name = f"w-{key.replace('_', '')}-{field.replace('.', '')}-{how}".lower()
                fn = name.replace("-", "_")
                write = f"_write({arg}.{field}, {how!r})"
                lines.append(template.format(fn=fn, arg=arg, field=field, write=write))
                eps[f"{family}.{name}"] = fn
    # replacing attributes of the job it is shown (ep_jobs hands the whole job)
    lines.append('@task_placement("replaces job.loads")\ndef w_epjobs_replace(job):\n'
                 '    job.loads = job.loads * 100\n    return _first_server(job)')  # fmt: skip
    eps["ep_jobs.w-epjobs-replace"] = "w_epjobs_replace"
    return "\n\n\n".join(lines) + "\n", eps


SOURCE, ENTRY_POINTS = _source()
FAMILIES = ("backfill", "vm_reservations", "federated", "dvfs_bot", "ep_jobs")


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    with installed(tmp_path_factory.mktemp("site"), entry_points=ENTRY_POINTS, source=SOURCE) as module:
        yield module


TIMINGS = ("runtime", "wall", "cpu", "scheduler_time")  # measured times differ between any two runs


def _fingerprint(record: dict) -> str:
    """A unit's result without its measured times: metrics, schedule, series, jobs and extras as JSON."""
    metrics = {k: v for k, v in record["metrics"].items() if not any(t in k for t in TIMINGS)}
    rest = {k: v for k, v in record.items() if k not in ("metrics", "wall_time_s")}
    return json.dumps({"metrics": metrics, **json.loads(jsonio.dumps(rest))}, sort_keys=True)


def _plugins_of(family: str) -> list[str]:
    return [ep.split(".", 1)[1] for ep in ENTRY_POINTS if ep.split(".", 1)[0] == family]


@pytest.mark.parametrize("family", FAMILIES)
def test_plugins_writing_every_view_change_no_paper_result(package, family):
    plugin_names = _plugins_of(family)
    assert plugin_names, family
    scenario = schedulers.example(family)
    papers = list(scenario["algorithms"])
    baseline = schedulers.run(scenario)
    assert "failures" not in baseline
    expected = {(r["algorithm"], r["repetition"]): _fingerprint(r) for r in baseline["runs"]}

    mixed = schedulers.run({**scenario, "algorithms": [*plugin_names, *papers]})  # the plug-ins first
    got = {(r["algorithm"], r["repetition"]): _fingerprint(r) for r in mixed["runs"] if r["algorithm"] in papers}
    assert got.keys() == expected.keys()
    for unit, value in expected.items():
        assert got[unit] == value, f"{family}: {unit} changed after plug-ins wrote into their views"

    failed = {f["algorithm"]: f for f in mixed.get("failures", [])}
    for name in plugin_names:
        field_path = name.split("-", 2)[2].rsplit("-", 1)[0]
        if name.endswith(("-iop", "-setitem")) or name.endswith("-replace"):
            assert name in failed, f"{name} wrote into a view and its unit did not fail"
            msg = failed[name]["error"]
            assert f"plug-in {family}.{name} (cloudsched-test-orders" in msg
            assert failed[name]["plugin"] == f"{family}.{name}"
            if not name.endswith("-replace"):
                arg = VIEWS["vm_fit" if "-vmfit-" in name else family][0]
                field = next(f for f in VIEWS["vm_fit" if "-vmfit-" in name else family][1]
                             if f.replace(".", "").lower() == field_path)  # fmt: skip
                assert f"wrote into {arg}.{field}," in msg, msg
            else:
                assert "wrote into job.loads," in msg, msg
        # else: an unlocked view writes into the plug-in's own copy, which may break its own unit (ends before
        # starts, say) and nothing else: the papers' results were compared above


def test_a_plugin_unit_gets_its_own_copy_of_the_instance(package):
    """The second fence on its own: a plug-in that makes its view writeable again changes only its copy, so the
    same plug-in run twice in a row (two algorithms sharing a repetition's instance) gives the same result."""
    scenario = schedulers.example("vm_reservations")
    name = "w-vmreservations-demand-unlock"
    once = schedulers.run({**scenario, "algorithms": [name, "ffd"]})
    assert "failures" not in once
    alone = schedulers.run({**scenario, "algorithms": ["ffd"]})
    assert _fingerprint(once["runs"][1]) == _fingerprint(alone["runs"][0])
