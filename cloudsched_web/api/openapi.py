"""The NinjaAPI subclass: families' scenario models in the OpenAPI description, shared error responses.

Scenario bodies are validated by ``schedulers.validate`` (the same path as the
pages and the CLI, with cross-field checks and ``allowed`` ranges), so ninja
does not parse them; their schema still comes from the very pydantic models the
library validates with: each family's ``scenario_model`` is rendered into
``components/schemas`` under a ``<family>.`` prefix (families reuse class names
such as ``Params``) and ``Scenario`` is their ``oneOf`` on ``family``.
"""

from django.urls import reverse
from ninja import NinjaAPI

import schedulers
from cloudsched_web.api.schemas import Error

SCENARIO_REF = "#/components/schemas/Scenario"
SCENARIO_BODY = {
    "requestBody": {
        "required": True,
        "description": "A scenario (docs/design.md 'Scenario (input)'): the `family` field picks the schema.",
        "content": {"application/json": {"schema": {"$ref": SCENARIO_REF}}},
    }
}
ERROR_STATUSES = {
    "400": "Invalid input: `error.field` names the field, `error.allowed` its range",
    "401": "No, unknown or revoked token",
    "403": "CSRF check failed (session calls)",
    "404": "No such object, or not yours",
    "405": "Method not allowed",
    "409": "Not ready (the run has no result yet)",
    "413": "Request body too large",
    "429": "Rate limit exceeded (see Retry-After)",
    "500": "Internal error (logged)",
}


def family_components():
    """``{component name: JSON schema}`` for every registered family, plus the ``Scenario`` union."""
    components, mapping = {}, {}
    for name, family in schedulers.all_families().items():
        schema = family.scenario_model.model_json_schema(ref_template=f"#/components/schemas/{name}.{{model}}")
        for def_name, definition in schema.pop("$defs", {}).items():
            components[f"{name}.{def_name}"] = definition
        components[f"{name}.Scenario"] = schema
        mapping[name] = f"#/components/schemas/{name}.Scenario"
    components["Scenario"] = {
        "title": "Scenario",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "family", "mapping": mapping},
    }
    return components


class CloudschedAPI(NinjaAPI):
    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(family_components())
        if "PresetIn" in components:  # the registry decides which families (and presets) exist
            families = schedulers.all_families()
            props = components["PresetIn"]["properties"]
            props["family"]["enum"] = list(families)
            props["preset"]["enum"] = sorted({p for f in families.values() for p in f.presets})
        components.setdefault("Error", Error.model_json_schema(ref_template="#/components/schemas/{model}"))
        for sub in Error.model_json_schema(ref_template="#/components/schemas/{model}").get("$defs", {}).items():
            components.setdefault(*sub)
        components["Error"].pop("$defs", None)
        error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        for methods in schema.get("paths", {}).values():
            for operation in methods.values():
                # ninja keys its responses by int, openapi_extra by str: merge them (JSON keys are strings)
                responses = {}
                for status, response in operation.get("responses", {}).items():
                    responses.setdefault(str(status), {}).update(response)
                operation["responses"] = responses
                for status, description in ERROR_STATUSES.items():
                    responses.setdefault(status, {"description": description, **error})
        return schema


def api_index(request, **kwargs):
    from django.http import JsonResponse

    root = reverse("api-1:api-root")
    return JsonResponse(
        {"version": "v1", "openapi": root + "openapi.json", "docs": root + "docs", "tokens": reverse("api_tokens")}
    )
