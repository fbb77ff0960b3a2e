import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

import schedulers
from cloudsched_web.runs.services import submit_run
from cloudsched_web.scenarios.forms import ScenarioForm
from cloudsched_web.scenarios.models import Scenario


def _get_scenario_for_user(request, pk):
    return get_object_or_404(Scenario, pk=pk, owner=request.user)


@login_required
def home(request):
    scenarios = Scenario.objects.filter(owner=request.user).prefetch_related("runs")
    return render(request, "scenarios/list.html", {"scenarios": scenarios, "families": schedulers.all_families()})


def _save(form, scenario):
    scenario.family = form.cleaned_data["family"]
    scenario.config = form.validated
    scenario.name = form.validated.get("name") or "scenario"
    scenario.save()
    return scenario


@login_required
def create(request):
    families = schedulers.all_families()
    if request.method == "POST":
        form = ScenarioForm(request.POST)
        if form.is_valid():
            scenario = _save(form, Scenario(owner=request.user))
            messages.success(request, "Scenario saved.")
            return redirect("scenario", pk=scenario.pk)
    else:
        family = request.GET.get("family") or next(iter(families), "")
        example = schedulers.example(family) if family in families else {}
        form = ScenarioForm(initial={"family": family, "config": json.dumps(example, indent=2)})
    return render(request, "scenarios/edit.html", {"form": form, "families": families, "scenario": None})


@login_required
def edit(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    if request.method == "POST":
        form = ScenarioForm(request.POST)
        if form.is_valid():
            _save(form, scenario)
            messages.success(request, "Scenario updated.")
            return redirect("scenario", pk=scenario.pk)
    else:
        form = ScenarioForm(initial={"family": scenario.family, "config": json.dumps(scenario.config, indent=2)})
    return render(
        request, "scenarios/edit.html", {"form": form, "families": schedulers.all_families(), "scenario": scenario}
    )


@login_required
def detail(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    ctx = {"scenario": scenario, "runs": scenario.runs.all()[:50], "config_json": json.dumps(scenario.config, indent=2)}
    return render(request, "scenarios/detail.html", ctx)


@login_required
@require_POST
def run(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    try:
        schedulers.validate(scenario.config)  # the library may have tightened its limits since saving
    except schedulers.ScenarioError as exc:
        messages.error(request, exc.format())
        return redirect("scenario", pk=pk)
    new_run = submit_run(scenario)
    return redirect("run", pk=new_run.pk)


@login_required
@require_POST
def delete(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    scenario.delete()
    messages.success(request, f"Deleted scenario “{scenario.name}”.")
    return redirect("home")
