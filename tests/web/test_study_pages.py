"""Studies and comparisons: cross-run diffs on one workload, claims with verdicts, shared studies."""

import re

import pytest
from django.test import Client

import schedulers
from cloudsched_web.results import jobdiff
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.api.factories import parsed as ParsedResult

pytestmark = pytest.mark.django_db


def _seg(job, res, s, e):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": 1.0}


def _doc(schedule, algorithm="a", extra=None):
    run = {"algorithm": algorithm, "repetition": 0, "metrics": {}, "schedule": schedule, "series": {}, "jobs": []}
    if extra:
        run["extra"] = extra
    return {"runs": [run], "summary": {}}


A = [_seg("1", "m0", 0, 10), _seg("2", "m1", 10, 20), _seg("3", "m0", 20, 30), _seg("4", "m0", 30, 40),
     _seg("5", "m1", 40, 50)]  # fmt: skip


def test_a_cross_run_diff_tells_jobs_missing_from_b_apart_from_jobs_its_limit_cut():
    # B: job 1 the same, job 2 moved to m0, job 3 never run (e.g. rejected), jobs 4 and 5 beyond B's
    # recording (cut at 25), job 6 only in B.
    b = [_seg("1", "m0", 0, 10), _seg("2", "m0", 10, 20), _seg("6", "m1", 12, 14)]
    cut = {"schedule_cut": {"limit": 3, "recorded": 3, "cut_at_s": 25.0}}
    d = jobdiff.diff(ParsedResult(_doc(A)), 0, 0, other=ParsedResult(_doc(b, "b", cut)))
    assert (d["jobs"], d["changed"], d["moved"]) == (2, 1, 1)
    assert (d["only_a"], d["cut_in_b"], d["only_b"], d["cut_in_a"]) == (1, 2, 1, 0)
    assert d["b"] == {"index": 0, "algorithm": "b", "cut_at": 25.0} and d["a"]["cut_at"] is None
    # Without a limit every absent job is simply not in B.
    d = jobdiff.diff(ParsedResult(_doc(A)), 0, 0, other=ParsedResult(_doc(b, "b")))
    assert (d["only_a"], d["cut_in_b"]) == (3, 0)


def test_an_older_result_flagged_schedule_truncated_is_cut_where_its_record_ends():
    b = [_seg("1", "m0", 0, 10), _seg("2", "m1", 10, 20)]  # recorded up to t = 20: jobs 3-5 start at or after it
    d = jobdiff.diff(ParsedResult(_doc(A)), 0, 0, other=ParsedResult(_doc(b, "b", {"schedule_truncated": True})))
    assert (d["only_a"], d["cut_in_b"], d["b"]["cut_at"]) == (0, 3, 20.0)


@pytest.fixture
def two_runs(alice, toy_scenario):
    """Two of Alice's runs on one workload (other algorithms, other name) and one on another seed."""
    base = Scenario.objects.create(owner=alice, family="toy", name="base", config={**toy_scenario, "repetitions": 1})
    lpt = Scenario.objects.create(owner=alice, family="toy", name="lpt only",
                                  config={**base.config, "name": "lpt only", "algorithms": ["lpt"]})  # fmt: skip
    other = Scenario.objects.create(owner=alice, family="toy", name="seed 2", config={**base.config, "seed": 2})
    return finished_run(base), finished_run(lpt), finished_run(other)


def test_runs_on_the_same_workload_are_listed_and_compared(alice_client, two_runs):
    run, same, other = two_runs
    assert run.workload_digest and run.workload_digest == same.workload_digest != other.workload_digest
    page = alice_client.get(f"/runs/{run.pk}/diff/").content.decode()
    assert f"?with={same.pk}" in page and f"?with={other.pk}" not in page
    assert "or with another run on the same workload (1)" in alice_client.get(f"/runs/{run.pk}/").content.decode()
    page = alice_client.get(f"/runs/{run.pk}/diff/?with={same.pk}&a=0&b=0").content.decode()
    assert f'data-data-url-b="/runs/{same.pk}/data.json"' in page and 'data-with="' + str(same.pk) in page
    d = alice_client.get(f"/runs/{run.pk}/data.json?kind=diff&a=0&b=0&with={same.pk}").json()
    # fcfs vs lpt on the same 20 jobs: every job is in both, none cut
    assert d["a"]["algorithm"] == "fcfs" and d["b"]["algorithm"] == "lpt"
    assert (d["jobs"], d["only_a"], d["only_b"], d["cut_in_a"], d["cut_in_b"]) == (20, 0, 0, 0, 0)
    assert alice_client.get(f"/runs/{run.pk}/diff/?with={other.pk}").status_code == 404
    assert alice_client.get(f"/runs/{run.pk}/data.json?kind=diff&with={other.pk}").status_code == 404
    assert alice_client.get(f"/runs/{run.pk}/diff/?with=x").status_code == 404


def test_another_users_run_on_the_same_workload_is_never_a_candidate(client, bob, two_runs, toy_scenario):
    run = two_runs[0]
    mine = Scenario.objects.create(owner=bob, family="toy", name="bob", config=run.config)
    bobs = finished_run(mine)
    assert bobs.workload_digest == run.workload_digest
    client.force_login(bob)
    page = client.get(f"/runs/{bobs.pk}/diff/").content.decode()
    assert f"with={run.pk}" not in page and "No other finished run of yours" in page
    assert client.get(f"/runs/{bobs.pk}/diff/?with={run.pk}").status_code == 404


def test_the_presets_page_shows_each_claim_with_its_verdict_or_how_to_get_one(alice_client, alice):
    claims = schedulers.preset_claims("toy", "machines_sweep")
    page = alice_client.get("/presets/?family=toy").content.decode()
    for c in claims:
        assert c.text in page
    assert "Not yet evaluated" in page and "python -m schedulers claims toy machines_sweep" in page
    assert "LPT/FCFS ≤ 4/3" in page  # the paper's number beside the claim
    scenario = Scenario.objects.create(owner=alice, family="toy", name="p", config=schedulers.example("toy"))
    verdicts = [{"text": claims[0].text, "paper": claims[0].paper, "note": "", "verdict": "reproduced",
                 "measured": "lpt/fcfs makespan_s: m=1 → 1"},
                {"text": claims[1].text, "paper": claims[1].paper, "note": "", "verdict": "not reproduced",
                 "measured": "makespan_s lpt vs fcfs: m=1 → 5 vs 5"}]  # fmt: skip
    study = Study.objects.create(scenario=scenario, name="p", preset="machines_sweep", scale="small", verdicts=verdicts)
    page = alice_client.get("/presets/?family=toy").content.decode()
    assert f'href="/studies/{study.pk}/"' in page and "small scale" in page
    assert 'verdict-reproduced"' in page and 'verdict-not-reproduced"' in page
    assert "measured: lpt/fcfs makespan_s: m=1 → 1" in page
    assert page.count("verdict-not-yet-evaluated") == 1  # the claim without a check, not in the verdicts


def test_a_running_preset_study_shows_its_claims_not_yet_evaluated(alice_client, alice):
    scenario = Scenario.objects.create(owner=alice, family="toy", name="p", config=schedulers.example("toy"))
    study = Study.objects.create(scenario=scenario, name="p", preset="machines_sweep")
    run = Run.objects.create(scenario=scenario, study=study, config=scenario.config, point={})
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert (
        page.count("not yet evaluated</strong>") == 3 and "checked against the results when the study finishes" in page
    )
    page = alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="claims"' in page and "Graham 1969" in page


def test_a_shared_study_links_to_its_runs_and_revoking_closes_them(alice_client, alice, two_runs):
    run, same, _ = two_runs
    study = Study.objects.create(scenario=run.scenario, name="shared study")
    Run.objects.filter(pk__in=[run.pk, same.pk]).update(study=study)
    alice_client.post(f"/studies/{study.pk}/share/")
    study.refresh_from_db()
    tokens = [r.share_token for r in study.runs.order_by("pk")]
    assert study.share_token and all(tokens)
    anonymous = Client()
    page = anonymous.get(f"/share/study/{study.share_token}/").content.decode()
    for token in tokens:
        assert f'href="/share/{token}/"' in page
        assert anonymous.get(f"/share/{token}/").status_code == 200
    alice_client.post(f"/studies/{study.pk}/share/", {"revoke": "1"})
    assert not study.runs.exclude(share_token=None).exists()
    gone = anonymous.get(f"/share/{tokens[0]}/")
    assert gone.status_code == 404
    text = gone.content.decode()
    assert "your scenarios" not in text and "revoked" in text
    assert "your scenarios" in alice_client.get(f"/share/{tokens[0]}/").content.decode()


class _R:
    def __init__(self, pk, point, name=""):
        self.pk, self.point, self.config = pk, point, {"name": name}


def test_the_chart_axes_of_a_study_place_every_point():
    from cloudsched_web.results import charts
    from cloudsched_web.results.charts import POINT_NAME, plot_axes

    grid = [_R(i, {"a": a, "b": b}) for i, (a, b) in enumerate([(1, 5), (1, 9), (2, 5), (2, 9)])]
    assert plot_axes(["a", "b"], grid) == ("a", "b")
    together = [_R(i, {"seed": i, "workload.tasks": 10 * i}) for i in range(3)]  # vary together
    assert plot_axes(["seed", "workload.tasks"], together) == ("workload.tasks", None)
    three = [_R(i, {"x": i % 2, "y": i // 2 % 2, "z": i % 3}, f"case {i}") for i in range(6)]
    assert plot_axes(["x", "y", "z"], three) == (POINT_NAME, None)

    class S:
        axes = ["x", "y", "z"]

    payload = charts.study_payload(
        S(), [(r, {"fcfs": {"m": {"mean": float(r.pk), "std": 0.0}}}) for r in reversed(three)], three
    )
    assert payload["x_order"] == [f"case {i}" for i in range(6)]
    assert [p["x"] for p in payload["metrics"]["m"]["fcfs"]] == [f"case {i}" for i in range(6)]


def test_a_study_exports_its_points_as_csv_with_every_run_and_units(
    alice_client, scenario, django_capture_on_commit_callbacks
):
    import csv
    import io

    from cloudsched_web.runs.models import Run
    from cloudsched_web.runs.services import submit_sweep

    with django_capture_on_commit_callbacks(execute=True):
        study = submit_sweep(scenario, {"datacenter.machines": [1, 2]})
    queued = Run.objects.create(
        scenario=scenario, config=scenario.config, study=study, point={"datacenter.machines": 4}
    )
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert f'href="/studies/{study.pk}/points.csv"' in page
    response = alice_client.get(f"/studies/{study.pk}/points.csv")
    assert response["Content-Type"] == "text/csv" and f"study-{study.pk}-points.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["datacenter.machines"] for r in rows] == ["1", "2", "4"]
    assert rows[2]["status"] == "queued" and rows[2]["run"] == str(queued.pk)
    first = Run.objects.filter(study=study).order_by("id").first()
    mean = first.load_header()["summary"]["fcfs"]["makespan_s"]["mean"]
    assert float(rows[0]["fcfs makespan_s"]) == mean and "fcfs makespan_s ci95" in rows[0]
    assert rows[2]["fcfs makespan_s"] == ""  # not finished: empty, not dropped


def test_every_run_on_the_same_workload_is_listed_a_page_at_a_time(alice_client, two_runs):
    """No first-N list: 52 candidates are counted as 52 and paged 50 + 2, the pager keeping A, B and the other run."""
    from django.utils import timezone

    run, same, _ = two_runs
    Run.objects.bulk_create([
        Run(scenario=same.scenario, config=same.config, status=Run.Status.SUCCEEDED, progress=1.0,
            workload_digest=same.workload_digest, finished_at=timezone.now())
        for _ in range(51)
    ])  # fmt: skip
    listed = lambda html: re.findall(r'class="diff-with" href="[^"]*\?with=(\d+)', html)  # noqa: E731
    first = alice_client.get(f"/runs/{run.pk}/diff/?a=0&b=1").content.decode()
    assert "(52 found)" in first and "runs 1–50 of 52" in first
    assert "or with another run on the same workload (52)" in alice_client.get(f"/runs/{run.pk}/").content.decode()
    assert "?a=0&amp;b=1&amp;page=2" in first
    second = alice_client.get(f"/runs/{run.pk}/diff/?a=0&b=1&page=2").content.decode()
    assert "runs 51–52 of 52" in second
    pks = listed(first) + listed(second)
    mine = Run.objects.filter(workload_digest=run.workload_digest).exclude(pk=run.pk)
    assert len(pks) == len(set(pks)) == 52 and set(map(int, pks)) == set(mine.values_list("pk", flat=True))
