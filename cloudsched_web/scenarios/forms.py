"""Scenario forms.

One form serves every family: the page draws a wizard from the family's JSON schema
(static/js/wizard.js) and sends the scenario back as JSON in ``config``; the raw JSON
editor is the same field. Validation goes through the library only, so a family needs
no form code of its own, and errors come back keyed by the path of the field that the
wizard drew (:func:`error_paths`).
"""

import json
import re

from django import forms

import schedulers
from cloudsched_web.scenarios.services import accept
from cloudsched_web.traces.services import max_upload_bytes, store_upload, use_trace
from schedulers.core import jsonio

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class ScenarioForm(forms.Form):
    family = forms.ChoiceField()
    config = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "mono"}),
        help_text="The scenario as JSON (see the family's schema). Prefilled with the family's example.",
    )

    trace_file = forms.FileField(
        required=False,
        label="Or upload a new trace",
        help_text="An .swf or .swf.gz file: saving stores it among your traces (the same content is stored once) "
        "and the scenario reads it.",
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["family"].choices = [(n, f"{n} — {f.description}") for n, f in schedulers.all_families().items()]
        self.fields["trace_file"].help_text += f" At most {max_upload_bytes():,} bytes."
        self.user = user
        self.validated = None
        self.scenario_errors = []
        self.with_upload = None  # the sent scenario naming the trace it uploaded (stored even when refused)

    def clean(self):
        data = super().clean()
        if "config" not in data:
            return data
        try:
            config = jsonio.loads(data["config"], "config")
        except schedulers.ScenarioError as exc:
            self.scenario_errors = exc.errors
            raise forms.ValidationError({"config": _messages(exc.errors)}) from None
        if isinstance(config, dict) and data.get("family"):
            config.setdefault("family", data["family"])
        try:
            if data.get("trace_file") and isinstance(config, dict):
                trace, _ = store_upload(data["trace_file"], self.user, field="trace_file")
                config = self.with_upload = use_trace(config, trace)
            family, self.validated = accept(config, self.user)
        except schedulers.ScenarioError as exc:
            self.scenario_errors = exc.errors
            if self.with_upload is not None:  # redrawn naming the stored upload: the file need not be sent again
                self.data = self.data.copy()
                self.data["config"] = json.dumps(self.with_upload, indent=2)
            upload = [e for e in exc.errors if e["field"] == "trace_file"]
            rest = [e for e in exc.errors if e["field"] != "trace_file"]
            errors = {"config": _messages(rest)} if rest else {}
            if upload:  # shown at the upload field itself: no field name before the words
                errors["trace_file"] = _messages(upload, named=False)
            raise forms.ValidationError(errors) from None
        data["family"] = family.name
        return data

    def submitted_config(self):
        """The scenario the user sent (for redrawing the wizard), or None if it is not a JSON object. A trace it
        uploaded is stored even when the scenario is refused (its job wider than the machine, say): the wizard is
        redrawn with that trace chosen, so the fix (drop the wider jobs, a larger machine) is one save away."""
        if self.with_upload is not None:
            return self.with_upload
        try:
            config = jsonio.loads(self.data.get("config", ""), "config")
        except (schedulers.ScenarioError, TypeError):
            return None
        return config if isinstance(config, dict) else None


def _messages(errors, named=True):
    return [
        (f"{e['field']}: " if named else "")
        + e["message"]
        + (f" (allowed: {e['allowed']})" if e.get("allowed") else "")
        for e in errors
    ]


def error_paths(errors, schema):
    """Library errors with ``path`` set to the data path the wizard drew the field at.

    The library's fields are already data paths (it drops pydantic's union tags);
    a path the wizard drew no widget for (an unknown key, a list item) attaches to the
    nearest field it did draw. Tagged paths (``workload.generator.n_jobs``) still map.
    """
    return [{**e, "path": _data_path(schema, e["field"])} for e in errors]


def _data_path(schema, field):
    defs = schema.get("$defs", {})
    node = schema
    out = []
    tokens = _TOKEN.findall(field)
    for k, (name, index) in enumerate(tokens):
        node = _resolve(node, defs)
        if name and _is_union(node):
            branch = _branch(node, name, defs)
            following = tokens[k + 1][0] if k + 1 < len(tokens) else ""
            props = _properties(branch, defs) if branch is not None else {}
            if branch is not None and (name not in props or following in props):
                node = branch  # the token was the union tag: not part of the data path
                continue
            node = branch if branch is not None else node
        node = _resolve(node, defs)
        if index:
            if node.get("type") != "array":
                break
            out.append(f"[{index}]")
            node = node.get("items", {})
        elif name in _properties(node, defs):
            out.append(("." if out else "") + name)
            node = _properties(node, defs)[name]
        else:
            break
    return "".join(out) or field


def _resolve(node, defs):
    while isinstance(node, dict) and "$ref" in node:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
    return node


def _is_union(node):
    return "oneOf" in node or "anyOf" in node


def _properties(node, defs):
    return _resolve(node, defs).get("properties", {})


def _branch(union, token, defs):
    """The branch of ``union`` that ``token`` names (a tag or a property it has)."""
    branches = [_resolve(b, defs) for b in union.get("oneOf", union.get("anyOf", []))]
    for b in branches:
        if any(p.get("const") == token for p in b.get("properties", {}).values()):
            return b
    for b in branches:
        if token in b.get("properties", {}):
            return b
    return None


def scalar_paths(config, prefix=""):
    """Dotted paths of the scalar settings of a scenario (what a sweep can vary)."""
    out = []
    for key, value in config.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out += scalar_paths(value, path)
        elif _sweepable(key, value):
            out.append(path)
    return out


def _sweepable(key, value):
    if isinstance(value, bool) or key in ("family", "name"):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, str) and len(value) <= 200)


def _parse_values(text):
    values = []
    for raw in (v.strip() for v in text.replace(";", ",").split(",")):
        if not raw:
            continue
        try:
            number = float(raw)
        except ValueError:
            values.append(raw)
            continue
        values.append(int(number) if number.is_integer() and "." not in raw and "e" not in raw.lower() else number)
    return values


class SweepForm(forms.Form):
    """One or two swept parameters, each a scenario path and a list of values."""

    MAX_VALUES = 50

    name = forms.CharField(max_length=200, required=False, help_text="Optional; defaults to “sweep of …”.")
    axis1 = forms.ChoiceField(label="Parameter")
    values1 = forms.CharField(label="Values", help_text="Comma-separated, e.g. 0.5, 0.7, 0.9")
    axis2 = forms.ChoiceField(label="Second parameter (optional)", required=False)
    values2 = forms.CharField(label="Its values", required=False)

    def __init__(self, config, *args, **kwargs):
        super().__init__(*args, **kwargs)
        paths = scalar_paths(config)
        self.family = config.get("family", "")
        self.fields["axis1"].choices = [(p, p) for p in paths]
        self.fields["axis2"].choices = [("", "—")] + [(p, p) for p in paths]

    def _values(self, field):
        values = _parse_values(self.cleaned_data.get(field, ""))
        if not 1 <= len(values) <= self.MAX_VALUES:
            self.add_error(field, f"give 1 to {self.MAX_VALUES} comma-separated values (got {len(values)})")
        return values

    def clean(self):
        data = super().clean()
        if data.get("axis1"):
            data["values1"] = self._values("values1")
        if data.get("axis2"):
            if data["axis2"] == data.get("axis1"):
                self.add_error("axis2", "choose a different parameter from the first")
            data["values2"] = self._values("values2")
        return data

    def axes(self):
        axes = {self.cleaned_data["axis1"]: self.cleaned_data["values1"]}
        if self.cleaned_data.get("axis2"):
            axes[self.cleaned_data["axis2"]] = self.cleaned_data["values2"]
        return axes

    def add_scenario_errors(self, errors):
        """Library errors about the sweep's points, shown next to the values they came from."""
        for e in errors:
            text = f"{e['field']}: {e['message']}" + (f" (allowed: {e['allowed']})" if e.get("allowed") else "")
            path = re.sub(r"^points\[\d+\]\.", "", e["field"])
            if self.family in schedulers.all_families():
                path = _data_path(schedulers.schema(self.family), path)
            target = next((f"values{i}" for i in (1, 2) if self.cleaned_data.get(f"axis{i}") == path), None)
            if target and text not in self.errors.get(target, []):
                self.add_error(target, text)
            elif not target:
                self.add_error(None, text)
