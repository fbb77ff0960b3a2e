import json
from functools import cache
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Max, OuterRef, Q, Subquery, TextField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

import schedulers
from cloudsched_web.runs import claims as preset_claims
from cloudsched_web.runs.services import create_preset_study, submit_run, submit_sweep
from cloudsched_web.scenarios.forms import ScenarioForm, SweepForm, error_paths
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.scenarios.services import clone_config
from cloudsched_web.traces.lists import picker_rows, traces_of
from cloudsched_web.traces.services import INLINE_FIELDS, max_upload_bytes
from schedulers import plugins
from schedulers.reproduce import preset_readings

SORTS = {
    "updated": "-updated_at",
    "name": "name",
    "family": "family",
    "created": "-created_at",
    "last_run": "-last_run",
}


def _get_scenario_for_user(request, pk):
    return get_object_or_404(Scenario, pk=pk, owner=request.user)


RECENT_RUNS = 10  # on the home page; the count beside them says how many there are in all


@login_required
def home(request):
    q = request.GET.get("q", "").strip()
    family = request.GET.get("family", "")
    sort = request.GET.get("sort", "updated")
    scenarios = listing(Scenario.objects.filter(owner=request.user))
    if q:
        scenarios = scenarios.filter(Q(name__icontains=q) | Q(family__icontains=q))
    if family:
        scenarios = scenarios.filter(family=family)
    page = Paginator(scenarios.order_by(SORTS.get(sort, "-updated_at"), "-pk"), settings.LIST_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    for s in page.object_list:
        s.algorithm_list = json.loads(s.algorithms_json) if s.algorithms_json else []
    from cloudsched_web.runs.models import Run

    runs = Run.objects.filter(scenario__owner=request.user)
    fields = ("pk", "scenario_name", "status", "created_at", "study_id", "scenario__name", "scenario__family")
    recent = runs.select_related("scenario").only(*fields).order_by("-created_at", "-pk")[:RECENT_RUNS]
    ctx = {
        "recent_runs": list(recent),
        "run_count": runs.count(),
        "scenarios": page.object_list,
        "page": page,
        "query": urlencode({"q": q, "family": family, "sort": sort}),
        "families": schedulers.all_families(),
        "q": q,
        "family": family,
        "sort": sort if sort in SORTS else "updated",
        "sorts": list(SORTS),
    }
    return render(request, "scenarios/list.html", ctx)


def listing(scenarios):
    """Scenarios for a list page in one query: never their configuration (an uploaded trace can be
    100 MB) nor any result; the algorithms and the latest run's id and status come as annotations."""
    from cloudsched_web.runs.models import Run

    latest = Run.objects.filter(scenario=OuterRef("pk")).order_by("-created_at", "-pk")
    return scenarios.defer("config").annotate(
        last_run=Max("runs__created_at", filter=Q(runs__trashed_at=None)),
        last_run_id=Subquery(latest.values("pk")[:1]),
        last_run_status=Subquery(latest.values("status")[:1]),
        algorithms_json=Cast(KT("config__algorithms"), TextField()),
    )


def _save(form, scenario):
    scenario.family = form.cleaned_data["family"]
    scenario.config = form.validated
    scenario.name = form.validated.get("name") or "scenario"
    scenario.save()
    return scenario


def reads_traces(schema):
    """Whether a family's scenario can name an SWF trace (a workload branch of kind ``trace``): only then
    does its form offer a trace upload (dvfs_bot and ep_jobs take none)."""
    return any(
        (d.get("properties") or {}).get("kind", {}).get("const") == "trace" for d in schema.get("$defs", {}).values()
    )


def plugin_algorithms(family):
    """The family's plug-in algorithms: ``[(name, "package version")]``, in name order."""
    return [(name, f"{o['package']} {o['version']}") for name, o in sorted(family.origins.items())
            if o.get("package") != "cloudsched"]  # fmt: skip


def labelled_algorithms(family):
    """Each algorithm's description for the wizard, a plug-in's led by where it comes from (the checkbox's
    text or tooltip): the wizard marks plug-ins without a code of its own."""
    marks = dict(plugin_algorithms(family))
    return {name: f"[plug-in, {marks[name]}] {desc}" if name in marks else desc
            for name, desc in family.algorithms.items()}  # fmt: skip


# The field a trace's own machine size is offered for, per family (federated's clouds and vm_reservations'
# PM types have no single size: their picker shows the machine and the largest job only).
MACHINE_SIZE_FIELDS = {"backfill": "datacenter.processors"}


def trace_picker(user, family):
    """What the wizard's trace list needs: the traces ``user`` may use, the workload fields a trace is named
    by (the stored reference, plus inline text and server path, which the wizard does not draw) and the field
    the trace's machine size is offered for."""
    inline = INLINE_FIELDS.get(family, ("swf", None))[0]
    return {
        "rows": picker_rows(user),
        "source_fields": [inline, "path", "trace"],
        "size_field": MACHINE_SIZE_FIELDS.get(family),
        "upload_limit": max_upload_bytes(),
    }


def _editor(request, form, scenario, family, config):
    """The edit page: the JSON field plus what the wizard needs to draw the family's form."""
    families = schedulers.all_families()
    ctx = {"form": form, "families": families, "scenario": scenario, "family": family}
    ctx["traces"] = traces_of(scenario.config, request.user) if scenario is not None else []
    if family in families:
        schema = schedulers.schema(family)
        ctx["reads_traces"] = reads_traces(schema)
        ctx["plugins"] = plugin_algorithms(families[family])
        ctx["plugins_left_out"] = plugins.broken(family)
        ctx["wizard"] = {
            "schema": schema,
            "algorithms": labelled_algorithms(families[family]),
            "errors": error_paths(getattr(form, "scenario_errors", []), schema),
            "traces": trace_picker(request.user, family) if ctx["reads_traces"] else None,
        }
    return render(request, "scenarios/edit.html", ctx)


def _edit(request, scenario):
    families = schedulers.all_families()
    if request.method == "POST":
        form = ScenarioForm(request.POST, request.FILES, user=request.user)
        if form.is_valid():
            saved = _save(form, scenario or Scenario(owner=request.user))
            messages.success(request, "Scenario saved." if scenario is None else "Scenario updated.")
            return redirect("scenario", pk=saved.pk)
        return _editor(request, form, scenario, request.POST.get("family", ""), form.submitted_config())
    family = request.GET.get("family") or (scenario.family if scenario else next(iter(families), ""))
    if scenario is not None and family == scenario.family:
        config = scenario.config
    else:
        config = _normalised(schedulers.example(family)) if family in families else {}
    form = ScenarioForm(initial={"family": family, "config": json.dumps(config, indent=2)})
    return _editor(request, form, scenario, family, config)


def _normalised(config):
    """The example with every default filled in, so the wizard shows (and keeps) the defaults."""
    try:
        return schedulers.validate(config)[1].model_dump(mode="json")
    except schedulers.ScenarioError:
        return config


@login_required
def create(request):
    return _edit(request, None)


@login_required
def edit(request, pk):
    return _edit(request, _get_scenario_for_user(request, pk))


@login_required
def detail(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    size = settings.LIST_PAGE_SIZE  # every run and study, a page at a time (each list its own pager)
    runs = Paginator(scenario.runs.filter(study=None).order_by("-created_at", "-pk"), size).get_page(
        request.GET.get("runs_page")
    )
    studies = Paginator(scenario.studies.order_by("-created_at", "-pk"), size).get_page(request.GET.get("studies_page"))
    ctx = {
        "scenario": scenario,
        "runs": runs.object_list,
        "runs_page": runs,
        "runs_query": urlencode({"studies_page": studies.number}),
        "studies": studies.object_list,
        "studies_page": studies,
        "studies_query": urlencode({"runs_page": runs.number}),
        "config_json": json.dumps(scenario.config, indent=2),
        "traces": traces_of(scenario.config, request.user),
    }
    return render(request, "scenarios/detail.html", ctx)


@login_required
@require_POST
def run(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    try:
        new_run = submit_run(scenario)  # validated and budgeted there: limits may have tightened since saving
    except schedulers.ScenarioError as exc:
        messages.error(request, exc.format())
        return redirect("scenario", pk=pk)
    return redirect("run", pk=new_run.pk)


@login_required
@require_POST
def clone(request, pk):
    scenario = _get_scenario_for_user(request, pk)
    copy = clone_config(request.user, scenario.config, scenario.name)
    messages.success(request, f"Cloned into “{copy.name}”.")
    return redirect("scenario", pk=copy.pk)


@login_required
@require_POST
def delete(request, pk):
    from cloudsched_web.runs import trash

    scenario = _get_scenario_for_user(request, pk)
    trash.trash(scenario)
    messages.success(request, trash.moved_message(f"scenario “{scenario.name}” with its runs and studies"))
    return redirect("home")


@login_required
def sweep(request, pk):
    """Sweep one or two parameters of a saved scenario: a study of runs fanned out to the workers."""
    scenario = _get_scenario_for_user(request, pk)
    form = SweepForm(_normalised(scenario.config), request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = submit_sweep(scenario, form.axes(), name=form.cleaned_data["name"])
        except schedulers.ScenarioError as exc:
            form.add_scenario_errors(exc.errors)
        else:
            messages.success(request, f"Study queued: {study.runs.count()} runs.")
            return redirect("study", pk=study.pk)
    return render(request, "scenarios/sweep.html", {"scenario": scenario, "form": form})


SCALES = ("paper", "small")


def expected_cpu(scenarios):
    """What ``schedulers.estimate`` expects a preset's points to take: simulation CPU seconds summed over the
    points it can estimate, and how many it cannot (a family without a footprint model, an invalid point)."""
    cpu, unknown = 0.0, 0
    for sc in scenarios:
        try:
            est = schedulers.estimate(sc)
        except Exception:  # invalid here (a missing log, a limit): the point is refused when run, with its reason
            unknown += 1
            continue
        cpu += est.cpu_s
        unknown += not est.detail.get("estimated", True)
    return {"cpu_s": cpu, "runs": len(scenarios), "unknown": unknown}


@cache
def preset_expected(family, preset):
    """Each scale's :func:`expected_cpu` for one preset, with ``readings_cpu_s`` what its alternative readings'
    runs add, computed once per process (a federated preset reads its log's size: about a second), and only
    for the cards a page shows."""
    alternatives = [r for r in preset_readings(family, preset) if not r.default]
    out = {}
    try:
        for scale in SCALES:
            scenarios = schedulers.preset(family, preset, scale)["scenarios"]
            out[scale] = expected_cpu(scenarios)
            # What the alternative readings' runs add (the option is ticked by default): said apart.
            out[scale]["readings_cpu_s"] = expected_cpu([r.apply(s) for r in alternatives for s in scenarios])["cpu_s"]
    except Exception:  # a family mid-edit: the card says its preset is unavailable
        return {}
    return out


@cache
def _preset_docs():
    gallery = []
    for name, family in schedulers.all_families().items():
        for preset in family.presets:
            try:
                doc = schedulers.preset(name, preset)
            except Exception as exc:  # a family mid-edit must not take the gallery down
                doc = {"name": preset, "description": f"(unavailable: {exc})", "claims": [], "scenarios": []}
            alternatives = [r for r in preset_readings(name, preset) if not r.default]
            gallery.append(
                {
                    "family": name,
                    "preset": preset,
                    "name": doc.get("name") or preset,
                    "description": doc.get("description", ""),
                    "claims": doc.get("claims", []),
                    "points": len(doc.get("scenarios", [])),
                    "readings": alternatives,
                    "reading_runs": len(alternatives) * len(doc.get("scenarios", [])),
                }
            )
    return gallery


@login_required
def presets(request):
    family = request.GET.get("family", "")
    evaluated = preset_claims.latest_evaluations(request.user)
    items = []
    for p in _preset_docs():
        if family and p["family"] != family:
            continue
        study = evaluated.get((p["family"], p["preset"]))
        claims = preset_claims.with_verdicts(preset_claims.preset_claims(p["family"], p["preset"]), study)
        items.append({**p, "claims": claims, "study": study, "counts": preset_claims.counts(claims),
                      "expected": preset_expected(p["family"], p["preset"])})  # fmt: skip
    ctx = {"presets": items, "families": schedulers.all_families(), "family": family}
    return render(request, "scenarios/presets.html", ctx)


@login_required
@require_POST
def preset_run(request, family, name):
    try:
        # The form sends readings=0 then, when the box is ticked, readings=1: the last one counts.
        readings = request.POST.get("readings", "1") != "0"
        study = create_preset_study(request.user, family, name, request.POST.get("scale", "paper"), readings)
    except schedulers.ScenarioError as exc:
        messages.error(request, exc.format())
        return redirect("presets")
    messages.success(request, f"Preset “{study.name}” queued as a study of {study.runs.count()} runs.")
    for missing in study.missing_traces:
        messages.warning(request, f"Real log missing, the study falls back as its description says: {missing}")
    return redirect("study", pk=study.pk)
