"""No silent truncation: the full schedule by default, a stated cut when a limit is set."""

from __future__ import annotations

import numpy as np

import schedulers
from schedulers.core.columns import Columns

from .helpers import assert_jobs_complete, assert_no_overlap, config, instance

SCENARIO = {"family": "backfill", "seed": 3, "algorithms": ["easy", "keasy", "reasy", "measy"],
            "datacenter": {"processors": 64},
            "workload": {"kind": "generator", "model": "feitelson", "n_jobs": 2500, "load": 0.8}}  # fmt: skip


def test_default_params_record_every_segment_of_a_few_thousand_jobs():
    result = schedulers.run(SCENARIO)
    inst = instance(config(**{k: v for k, v in SCENARIO.items() if k != "family"}))
    useful = float(np.dot(inst.size, inst.runtime))
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        sched, alg = run["schedule"], run["algorithm"]
        assert isinstance(sched, Columns) and "schedule_cut" not in run.get("extra", {}), alg
        assert len(sched) > 10_000  # more than the old default cap
        start, end, rate = sched.column("start"), sched.column("end"), sched.column("rate")
        # the recording reaches the end of the run: the last segment ends when the last job does
        assert end.max() == max(j["end_s"] for j in run["jobs"]), alg
        # every job has exactly `size` segments per stretch, all processes of a stretch together
        per_job = np.bincount(sched.codes("job").codes, minlength=len(inst))
        assert (per_job >= inst.size).all() and (per_job % inst.size == 0).all(), alg
        work = float(np.sum(rate * (end - start)))
        if alg in ("easy", "reasy"):  # no kill, no migration: the segments carry Σ size·runtime exactly
            assert abs(work - useful) <= 1e-9 * useful, (alg, work, useful)
        else:  # a kill discards work, a migration adds its cost: never less than the useful work
            assert work >= useful * (1 - 1e-9), (alg, work, useful)
        assert_no_overlap(sched, inst.processors)  # capacity never exceeded: one process per VM
        assert_jobs_complete(run, inst, two_tier=alg != "easy")


def test_an_explicit_max_segments_cuts_and_says_where():
    limit = 3000
    full = schedulers.run(SCENARIO | {"algorithms": ["measy"]})["runs"][0]
    run = schedulers.run(SCENARIO | {"algorithms": ["measy"], "params": {"max_segments": limit}})["runs"][0]
    assert len(full["schedule"]) > limit
    assert run["extra"]["schedule_cut"] == {"limit": limit, "recorded": limit,
                                            "cut_at_s": full["schedule"][limit]["start"]}  # fmt: skip
    assert run["schedule"] == full["schedule"][:limit]  # the first `limit` segments in start order
    assert run["metrics"] == full["metrics"]  # the limit cuts the recording, never the simulation


def test_a_limit_the_schedule_fits_in_states_no_cut():
    full = schedulers.run(SCENARIO | {"algorithms": ["easy"]})["runs"][0]
    run = schedulers.run(SCENARIO | {"algorithms": ["easy"], "params": {"max_segments": len(full["schedule"])}})
    assert "schedule_cut" not in run["runs"][0]["extra"] and run["runs"][0]["schedule"] == full["schedule"]
