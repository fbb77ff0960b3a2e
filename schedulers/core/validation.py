"""Scenario validation: one error that names every bad field and its allowed range.

Every family describes its scenario with a pydantic model derived from
:class:`ScenarioBase`; hard limits are ``Field(ge=…, le=…)`` constraints, so the
JSON schema, the web forms and the error messages all come from one place.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ScenarioBase", "ScenarioError", "StrictModel", "validate_model"]

MAX_REPETITIONS = 100


class StrictModel(BaseModel):
    """Base for every scenario part: unknown keys are errors, not silently dropped.

    ``defer_build``: a model's validator is built when first used, not at import (building all five
    families' validators cost ~0.2 s of every CLI call that validates one family or none).
    """

    model_config = ConfigDict(extra="forbid", validate_default=True, allow_inf_nan=False, defer_build=True)


class ScenarioBase(StrictModel):
    """The fields every scenario shares (DESIGN.md, "Scenario (input)")."""

    family: str
    name: str = Field(default="scenario", min_length=1, max_length=200)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    repetitions: int = Field(default=1, ge=1, le=MAX_REPETITIONS)
    algorithms: list[str] = Field(min_length=1)


_RANGE_KEYS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))


def _allowed(error: dict[str, Any]) -> str:
    ctx = error.get("ctx") or {}
    parts = [f"{sym} {ctx[key]}" for key, sym in _RANGE_KEYS if key in ctx]
    if "expected" in ctx:
        parts.append(f"one of {ctx['expected']}")
    if "min_length" in ctx or "max_length" in ctx:
        lo, hi = ctx.get("min_length", 0), ctx.get("max_length", "∞")
        parts.append(f"length {lo}..{hi}")
    return ", ".join(parts)


def _field_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + str(part)
    return path or "(scenario)"


class ScenarioError(ValueError):
    """Invalid scenario. ``errors`` lists ``{"field", "message", "allowed"}`` dicts."""

    def __init__(self, errors: list[dict[str, str]]):
        self.errors = errors
        super().__init__(self.format())

    @classmethod
    def single(cls, field: str, message: str, allowed: str = "") -> ScenarioError:
        return cls([{"field": field, "message": message, "allowed": allowed}])

    @classmethod
    def from_pydantic(cls, exc: ValidationError) -> ScenarioError:
        errors = []
        for err in exc.errors(include_url=False):
            errors.append(
                {
                    "field": _field_path(tuple(err["loc"])),
                    "message": err["msg"],
                    "allowed": _allowed(err),
                }
            )
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
    """Validate ``data`` against ``model`` and raise :class:`ScenarioError` on failure."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError.from_pydantic(exc) from None
