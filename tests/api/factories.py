"""Result documents and stored runs for the API and query tests."""

from __future__ import annotations

import functools
import json
import zlib

import orjson

import schedulers
from cloudsched_web.runs.models import Run


def big_result(n_jobs=200_000, processors=64):
    """A backfill-shaped result with one run of ``n_jobs`` jobs and segments (built, not simulated)."""
    schedule, jobs = [], []
    for j in range(n_jobs):
        start = float(j // processors) * 10.0
        schedule.append(
            {"job": str(j), "task": f"{j}.0", "resource": f"p{j % processors}", "start": start, "end": start + 10.0,
             "share": 1.0, "kind": "fg"}
        )  # fmt: skip
        jobs.append(
            {"job": str(j), "submit_s": max(0.0, start - j % 7), "start_s": start, "end_s": start + 10.0, "processors": 1,
             "runtime_s": 10.0, "estimate_s": 20.0, "response_s": 10.0 + j % 7}
        )  # fmt: skip
    t = [float(k) for k in range(n_jobs)]
    return {
        "family": "backfill",
        "scenario_digest": "sha256:test",
        "seed": 1,
        "scenario": {},
        "runs": [
            {
                "algorithm": "easy",
                "repetition": 0,
                "wall_time_s": 1.0,
                "metrics": {"avg_response_time_s": 5.0},
                "schedule": schedule,
                "series": {"t": t, "running_jobs": [float(k % 50) for k in t]},
                "jobs": jobs,
            }
        ],
        "summary": {"easy": {"avg_response_time_s": {"mean": 5.0, "std": 0.0, "ci": 0.0, "n": 1}}},
    }


@functools.lru_cache(maxsize=4)
def big_blob(n_jobs=200_000):
    """``big_result(n_jobs)`` as a stored blob, built once per test session (compressing takes seconds)."""
    return zlib.compress(json.dumps(big_result(n_jobs), separators=(",", ":")).encode(), 1)


def finished_run(scenario, result=None, blob=None):
    """A succeeded run of ``scenario`` with ``result`` or a ready ``blob`` (default: the library's own result)."""
    from django.utils import timezone

    if blob is None:
        result = result or schedulers.run(scenario.config)
    run = Run(scenario=scenario, config=scenario.config, status=Run.Status.SUCCEEDED, progress=1.0)
    if blob is not None:
        result = orjson.loads(zlib.decompress(blob))
    run.store_result(result)
    run.summary = {a: {k: v["mean"] for k, v in m.items()} for a, m in result["summary"].items()}
    run.started_at = run.finished_at = timezone.now()
    run.save()
    return run


def parsed(doc):
    """A hand-made result document as the pages read it: written to columns, read back through results.store."""
    import uuid

    from cloudsched_web.results import store
    from cloudsched_web.results.queries import ParsedResult

    header, manifest = store.save(0, uuid.uuid4().hex, doc)
    return ParsedResult(header, manifest)


def shared_world(scenario):
    """A scenario with a shared finished run and a shared study of one finished run (trash tests)."""
    from cloudsched_web.runs.models import Study

    run = finished_run(scenario)
    run.share()
    study = Study.objects.create(scenario=scenario, name="a sweep")
    point = finished_run(scenario)
    Run.objects.filter(pk=point.pk).update(study=study)
    study.share()
    return {"scenario": scenario, "run": run, "study": study, "point": point}
