"""Scenarios: create, read, update (PUT replaces, PATCH merges), delete, clone."""

from django.db import transaction
from ninja import Field as NField
from ninja import Query, Router, Schema, Status

from cloudsched_web.api.common import (
    MAX_PAGE,
    absolute,
    get_scenario_for_user,
    json_body,
    owner,
    page,
)
from cloudsched_web.api.openapi import SCENARIO_BODY
from cloudsched_web.api.schemas import CloneIn, DbId, ScenarioOut, ScenarioPage
from cloudsched_web.runs import trash
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.scenarios.services import accept

TRASH_NOTE = (
    "It disappears from every list, detail and share link, and its queued or running runs are cancelled. "
    "Its owner (the Trash page) or an admin restores it for `TRASH_KEEP_DAYS` (30) days; then it is purged."
)

router = Router(tags=["scenarios"])


class ScenarioFilter(Schema):
    family: str | None = NField(None, max_length=64)
    offset: int = NField(0, ge=0, le=10**9)
    limit: int = NField(50, ge=1, le=MAX_PAGE)


def scenario_out(request, scenario):
    return {
        "id": scenario.pk,
        "family": scenario.family,
        "name": scenario.name,
        "config": scenario.config,
        "created_at": scenario.created_at,
        "updated_at": scenario.updated_at,
        "url": absolute(request, "scenario", scenario.pk),
    }


def _validated(config, user):
    """The library's validation (same as the pages and the CLI); returns (family name, normalised dict).

    Inline SWF text becomes a stored trace that the scenario refers to; a referenced trace must be
    one the user may use (another user's answers as a missing one).
    """
    family, normalised = accept(config, user)
    return family.name, normalised


def _save(scenario, config):
    scenario.family, scenario.config = _validated(config, scenario.owner)
    scenario.name = scenario.config.get("name") or "scenario"
    scenario.save()
    return scenario


def _merge(base, patch):
    out = dict(base)
    for key, value in patch.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@router.get("", response=ScenarioPage, summary="Your scenarios, newest first")
def list_scenarios(request, filters: Query[ScenarioFilter]):
    qs = Scenario.objects.filter(owner=owner(request))
    if filters.family:
        qs = qs.filter(family=filters.family)
    return page(qs, filters.offset, filters.limit, lambda s: scenario_out(request, s))


@router.post("", response={201: ScenarioOut}, openapi_extra=SCENARIO_BODY, summary="Create a scenario")
def create_scenario(request):
    scenario = _save(Scenario(owner=owner(request)), json_body(request))
    return Status(201, scenario_out(request, scenario))


@router.get("/{scenario_id}", response=ScenarioOut, summary="One scenario")
def get_scenario(request, scenario_id: DbId):
    return scenario_out(request, get_scenario_for_user(request, scenario_id))


@router.put("/{scenario_id}", response=ScenarioOut, openapi_extra=SCENARIO_BODY, summary="Replace a scenario")
def replace_scenario(request, scenario_id: DbId):
    scenario = get_scenario_for_user(request, scenario_id)
    return scenario_out(request, _save(scenario, json_body(request)))


@router.patch(
    "/{scenario_id}",
    response=ScenarioOut,
    summary="Change some fields of a scenario",
    description="The body is merged into the stored scenario (objects recursively, anything else replaced); "
    "the result is validated whole.",
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}}},
)
def update_scenario(request, scenario_id: DbId):
    scenario = get_scenario_for_user(request, scenario_id)
    return scenario_out(request, _save(scenario, _merge(scenario.config, json_body(request))))


@router.delete(
    "/{scenario_id}",
    response={204: None},
    summary="Move a scenario with its runs and studies to the trash",
    description=TRASH_NOTE,
)
def delete_scenario(request, scenario_id: DbId):
    trash.trash(get_scenario_for_user(request, scenario_id))
    return Status(204, None)


@router.post("/{scenario_id}/clone", response={201: ScenarioOut}, summary="Copy a scenario (optionally renamed)")
@transaction.atomic
def clone_scenario(request, scenario_id: DbId, body: CloneIn | None = None):
    source = get_scenario_for_user(request, scenario_id)
    name = (body.name if body else None) or f"{source.name} (copy)"[:200]
    config = {**source.config, "name": name}
    return Status(201, scenario_out(request, _save(Scenario(owner=owner(request)), config)))
