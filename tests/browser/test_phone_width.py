"""At a phone's 390 px nothing scrolls sideways except a table inside its own scroll box."""

import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
FAMILIES = [f for f in schedulers.all_families() if f != "toy"]
WIDTH = """() => ({page: document.scrollingElement.scrollWidth, view: document.documentElement.clientWidth,
  wide: [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect(); if (r.right <= document.documentElement.clientWidth + 1) return false;
    for (let a = e.parentElement; a; a = a.parentElement) {  // inside its own scroll box: fine
      const o = getComputedStyle(a).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return false; }
    return true; }).slice(0, 5).map((e) => e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''))})"""


def test_no_page_is_wider_than_a_phone(page, live_server, alice):
    family = "backfill" if "backfill" in FAMILIES else "toy"
    scenario = Scenario.objects.create(owner=alice, family=family, name="phone", config=schedulers.example(family))
    run = finished_run(scenario)
    run.share()
    study = Study.objects.create(scenario=scenario, name="a sweep", axes=["seed"])
    point = finished_run(scenario)
    Run.objects.filter(pk=point.pk).update(study=study, point={"seed": 1})
    page.set_viewport_size({"width": 390, "height": 844})
    _login(page, live_server.url)
    urls = ["/", "/presets/", "/traces/", "/studies/", "/trash/", f"/scenarios/{scenario.pk}/",
            f"/runs/{run.pk}/", f"/studies/{study.pk}/", f"/share/{run.share_token}/", "/account/tokens/"]  # fmt: skip
    urls += [f"/scenarios/new/?family={f}" for f in FAMILIES]
    too_wide = {}
    for url in urls:
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        m = page.evaluate(WIDTH)
        if m["page"] > m["view"] + 1:
            too_wide[url] = m
    assert not too_wide, "; ".join(f"{u}: {m['page']} px, widest {m['wide']}" for u, m in too_wide.items())
