"""Two users, every endpoint: Bob never sees, changes or learns of Alice's objects.

The endpoints are read from the URL configuration (Django's resolver for the pages, the
django-ninja routers for /api/v1/), and ``test_every_endpoint_has_an_ownership_case`` fails
for any endpoint that has neither a row in ``WEB``/``API`` nor a justified ``EXEMPT`` entry:
a new view cannot ship without its two-user test.

Each row is one request Bob makes against Alice's world (a scenario, a finished and shared
run, a study holding a queued run, an API token). Every request checks that

- the status is the one in the row (404 for Alice's objects: the API and the pages never
  confirm that another user's object exists);
- the response names nothing of Alice's: no marker from her objects' names, none of her share
  tokens or token prefix, no link to her scenarios, runs, studies or tokens;
- all of Alice's rows (scenarios, runs, studies, tokens, share links) are unchanged afterwards;
- a list (``sees``) shows Bob his own objects (so an empty page cannot pass for a filtered one),
  and an API list (``items``) holds none of Alice's ids.

Adding an endpoint: add a row keyed by its URL name (pages) or ``"METHOD /path"`` (API) below.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from cloudsched_web.api.api import api as ninja_api
from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.models import Trace, TraceHolder
from cloudsched_web.traces.services import store
from tests.api.factories import finished_run

ALICE_MARK, BOB_MARK = "alicesecret7q", "bobown3k"


@dataclass(frozen=True)
class Case:
    """One request by Bob. ``url`` is filled from Alice's world: {scenario} {run} {queued_run} {study}
    {token} {trace} {run_share} {study_share} (and {bob_run} for
    Bob's own finished run)."""

    method: str
    url: str
    status: int = 404
    data: dict = field(default_factory=dict)
    sees: tuple[str, ...] = ()  # Bob's objects whose name must show (world keys: scenario, study, token)
    items: str | None = None  # an API page: the kind ("scenarios", "runs", "studies") of its items
    public: bool = False  # a share page: the link is the capability, Alice's content is meant to show


G, P = "GET", "POST"


def _each(method, url, values, **kw):
    return [Case(method, url.replace("{value}", v), **kw) for v in values]


# Pages, by URL name.
WEB: dict[str, list[Case]] = {
    "home": [Case(G, "/", 200, sees=("scenario",))],
    "scenario_new": [Case(G, "/scenarios/new/", 200), Case(P, "/scenarios/new/", 200, {"config": "{}"})],
    "scenario": [Case(G, "/scenarios/{scenario}/")],
    "scenario_edit": [Case(G, "/scenarios/{scenario}/edit/"), Case(P, "/scenarios/{scenario}/edit/")],
    "scenario_run": [Case(P, "/scenarios/{scenario}/run/")],
    "scenario_delete": [Case(P, "/scenarios/{scenario}/delete/")],
    "scenario_clone": [Case(P, "/scenarios/{scenario}/clone/")],
    "scenario_sweep": [Case(G, "/scenarios/{scenario}/sweep/"), Case(P, "/scenarios/{scenario}/sweep/")],
    "presets": [Case(G, "/presets/", 200)],
    "preset_run": [Case(P, "/presets/toy/machines_sweep/", 302)],  # Bob's own new study
    "run": [Case(G, "/runs/{run}/")],
    "run_status": [Case(G, "/runs/{run}/status.json")],
    "run_result": [Case(G, "/runs/{run}/result.json")],
    "run_cancel": [Case(P, "/runs/{queued_run}/cancel/")],
    "run_share": [Case(P, "/runs/{run}/share/", data={"revoke": "1"}), Case(P, "/runs/{queued_run}/share/")],
    "run_data": [
        *_each(G, "/runs/{run}/data.json?kind={value}", ["gantt", "series", "diff", "jobs", "dist"]),
        # Bob's own run against Alice's run on the same workload (same toy scenario but its name)
        Case(G, "/runs/{bob_run}/data.json?kind=diff&a=0&b=0&with={run}"),
    ],
    "run_diff": [
        Case(G, "/runs/{run}/diff/"),
        Case(G, "/runs/{bob_run}/diff/?with={run}"),
        Case(G, "/runs/{bob_run}/diff/", 200),  # lists Bob's runs on that workload, never Alice's
    ],
    "run_export": _each(
        G,
        "/runs/{run}/export/{value}/",
        ["scenario", "json", "metrics", "summary", "schedule", "jobs", "series", "schedule.parquet", "series.parquet"],
    ),
    "run_dist_figure": _each(G, "/runs/{run}/jobs-{value}", ["cdf.svg", "box.pdf"]),
    "run_delete": [Case(P, "/runs/{run}/delete/")],
    "study_delete": [Case(P, "/studies/{study}/delete/")],
    "trash": [Case(G, "/trash/", 200)],
    "trash_restore": _each(P, "/trash/{value}/restore/", ["scenario/{scenario}", "run/{run}", "study/{study}"]),
    "studies": [Case(G, "/studies/", 200, sees=("study",))],
    "traces": [Case(G, "/traces/", 200, sees=("trace",)), Case(P, "/traces/", 200)],
    "trace_download": [Case(G, "/traces/{trace}/download/")],
    "study": [Case(G, "/studies/{study}/")],
    "study_status": [Case(G, "/studies/{study}/status.json")],
    "study_export": [Case(G, "/studies/{study}/points.csv")],
    "study_figure": _each(G, "/studies/{study}/figure.{value}?metric=makespan_s", ["svg", "pdf"]),
    "study_dist_figure": _each(G, "/studies/{study}/jobs-{value}?point={run}", ["cdf.pdf", "box.svg"]),
    "study_jobs": [Case(G, "/studies/{study}/jobs.json"), Case(G, "/studies/{study}/jobs.json?point={run}")],
    "study_share": [Case(P, "/studies/{study}/share/"), Case(P, "/studies/{study}/share/", data={"revoke": "1"})],
    "api_tokens": [
        Case(G, "/account/tokens/", 200, sees=("token",)),
        Case(P, "/account/tokens/", 200, {"name": "bob's second"}),
    ],
    "api_token_revoke": [Case(P, "/account/tokens/{token}/revoke/")],
    # Share links: whoever holds the link reads the run read-only and may clone it into their own
    # scenarios; Alice's objects must stay as they are.
    "run_shared": [Case(G, "/share/{run_share}/", 200, public=True)],
    "run_shared_data": [Case(G, "/share/{run_share}/data.json", 200, public=True)],
    "run_shared_diff": [Case(G, "/share/{run_share}/diff/", 200, public=True)],
    "run_shared_export": [
        Case(G, "/share/{run_share}/export/scenario/", 200, public=True),
        Case(G, "/share/{run_share}/export/metrics/", 200, public=True),
        Case(G, "/share/{run_share}/export/json/", 404, public=True),  # the full result is not shared
    ],
    # the toy family keeps no per-job records: a 404 that says so (a shared backfill run's 200: test_job_figures)
    "run_shared_dist_figure": [Case(G, "/share/{run_share}/jobs-box.svg", 404, public=True)],
    "run_shared_clone": [Case(P, "/share/{run_share}/clone/", 302, public=True)],
    "run_shared_trace": [Case(G, "/share/{run_share}/trace/", 200, public=True)],  # the shared run's trace
    "study_shared": [Case(G, "/share/study/{study_share}/", 404)],  # Alice's study is not shared
    "study_shared_clone": [Case(P, "/share/study/{study_share}/clone/", 404)],
    "study_shared_jobs": [Case(G, "/share/study/{study_share}/jobs.json?point={run}", 404)],
    "study_shared_status": [Case(G, "/share/study/{study_share}/status.json?payload=1", 404)],
    "study_shared_figure": [Case(G, "/share/study/{study_share}/figure.svg?metric=makespan_s", 404)],
    "study_shared_dist_figure": [Case(G, "/share/study/{study_share}/jobs-cdf.svg?point={run}", 404)],
}

# /api/v1/, by "METHOD /path" as the routers declare it (paths below are relative to /api/v1).
TOY = {"family": "toy", "name": "bob's api scenario", "algorithms": ["fcfs"]}
API: dict[str, list[Case]] = {
    "GET /scenarios": [
        Case(G, "/scenarios", 200, sees=("scenario",), items="scenarios"),
        Case(G, "/scenarios?family=toy", 200, sees=("scenario",), items="scenarios"),
    ],
    "POST /scenarios": [Case(P, "/scenarios", 201, TOY)],
    "GET /scenarios/{scenario_id}": [Case(G, "/scenarios/{scenario}")],
    "PUT /scenarios/{scenario_id}": [Case("PUT", "/scenarios/{scenario}", data=TOY)],
    "PATCH /scenarios/{scenario_id}": [Case("PATCH", "/scenarios/{scenario}", data={"seed": 9})],
    "DELETE /scenarios/{scenario_id}": [Case("DELETE", "/scenarios/{scenario}")],
    "POST /scenarios/{scenario_id}/clone": [Case(P, "/scenarios/{scenario}/clone")],
    "POST /scenarios/{scenario_id}/runs": [Case(P, "/scenarios/{scenario}/runs")],
    "POST /scenarios/{scenario_id}/studies": [
        Case(P, "/scenarios/{scenario}/studies", data={"axes": {"seed": [1, 2]}})
    ],
    "GET /runs": [
        Case(G, "/runs", 200, items="runs"),
        Case(G, "/runs?scenario={scenario}", 200, items="runs"),
        Case(G, "/runs?study={study}", 200, items="runs"),
        Case(G, "/runs?status=succeeded", 200, items="runs"),
    ],
    "GET /runs/{run_id}": [Case(G, "/runs/{run}")],
    "GET /runs/{run_id}/status": [Case(G, "/runs/{run}/status")],
    "POST /runs/{run_id}/cancel": [Case(P, "/runs/{queued_run}/cancel")],
    "GET /runs/{run_id}/result": [Case(G, "/runs/{run}/result")],
    "GET /runs/{run_id}/result/jobs": [Case(G, "/runs/{run}/result/jobs")],
    "GET /runs/{run_id}/result/distributions": [Case(G, "/runs/{run}/result/distributions")],
    "GET /runs/{run_id}/result/charts/{kind}": [Case(G, "/runs/{run}/result/charts/gantt")],
    "GET /runs/{run_id}/result/segments": [Case(G, "/runs/{run}/result/segments")],
    "GET /runs/{run_id}/result/series": [Case(G, "/runs/{run}/result/series")],
    "POST /runs/{run_id}/share": [Case(P, "/runs/{queued_run}/share")],
    "DELETE /runs/{run_id}/share": [Case("DELETE", "/runs/{run}/share")],
    "GET /runs/{run_id}/exports/{name}": _each(
        G,
        "/runs/{run}/exports/{value}",
        [
            "result.json",
            "metrics.csv",
            "summary.csv",
            "schedule.csv",
            "workload.swf",
            "jobs.csv",
            "series.csv",
            "schedule.parquet",
            "jobs.parquet",
            "series.parquet",
        ],
    ),
    "DELETE /runs/{run_id}": [Case("DELETE", "/runs/{run}")],
    "GET /trash": [Case(G, "/trash", 200)],
    "POST /trash/{kind}/{item_id}/restore": _each(
        P, "/trash/{value}/restore", ["scenario/{scenario}", "run/{run}", "study/{study}"]
    ),
    "GET /studies": [
        Case(G, "/studies", 200, sees=("study",), items="studies"),
        Case(G, "/studies?scenario={scenario}", 200, items="studies"),
    ],
    "POST /studies": [Case(P, "/studies", 202, {"family": "toy", "preset": "machines_sweep"})],
    "GET /studies/{study_id}": [Case(G, "/studies/{study}")],
    "DELETE /studies/{study_id}": [Case("DELETE", "/studies/{study}")],
    "GET /studies/{study_id}/runs": [Case(G, "/studies/{study}/runs")],
    "POST /studies/{study_id}/share": [Case(P, "/studies/{study}/share")],
    "DELETE /studies/{study_id}/share": [Case("DELETE", "/studies/{study}/share")],
    "GET /traces": [Case(G, "/traces", 200, sees=("trace",), items="traces")],
    "POST /traces": [Case(P, "/traces", 400)],  # no file: nothing stored, nothing of Alice's named
    "GET /traces/{trace_id}": [Case(G, "/traces/{trace}")],
    "GET /traces/{trace_id}/download": [Case(G, "/traces/{trace}/download")],
}

# Endpoints without per-user objects, each with the reason.
EXEMPT = {
    "login": "the login form: no user's objects",
    "logout": "ends the caller's own session",
    "admin:*": "staff only (test_admin_is_staff_only); staff see every user's objects by design",
    "openapi-json": "the API description: no user's objects",
    "openapi-view": "the API docs page: no user's objects",
    "api-root": "the list of API entry points: no user's objects",
    "not-found": "the JSON 404 for any other /api/v1/ path",
    "GET /families": "the catalogue of scheduler families: the same for everyone",
    "GET /families/{family}": "the catalogue of scheduler families: the same for everyone",
    "GET /families/{family}/schema": "the catalogue of scheduler families: the same for everyone",
    "GET /families/{family}/example": "the catalogue of scheduler families: the same for everyone",
    "GET /families/{family}/presets": "the catalogue of scheduler families: the same for everyone",
    "GET /families/{family}/presets/{preset}": "the catalogue of scheduler families: the same for everyone",
}


def _api_operations():
    ops = {}
    for prefix, router in ninja_api._routers:
        for path, view in router.path_operations.items():
            for op in view.operations:
                for method in op.methods:
                    ops[f"{method} {prefix}{path}".rstrip("/")] = op.view_func.__name__
    return ops


def _url_names(patterns, namespace=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _url_names(p.url_patterns, p.namespace or namespace)
        elif isinstance(p, URLPattern):
            yield f"{namespace}:*" if namespace == "admin" else (p.name or str(p.pattern))


def endpoints():
    """Every page's URL name and every API operation as ``METHOD /path``."""
    ops = _api_operations()
    web = {name for name in _url_names(get_resolver().url_patterns) if name not in set(ops.values())}
    return web | set(ops)


def test_every_endpoint_has_an_ownership_case_or_a_justified_exemption():
    found = endpoints()
    covered = set(WEB) | set(API) | set(EXEMPT)
    assert not found - covered, (
        f"endpoints without a two-user case (add a row to WEB or API): {sorted(found - covered)}"
    )
    assert not covered - found, f"rows for endpoints that no longer exist: {sorted(covered - found)}"
    assert not (set(WEB) | set(API)) & set(EXEMPT)


# The two users' worlds


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _swf(mark):
    """A small SWF trace whose content differs per user (its job count comes from the mark)."""
    rows = [f"{j} {j * 10} 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1" for j in range(1, len(mark) + 2)]
    return ("\n".join(rows) + "\n").encode()


def _world(user, mark):
    scenario_cfg = {"family": "toy", "name": f"{mark} scenario", "seed": 1, "algorithms": ["fcfs", "lpt"]}
    scenario = Scenario.objects.create(owner=user, family="toy", name=scenario_cfg["name"], config=scenario_cfg)
    run = finished_run(scenario)
    run.share()
    study = Study.objects.create(scenario=scenario, name=f"{mark} study", axes=["seed"])
    queued = Run.objects.create(scenario=scenario, study=study, config=scenario.config, point={"seed": 1})
    token, plaintext = ApiToken.issue(user, f"{mark} token")
    trace, _ = store(_swf(mark), f"{mark} trace", owner=user)
    Run.objects.filter(pk=run.pk).update(config={**run.config, "workload": {"trace": trace.ref}})  # the shared run's
    return {
        "trace": trace,
        "user": user,
        "scenario": scenario,
        "run": run,
        "queued_run": queued,
        "study": study,
        "token": token,
        "plaintext": plaintext,
    }


@pytest.fixture
def alice_world(db):
    return _world(get_user_model().objects.create_user("alice", password="pw-alice-1"), ALICE_MARK)


@pytest.fixture
def bob_world(db):
    return _world(get_user_model().objects.create_user("bob", password="pw-bob-1"), BOB_MARK)


def snapshot(user):
    """Every row Alice owns, field by field (share tokens, statuses and results included)."""
    return {
        "scenarios": list(Scenario.objects.filter(owner=user).order_by("pk").values()),
        "runs": list(Run.objects.filter(scenario__owner=user).order_by("pk").values()),
        "studies": list(Study.objects.filter(scenario__owner=user).order_by("pk").values()),
        "tokens": list(ApiToken.objects.filter(user=user).order_by("pk").values()),
        "traces": list(Trace.objects.filter(holders__user=user).order_by("pk").values()),
        "trace_holdings": list(TraceHolder.objects.filter(user=user).order_by("pk").values()),
    }


LINK = re.compile(r"/(scenarios|runs|studies|account/tokens|traces)/(\d+)/")


def _links(text):
    return {(kind, int(pk)) for kind, pk in LINK.findall(text)}


def _alice_refs(world):
    refs = {("scenarios", world["scenario"].pk), ("studies", world["study"].pk), ("account/tokens", world["token"].pk)}
    refs |= {("traces", world["trace"].pk)}
    return refs | {("runs", world["run"].pk), ("runs", world["queued_run"].pk)}


def _secrets(world):
    return [ALICE_MARK, str(world["run"].share_token), world["token"].prefix, world["trace"].sha256]


def _fill(url, world, bob=None):
    # Alice's study is never shared: its share URL is a random (unknown) token.
    values = {k: getattr(world[k], "pk", None) for k in ("scenario", "run", "queued_run", "study", "token", "trace")}
    values |= {"bob_run": bob["run"].pk if bob else None}
    values |= {"run_share": world["run"].share_token, "study_share": "5d2c7ab2-5b8e-4a8b-9a43-54a1f7e1c0de"}
    return url.format(**values)


def _body(response):
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", "replace")


def _check(case, response, alice_world, bob_world, before):
    text = _body(response)
    assert response.status_code == case.status, f"{case.method} {case.url}: {response.status_code}\n{text[:300]}"
    if not case.public:
        leaked = [s for s in _secrets(alice_world) if s in text]
        assert not leaked, f"{case.method} {case.url} shows Alice's {leaked}"
        assert not _links(text) & _alice_refs(alice_world), f"{case.method} {case.url} links to Alice's objects"
    for key in case.sees:
        name = bob_world[key].name
        assert name in text or json.dumps(name) in text, f"{case.method} {case.url} does not list Bob's {key}"
    if case.items:
        ids = {item["id"] for item in response.json()["items"]}
        alice = {
            "scenarios": {alice_world["scenario"].pk},
            "studies": {alice_world["study"].pk},
            "traces": {alice_world["trace"].pk},
        }.get(case.items, {alice_world["run"].pk, alice_world["queued_run"].pk})
        assert not ids & alice, f"{case.method} {case.url} lists Alice's {case.items} {ids & alice}"
    assert snapshot(alice_world["user"]) == before, f"{case.method} {case.url} changed Alice's data"


def _rows(table):
    return [pytest.param(key, case, id=f"{key}-{i}") for key, cases in table.items() for i, case in enumerate(cases)]


@pytest.mark.parametrize(("endpoint", "case"), _rows(WEB))
def test_pages_keep_alices_objects_from_bob(endpoint, case, alice_world, bob_world):
    client = Client()
    client.force_login(bob_world["user"])
    before = snapshot(alice_world["user"])
    url = _fill(case.url, alice_world, bob_world)
    response = client.get(url) if case.method == G else client.post(url, case.data)
    _check(case, response, alice_world, bob_world, before)


@pytest.mark.parametrize(("endpoint", "case"), _rows(API))
def test_api_keeps_alices_objects_from_bob(endpoint, case, alice_world, bob_world):
    client = Client(headers={"Authorization": f"Bearer {bob_world['plaintext']}"})
    before = snapshot(alice_world["user"])
    url = "/api/v1" + _fill(case.url, alice_world)
    body = json.dumps(case.data) if case.data else ""
    response = client.generic(case.method, url, body, content_type="application/json")
    _check(case, response, alice_world, bob_world, before)


def test_admin_is_staff_only(client, bob_world):
    client.force_login(bob_world["user"])
    response = client.get("/admin/runs/run/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")
