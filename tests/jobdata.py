"""Per-job values of stored results as the job-chart tests check them, and a study of two finished points."""

import numpy as np

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.runs.models import Run, Study
from cloudsched_web.scenarios.models import Scenario
from tests.api.factories import finished_run


def stored_jobs(run, column="response_s"):
    """``{algorithm: values}``: every stored job's ``column`` over all repetitions (NaN left out)."""
    parsed = queries.get_result(run)
    out = {}
    for i, r in enumerate(parsed.doc["runs"]):
        values = parsed.stored(i).table("jobs")[column].to_numpy(zero_copy_only=False).astype(float)
        out.setdefault(r["algorithm"], []).append(values[~np.isnan(values)])
    return {alg: np.concatenate(parts) for alg, parts in out.items()}


def tukey(values):
    """numpy's Tukey outliers (beyond 1.5 IQR of the quartiles), sorted."""
    q1, q3 = np.quantile(values, [0.25, 0.75])
    iqr = q3 - q1
    return np.sort(values[(values < q1 - 1.5 * iqr) | (values > q3 + 1.5 * iqr)])


def two_point_study(owner, name):
    """A backfill study (EASY, FCFS) over 64 and 96 processors with both points finished: ``(study, runs)``."""
    base = {**schedulers.example("backfill"), "algorithms": ["easy", "fcfs"]}
    scenario = Scenario.objects.create(owner=owner, family="backfill", name=name, config=base)
    study = Study.objects.create(scenario=scenario, name=name, axes=["datacenter.processors"])
    points = []
    for procs in (64, 96):
        run = finished_run(
            scenario, schedulers.run({**base, "datacenter": {**base["datacenter"], "processors": procs}})
        )
        Run.objects.filter(pk=run.pk).update(study=study, point={"datacenter.processors": procs})
        points.append(run)
    return study, points
