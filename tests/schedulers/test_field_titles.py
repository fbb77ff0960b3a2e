"""Every field of every family's scenario has a title written for people: the wizard's labels
and section headings come from it, so a missing title showed 'Max Estimate S', 'Sa T0' or 'FeitelsonParams'."""

from __future__ import annotations

import re
import typing

import pytest
from pydantic import BaseModel

import schedulers

FAMILIES = ["backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"]
# Code-style leftovers: a lone letter or symbol (Sa T0, P Active W, Γ), a log2 / x / snake name.
CODE_LIKE = re.compile(r"(^|\s)([A-Za-z]{1,2}\d|[A-Z])(\s|$)|_|\blog2\b|^[^\sA-Za-z]+( |$)")
SHOUTING = ("OUR READING", "UNCONFIRMED", "OUR ")


def _properties(node, path=""):
    """(path, property schema) of every property anywhere in a JSON schema."""
    if isinstance(node, dict):
        for key, prop in (node.get("properties") or {}).items():
            yield f"{path}.{key}", key, prop
            yield from _properties(prop, f"{path}.{key}")
        for key, value in node.items():
            if key != "properties":
                yield from _properties(value, path)
    elif isinstance(node, list):
        for value in node:
            yield from _properties(value, path)


def _models(model, seen):
    if model in seen:
        return
    seen.add(model)
    yield model
    for info in model.model_fields.values():
        stack = [info.annotation]
        while stack:
            t = stack.pop()
            if isinstance(t, type) and issubclass(t, BaseModel):
                yield from _models(t, seen)
            stack.extend(typing.get_args(t))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_property_of_the_schema_has_a_human_title(family):
    bad = []
    for path, key, prop in _properties(schedulers.schema(family)):
        title = prop.get("title") or ""
        auto = key.replace("_", " ").title()  # what pydantic makes of the key when no title is given
        if not title or CODE_LIKE.search(title) or (title == auto and "_" in key):
            bad.append(f"{path}: {title!r}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_field_sets_its_title_in_the_model(family):
    """Not a schema accident: each field carries ``Field(title=…)`` (or a shared field's title)."""
    model = schedulers.get_family(family).scenario_model
    missing = [f"{m.__name__}.{name}" for m in _models(model, set()) for name, info in m.model_fields.items()
               if not info.title]  # fmt: skip
    assert not missing, missing


def _descriptions(node):
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            yield node["description"]
        for value in node.values():
            yield from _descriptions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _descriptions(value)


@pytest.mark.parametrize("family", FAMILIES)
def test_help_texts_do_not_shout(family):
    loud = [text for text in _descriptions(schedulers.schema(family)) if any(word in text for word in SHOUTING)]
    assert not loud, loud


def test_the_issues_examples_read_as_asked():
    backfill = schedulers.schema("backfill")["$defs"]
    generator = backfill["GeneratorWorkload"]["properties"]
    assert generator["max_estimate_s"]["title"] == "Largest runtime estimate (s)"
    assert generator["n_jobs"]["title"] == "Jobs" and generator["cpu_usage_min"]["title"] == "CPU use, lowest"
    assert generator["feitelson"]["title"] == "Feitelson model"


def test_enum_labels_name_every_choice_and_nothing_else():
    """A choice the wizard shows as a dropdown reads as words (``x-labels``: "drop them (the run says how many)"
    for ``drop``): where a field has labels, they cover exactly its values."""

    def walk(node):
        if isinstance(node, dict):
            if "x-labels" in node:
                yield node
            for v in node.values():
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)

    found = [
        (family, node) for family in ("backfill", "federated", "ep_jobs") for node in walk(schedulers.schema(family))
    ]
    assert len(found) >= 4
    for family, node in found:
        assert set(node["x-labels"]) == set(node["enum"]), (family, node["title"])
        assert all(label and label != code for code, label in node["x-labels"].items()), (family, node["title"])
