"""The wizard's labels are written for people: every field, section and table column of every
family reads as a title from the schema, never a JSON key or a class name; a choice of model shows its group."""

import re

import pytest

import schedulers
from tests.browser.conftest import shoot
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
FAMILIES = [f for f in schedulers.all_families() if f != "toy"]
# What users saw before: auto-generated names and class names.
SEEN_BEFORE = ["Max Estimate S", "Duration H", "Sa T0", "Mem Gb", "P Active W", "N Jobs", "Cpu Usage Min",
               "DatacenterModel", "FeitelsonParams"]  # fmt: skip
CLASS_NAME = re.compile(r"^[A-Z][a-z]+[A-Z]\w*$")

# Every label (without its small JSON-key <code>), legend and table heading of the wizard, hidden panes too.
LABELS = """() => {
  const text = (e) => { const c = e.cloneNode(true); c.querySelectorAll('code, br, span.help').forEach((k) => k.remove());
                        return c.textContent.trim(); };
  const out = [];
  document.querySelectorAll('#wizard label:not(.check), #wizard legend, #wizard th').forEach((e) => {
    const t = text(e); if (t) out.push(t); });
  return out; }"""


@pytest.mark.parametrize("family", FAMILIES)
def test_every_wizard_label_is_written_for_people(page, live_server, alice, family):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family={family}")
    page.wait_for_selector("#wizard .wizard-root")
    labels = page.evaluate(LABELS)
    assert len(labels) > 10
    bad = [t for t in labels if "_" in t or t in SEEN_BEFORE or CLASS_NAME.match(t)]
    assert not bad, bad
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, f"wizard-{family}-{width}")


def test_the_backfill_wizard_shows_only_the_chosen_models_group(page, live_server, alice):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    groups = {m: page.locator(f"fieldset[data-path='workload.{m}']") for m in ("feitelson", "jann", "lublin")}
    assert groups["feitelson"].is_visible() and not groups["jann"].is_visible() and not groups["lublin"].is_visible()
    assert page.locator("fieldset[data-path='workload.feitelson'] > legend").inner_text() == "Feitelson model"
    page.select_option("#w-workload\\.model", '"jann"')
    assert groups["jann"].is_visible() and not groups["feitelson"].is_visible()
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    from cloudsched_web.scenarios.models import Scenario

    workload = Scenario.objects.get().config["workload"]
    assert workload["model"] == "jann" and "feitelson" in workload  # hidden groups keep their values


def test_ep_jobs_online_algorithms_are_a_grid_of_scheduler_and_per_job_algorithm(page, live_server, alice):
    """45 checkboxes like ontapra-ndrc:mm_ga become rows (scheduler, DRC on/off) × columns (per-job algorithm)."""
    if "ep_jobs" not in FAMILIES:
        pytest.skip("needs ep_jobs")
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=ep_jobs")
    grid = page.evaluate("""() => { const t = document.querySelector('#wizard table.algo-grid');
      return t && {cols: [...t.querySelectorAll('thead th')].map((h) => h.textContent),
                   rows: [...t.querySelectorAll('tbody th')].map((h) => h.textContent),
                   boxes: [...t.querySelectorAll('td input')].map((b) => [b.value, b.getAttribute('aria-label')])}; }""")
    names = schedulers.get_family("ep_jobs").algorithms
    composed = [a for a in names if ":" in a]
    assert grid is not None and sorted(v for v, _ in grid["boxes"]) == sorted(composed)
    assert "OnTaPRA (Alg. 3), DRC off" in grid["rows"] and "FCFS, DRC on" in grid["rows"]
    assert "MM-GA" in grid["cols"] and "TaPRA (Alg. 1)" in grid["cols"]
    assert dict(grid["boxes"])["ontapra-ndrc:mm_ga"] == "OnTaPRA (Alg. 3), DRC off with MM-GA"
    shoot(page, "wizard-ep_jobs-grid")


# Every id on the page, and each label's target: the element it names and the field box both sit in.
IDS = """() => ({
  ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
  labels: [...document.querySelectorAll('#wizard label[for]')].map((l) => {
    const target = document.getElementById(l.htmlFor);
    return { for: l.htmlFor, found: !!target, same: !!target && l.closest('.field') === target.closest('.field') };
  }),
})"""


@pytest.mark.parametrize("family", FAMILIES)
def test_the_wizard_has_no_duplicate_id_and_every_label_focuses_its_own_field(page, live_server, alice, family):
    """The workload tabs share field paths (`load` in every kind): ids are unique, so a label focuses the field
    beside it and help text belongs to its own field (10 duplicates across the backfill tabs before)."""
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family={family}")
    page.wait_for_selector("#wizard .wizard-root")
    found = page.evaluate(IDS)
    ids, labels = found["ids"], found["labels"]
    assert len(ids) > 10 and len(labels) > 5
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    assert [lab for lab in labels if not (lab["found"] and lab["same"])] == []


def test_dropdowns_read_as_words_with_their_code(page, live_server, alice):
    """The workload model and the wider jobs' choice read as words, their code beside for the API's reader."""
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.wait_for_selector("#wizard .wizard-root")
    options = page.evaluate("""() => Object.fromEntries(['w-workload.model', 'w-workload.wider_jobs'].map((id) =>
      [id, [...document.getElementById(id).options].map((o) => o.text)]))""")
    assert options["w-workload.model"] == ["Feitelson 1996 (feitelson)", "Jann et al. 1997 (jann)",
                                           "Lublin & Feitelson 2003 (lublin)"]  # fmt: skip
    assert options["w-workload.wider_jobs"] == [
        "refuse the scenario (refuse)",
        "drop them (the run says how many) (drop)",
    ]
