"""docs/extending.md section 7's backfill rule, installed as a reader would copy it, runs beside EASY (a module
of its own: the package it installs must not meet another test package in the same process)."""

import re
from pathlib import Path

import schedulers
from schedulers import plugins
from tests.plugin_pkg import installed

DOC = Path(__file__).resolve().parents[3] / "docs" / "extending.md"


def test_the_tutorials_backfill_rule_runs(tmp_path):
    block = re.search(r"### backfill: the backfill decision.*?```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    scenario = {"family": "backfill", "algorithms": ["easy:sjf", "by-shadow-sjf"], "datacenter": {"processors": 64},
                "workload": {"n_jobs": 400, "load": 0.9, "feitelson": {"max_size": 64}}}  # fmt: skip
    with installed(tmp_path / "site", entry_points={"backfill.by-shadow-sjf": "by_shadow"}, source=block):
        assert plugins.lookup("backfill", "by-shadow-sjf").obj.order == "sjf"
        result = schedulers.run(scenario)
    sjf, rule = result["runs"]
    assert [j["start_s"] for j in sjf["jobs"]] != [j["start_s"] for j in rule["jobs"]]  # a stricter backfill test
    assert max(rule["series"]["busy_fg"]) <= 64
