"""axe-core (from npm, node_modules/axe-core) finds no serious or critical WCAG 2 A/AA violation on the home,
wizard, run, diff, study and share pages, and no skipped heading level nor empty table header anywhere. The rules run in the page as a screen reader would meet it."""

from pathlib import Path

import pytest

import schedulers
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}});
  const order = await axe.run(document, {runOnly: {type: 'rule', values: ['heading-order', 'empty-table-header']}});
  return [...r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), ...order.violations]
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')); }"""


@pytest.fixture
def axe_page(browser):
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` (./test.sh does)")
    context = browser.new_context(bypass_csp=True)  # axe is injected as a script; the pages' CSP stays tested elsewhere
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def _violations(page, url):
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE)


def test_the_lab_pages_have_no_serious_accessibility_violations(axe_page, live_server, alice):
    family = "backfill" if "backfill" in schedulers.all_families() else "toy"
    config = schedulers.example(family)
    scenario = Scenario.objects.create(owner=alice, family=family, name="a11y", config=config)
    run = finished_run(scenario)
    run.share()
    study = Study.objects.create(scenario=scenario, name="a sweep", axes=["seed"])
    point = finished_run(scenario)
    Run.objects.filter(pk=point.pk).update(study=study, point={"seed": config["seed"]})
    study.share()
    base = live_server.url
    found = {}
    for url in [f"/share/{run.share_token}/", f"/share/study/{study.share_token}/"]:  # logged out
        found[url] = _violations(axe_page, base + url)
    _login(axe_page, base)
    for url in ["/", f"/scenarios/new/?family={family}", f"/scenarios/{scenario.pk}/", f"/runs/{run.pk}/",
                f"/runs/{run.pk}/diff/?a=0&b=1", f"/studies/{study.pk}/", "/studies/", "/presets/", "/traces/",
                "/trash/", "/account/tokens/"]:  # fmt: skip
        found[url] = _violations(axe_page, base + url)
    bad = {url: v for url, v in found.items() if v}
    assert not bad, "\n".join(f"{url}:\n  " + "\n  ".join(v) for url, v in bad.items())


def test_a_skip_link_leads_past_the_menu_and_help_is_read_with_its_field(page, live_server, alice):
    _login(page, live_server.url)
    family = "backfill" if "backfill" in schedulers.all_families() else "toy"
    page.goto(f"{live_server.url}/scenarios/new/?family={family}")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    seed = page.evaluate("""() => { const i = document.getElementById('w-seed');
      return {help: document.getElementById(i.getAttribute('aria-describedby')).textContent,
              key: document.querySelector('label[for="w-seed"] code').getAttribute('aria-hidden')}; }""")
    assert "allowed" in seed["help"] and seed["key"] == "true"


def test_every_chart_is_an_image_with_a_name_for_screen_readers(page, live_server, alice):
    family = "backfill" if "backfill" in schedulers.all_families() else "toy"
    scenario = Scenario.objects.create(owner=alice, family=family, name="a11y", config=schedulers.example(family))
    run = finished_run(scenario)
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_function("() => document.body.dataset.timelineLoaded", timeout=60_000)
    canvases = page.evaluate("""() => [...document.querySelectorAll('canvas')].filter((c) => Chart.getChart(c))
      .map((c) => [c.id, c.getAttribute('role'), c.getAttribute('aria-label') || '', c.tabIndex])""")
    assert canvases
    for cid, role, label, tab in canvases:
        assert role == "img" and label.startswith("Chart: ") and tab == 0, (cid, role, label)
        assert "chart." not in label.lower()[:9]
