import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from cloudsched_web.runs import charts
from cloudsched_web.runs.models import Run


def _get_run_for_user(request, pk):
    return get_object_or_404(Run.objects.select_related("scenario"), pk=pk, scenario__owner=request.user)


def _status_payload(run):
    return {
        "id": run.pk,
        "status": run.status,
        "progress": run.progress,
        "message": run.progress_message,
        "error": run.error,
        "finished": run.is_finished,
        "wall_time_s": run.wall_time_s,
    }


def _selected_index(request):
    try:
        return max(0, int(request.GET.get("i", 0)))
    except ValueError:
        return 0


def _render_run(request, run, shared=False):
    result = run.load_result() if run.status == Run.Status.SUCCEEDED else None
    payload = charts.run_page_payload(result, _selected_index(request)) if result else None
    ctx = {"run": run, "payload": payload, "shared": shared, "status": _status_payload(run)}
    return render(request, "runs/detail.html", ctx)


@login_required
def detail(request, pk):
    return _render_run(request, _get_run_for_user(request, pk))


@login_required
def status(request, pk):
    return JsonResponse(_status_payload(_get_run_for_user(request, pk)))


@login_required
def result_json(request, pk):
    run = _get_run_for_user(request, pk)
    result = run.load_result()
    if result is None:
        raise Http404("this run has no result")
    response = HttpResponse(json.dumps(result), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.json"'
    return response


@login_required
@require_POST
def cancel(request, pk):
    run = _get_run_for_user(request, pk)
    updated = Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLED, finished_at=timezone.now()
    )
    messages.info(request, "Run cancelled." if updated else "The run had already finished.")
    return redirect("run", pk=run.pk)


@login_required
@require_POST
def share(request, pk):
    run = _get_run_for_user(request, pk)
    if request.POST.get("revoke"):
        run.share_token = None
    else:
        run.new_share_token()
    run.save(update_fields=["share_token"])
    return redirect("run", pk=run.pk)


def shared(request, token):
    run = get_object_or_404(Run.objects.select_related("scenario"), share_token=token)
    return _render_run(request, run, shared=True)
