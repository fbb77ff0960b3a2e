"""Scenario validation: one error that names every bad field and its allowed range.

Every family describes its scenario with a pydantic model derived from
:class:`ScenarioBase`; hard limits are ``Field(ge=…, le=…)`` constraints, so the
JSON schema, the web forms and the error messages all come from one place.
"""

from __future__ import annotations

import math
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ScenarioBase", "ScenarioError", "StrictModel", "json_type", "series_points_field", "validate_model"]

MAX_REPETITIONS = 100


def series_points_field() -> Any:
    """``params.series_points`` of a family that keeps one: an optional, stated cap on stored series points.

    Empty (the default) stores every change point (``core.series.exact_series``), so ∫ power = energy.
    """
    return Field(
        default=None,
        ge=10,
        le=5000,
        title="Most points per time series",
        description="Keep at most this many points of each time series (empty = every change point, so that "
        "∫ power = energy exactly; the web pages downsample for display)",
    )


class StrictModel(BaseModel):
    """Base for every scenario part: unknown keys are errors, not silently dropped.

    Scenarios are validated in pydantic's strict mode (:func:`validate_model`): JSON is
    typed, so ``"100"`` is not an integer, ``true`` is not 1 and ``"no"`` is not false.
    The one conversion kept is JSON's own: an integer is a valid number (``2`` for a
    float field).

    ``defer_build``: a model's validator is built when first used, not at import (building all five
    families' validators cost ~0.2 s of every CLI call that validates one family or none).
    """

    model_config = ConfigDict(extra="forbid", validate_default=True, allow_inf_nan=False, defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Fields every family has (family, seed, workload, kind…) get their title here, once for all."""
        super().__pydantic_init_subclass__(**kwargs)
        for name, info in cls.model_fields.items():
            if info.title is None and name in COMMON_TITLES:
                info.title = COMMON_TITLES[name]


# Titles of the fields every family shares; a family's own fields carry theirs (Field(title=…)), which the
# wizard shows as labels and errors name beside the JSON key.
COMMON_TITLES = {
    "family": "Scheduler family",
    "name": "Name",
    "seed": "Random seed",
    "repetitions": "Repetitions",
    "algorithms": "Algorithms",
    "datacenter": "Data centre",
    "workload": "Workload",
    "params": "Parameters",
    "kind": "Given as",
}


class ScenarioBase(StrictModel):
    """The fields every scenario shares (docs/design.md, "Scenario (input)")."""

    family: str
    name: str = Field(default="scenario", min_length=1, max_length=200)
    # 2⁵³ − 1: the largest integer a browser (or any JSON client using doubles) keeps exactly; a larger seed
    # would come back rounded from the wizard and change the run
    seed: int = Field(default=0, ge=0, le=2**53 - 1)
    repetitions: int = Field(default=1, ge=1, le=MAX_REPETITIONS)
    algorithms: list[str] = Field(min_length=1)


_RANGE_KEYS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))
_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


# What a value of the wrong JSON type should have been, by pydantic error type.
_EXPECTED_TYPE = {
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "int_parsing": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (``null``, ``object``…), for messages."""
    names = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string"}
    names.update({dict: "object", list: "array"})
    return names.get(type(value), type(value).__name__)


def _allowed(error: dict[str, Any]) -> str:
    ctx = error.get("ctx") or {}
    parts = [f"{sym} {ctx[key]}" for key, sym in _RANGE_KEYS if key in ctx]
    if error.get("type") in _EXPECTED_TYPE:
        parts.append(_EXPECTED_TYPE[error["type"]])
    if "expected" in ctx:
        parts.append(f"one of {ctx['expected']}")
    if "expected_tags" in ctx:
        parts.append(f"one of {ctx['expected_tags']}")
    if "min_length" in ctx or "max_length" in ctx:
        unit = "characters" if str(error.get("type", "")).startswith("string") else "items"
        lo, hi = ctx.get("min_length"), ctx.get("max_length")
        parts.append(f"{lo} to {_count(hi, unit)}" if lo is not None and hi is not None
                     else f"at least {_count(lo, unit)}" if lo is not None else f"at most {_count(hi, unit)}")  # fmt: skip
    return ", ".join(parts)


def _field_path(loc: tuple[Any, ...], model: Any = None) -> tuple[str, Any, Any]:
    """The path of the JSON key the user wrote, from pydantic's ``loc``; the type holding it; its type.

    Pydantic puts a union's tag (``workload.trace.max_jobs``) or branch type
    (``load.float``) into ``loc``; neither is in the user's JSON. Walking the
    ``model``'s annotations along ``loc`` tells them apart: the part after a
    union (two or more non-null members) names a branch and is dropped.
    """
    path, node, parent = "", model, None
    for part in loc:
        members = _union_members(node)
        if members:
            node = _branch(members, part)
            continue
        parent, node = node, _child(node, part)
        path += f"[{part}]" if isinstance(part, int) else ("." if path else "") + str(part)
    return path or "(scenario)", _unwrap(parent), node


def _bounds(node: Any) -> str:
    """A field's whole range (``≥ 1, ≤ 1000``) from the constraints on its annotation."""
    found: dict[str, Any] = {}
    pending = list(get_args(node)[1:]) if get_origin(node) is Annotated else []
    while pending:
        meta = pending.pop(0)
        pending.extend(getattr(meta, "metadata", None) or [])  # a FieldInfo carries its constraints
        for key, _ in _RANGE_KEYS:
            if getattr(meta, key, None) is not None:
                found[key] = getattr(meta, key)
    return ", ".join(f"{sym} {_number(found[key])}" for key, sym in _RANGE_KEYS if key in found)


def _tags(node: Any, key: str) -> str:
    """``kind: one of 'a', 'b'`` for a union told apart by ``key``."""
    tags = []
    for member in _union_members(node):
        field = member.model_fields.get(key) if isinstance(member, type) and issubclass(member, BaseModel) else None
        if field is not None and get_origin(field.annotation) is Literal:
            tags += [repr(t) for t in get_args(field.annotation)]
    return f"an object with {key}: one of {', '.join(tags)}" if tags else f"an object with {key}"


def _number(value: Any) -> str:
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    return str(int(value)) if whole else str(value)


def _unwrap(node: Any) -> Any:
    while get_origin(node) is Annotated:
        node = get_args(node)[0]
    return node


def _union_members(node: Any) -> list[Any]:
    node = _unwrap(node)
    if get_origin(node) not in (Union, UnionType):
        return []
    members = [_unwrap(m) for m in get_args(node) if m is not type(None)]
    return members if len(members) > 1 else []


def _child(node: Any, part: Any) -> Any:
    node = _unwrap(node)
    if get_origin(node) in (Union, UnionType):  # X | None: pydantic adds no part for the null
        node = next(_unwrap(m) for m in get_args(node) if m is not type(None))
    if isinstance(node, type) and issubclass(node, BaseModel):
        field = node.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            return None
        return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    args = get_args(node)
    if get_origin(node) is list and args:
        return args[0]
    if get_origin(node) is dict and len(args) == 2:
        return args[1]
    return None


def _branch(members: list[Any], part: Any) -> Any:
    """The member of a union that ``loc`` names by its tag (a ``Literal`` field's value) or class name."""
    for m in members:
        if isinstance(m, type) and issubclass(m, BaseModel):
            if m.__name__ == part:
                return m
            for field in m.model_fields.values():
                if get_origin(field.annotation) is Literal and part in get_args(field.annotation):
                    return m
    return None


_ARTICLE = {"null": "null", "boolean": "true/false", "integer": "a whole number", "number": "a number",
            "string": "text", "object": "an object", "array": "a list"}  # fmt: skip


def _count(n: Any, unit: str) -> str:
    return f"{n} {unit}" if n != 1 else f"{n} {unit[:-1]}"


# Pydantic's messages in a researcher's words, by error type ({…} from the error's ctx).
_PLAIN = {
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "string_too_short": "must have at least {min_length} characters",
    "string_too_long": "must have at most {max_length} characters",
    "too_short": "needs at least {min_length} items",
    "too_long": "takes at most {max_length} items",
    "missing": "is required",
    "extra_forbidden": "is not a field here",
    "finite_number": "must be a finite number (not NaN or infinity)",
}


def _message(error: dict[str, Any]) -> str:
    kind, ctx = error.get("type"), error.get("ctx") or {}
    if kind in _EXPECTED_TYPE and "input" in error:
        value, wanted = error["input"], _EXPECTED_TYPE[kind]
        got = _ARTICLE.get(json_type(value), json_type(value))
        if wanted == "a whole number" and isinstance(value, float) and math.isfinite(value):
            got = f"{value!r} (write it without a decimal point)" if value.is_integer() else "a number with a fraction"
        return f"must be {wanted}, not {got}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return "must not be empty"
    if kind in _PLAIN:
        try:
            text = _PLAIN[kind].format(**{k: _number(v) for k, v in ctx.items()})
        except (KeyError, IndexError):
            return error["msg"]
        return text.replace(" 1 characters", " 1 character").replace(" 1 items", " 1 item")
    if kind == "literal_error" and isinstance(error.get("input"), str) and len(error["input"]) <= 60:
        return f"must be {ctx.get('expected', 'one of the allowed values')}, not {error['input']!r}"
    return error["msg"]


class ScenarioError(ValueError):
    """Invalid scenario. ``errors`` lists ``{"field", "message", "allowed"}`` dicts."""

    def __init__(self, errors: list[dict[str, str]]):
        self.errors = errors
        super().__init__(self.format())

    @classmethod
    def single(cls, field: str, message: str, allowed: str = "") -> ScenarioError:
        return cls([{"field": field, "message": message, "allowed": allowed}])

    @classmethod
    def from_pydantic(cls, exc: ValidationError, model: Any = None) -> ScenarioError:
        """Pydantic's errors as ours; given the ``model``, paths drop union tags (:func:`_field_path`)."""
        errors = []
        for err in exc.errors(include_url=False):
            field, parent, node = _field_path(tuple(err["loc"]), model)
            allowed = _allowed(err)
            if err["type"] in _RANGE_ERRORS:
                allowed = _bounds(node) or allowed  # the whole range, not just the side that was crossed
            if err["type"] == "union_tag_not_found":
                allowed = _tags(node, str((err.get("ctx") or {}).get("discriminator", "")).strip("'"))
            if err["type"] == "extra_forbidden" and isinstance(parent, type) and issubclass(parent, BaseModel):
                allowed = "one of " + ", ".join(parent.model_fields)  # the keys this object may have
            errors.append({"field": field, "message": _message(err), "allowed": allowed})
        return cls(errors)

    def format(self) -> str:
        lines = [f"invalid scenario ({len(self.errors)} error(s)):"]
        for err in self.errors:
            allowed = f" [allowed: {err['allowed']}]" if err.get("allowed") else ""
            lines.append(f"  {err['field']}: {err['message']}{allowed}")
        return "\n".join(lines)

    def by_field(self) -> dict[str, str]:
        return {
            e["field"]: e["message"] + (f" (allowed: {e['allowed']})" if e.get("allowed") else "") for e in self.errors
        }


def validate_model(model: type[BaseModel], data: Any) -> Any:
    """Validate ``data`` (parsed JSON) against ``model`` strictly; :class:`ScenarioError` on failure."""
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise ScenarioError.from_pydantic(exc, model) from None
