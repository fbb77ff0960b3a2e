import pytest

from cloudsched_web.runs.models import Run, Study

pytestmark = pytest.mark.django_db


def test_the_gallery_lists_presets_with_their_claims(alice_client):
    page = alice_client.get("/presets/?family=toy").content.decode()
    assert "Toy: makespan vs machines" in page and "Graham 1969" in page


def test_one_click_runs_a_preset_as_a_study(alice_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post("/presets/toy/machines_sweep/")
    study = Study.objects.get()
    assert response.url == f"/studies/{study.pk}/"
    assert study.runs.filter(status=Run.Status.SUCCEEDED).count() == 3
    page = alice_client.get(response.url).content.decode()
    assert "Graham 1969" in page and 'id="study-payload"' in page
    assert 'class="verdict verdict-reproduced"' in page and 'class="verdict verdict-not-reproduced"' in page
    assert "measured: lpt/fcfs makespan_s: m=1 →" in page and "paper: LPT/FCFS ≤ 4/3" in page


def test_the_gallery_runs_a_preset_at_small_scale(alice_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post("/presets/toy/machines_sweep/", {"scale": "small"})
    study = Study.objects.get()
    assert study.scale == "small" and "Small scale: 5 jobs per point." in study.description
    assert "at small scale" in alice_client.get(f"/studies/{study.pk}/").content.decode()


def test_an_unknown_preset_is_a_message_not_a_500(alice_client):
    response = alice_client.post("/presets/toy/nope/", follow=True)
    assert response.status_code == 200 and "unknown preset" in response.content.decode()


def test_a_sweep_of_two_parameters_creates_the_grid(alice_client, scenario, django_capture_on_commit_callbacks):
    form = {
        "axis1": "datacenter.machines",
        "values1": "1, 2",
        "axis2": "workload.jobs",
        "values2": "5,10",
        "name": "grid",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(f"/scenarios/{scenario.pk}/sweep/", form)
    study = Study.objects.get()
    assert response.url == f"/studies/{study.pk}/"
    assert study.name == "grid" and study.runs.count() == 4
    payload = alice_client.get(response.url).context["payload"]
    assert payload["x_axis"] == "datacenter.machines" and payload["series_axis"] == "workload.jobs"
    line = payload["metrics"]["makespan_s"]["fcfs · jobs=5"]
    assert [p["x"] for p in line] == [1, 2] and all("err" in p for p in line)


def test_a_bad_sweep_value_is_shown_next_to_its_values_and_nothing_is_created(alice_client, scenario):
    form = {"axis1": "datacenter.machines", "values1": "2, 0, 5000"}
    page = alice_client.post(f"/scenarios/{scenario.pk}/sweep/", form).content.decode()
    assert "points[1].datacenter.machines" in page and "≥ 1" in page and "≤ 1000" in page
    assert not Study.objects.exists() and not Run.objects.exists()


def test_a_sweep_needs_values(alice_client, scenario):
    page = alice_client.post(f"/scenarios/{scenario.pk}/sweep/", {"axis1": "seed", "values1": " , "}).content.decode()
    assert "give 1 to 50 comma-separated values" in page


def test_preset_claims_are_readable_without_hover(alice_client):
    """The paper's number of each claim is on the page, not only in a tooltip."""
    page = alice_client.get("/presets/").content.decode()
    gallery = page.split('class="gallery presets"')[1]
    assert '<br><span class="help">paper: ' in gallery and 'title="paper: ' not in gallery


def test_every_preset_card_is_titled_the_same_way():
    """One form for every family's card: "Fig. 6: …", "Table 3: …" — a label, a colon, the subject;
    never the preset's id ("fig5_4") or a bare figure name."""
    import re

    import schedulers
    from cloudsched_web.scenarios.views import _preset_docs

    cards = [p for p in _preset_docs() if p["family"] in schedulers.all_families() and p["family"] != "toy"]
    assert len(cards) >= 30
    for p in cards:
        assert re.match(r"^[A-Z][^:_]{1,40}: \S", p["name"]), p["name"]
        assert p["name"] != p["preset"] and "_" not in p["name"]


def test_the_gallery_shows_each_scales_expected_time_before_starting(alice_client):
    import schedulers
    from cloudsched_web.scenarios.views import expected_cpu

    if "dvfs_bot" not in schedulers.all_families():
        pytest.skip("needs dvfs_bot")
    page = alice_client.get("/presets/").content.decode()
    for scale in ("paper", "small"):
        points = schedulers.preset("dvfs_bot", "fig2a", scale)["scenarios"]
        expected = expected_cpu(points)
        assert expected["runs"] == len(points) and expected["unknown"] == 0
        assert sum(schedulers.estimate(p).cpu_s for p in points) == pytest.approx(expected["cpu_s"])
    box = page.split('id="expected-dvfs_bot-fig2a">')[1].split("</p>")[0]
    assert "an estimate of the simulation" in box and "paper scale about" in box and "small scale about" in box
    box = page.split('id="expected-toy-machines_sweep">')[1].split("</p>")[0]  # no footprint model: no number
    assert "paper scale not estimated for this family" in box


def test_the_saved_scenario_is_named_after_the_figure_and_the_preset(alice_client, django_capture_on_commit_callbacks):
    from cloudsched_web.scenarios.models import Scenario

    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post("/presets/toy/machines_sweep/", {"scale": "small"})
    scenario = Scenario.objects.get()
    assert scenario.name == "Toy: makespan vs machines · preset toy/machines_sweep, small scale"
    assert scenario.config["name"] == scenario.name


def test_the_gallery_says_what_the_alternative_readings_add_to_the_expected_time(alice_client):
    """ep_jobs fig. 4 declares the "optra" reading: what its runs add (ticked by default) is expected apart."""
    import schedulers
    from cloudsched_web.runs.templatetags.numbers import duration
    from cloudsched_web.scenarios.views import expected_cpu, preset_expected
    from schedulers.reproduce import preset_readings

    (optra,) = [r for r in preset_readings("ep_jobs", "fig4") if not r.default]
    points = schedulers.preset("ep_jobs", "fig4", "small")["scenarios"]
    assert points
    added = expected_cpu([optra.apply(p) for p in points])["cpu_s"]
    assert added > 0 and preset_expected("ep_jobs", "fig4")["small"]["readings_cpu_s"] == pytest.approx(added)
    page = alice_client.get("/presets/").content.decode()
    box = page.split('id="expected-ep_jobs-fig4">')[1].split("</p>")[0]
    assert f"and about {duration(added)} more for the alternative readings" in box
    box = page.split('id="expected-dvfs_bot-fig2a">')[1].split("</p>")[0]  # no readings: nothing added
    assert "alternative readings" not in box
