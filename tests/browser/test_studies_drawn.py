"""Study, diff and presets pages as drawn in Chromium: the charts' data, not painted pixels.

The study chart's datasets (``Chart.getChart(canvas).data``) must equal the study's stored numbers,
in the study's order, coloured by algorithm (``algorithmColor`` of static/js/lib/colours.js, pinned here to its fixed table);
the cross-run diff's counts must equal a hand-computed expectation. A page whose comparison data
were emptied fails these tests. Screenshots at 1400 px land in CLOUDSCHED_SHOTS (default: the
test's tmp dir); no page scrolls sideways at that width.
"""

import os
from pathlib import Path

import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WIDTH = 1400
FIXED = {"fcfs": "#7f7f7f", "lpt": "#ff7f0e", "easy": "#1f77b4"}  # charts-common.js's table

DATASETS = """() => { const c = Chart.getChart(document.getElementById('study-chart'));
  return c.data.datasets.map((d) => ({ label: d.label, colour: d.borderColor, dash: d.borderDash || [],
    x: d.data.map((p) => p.x), y: d.data.map((p) => p.y), err: d.err || null })); }"""
X_LABELS = "() => Chart.getChart(document.getElementById('study-chart')).scales.x.getLabels()"
TABLE = (
    "() => [...document.querySelectorAll('#study-table tbody tr')].map((r) => [...r.cells].map((c) => c.textContent))"
)
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"


def _shot(page, tmp_path, name):
    folder = Path(os.environ.get("CLOUDSCHED_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def _study(alice, cases):
    """A study over a named axis (``case``): its points in definition order, each run of ``machines`` machines."""
    base = {**schedulers.example("toy"), "repetitions": 3}
    scenario = Scenario.objects.create(owner=alice, family="toy", name="order study", config=base)
    study = Study.objects.create(scenario=scenario, name="order study", axes=["case"])
    runs = []
    for case, machines in cases:
        config = {**base, "name": case, "datacenter": {"machines": machines}}
        runs.append(Run.objects.create(scenario=scenario, study=study, config=config, point={"case": case}))
    return study, runs


def _finish(run):
    """Run ``run``'s scenario for real and store its result on the row, as the worker does."""
    from django.utils import timezone

    result = schedulers.run(run.config)
    run.store_result(result)
    run.summary = {a: {k: v["mean"] for k, v in m.items()} for a, m in result["summary"].items()}
    run.status, run.progress = Run.Status.SUCCEEDED, 1.0
    run.started_at = run.finished_at = timezone.now()
    run.save()


def _expected(runs, metric="makespan_s"):
    """Per algorithm, the stored mean of ``metric`` and its one spread (the 95 % CI half-width over
    repetitions when there are at least two, else the sd) at each finished point, in the study's order."""
    out = {}
    for run in runs:
        run.refresh_from_db()
        if run.status != Run.Status.SUCCEEDED:
            continue
        for alg, per in run.load_header()["summary"].items():
            line = out.setdefault(alg, {"x": [], "y": [], "err": []})
            line["x"].append(run.point["case"])
            line["y"].append(per[metric]["mean"])
            stat = per[metric]
            line["err"].append(stat["ci"] if stat.get("n", 1) >= 2 and stat.get("ci") is not None else stat["std"])
    return out


def _drawn_as_stored(page, runs):
    datasets = page.evaluate(DATASETS)
    expected = _expected(runs)
    assert [d["label"] for d in datasets] == list(expected), "one line per algorithm, in the scenario's order"
    for d in datasets:
        e = expected[d["label"]]
        assert d["x"] == e["x"] and d["err"] == pytest.approx(e["err"])
        assert d["y"] == pytest.approx(e["y"]) and all(v is not None for v in d["y"])
        assert (
            d["colour"]
            == FIXED[d["label"]]
            == page.evaluate(
                "async (name) => (await import('/static/js/lib/colours.js')).algorithmColor(name)", d["label"]
            )
        )
    return datasets


def test_the_study_chart_draws_the_stored_numbers_in_the_studys_order(page, live_server, alice, tmp_path):
    # Defined as m=4, m=1, m=2: neither sorted nor alphabetical; finished in reverse.
    study, runs = _study(alice, [("m=4", 4), ("m=1", 1), ("m=2", 2)])
    _finish(runs[2])
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    assert page.evaluate(X_LABELS) == ["m=4", "m=1", "m=2"], "every point of the study has its place before it finishes"
    _drawn_as_stored(page, runs)
    assert [r[0] for r in page.evaluate(TABLE)] == ["m=4", "m=1", "m=2"]
    for run in (runs[1], runs[0]):
        _finish(run)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    assert page.evaluate(X_LABELS) == ["m=4", "m=1", "m=2"], "the axis order stays put when the study finishes"
    datasets = _drawn_as_stored(page, runs)
    assert all(d["x"] == ["m=4", "m=1", "m=2"] for d in datasets)
    table = page.evaluate(TABLE)
    assert [r[0] for r in table] == ["m=4", "m=1", "m=2"] and all("±" in c for r in table for c in r[1:])
    box = page.evaluate(
        "() => [document.getElementById('study-chart').getBoundingClientRect().width, document.querySelector('main').clientWidth]"
    )
    assert box[0] > 0.85 * box[1], f"the chart spans the page width: {box}"
    # every whisker inside the plot: the y range holds y ± its spread (a CI cut at the top was a defect)
    y = page.evaluate("() => { const s = cloudsched.study.scales.y; return [s.min, s.max]; }")
    assert all(y[0] <= v - e and v + e <= y[1] for d in datasets for v, e in zip(d["y"], d["err"], strict=True))
    assert page.evaluate(NO_SIDEWAYS)
    _shot(page, tmp_path, "study")


def test_a_second_axis_is_a_line_style_and_the_colour_stays_the_algorithms(page, live_server, alice, tmp_path):
    base = {**schedulers.example("toy"), "repetitions": 2}
    scenario = Scenario.objects.create(owner=alice, family="toy", name="grid", config=base)
    study = Study.objects.create(scenario=scenario, name="grid", axes=["datacenter.machines", "workload.jobs"])
    runs = []
    for m in (1, 2, 4):
        for jobs in (5, 20):
            config = {**base, "datacenter": {"machines": m}, "workload": {"jobs": jobs}}
            runs.append(Run.objects.create(scenario=scenario, study=study, config=config,
                                           point={"datacenter.machines": m, "workload.jobs": jobs}))  # fmt: skip
    for run in runs:
        _finish(run)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    datasets = page.evaluate(DATASETS)
    assert [d["label"] for d in datasets] == ["fcfs · jobs=5", "fcfs · jobs=20", "lpt · jobs=5", "lpt · jobs=20"]
    assert [d["colour"] for d in datasets] == [FIXED["fcfs"]] * 2 + [FIXED["lpt"]] * 2
    assert datasets[0]["dash"] == [] and datasets[1]["dash"] != [] and datasets[1]["dash"] == datasets[3]["dash"]
    for d in datasets:
        alg, jobs = d["label"].split(" · jobs=")
        stored = [r.load_header()["summary"][alg]["makespan_s"]["mean"]
                  for r in Run.objects.filter(study=study).order_by("pk") if r.point["workload.jobs"] == int(jobs)]  # fmt: skip
        assert d["x"] == [1, 2, 4] and d["y"] == pytest.approx(stored)
    assert "workload.jobs" in page.inner_text("#study-styles")
    assert page.evaluate(NO_SIDEWAYS)
    _shot(page, tmp_path, "study-grid")


def _hand_result(schedule, algorithm, extra=None):
    """A result on the toy example's workload (so its workload digest is the example's), schedule by hand."""
    _, cfg = schedulers.validate(schedulers.example("toy"))
    run = {"algorithm": algorithm, "repetition": 0, "wall_time_s": 0.1, "metrics": {"makespan_s": 50.0},
           "schedule": schedule, "series": {"t": [0.0, 50.0], "running_jobs": [1.0, 0.0]}, "jobs": []}  # fmt: skip
    if extra:
        run["extra"] = extra
    summary = {algorithm: {"makespan_s": {"mean": 50.0, "std": 0.0, "ci": 0.0, "n": 1}}}
    return {"family": "toy", "scenario_digest": "sha256:hand", "seed": cfg.seed,
            "scenario": cfg.model_dump(mode="json"), "runs": [run], "summary": summary}  # fmt: skip


def _seg(job, res, s, e):
    return {"job": job, "task": f"{job}.0", "resource": res, "start": s, "end": e, "share": 1.0, "kind": "task"}


def test_the_cross_run_diff_counts_missing_and_cut_jobs_as_computed_by_hand(page, live_server, alice, tmp_path):
    scenario = Scenario.objects.create(owner=alice, family="toy", name="diff", config=schedulers.example("toy"))
    a = [_seg("1", "m0", 0, 10), _seg("2", "m1", 10, 20), _seg("3", "m0", 20, 30), _seg("4", "m0", 30, 40),
         _seg("5", "m1", 40, 50)]  # fmt: skip
    # B: 1 unchanged, 2 moved to m0 and 3 s later, 3 never run, 4 and 5 after B's recording stopped (25), 6 only in B.
    b = [_seg("1", "m0", 0, 10), _seg("2", "m0", 13, 23), _seg("6", "m1", 12, 14)]
    run_a = finished_run(scenario, _hand_result(a, "fcfs"))
    run_b = finished_run(
        scenario, _hand_result(b, "lpt", {"schedule_cut": {"limit": 3, "recorded": 3, "cut_at_s": 25.0}})
    )
    assert run_a.workload_digest == run_b.workload_digest != ""
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run_a.pk}/diff/")
    page.click("summary")
    page.click(f"#candidates a.diff-with[href*='with={run_b.pk}']")
    page.wait_for_function("() => document.body.dataset.timelineLoaded")
    counts = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#diff-counts [data-count]')].map((c) => [c.dataset.count, +c.textContent]))"
    )
    # by hand: in both {1, 2}, changed {2}; only in A {3}; cut by B's limit {4, 5} (start ≥ 25); only in B {6}
    assert counts == {"jobs": 2, "changed": 1, "only_a": 1, "cut_in_b": 2, "only_b": 1}
    assert "25" in page.inner_text("#diff-counts")
    # What each side's canvas painted (gantt.js drawn(): every bar with its job, status and colour).
    drawn = page.evaluate(
        """async () => { const { drawn } = await import('/static/js/charts/gantt/index.js');
             return ['gantt-a', 'gantt-b'].map((id) => drawn(Chart.getChart(document.getElementById(id)))
             .map((b) => [String(b.job), b.status, b.colour])); }"""
    )
    assert [len(side) for side in drawn] == [5, 3]
    status_a = {job: status for job, status, _ in drawn[0]}
    status_b = {job: status for job, status, _ in drawn[1]}
    # by hand, as the counts above: 1 the same, 2 later in B, 3 never in B, 4 and 5 after B's cut, 6 only in B
    assert status_a == {"1": "same", "2": "later", "3": "not_in_b", "4": "cut_in_b", "5": "cut_in_b"}
    assert status_b == {"1": "same", "2": "later", "6": "not_in_a"}
    colour = {(job, side): c for side, bars in enumerate(drawn) for job, _, c in bars}
    assert colour["1", 0] == colour["1", 1] and colour["2", 0] == colour["2", 1] and colour["4", 0] == colour["5", 0]
    assert len({colour["1", 0], colour["2", 0], colour["3", 0], colour["4", 0]}) == 4  # each status its own
    assert page.evaluate(NO_SIDEWAYS)
    _shot(page, tmp_path, "diff-cross-run")


def test_the_presets_page_shows_claims_with_verdicts_and_fits_the_width(page, live_server, alice, tmp_path):
    claims = schedulers.preset_claims("toy", "machines_sweep")
    scenario = Scenario.objects.create(owner=alice, family="toy", name="p", config=schedulers.example("toy"))
    verdicts = [
        {"text": claims[0].text, "paper": claims[0].paper, "note": "", "verdict": "reproduced", "measured": "ratio 1.0"}
    ]
    study = Study.objects.create(scenario=scenario, name="p", preset="machines_sweep", scale="small", verdicts=verdicts)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/presets/")
    card = page.locator("#preset-toy-machines_sweep")
    labels = card.locator(".verdict-label").all_inner_texts()
    assert labels == ["reproduced", "not yet evaluated", "not yet evaluated"]
    assert "1 reproduced" in card.locator("summary").inner_text()
    assert page.evaluate(NO_SIDEWAYS)
    page.goto(f"{live_server.url}/presets/?family=toy")
    _shot(page, tmp_path, "presets-toy")
    page.click(f"#preset-toy-machines_sweep a[href='/studies/{study.pk}/']")
    assert page.locator("#claims .verdict-label").all_inner_texts() == ["reproduced"]
    assert "measured: ratio 1.0" in page.inner_text("#claims")
    _shot(page, tmp_path, "study-preset-verdicts")
    family = next((f for f in schedulers.all_families() if f != "toy" and schedulers.get_family(f).presets), None)
    if family:
        page.goto(f"{live_server.url}/presets/?family={family}")
        assert page.locator(".not-evaluated").count() == len(schedulers.get_family(family).presets)
        assert page.evaluate(NO_SIDEWAYS)
        _shot(page, tmp_path, f"presets-{family}")


def test_a_shared_study_leads_an_anonymous_visitor_to_its_runs(page, live_server, alice, csp, tmp_path):
    study, runs = _study(alice, [("m=1", 1), ("m=2", 2)])
    for run in runs:
        _finish(run)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.click("#create-share")
    link = page.get_attribute("#share-link", "href")
    assert link == page.input_value("#share-url") and link.startswith(live_server.url)  # the field to copy
    anonymous = csp.attach(page.context.browser.new_context().new_page())
    anonymous.set_viewport_size({"width": WIDTH, "height": 900})
    anonymous.goto(link)
    anonymous.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    assert len(anonymous.evaluate(DATASETS)) == 2
    anonymous.click("#study-runs tbody tr:first-child a")
    anonymous.wait_for_selector("#results")
    assert (
        anonymous.url.startswith(live_server.url + "/share/")
        and f"run {runs[0].pk}" in anonymous.inner_text("h1").lower()
    )
    page.click("#revoke-share")
    page.wait_for_selector("#create-share")
    gone = anonymous.goto(anonymous.url)
    assert gone.status == 404 and "your scenarios" not in anonymous.inner_text("main")


def test_swept_values_are_written_without_float_noise(page, live_server, alice):
    # 0.1 * 3 is 0.30000000000000004 as stored; a person wrote 0.3 (formatting.setting_text's twin).
    study, runs = _study(alice, [("small", 1), ("big", 2)])
    runs[0].point = {"case": 0.1 * 3}
    runs[0].save()
    _finish(runs[0])
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    page.wait_for_function("() => document.body.dataset.studyDrawn === '1'")
    assert page.evaluate(X_LABELS) == ["0.3", "big"]
    assert [r[0] for r in page.evaluate(TABLE)] == ["0.3", "big"]
    assert all(d["x"] == ["0.3"] for d in page.evaluate(DATASETS))
