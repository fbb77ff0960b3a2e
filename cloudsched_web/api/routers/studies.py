"""Studies: sweeps over a saved scenario and paper presets, run as a group; their runs and share links."""

from django.db import transaction
from ninja import Field as NField
from ninja import Query, Router, Schema, Status

import schedulers
from cloudsched_web.api.common import (
    MAX_PAGE,
    get_scenario_for_user,
    get_study_for_user,
    owner,
    page,
    share_response,
    validate_scenario,
)
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.out import run_out, study_out
from cloudsched_web.api.routers.scenarios import TRASH_NOTE
from cloudsched_web.api.schemas import DbId, PresetIn, RunOut, ShareOut, StudyOut, StudyPage, SweepIn
from cloudsched_web.runs import trash
from cloudsched_web.runs.models import Study
from cloudsched_web.runs.services import create_preset_study, submit_run, submit_sweep

router = Router(tags=["studies"])
submit = Router(tags=["runs"])  # mounted under /scenarios: actions on a saved scenario


class StudyFilter(Schema):
    scenario: DbId | None = None
    offset: int = NField(0, ge=0, le=10**9)
    limit: int = NField(50, ge=1, le=MAX_PAGE)


@submit.post("/{scenario_id}/runs", response={202: RunOut}, summary="Run a saved scenario")
def submit_scenario_run(request, scenario_id: DbId):
    scenario = get_scenario_for_user(request, scenario_id)
    checked = validate_scenario(scenario.config)  # the library may have tightened its limits since saving
    with transaction.atomic():
        run = submit_run(scenario, checked)
    return Status(202, run_out(request, run))


@submit.post("/{scenario_id}/studies", response={202: StudyOut}, summary="Sweep one or two parameters of a scenario")
def submit_scenario_sweep(request, scenario_id: DbId, body: SweepIn):
    scenario = get_scenario_for_user(request, scenario_id)
    try:
        study = submit_sweep(scenario, body.axes, name=body.name)  # validates first, then one short write
    except (ValueError, TypeError, OSError) as exc:  # a path through a non-object, a bad trace path
        if isinstance(exc, schedulers.ScenarioError):
            raise
        raise ApiError(400, "invalid", f"axes: {exc}", field="axes", allowed="dotted paths into the scenario") from None
    return Status(202, study_out(request, study))


@router.post("", response={202: StudyOut}, summary="Run a paper preset as a study (saves its first scenario)")
def submit_preset(request, body: PresetIn):
    family = schedulers.get_family(body.family)  # unknown family: 400 naming the allowed ones
    if body.preset not in family.presets or body.scale not in schedulers.SCALES:
        schedulers.preset(body.family, body.preset, body.scale)  # raises the ScenarioError naming the field
    study = create_preset_study(owner(request), body.family, body.preset, body.scale, body.readings)
    return Status(202, study_out(request, study))


@router.get("", response=StudyPage, summary="Your studies, newest first")
def list_studies(request, filters: Query[StudyFilter]):
    qs = Study.objects.filter(scenario__owner=owner(request))
    if filters.scenario is not None:
        qs = qs.filter(scenario=filters.scenario)
    return page(qs, filters.offset, filters.limit, lambda s: study_out(request, s))


@router.get("/{study_id}", response=StudyOut, summary="One study: its points, their status and summary metrics")
def get_study(request, study_id: DbId):
    return study_out(request, get_study_for_user(request, study_id))


@router.get("/{study_id}/runs", response=list[RunOut], summary="The study's runs in full")
def get_study_runs(request, study_id: DbId):
    study = get_study_for_user(request, study_id)
    return [run_out(request, r) for r in study.runs.defer("result_blob").order_by("pk")]


@router.delete(
    "/{study_id}", response={204: None}, summary="Move a study and its runs to the trash", description=TRASH_NOTE
)
def delete_study(request, study_id: DbId):
    trash.trash(get_study_for_user(request, study_id))
    return Status(204, None)


@router.post("/{study_id}/share", response={200: ShareOut, 201: ShareOut}, summary="Create (or get) the share link")
def share_study(request, study_id: DbId):
    return share_response(request, get_study_for_user(request, study_id), "study_shared")


@router.delete("/{study_id}/share", response={204: None}, summary="Revoke the share link")
def unshare_study(request, study_id: DbId):
    get_study_for_user(request, study_id).unshare()
    return Status(204, None)
