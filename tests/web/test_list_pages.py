"""List pages never touch results or configurations: one query per page, whatever the runs hold.

A scenario may carry a 100 MB uploaded trace and a run a 2-million-segment result; the
home page, the studies list and the admin's run and scenario lists must cost the same
with 3 runs or 30 (ISSUE: the home page and admin runs list loaded every stored result).
"""

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db

HEAVY_COLUMNS = ('"result_blob"', '"result_files"', '"page"', '"config"')


def _populate(owner, toy_scenario, n):
    for i in range(n):
        sc = Scenario.objects.create(
            owner=owner, family="toy", name=f"s{i}", config={**toy_scenario, "pad": "x" * 1000}
        )
        study = Study.objects.create(scenario=sc, name=f"st{i}")
        for _ in range(3):
            Run.objects.create(scenario=sc, study=study, config=sc.config, status=Run.Status.SUCCEEDED,
                               result_blob=b"x" * 10_000, page={"header": {}})  # fmt: skip


def _select_sql(ctx):
    return [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]


def _heavy(sqls):
    """Heavy columns selected as data (a JSON key read inside SQL is fine: it returns the key only)."""
    out = []
    for sql in sqls:
        head = sql.split(" FROM ")[0]
        cleaned = head.replace('("scenarios_scenario"."config"', "(")  # an argument of a JSON function
        cleaned = cleaned.replace('"scenarios_scenario"."config" ->', "")  # PostgreSQL's key operator
        out += [c for c in HEAVY_COLUMNS if c in cleaned]
    return out


def _assert_constant_and_light(client, owner, toy_scenario, url):
    counts = []
    for n in (3, 27):
        _populate(owner, toy_scenario, n)
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        assert response.status_code == 200
        counts.append(len(ctx.captured_queries))
        assert not _heavy(_select_sql(ctx)), _select_sql(ctx)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("url", ["/", "/studies/"])
def test_owner_list_pages_cost_the_same_for_3_or_30_scenarios(alice_client, alice, toy_scenario, url):
    _assert_constant_and_light(alice_client, alice, toy_scenario, url)


def test_the_home_page_shows_each_scenarios_latest_run_and_algorithms(alice_client, alice, toy_scenario):
    _populate(alice, toy_scenario, 1)
    latest = Run.objects.order_by("-created_at", "-pk").first()
    page = alice_client.get("/").content.decode()
    assert f'href="/runs/{latest.pk}/"' in page
    assert ", ".join(toy_scenario["algorithms"]) in page


@pytest.mark.parametrize("url", ["/admin/runs/run/", "/admin/scenarios/scenario/", "/admin/runs/study/"])
def test_admin_lists_cost_the_same_for_3_or_30(admin_client, alice, toy_scenario, url):
    _assert_constant_and_light(admin_client, alice, toy_scenario, url)


def test_the_home_page_pages_through_every_scenario(alice_client, alice, toy_scenario):
    n = settings.LIST_PAGE_SIZE + 7
    Scenario.objects.bulk_create(
        Scenario(owner=alice, family="toy", name=f"paged {i:03d}", config=toy_scenario) for i in range(n)
    )
    seen = []
    for number in (1, 2):
        page = alice_client.get("/", {"sort": "name", "page": number}).content.decode()
        seen += [f"paged {i:03d}" for i in range(n) if f">paged {i:03d}<" in page]
        assert f"of {n} (page {number} of 2)" in page
    assert seen == [f"paged {i:03d}" for i in range(n)]  # every scenario once, in order, none lost to a cap
    assert 'rel="next"' in alice_client.get("/", {"sort": "name"}).content.decode()


def test_the_studies_list_pages_through_every_study(alice_client, alice, toy_scenario):
    sc = Scenario.objects.create(owner=alice, family="toy", name="s", config=toy_scenario)
    n = settings.LIST_PAGE_SIZE + 3
    Study.objects.bulk_create(Study(scenario=sc, name=f"study {i:03d}") for i in range(n))
    pages = [alice_client.get("/studies/", {"page": k}).content.decode() for k in (1, 2)]
    assert sum(p.count(">study ") for p in pages) == n  # no silent cap
    assert f"of {n} (page 2 of 2)" in pages[1]
