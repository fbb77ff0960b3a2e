"""Online simulation (Alg. 3–5): schedulers × DRC produce valid, complete, deterministic runs."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest

from schedulers.core import rng as rngmod
from schedulers.core.series import usage_by_resource
from schedulers.ep_jobs import prepare, simulate
from schedulers.ep_jobs.model import EpJobsScenario

SCHEDULERS = ["ontapra", "fcfs", "slf", "llf"]


def scenario(alg: str, **workload) -> EpJobsScenario:
    wl = {"kind": "online_generator", "arrival_end_s": 300.0, "arrival_rate": 0.3, "load_high": 400.0, **workload}
    return EpJobsScenario.model_validate(
        {
            "family": "ep_jobs",
            "seed": 5,
            "datacenter": {"kind": "fattree", "pods": 4, "capacity_low": 10},
            "workload": wl,
            "algorithms": [alg],
            "params": {"ga_generations": 5, "ga_population": 8},
        }
    )


def run(alg: str, **workload):
    cfg = scenario(alg, **workload)
    inst = prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))
    out = simulate(cfg, inst, alg, rngmod.stream(cfg.seed, 0, "alg"), lambda f, m="": None)
    return inst, out


@pytest.mark.parametrize("drc", ["", "-ndrc"])
@pytest.mark.parametrize("policy", SCHEDULERS)
def test_every_job_finishes_once_and_capacity_holds(policy, drc):
    inst, out = run(f"{policy}{drc}:tapra_fast", task_count_scale=6.0)
    jobs = inst.jobs
    assert out.metrics["jobs_unscheduled"] == 0
    assert all(j["finish"] is not None and j["finish"] >= j["start"] >= j["arrival"] for j in out.jobs)
    cap = dict(zip(inst.platform.servers, inst.platform.capacity, strict=True))
    for res, (_, level) in usage_by_resource(out.schedule).items():
        assert level.max() <= cap[res] * (1 + 1e-9)
    # each task's work: Σ share·duration = Load/λ on its (single) server
    work = defaultdict(float)
    where = defaultdict(set)
    for seg in out.schedule:
        work[seg["task"]] += (seg["end"] - seg["start"]) * seg["share"]
        where[seg["task"]].add(seg["resource"])
    index = {name: j for j, name in enumerate(inst.platform.servers)}
    assert len(work) == sum(j.loads.size for j in jobs)
    for task, done in work.items():
        jid, i = map(int, task.split("."))
        (res,) = where[task]
        assert done == pytest.approx(jobs[jid].loads[i] / jobs[jid].lam[i, index[res]], rel=1e-6)


@pytest.mark.parametrize("policy", SCHEDULERS)
def test_without_drc_jobs_run_exactly_their_planned_jct(policy):
    _, out = run(f"{policy}-ndrc:tapra_fast")
    for j in out.jobs:
        assert j["finish"] - j["start"] == pytest.approx(j["planned_jct_s"], rel=1e-9)
    assert all(s["kind"] == "task" for s in out.schedule)


@pytest.mark.parametrize("policy", SCHEDULERS)
def test_drc_only_speeds_jobs_up(policy):
    _, out = run(f"{policy}:tapra_fast")
    for j in out.jobs:
        assert j["finish"] - j["start"] <= j["planned_jct_s"] * (1 + 1e-9)
    assert any(s["kind"] == "drc" for s in out.schedule)


def test_periodic_schedulers_start_jobs_on_period_boundaries():
    cfg = scenario("slf:tapra_fast")
    _, out = run("slf:tapra_fast")
    period = cfg.params.schedule_period_s
    starts = np.array([j["start"] for j in out.jobs])
    assert np.allclose(starts / period, np.round(starts / period))


def test_fcfs_starts_jobs_on_arrival_when_the_data_centre_is_idle():
    _, out = run("fcfs:tapra_fast", arrival_rate=0.01)
    assert out.jobs[0]["start"] == out.jobs[0]["arrival"]


@pytest.mark.parametrize("alg", ["tapra", "min_min", "mm_ga", "gsa"])
def test_other_per_job_algorithms_run_online(alg):
    _, out = run(f"ontapra:{alg}", arrival_end_s=120.0)
    assert out.metrics["jobs_unscheduled"] == 0
    assert out.metrics["avg_jct_s"] >= out.metrics["avg_wait_s"] >= 0


def test_online_runs_are_deterministic():
    a, b = run("ontapra:tapra_fast")[1], run("ontapra:tapra_fast")[1]
    assert a.schedule == b.schedule
    assert a.jobs == b.jobs


@pytest.mark.parametrize(
    ("alg", "jct"),
    [("fcfs:tapra", 9.0), ("fcfs-ndrc:tapra", 45.0), ("ontapra:tapra_fast", 9.0), ("ontapra-ndrc:tapra_fast", 45.0)],
)
def test_hand_worked_single_task(alg, jct):
    """2-ary FatTree (2 servers of 10 vCPUs), one task of load 90 at t=0, λ = 1.

    The job may hold min(server 10, rack 0.3·10, pod 0.2·10, DC 0.2·20) = 2 vCPUs, so its
    planned JCT is 45 s. DRC hands the server's other 8 vCPUs to the task: 90/10 = 9 s.
    """
    import schedulers

    sc = {
        "family": "ep_jobs",
        "algorithms": [alg],
        "datacenter": {"kind": "fattree", "pods": 2, "capacity_low": 10, "capacity_high": 10},
        "workload": {"kind": "online_jobs", "eff_low": 1.0, "jobs": [{"arrival": 0.0, "loads": [90.0]}]},
    }
    run = schedulers.run(sc)["runs"][0]
    assert run["jobs"][0]["planned_jct_s"] == pytest.approx(45.0)
    assert run["metrics"]["avg_jct_s"] == pytest.approx(jct)
    assert run["metrics"]["avg_wait_s"] == 0.0


def test_online_with_custom_servers_keeps_each_constraint_fraction():
    """A custom constraint keeps its B_k / Σ A_kj C_sj fraction of the available capacity online."""
    import schedulers

    sc = {
        "family": "ep_jobs",
        "algorithms": ["fcfs-ndrc:tapra_fast"],
        "datacenter": {"kind": "servers", "capacities": [10, 10], "constraints": [{"servers": [0, 1], "bound": 5}]},
        "workload": {
            "kind": "online_jobs",
            "eff_low": 1.0,
            "jobs": [{"arrival": 0.0, "loads": [50.0]}, {"arrival": 1.0, "loads": [50.0]}],
        },
    }
    run = schedulers.run(sc)["runs"][0]
    # job 0 may hold 0.25·20 = 5 vCPUs -> 10 s; job 1 then sees 15 available -> 0.25·15 = 3.75 vCPUs
    assert [j["planned_jct_s"] for j in run["jobs"]] == pytest.approx([10.0, 50 / 3.75])


@pytest.mark.parametrize("policy", SCHEDULERS)
def test_mar_test_blocks_new_jobs_while_capacity_is_held(policy):
    """With Max_Percent = 0.99 (eq. 56) a job only starts when the data centre holds no base allocation."""
    import schedulers

    sc = {
        "family": "ep_jobs",
        "algorithms": [f"{policy}-ndrc:tapra_fast"],
        "seed": 2,
        "datacenter": {"kind": "fattree", "pods": 4, "capacity_low": 10},
        "workload": {"kind": "online_generator", "arrival_end_s": 200, "arrival_rate": 0.2},
        "params": {"max_percent": 0.99},
    }
    jobs = sorted(schedulers.run(sc)["runs"][0]["jobs"], key=lambda j: j["start"])
    assert len(jobs) > 5
    for prev, nxt in itertools.pairwise(jobs):
        assert nxt["start"] >= prev["finish"] - 1e-9
