"""Model rows to response dicts (the shapes in schemas.py)."""

from cloudsched_web.api.common import absolute
from cloudsched_web.runs.claims import study_readings
from cloudsched_web.runs.models import Run


def run_status(run):
    return run.status_dict()


def run_out(request, run):
    return {
        **run_status(run),
        "scenario_id": run.scenario_id,
        "scenario_name": run.title,
        "study_id": run.study_id,
        "family": run.family,
        "point": run.point or {},
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "summary": run.summary or {},
        "url": absolute(request, "run", run.pk),
        "share_url": absolute(request, "run_shared", run.share_token) if run.share_token else None,
        "failures": (run.load_header() or {}).get("failures", []) if run.outcome == "partly failed" else [],
    }


READING_FIELDS = ("name", "text", "default", "why", "params", "algorithms", "runs", "failed", "state", "verdicts")


def study_out(request, study):
    runs = list(study.runs.order_by("pk").only("id", "status", "progress", "point", "summary", "reading"))
    counts = {}
    for r in runs:
        counts[r.status] = counts.get(r.status, 0) + 1
    finished = all(r.status in Run.FINISHED for r in runs)
    study.check_claims()  # normally stored by the worker that finished a reading's last run
    side_by_side = study_readings(study)
    names = {r.pk: r.name for r in study.readings.all()}
    return {
        "id": study.pk,
        "scenario_id": study.scenario_id,
        "name": study.name,
        "description": study.description,
        "claims": study.claims or [],
        "preset": study.preset,
        "scale": study.scale,
        "verdicts": study.verdicts,
        "axes": study.axes or [],
        "created_at": study.created_at,
        "status_counts": {s: counts.get(s, 0) for s in Run.Status.values},
        "finished": finished,
        "runs": [
            {
                "id": r.pk,
                "status": r.status,
                "progress": r.progress,
                "point": r.point or {},
                "summary": r.summary or {},
                "reading": names.get(r.reading_id, ""),
            }
            for r in runs
        ],
        "readings": [{k: x[k] for k in READING_FIELDS} for x in (side_by_side["readings"] if side_by_side else [])],
        "share_url": absolute(request, "study_shared", study.share_token) if study.share_token else None,
    }
