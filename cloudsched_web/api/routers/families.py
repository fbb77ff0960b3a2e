"""Families: their algorithms, scenario JSON schemas, example scenarios and paper presets."""

from ninja import Router

import schedulers
from cloudsched_web.api.errors import ApiError
from cloudsched_web.api.schemas import FamilyDetail, FamilyOut, PresetOut
from schedulers import plugins

router = Router(tags=["families"])


def _family(name):
    families = schedulers.all_families()
    if name not in families:
        raise ApiError(404, "not_found", f"unknown family {name!r}", field="family", allowed=", ".join(families))
    return families[name]


def _origin(origin):
    """Where an algorithm comes from: ``{"package": "cloudsched", "version": "built-in"}``, or a plug-in's
    package, version, entry point and file digest (its path on the server is left out)."""
    return {k: v for k, v in origin.items() if k != "file"}


def _out(family):
    return {
        "name": family.name,
        "description": family.description,
        "algorithms": dict(family.algorithms),
        "origins": {name: _origin(family.origins[name]) for name in family.algorithms},
        "presets": list(family.presets),
        "summary_metrics": list(family.summary_metrics),
        "plugins_left_out": plugins.broken(family.name),
    }


@router.get("", response=list[FamilyOut], summary="List the scheduler families")
def list_families(request):
    return [_out(f) for f in schedulers.all_families().values()]


@router.get("/{family}", response=FamilyDetail, summary="One family with its scenario schema and an example")
def get_family(request, family: str):
    fam = _family(family)
    return {**_out(fam), "scenario_schema": schedulers.schema(family), "example": schedulers.example(family)}


@router.get("/{family}/schema", response=dict, summary="The JSON schema of a family's scenario")
def get_schema(request, family: str):
    _family(family)
    return schedulers.schema(family)


@router.get("/{family}/example", response=dict, summary="A small runnable scenario of the family")
def get_example(request, family: str):
    _family(family)
    return schedulers.example(family)


@router.get("/{family}/presets", response=list[PresetOut], summary="The family's paper-figure presets")
def list_presets(request, family: str):
    return [_preset(family, p) for p in _family(family).presets]


@router.get("/{family}/presets/{preset}", response=PresetOut, summary="One preset: its claims and scenarios")
def get_preset(request, family: str, preset: str):
    fam = _family(family)
    if preset not in fam.presets:
        raise ApiError(404, "not_found", f"unknown preset {preset!r}", field="preset", allowed=", ".join(fam.presets))
    return _preset(family, preset)


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
