"""The result page's validity box on stored runs: each check of the contract, broken once, shows as failed."""

from __future__ import annotations

import pytest

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    queries.clear_cache()


def _stored(alice, family, algorithms, breaker=None):
    """A succeeded run holding the library's result of the family's example, broken by ``breaker`` (on records)."""
    config = {**schedulers.example(family), "algorithms": algorithms}
    doc = schedulers.run(config)
    doc["runs"] = [{**r, "schedule": r["schedule"].to_records(), "jobs": r["jobs"].to_records()} for r in doc["runs"]]
    if breaker:
        breaker(doc["runs"][0])
    scenario = Scenario.objects.create(owner=alice, family=family, name="v", config=config)
    run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0)
    run.store_result(doc)
    run.save()
    return run


def _overfill(run):
    run["schedule"].append(dict(run["schedule"][0]))  # the same process twice on one VM of one processor


def _early(run):
    submit = {j["job"]: j["submit_s"] for j in run["jobs"]}
    seg = run["schedule"][0]
    seg["start"] = submit[seg["job"]] - 5.0


def _before_pred(run):
    from schedulers.core.validity import dag_edges

    dag = dag_edges(run["jobs"], run["extra"]["validity"]["precedence"]["column"])
    name = run["jobs"][dag["job"][0]]["job"]
    pred, succ = f"{name}.{dag['pred'][0]}", f"{name}.{dag['succ'][0]}"
    end = max(s["end"] for s in run["schedule"] if s["task"] == pred)
    for s in run["schedule"]:
        if s["task"] == succ:
            s["start"] = min(s["start"], end - 1.0)


def _lost_job(run):
    gone = run["jobs"].pop()
    run["schedule"] = [s for s in run["schedule"] if s["job"] != gone["job"]]


def _energy(run):
    run["series"]["power_w"] = [p * 1.5 for p in run["series"]["power_w"]]


def _ill_formed(run):
    run["schedule"][0]["end"] = run["schedule"][0]["start"] - 1.0


BROKEN = [
    ("backfill", "easy", _overfill, "capacity per resource"),
    ("dvfs_bot", "cloud_aware", _early, "no start before ready"),
    ("federated", "cls", _before_pred, "precedence"),
    ("dvfs_bot", "cloud_aware", _lost_job, "every job accounted for"),
    ("federated", "cls", _energy, "energy = ∫ power"),
    ("vm_reservations", "ffd", _ill_formed, "segments well-formed"),
]


@pytest.mark.parametrize(("family", "algorithm", "breaker", "check"), BROKEN, ids=[b[3] for b in BROKEN])
def test_a_stored_schedule_that_breaks_one_rule_shows_that_check_failed(
    alice, alice_client, family, algorithm, breaker, check
):
    run = _stored(alice, family, [algorithm], breaker)
    response = alice_client.get(f"/runs/{run.pk}/")
    page = response.content.decode()
    assert 'id="validity-badge">checks FAILED<' in page
    assert f"✗ {algorithm} #0: {check}" in page
    # (a task moved before its predecessor's end also overlaps what ran there: capacity may fail too)
    assert f"{algorithm} #0: {check}" in response.context["validity"]["failed"]


def test_every_check_of_the_contract_is_broken_by_one_case():
    from schedulers.core.validity import CONTRACT

    assert sorted(b[3] for b in BROKEN) == sorted(CONTRACT)


@pytest.mark.parametrize("family", ["backfill", "federated", "dvfs_bot"])
def test_a_stored_real_run_says_checks_passed_with_every_check_run(alice, alice_client, family):
    algorithm = schedulers.example(family)["algorithms"][0]
    run = _stored(alice, family, [algorithm])
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="validity-badge">checks passed<' in page and "did not run" not in page
    validity = alice_client.get(f"/runs/{run.pk}/").context["validity"]
    assert validity["passed"] and set(validity["contract"]) <= set(validity["ran"]) | {
        n.split(":")[0] for n in validity["na"]
    }


def test_a_stored_run_without_the_contracts_inputs_says_which_checks_did_not_run(alice, alice_client):
    def forget(run):
        run["extra"].pop("validity")
        run["extra"].pop("capacities")

    run = _stored(alice, "dvfs_bot", ["cloud_aware"], forget)
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="validity-badge">not all checks ran<' in page and "checks passed" not in page
    assert "did not run: capacity per resource (cloud_aware #0): not checked: the run reports no capacities" in page
    assert "did not run: precedence (cloud_aware #0)" in page


def test_a_page_checked_before_the_contract_does_not_say_passed(alice, alice_client):
    """A run whose stored page holds the old checks (no contract): nothing failed, but three checks never ran."""
    from cloudsched_web.runs import page

    run = _stored(alice, "dvfs_bot", ["cloud_aware"])
    summary = page.summarize(run.load_result())
    old = {"ok": True, "warned": [], "ran": ["segments well-formed", "capacity per resource", "energy = ∫ power"],
           "skipped": [], "failed": [], "runs": []}  # fmt: skip
    run.page = {**summary, "validity": old}
    run.save()
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="validity-badge">not all checks ran<' in html and 'id="validity-old"' in html
    run.page = summary  # the same run checked now
    run.save()
    html = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="validity-badge">checks passed<' in html and 'id="validity-old"' not in html
