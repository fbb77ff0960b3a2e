"""Bad input fails with a named field and its allowed values, never a traceback.

The JSON reader (depth, size, digits, NaN), strict typing, error paths that name the key
the user wrote, per-family limits found by probing (ep_jobs online loads and arrival
counts, federated DAGs), and the rule that no result ever holds NaN or ±inf.
"""

import json
import math
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

import schedulers
from schedulers import ScenarioError
from schedulers.core import jsonio
from schedulers.ep_jobs.model import OnlineGenerator
from schedulers.ep_jobs.workloads import _arrivals
from schedulers.registry import Family, RunOutput, register, unregister
from schedulers.result import InvalidResult
from tests import toy_family

ROOT = Path(__file__).resolve().parents[2]


def _errors(scenario):
    with pytest.raises(ScenarioError) as info:
        schedulers.validate(scenario)
    return {e["field"]: e for e in info.value.errors}


def _with(family, path, value):
    doc = schedulers.example(family)
    node = doc
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[keys[-1]] = value
    return doc


# --- the JSON reader -----------------------------------------------------------------------


def test_deep_nesting_is_refused_before_parsing_naming_the_document():
    with pytest.raises(ScenarioError) as info:
        jsonio.loads("[" * 100_000, "(body)")
    (err,) = info.value.errors
    assert err == {"field": "(body)", "message": "nested deeper than 32 levels", "allowed": "≤ 32 levels"}


def test_nesting_up_to_the_limit_is_read():
    assert isinstance(jsonio.loads("[" * 32 + "]" * 32), list)
    with pytest.raises(ScenarioError):
        jsonio.loads('{"a":' * 33 + "1" + "}" * 33)


@pytest.mark.parametrize("text", ['{"s": "' + "[" * 100 + '"}', '{"s": "\\"' + "{" * 100 + '\\""}'])
def test_brackets_inside_strings_do_not_count(text):
    assert jsonio.loads(text)["s"].count("[") + jsonio.loads(text)["s"].count("{") == 100


def test_the_depth_scan_agrees_with_the_parser():
    # Random documents whose strings are full of brackets, quotes and backslashes.
    rng = np.random.default_rng(3)
    alphabet = list('[]{}"\\ab')

    def build(depth):
        if depth == 0 or rng.random() < 0.3:
            return "".join(rng.choice(alphabet, size=int(rng.integers(0, 6))))
        if rng.random() < 0.5:
            return [build(depth - 1) for _ in range(int(rng.integers(0, 3)))]
        return {
            f"k{i}" + "".join(rng.choice(alphabet, size=2)): build(depth - 1) for i in range(int(rng.integers(0, 3)))
        }

    def true_depth(node):
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        return 0 if children is None else 1 + max((true_depth(c) for c in children), default=0)

    for _ in range(300):
        doc = build(int(rng.integers(1, 8)))
        text, depth = json.dumps(doc), true_depth(doc)
        jsonio.check_depth(text, limit=depth)
        if depth:
            with pytest.raises(ScenarioError):
                jsonio.check_depth(text, limit=depth - 1)


def test_a_huge_integer_names_its_field_instead_of_pythons_digit_limit():
    with pytest.raises(ScenarioError) as info:
        jsonio.loads('{"workload": {"max_jobs": ' + "9" * 5000 + "}}")
    (err,) = info.value.errors
    assert err["field"] == "workload.max_jobs"
    assert "5000 digits" in err["message"] and err["allowed"] == "at most 4300 digits"


def test_a_long_but_allowed_integer_reaches_its_fields_range_check():
    doc = jsonio.loads('{"family": "toy", "seed": ' + "9" * 40 + "}")
    fields = _errors(doc)
    assert fields["seed"]["allowed"] == "≥ 0, ≤ 9007199254740991"


@pytest.mark.parametrize(
    ("text", "field"), [('{"a": NaN}', "a"), ('{"b": [1, -Infinity]}', "b[1]"), ('{"c": 1e999}', "c")]
)
def test_non_finite_numbers_are_not_json(text, field):
    with pytest.raises(ScenarioError) as info:
        jsonio.loads(text)
    assert info.value.errors[0]["field"] == field
    assert info.value.errors[0]["allowed"] == "a finite number"


def test_broken_json_and_bad_bytes_name_the_document():
    for text in ("{oops", b"\xff\xfe"):
        with pytest.raises(ScenarioError) as info:
            jsonio.loads(text, "(file)")
        assert info.value.errors[0]["field"] == "(file)"


def test_nonfinite_paths_finds_nan_anywhere():
    assert jsonio.nonfinite_paths({"a": [1.0, {"b": 2}], "c": "nan"}) == []
    assert jsonio.nonfinite_paths({"a": [1.0, {"b": math.inf}], "c": [math.nan]}) == ["a[1].b", "c[0]"]


# --- strict types ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "path", "value", "field", "allowed"),
    [
        ("ep_jobs", "workload.tasks", "100", "workload.tasks", "a whole number"),
        ("ep_jobs", "workload.tasks", True, "workload.tasks", "a whole number"),
        ("ep_jobs", "seed", True, "seed", "a whole number"),
        ("federated", "datacenter.clouds.0.servers", "2", "datacenter.clouds[0].servers", "a whole number"),
        ("backfill", "params.record_jobs", "no", "params.record_jobs", "true or false"),
        ("backfill", "workload.load", "0.8", "workload.load", "a number"),
        ("vm_reservations", "algorithms", "ffd", "algorithms", "an array"),
        ("dvfs_bot", "workload.duration_h", None, "workload.duration_h", "a number"),
    ],
)
def test_a_wrong_json_type_is_an_error_naming_the_field_and_the_expected_type(family, path, value, field, allowed):
    fields = _errors(_with(family, path, value))
    assert field in fields, fields
    assert allowed in fields[field]["allowed"]
    assert fields[field]["message"].startswith("must be ")


def test_federated_advance_reservation_flag_is_a_boolean():
    doc = schedulers.example("federated")
    doc["workload"] = {"kind": "jobs", "jobs": [{"ar": "yes", "tasks": [{}]}]}
    assert _errors(doc)["workload.jobs[0].ar"]["allowed"] == "true or false"


def test_an_integer_is_a_valid_number():
    cfg = schedulers.validate(_with("ep_jobs", "workload.load_high", 3600))[1]
    assert cfg.workload.load_high == 3600.0


def test_every_example_and_preset_is_well_typed():
    for family in schedulers.all_families().values():
        schedulers.validate(family.example())
        for preset in family.presets.values():
            doc = preset()
            for scenario in doc.get("scenarios", [doc]):
                schedulers.validate(scenario)


# --- paths name the key the user wrote -----------------------------------------------------


def test_paths_leave_out_the_union_tag():
    doc = schedulers.example("backfill")
    doc["workload"] = {"kind": "trace", "swf": "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1", "max_jobs": "5"}
    fields = _errors(doc)
    assert "workload.max_jobs" in fields and "workload.trace.max_jobs" not in fields


def test_paths_leave_out_a_tag_that_equals_a_key():
    # federated's inline workload is {"kind": "jobs", "jobs": [...]}: pydantic's loc is workload.jobs.max_jobs
    doc = schedulers.example("federated")
    doc["workload"] = {"kind": "jobs", "jobs": [{"tasks": [{}]}], "max_jobs": 5}
    fields = _errors(doc)
    assert set(fields) == {"workload.max_jobs"}
    assert "jobs" in fields["workload.max_jobs"]["allowed"]  # the keys that object may have


def test_a_missing_tag_lists_the_tags():
    doc = schedulers.example("ep_jobs")
    doc["workload"] = {"tasks": 3}
    assert (
        _errors(doc)["workload"]["allowed"]
        == "an object with kind: one of 'generator', 'job', 'online_generator', 'online_jobs'"
    )


# --- ep_jobs online workloads ----------------------------------------------------------------


@pytest.mark.parametrize("load", [0, -1])
def test_online_job_loads_must_be_positive(load):
    doc = schedulers.example("ep_jobs")
    doc["algorithms"] = ["fcfs:min_min"]
    doc["workload"] = {"kind": "online_jobs", "jobs": [{"arrival": 0, "loads": [5, load]}]}
    assert _errors(doc)["workload.jobs[0].loads[1]"]["allowed"] == "> 0, ≤ 1000000000"


def test_the_expected_arrival_count_is_a_named_limit():
    doc = schedulers.example("ep_jobs")
    doc["algorithms"] = ["fcfs:min_min"]
    doc["workload"] = {"kind": "online_generator", "arrival_rate": 100, "arrival_end_s": 1e6}
    err = _errors(doc)["workload.arrival_rate"]
    assert "arrival_rate × arrival_end_s" in err["message"] and "max_jobs" in err["message"]
    assert err["allowed"] == "arrival_rate × arrival_end_s ≤ max_jobs = 100,000"


def test_arrival_generation_costs_what_it_keeps():
    # 10^6 expected arrivals capped at 1000: the generator once drew them all (as 10^8 at rate 100: 1.8 GB).
    wl = OnlineGenerator.model_validate({"kind": "online_generator", "arrival_rate": 1, "arrival_end_s": 1e6})
    wl = wl.model_copy(update={"max_jobs": 1000})
    tracemalloc.start()
    try:
        times = _arrivals(wl, np.random.default_rng(0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert times.size == 1000 and np.all(np.diff(times) >= 0)
    assert peak < 100 * 1000 * 8  # a few arrays of 2 × max_jobs doubles, not of 10^6


# --- federated DAGs --------------------------------------------------------------------------


def test_duplicate_and_impossible_predecessors_name_the_task():
    doc = schedulers.example("federated")
    doc["workload"] = {"kind": "jobs", "jobs": [{"tasks": [{"preds": [0]}, {}, {"preds": [0, 0]}]}]}
    fields = _errors(doc)
    assert fields["workload.jobs[0].tasks[0].preds"]["allowed"] == "none (the first task has no predecessor)"
    assert fields["workload.jobs[0].tasks[2].preds"]["message"] == "a predecessor is listed more than once"
    assert all("..-1" not in e["allowed"] for e in fields.values())


# --- results are valid JSON ------------------------------------------------------------------


def test_a_result_with_nan_is_never_returned():
    def simulate(cfg, instance, algorithm, rng, progress):
        return RunOutput(metrics={"makespan_s": math.nan})

    class NanToy(toy_family.ToyScenario):
        family: Literal["nan_toy"]

    toy = toy_family.TOY
    register(Family("nan_toy", "returns NaN", NanToy, toy.algorithms, toy.example, toy.prepare, simulate))
    try:
        with pytest.raises(InvalidResult, match=r"fcfs produced a result that is not valid JSON: NaN or inf at "
                           r"metrics\.makespan_s"):  # fmt: skip
            schedulers.run({**toy.example(), "family": "nan_toy"})
        # beside an algorithm that succeeds, the NaN fails its own unit and is never in the result
        nan_once = Family("nan_toy", "NaN for fcfs", NanToy, toy.algorithms, toy.example, toy.prepare,
                          lambda cfg, inst, alg, rng, p: simulate(cfg, inst, alg, rng, p) if alg == "fcfs"
                          else toy.simulate(cfg, inst, alg, rng, p))  # fmt: skip
        register(nan_once)
        doc = schedulers.run({**toy.example(), "family": "nan_toy"})
        assert {f["algorithm"] for f in doc["failures"]} == {"fcfs"} and doc["runs"]
        assert {r["algorithm"] for r in doc["runs"]} == {"lpt"}
    finally:
        unregister("nan_toy")


# --- the CLI: exit 2 with the field, never a traceback ---------------------------------------


def _cli(stdin):
    code = "import sys; from tests import toy_family; toy_family.install(); from schedulers.__main__ import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "run", "-"], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        ("[" * 100_000, "(file): nested deeper than 32 levels [allowed: ≤ 32 levels]"),
        ('{"family": "toy", "workload": {"jobs": "100"}}', "workload.jobs: must be a whole number"),
        ('{"family": "toy", "workload": {"jobs": ' + "1" * 5000 + "}}", "workload.jobs: an integer with 5000 digits"),
        ('{"scenarios": null}', "scenarios: a study needs a list of scenarios, not null"),
        ('{"scenarios": [{"family": "toy"}, {"family": "toy", "seed": true}]}', "scenarios[1].seed:"),
        ('{"scenarios": [3]}', "scenarios[0]: a scenario must be a JSON object"),
    ],
)
def test_the_cli_exits_2_naming_the_field(stdin, expected):
    done = _cli(stdin)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_study_file_runs_each_scenario():
    done = _cli(json.dumps({"name": "two", "scenarios": [toy_family.TOY.example(), toy_family.TOY.example()]}))
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["results"]) == 2


def test_a_single_job_gives_a_valid_result():
    # natural load = work / (N · submit span) is undefined for a zero span: left out, not Infinity.
    doc = schedulers.example("backfill")
    doc["algorithms"] = ["easy"]
    doc["workload"]["n_jobs"] = 1
    result = schedulers.run(doc)
    assert result["runs"][0]["extra"]["workload"].get("natural_load") is None
    jsonio.dumps(result)
