"""The 200,000-job result in Chromium (results at full scale): the library's own run, full schedule.

EASY on 200,000 Feitelson jobs and 320 processors records every segment (one per processor of each
job, about 13 million), stored in columns. The page opens on the whole run as occupancy, pages
through all 320 resources, and zooms to single jobs whose bars equal the stored schedule. The
chart's own data (``chart.$g``) is read, not the canvas pixels.
"""

import pyarrow.compute as pc
import pytest

from cloudsched_web.results.bars import plain_bars
from cloudsched_web.results.queries import get_result
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run
from tests.browser.test_gantt_levels import _gantt, _loaded
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CONFIG = {
    "family": "backfill", "name": "200k jobs", "seed": 1, "algorithms": ["easy"],
    "datacenter": {"processors": 320},
    "workload": {"kind": "generator", "model": "feitelson", "n_jobs": 200_000, "load": 0.7},
}  # fmt: skip


@pytest.mark.timeout(1800)
def test_a_200k_job_result_from_the_whole_run_to_single_jobs_over_every_resource(page, live_server, alice):
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="200k jobs", config=CONFIG)
    run = finished_run(scenario)  # schedulers.run: nothing cut (max_segments defaults to none)
    stored = get_result(Run.objects.get(pk=run.pk)).stored(0)
    jobs = stored.table("jobs", ["processors"])
    n_segments = stored.table("segments", ["start"]).num_rows
    assert jobs.num_rows == 200_000 and n_segments == pc.sum(jobs["processors"]).as_py()  # one per processor

    _login(page, live_server.url)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{live_server.url}/runs/{run.pk}/", timeout=120_000)
    _loaded(page, 1)
    g = _gantt(page)
    assert g["mode"] == "occupancy" and g["drawn"] == 0 and g["total"] == 320
    lo, hi = g["window"]
    span = stored.table("segments", ["start", "end"])
    assert lo <= pc.min(span["start"]).as_py() and hi >= pc.max(span["end"]).as_py()  # the whole run

    seen = list(g["resources"])
    while not page.locator("#gantt-pager-0 .next").is_disabled():
        page.click("#gantt-pager-0 .next")
        page.wait_for_function(
            f"() => Object.values(window.cloudsched.gantt)[0].$g.row0 >= {len(seen)}", timeout=60_000
        )
        seen += _gantt(page)["resources"]
    assert seen == [f"p{i}" for i in range(320)]  # every resource, once, in order

    page.click("#gantt-pager-0 .prev")  # back to a middle page, then zoom to a 60 s window mid-run
    page.wait_for_function("() => Object.values(window.cloudsched.gantt)[0].$g.row0 === 240", timeout=60_000)
    mid = (lo + hi) / 2
    page.evaluate(f"() => window.cloudsched.link.set({mid}, {mid + 60})")
    page.wait_for_function("() => Object.values(window.cloudsched.gantt)[0].$g.mode === 'bars'", timeout=60_000)
    g = _gantt(page)
    w0, w1 = g["window"]
    rows = set(g["resources"])
    window = stored.window(w0, w1, ["resource", "start", "job"]).to_pylist()
    # bars carry times in ticks of a power of ten (results.bars): whole seconds here, exact
    expected = sorted((s["resource"], s["start"], s["job"]) for s in window if s["resource"] in rows)
    b = plain_bars(g["bars"])
    drawn = sorted(zip((g["resources"][r] for r in b["r"]), b["s"], b["job"], strict=True))
    assert drawn == expected and g["drawn"] == len(expected) > 0
