"""Scenario forms. The generic form edits the scenario JSON and validates it through the library,
so every family gets one without code of its own; family wizards build on the same validation."""

import json

from django import forms

import schedulers


class ScenarioForm(forms.Form):
    family = forms.ChoiceField()
    config = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false", "class": "mono"}),
        help_text="The scenario as JSON (see the family's schema). Prefilled with the family's example.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["family"].choices = [(n, f"{n} — {f.description}") for n, f in schedulers.all_families().items()]
        self.validated = None

    def clean(self):
        data = super().clean()
        if "config" not in data:
            return data
        try:
            config = json.loads(data["config"])
        except json.JSONDecodeError as exc:
            raise forms.ValidationError({"config": f"not valid JSON: {exc.msg} (line {exc.lineno})"}) from None
        if isinstance(config, dict) and data.get("family"):
            config.setdefault("family", data["family"])
        try:
            family, cfg = schedulers.validate(config)
        except schedulers.ScenarioError as exc:
            self.scenario_errors = exc.errors
            raise forms.ValidationError(
                {
                    "config": [
                        f"{e['field']}: {e['message']}" + (f" (allowed: {e['allowed']})" if e.get("allowed") else "")
                        for e in exc.errors
                    ]
                }
            ) from None
        self.validated = cfg.model_dump(mode="json")
        data["family"] = family.name
        return data
