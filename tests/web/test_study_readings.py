"""A preset study runs each reading its preset declares and its page shows a verdict per reading per claim.

ep_jobs fig. 4 at small scale declares two readings of the baselines' allocation ("static shares", the
default, and "optra"); under them some claims get different verdicts, so a page that showed one reading's
verdicts in the other's column fails here. The verdicts expected are those of ``schedulers.reproduce``
(what docs/reproduction*.md print), computed on its own runs of the same points.
"""

from html.parser import HTMLParser

import pytest

import schedulers
from cloudsched_web.runs import services
from cloudsched_web.runs.models import Run, Study, StudyReading
from cloudsched_web.runs.services import create_preset_study
from schedulers.core.claims import Reading
from schedulers.reproduce import preset_readings, run_claims

pytestmark = pytest.mark.django_db

FAMILY, PRESET, SCALE = "ep_jobs", "fig4", "small"
SMALLEST_JCT = "TaPRA gives the smallest JCT at every job size."


class _ClaimsTable(HTMLParser):
    """The verdict labels of the page's claims-by-reading table: its column heads and, per claim, one per reading."""

    def __init__(self):
        super().__init__()
        self.heads, self.rows, self._in, self._cell, self._label = [], [], False, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "claims-by-reading":
            self._in = True
        elif self._in and tag == "th" and "data-reading" in a:
            self._cell = "head"
            self.heads.append("")
        elif self._in and tag == "tr" and self._cell is None and self.heads:
            self.rows.append([])
        elif self._in and tag == "strong" and "verdict-label" in (a.get("class") or ""):
            self._label = True
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif tag == "th":
            self._cell = None
        elif tag == "strong":
            self._label = False

    def handle_data(self, data):
        if self._cell == "head":
            self.heads[-1] += data
        elif self._label:
            self.rows[-1][-1] += data


def _table(html):
    parser = _ClaimsTable()
    parser.feed(html)
    return parser.heads, [r for r in parser.rows if r]


@pytest.fixture(scope="module")
def reference():
    """``claims``' own report of the preset: one list of verdicts per reading, default first."""
    (report,) = run_claims([(FAMILY, PRESET)], scale=SCALE, workers=1)
    return report


def test_the_preset_declares_readings_whose_verdicts_differ(reference):
    readings = reference["readings"]
    assert [r["name"] for r in readings] == ["static shares", "optra"] and readings[0]["default"]
    differ = [a["text"] for a, b in zip(readings[0]["verdicts"], readings[1]["verdicts"], strict=True)
              if a["verdict"] != b["verdict"]]  # fmt: skip
    assert SMALLEST_JCT in differ


def test_a_preset_study_runs_each_reading_and_its_page_shows_a_verdict_per_reading(
    alice, alice_client, reference, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        study = create_preset_study(alice, FAMILY, PRESET, SCALE)
    study.refresh_from_db()
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    default, optra = StudyReading.objects.filter(study=study)
    assert (default.name, default.default, optra.name, optra.default) == ("static shares", True, "optra", False)
    assert default.why == preset_readings(FAMILY, PRESET)[0].why != ""
    # The reading's runs: the same points, the reading's parameter applied, marked as its runs.
    base = list(study.runs.filter(reading=None).order_by("id"))
    alt = list(optra.runs.order_by("id"))
    assert len(base) == len(alt) == points > 0 and study.runs.count() == 2 * points
    assert [r.point for r in alt] == [r.point for r in base]
    assert all(r.config["params"]["baseline_allocation"] == "optra" for r in alt)
    assert all(r.config.get("params", {}).get("baseline_allocation") != "optra" for r in base)
    assert all(r.status == Run.Status.SUCCEEDED for r in base + alt)

    # Each reading's verdicts are those claims computes on its own runs of the same points.
    want = [[v["verdict"] for v in r["verdicts"]] for r in reference["readings"]]
    assert [v["verdict"] for v in study.verdicts] == want[0]
    assert [v["verdict"] for v in optra.verdicts] == want[1]
    jct = [v["text"] for v in study.verdicts].index(SMALLEST_JCT)
    assert (study.verdicts[jct]["verdict"], optra.verdicts[jct]["verdict"]) == ("reproduced", "not reproduced")

    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    heads, rows = _table(page)
    assert heads == ["Verdict: static shares (default)", "Verdict: optra"]
    assert len(rows) == len(want[0]) > 0
    assert [[r[0] for r in rows], [r[1] for r in rows]] == want
    assert "Why the default: " + default.why.replace("'", "&#x27;") in page
    assert "<code>params.baseline_allocation = optra</code>" in page
    assert page.count('data-reading="optra"') == 2 + points  # the list, the column head, and each of its runs
    # A run's page shows the verdicts of the reading it ran under.
    label = '<strong class="verdict-label">{}</strong> ' + SMALLEST_JCT
    run_page = alice_client.get(f"/runs/{alt[0].pk}/").content.decode()
    assert "under the alternative reading “optra”" in run_page and label.format("not reproduced") in run_page
    assert label.format("reproduced") in alice_client.get(f"/runs/{base[0].pk}/").content.decode()


def test_reading_columns_say_waiting_running_and_failed(alice, alice_client):
    study = create_preset_study(alice, FAMILY, PRESET, SCALE)  # not committed: every run stays queued
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    heads, rows = _table(page)
    assert len(heads) == 2 and rows and all(r == ["waiting", "waiting"] for r in rows)

    optra = StudyReading.objects.get(study=study, default=False)
    optra.runs.update(status=Run.Status.FAILED, error="boom")
    first = study.runs.filter(reading=None).order_by("id").first()
    Run.objects.filter(pk=first.pk).update(status=Run.Status.RUNNING)
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    heads, rows = _table(page)
    # The failed reading is checked (nothing to check it on) and says so; the default is still running.
    assert all(r == ["running", "not evaluated"] for r in rows)
    assert "all failed or were cancelled" in page
    optra.refresh_from_db()
    assert optra.verdicts is not None and {v["verdict"] for v in optra.verdicts} == {"not evaluated"}
    assert Study.objects.get(pk=study.pk).verdicts is None  # the default's runs are not done


def test_a_preset_without_readings_is_unchanged(alice, alice_client, django_capture_on_commit_callbacks):
    assert preset_readings("toy", "machines_sweep") == []
    with django_capture_on_commit_callbacks(execute=True):
        study = create_preset_study(alice, "toy", "machines_sweep", "small")
    assert not StudyReading.objects.filter(study=study).exists() and study.runs.count() == 3
    assert not study.runs.exclude(reading=None).exists()
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="claims-by-reading"' not in page and "<th>Reading</th>" not in page
    assert page.count('class="verdict verdict-') == 3  # the one list of verdicts, as before


def test_the_readings_can_be_left_out(alice):
    study = create_preset_study(alice, FAMILY, PRESET, SCALE, readings=False)
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    assert study.runs.count() == points and not StudyReading.objects.filter(study=study).exists()


def test_the_queue_cap_counts_the_reading_runs(alice, settings):
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    settings.RUN_QUEUE_MAX_PER_USER = 2 * points - 1  # one short of the default's points and the reading's
    with pytest.raises(schedulers.ScenarioError) as refused:
        create_preset_study(alice, FAMILY, PRESET, SCALE)
    assert f"this would add {2 * points}" in refused.value.errors[0]["message"]
    assert not Study.objects.exists() and not Run.objects.exists()
    settings.RUN_QUEUE_MAX_PER_USER = 2 * points  # the limit: admitted
    assert create_preset_study(alice, FAMILY, PRESET, SCALE).runs.count() == 2 * points


def test_the_study_size_limit_counts_the_reading_runs(alice, monkeypatch):
    points = len(schedulers.preset(FAMILY, PRESET, SCALE)["scenarios"])
    monkeypatch.setattr(services, "MAX_STUDY_POINTS", 2 * points - 1)
    with pytest.raises(schedulers.ScenarioError) as refused:
        create_preset_study(alice, FAMILY, PRESET, SCALE)
    error = refused.value.errors[0]
    assert error["field"] == "readings" and f"{2 * points} runs" in error["message"]
    assert f"at most {2 * points - 1} runs per study" in error["allowed"]
    assert create_preset_study(alice, FAMILY, PRESET, SCALE, readings=False).runs.count() == points
    monkeypatch.setattr(services, "MAX_STUDY_POINTS", 2 * points)
    assert create_preset_study(alice, FAMILY, PRESET, SCALE).runs.count() == 2 * points


def test_the_gallery_offers_the_readings_with_their_run_count_ticked(alice_client):
    points = len(schedulers.preset(FAMILY, PRESET)["scenarios"])
    page = alice_client.get(f"/presets/?family={FAMILY}").content.decode()
    card = page[page.index(f'id="preset-{FAMILY}-{PRESET}"') :]
    card = card[: card.index('class="card"')] if 'class="card"' in card else card
    assert '<input type="checkbox" name="readings" value="1" checked>' in card
    assert f"(“optra”): +{points} run" in card and f"{2 * points} in all" in card
    # The form posts readings=0, then readings=1 when ticked: the last value counts.
    alice_client.post(f"/presets/{FAMILY}/{PRESET}/", {"scale": SCALE, "readings": ["0", "1"]})
    alice_client.post(f"/presets/{FAMILY}/{PRESET}/", {"scale": SCALE, "readings": ["0"]})
    first, second = Study.objects.order_by("id")
    assert (first.runs.count(), second.runs.count()) == (2 * points, points)


def test_a_reading_whose_points_are_invalid_is_named_and_nothing_is_created(alice, monkeypatch):
    bad = Reading("bogus", "an allocation no model has", {"baseline_allocation": "bogus"})
    monkeypatch.setattr(services, "preset_readings", lambda family, preset: [*preset_readings(family, preset), bad])
    with pytest.raises(schedulers.ScenarioError) as refused:
        create_preset_study(alice, FAMILY, PRESET, SCALE)
    fields = [e["field"] for e in refused.value.errors]
    assert fields and all(f.startswith("readings[bogus].points[") for f in fields)
    assert fields[0] == "readings[bogus].points[0].params.baseline_allocation"
    assert not Study.objects.exists() and not Run.objects.exists()


def test_a_reading_that_reruns_some_algorithms_takes_the_others_from_the_default_runs(
    alice, alice_client, django_capture_on_commit_callbacks
):
    """federated fig. 9 declares "FCFS places anywhere", which changes FCFS's runs only: the study reruns FCFS
    alone under it, and its verdicts compare that FCFS with the default's DCLS and DCMMS, as ``claims`` does
    (the same verdicts and measured numbers)."""
    family, preset = "federated", "fig9_energy_loose"
    (report,) = run_claims([(family, preset)], scale=SCALE, workers=1)
    want = [[v["verdict"] for v in r["verdicts"]] for r in report["readings"]]
    assert len(want) == 2 and len(want[1]) > 0
    assert "not evaluated" not in want[1]  # FCFS's runs alone would leave every comparison unevaluated
    with django_capture_on_commit_callbacks(execute=True):
        study = create_preset_study(alice, family, preset, SCALE)
    study.refresh_from_db()
    anywhere = StudyReading.objects.get(study=study, default=False)
    assert (anywhere.name, anywhere.algorithms) == ("FCFS places anywhere", ["fcfs"])
    alt = list(anywhere.runs.order_by("id"))
    assert alt and all(r.config["algorithms"] == ["fcfs"] for r in alt)
    assert all(r.config["params"]["fcfs_placement"] == "any" for r in alt)
    assert all(r.status == Run.Status.SUCCEEDED for r in study.runs.all())
    assert [v["verdict"] for v in study.verdicts] == want[0]
    assert [v["verdict"] for v in anywhere.verdicts] == want[1]
    assert [v["measured"] for v in anywhere.verdicts] == [v["measured"] for v in report["readings"][1]["verdicts"]]
    page = alice_client.get(f"/studies/{study.pk}/").content.decode()
    assert [[r[0] for r in _table(page)[1]], [r[1] for r in _table(page)[1]]] == want
    assert "it reruns only fcfs" in page
