"""Families: their algorithms, scenario JSON schemas, example scenarios and paper presets."""

from ninja import Router

import schedulers
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.schemas import FamilyDetail, FamilyOut, PresetOut

router = Router(tags=["families"])


def _family(name):
    families = schedulers.all_families()
    if name not in families:
        raise ApiError(404, "not_found", f"unknown family {name!r}", field="family", allowed=", ".join(families))
    return families[name]


def _out(family):
    return {
        "name": family.name,
        "description": family.description,
        "algorithms": dict(family.algorithms),
        "presets": list(family.presets),
        "summary_metrics": list(family.summary_metrics),
    }


@router.get("", response=list[FamilyOut], summary="List the scheduler families")
def list_families(request):
    return [_out(f) for f in schedulers.all_families().values()]


@router.get("/{name}", response=FamilyDetail, summary="One family with its scenario schema and an example")
def get_family(request, name: str):
    family = _family(name)
    return {**_out(family), "scenario_schema": schedulers.schema(name), "example": schedulers.example(name)}


@router.get("/{name}/schema", response=dict, summary="The JSON schema of a family's scenario")
def get_schema(request, name: str):
    _family(name)
    return schedulers.schema(name)


@router.get("/{name}/example", response=dict, summary="A small runnable scenario of the family")
def get_example(request, name: str):
    _family(name)
    return schedulers.example(name)


@router.get("/{name}/presets", response=list[PresetOut], summary="The family's paper-figure presets")
def list_presets(request, name: str):
    family = _family(name)
    return [_preset(name, p) for p in family.presets]


@router.get("/{name}/presets/{preset}", response=PresetOut, summary="One preset: its claims and scenarios")
def get_preset(request, name: str, preset: str):
    family = _family(name)
    if preset not in family.presets:
        raise ApiError(
            404, "not_found", f"unknown preset {preset!r}", field="preset", allowed=", ".join(family.presets)
        )
    return _preset(name, preset)


def _preset(family, name):
    doc = schedulers.preset(family, name)
    return {
        "family": family,
        "name": name,
        "title": doc.get("name") or name,
        "description": doc.get("description", ""),
        "claims": list(doc.get("claims", [])),
        "scenarios": doc.get("scenarios", []),
    }
