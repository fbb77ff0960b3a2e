"""One of every page type of the site, with real finished runs, for header and browser checks."""

import copy
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from cloudsched_web.runs.models import Run, Study
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from tests import toy_family


def _finished(scenario, config, **fields):
    run = Run.objects.create(scenario=scenario, config=config, **fields)
    run_simulation.apply(args=[run.pk])  # in this process, through the worker's own code path
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    return run


@dataclass
class SitePages:
    scenario: Scenario
    run: Run
    study: Study
    owner: list = field(default_factory=list)  # pages of the logged-in owner
    anonymous: list = field(default_factory=list)  # share links, log-in, 404
    staff: list = field(default_factory=list)  # the admin


def build(owner, admin=None) -> SitePages:
    """A toy scenario with a finished, shared run and a finished, shared two-point study."""
    config = toy_family.TOY.example()
    scenario = Scenario.objects.create(owner=owner, family="toy", name=config["name"], config=config)
    run = _finished(scenario, config)
    run.share()
    study = Study.objects.create(scenario=scenario, name="machines sweep", axes=["datacenter.machines"])
    for machines in (1, 2):
        point = copy.deepcopy(config)
        point.setdefault("datacenter", {})["machines"] = machines
        _finished(scenario, point, study=study, point={"datacenter.machines": machines})
    study.share()
    site = SitePages(scenario, run, study)
    site.owner = [
        "/",
        "/scenarios/new/?family=toy",
        f"/scenarios/{scenario.pk}/",
        f"/scenarios/{scenario.pk}/edit/",
        f"/scenarios/{scenario.pk}/sweep/",
        "/presets/?family=toy",
        "/studies/",
        f"/studies/{study.pk}/",
        f"/runs/{run.pk}/",
        f"/runs/{run.pk}/diff/",
        "/account/tokens/",
        "/api/v1/docs",
    ]
    site.anonymous = [
        "/accounts/login/",
        f"/share/{run.share_token}/",
        f"/share/{run.share_token}/diff/",
        f"/share/study/{study.share_token}/",
        "/no/such/page/",
    ]
    if admin is not None:
        site.staff = ["/admin/", "/admin/runs/run/", f"/admin/runs/run/{run.pk}/change/", "/admin/scenarios/scenario/"]
        site.staff += [f"/admin/scenarios/scenario/{scenario.pk}/change/", f"/admin/runs/study/{study.pk}/change/"]
    return site


def superuser(name="root", password="correct horse battery staple"):
    return get_user_model().objects.create_superuser(name, f"{name}@example.org", password)
