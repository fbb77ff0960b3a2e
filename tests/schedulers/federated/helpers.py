"""Schedule validity checks shared by the federated tests."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from schedulers.core import rng as rngmod
from schedulers.federated import prepare
from schedulers.federated.simulator import Simulation
from schedulers.result import validate

EPS = 1e-6


def instance_of(scenario: dict):
    """The repetition-0 instance :func:`schedulers.run` builds for ``scenario``."""
    _, cfg = validate(scenario)
    return prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))


def simulate(scenario: dict, algorithm: str) -> tuple[Simulation, object]:
    """Run one algorithm of a scenario directly (to inspect the simulator's state)."""
    _, cfg = validate(scenario)
    inst = instance_of(scenario)
    sim = Simulation(cfg, inst, algorithm)
    sim.run()
    return sim, inst


def stints(schedule: list[dict]) -> dict[str, list[tuple[float, float, float, str, str]]]:
    """task -> sorted [(start, end, overhead, ended, cloud)] (one entry per stint, not per server)."""
    seen = defaultdict(set)
    for seg in schedule:
        seen[seg["task"]].add((seg["start"], seg["end"], seg["overhead_s"], seg["ended"], seg["cloud"]))
    return {task: sorted(s) for task, s in seen.items()}


def check_schedule(result_run: dict, inst, capacities: dict[str, int]) -> None:
    """Capacity, completion, work conservation, precedence (with transfers), AR start times."""
    schedule = result_run["schedule"]
    # capacity on every server at every instant
    events = defaultdict(list)
    for seg in schedule:
        assert seg["end"] >= seg["start"] - EPS
        events[seg["resource"]].append((seg["start"], seg["share"]))
        events[seg["resource"]].append((seg["end"], -seg["share"]))
    for res, evs in events.items():
        level = 0
        for _, d in sorted(evs, key=lambda e: (e[0], e[1])):  # releases before claims at equal times
            level += d
            assert level <= capacities[res.split("/")[0]], f"{res} over capacity"
    per_task = stints(schedule)
    jobs = {j["job"]: j for j in result_run["jobs"]}
    names = inst.cloud_names
    finish: dict[int, tuple[float, str]] = {}
    first_start: dict[int, tuple[float, str]] = {}
    for app in range(inst.n_apps):
        lo, hi = int(inst.app_ptr[app]), int(inst.app_ptr[app + 1])
        rejected = jobs[str(app)]["rejected"]
        for t in range(lo, hi):
            key = f"{app}.{t - lo}"
            if rejected:
                assert key not in per_task
                continue
            ss = per_task[key]
            ends = [s for s in ss if s[3] == "finish"]
            assert len(ends) == 1, f"task {key} finished {len(ends)} times"
            assert ends[0] == ss[-1]
            assert all(s[3] == "preempted" for s in ss[:-1])
            assert len({s[4] for s in ss}) == 1, "a task stays on its cloud"
            cloud = names.index(ss[0][4])
            work = sum(max(0.0, e - s - o) for s, e, o, _, _ in ss)
            need = inst.actual[t, cloud]
            assert abs(work - need) <= 1e-6 * max(1.0, need), "work lost or invented"
            finish[t] = (ss[-1][1], ss[-1][4])
            first_start[t] = (ss[0][0], ss[0][4])
            if inst.app_ar[app] and not jobs[str(app)].get("resubmitted"):
                assert all(s[3] == "finish" for s in ss), "AR tasks are never preempted"
        if rejected:
            continue
        for t in range(lo, hi):
            start, cloud = first_start[t]
            assert start >= inst.app_arrival[app] - EPS
            if cloud != names[int(inst.app_home[app])]:
                assert start >= inst.app_arrival[app] + inst.dataset_s - EPS, "dataset not there yet"
            preds = inst.preds(t)
            for p in preds:
                pf, pc = finish[int(p)]
                need = pf + (inst.edge_s if pc != cloud else 0.0)
                assert start >= need - EPS, f"task {t} starts before predecessor {p} (+ transfer)"
            if inst.app_ar[app] and preds.size == 0 and jobs[str(app)].get("resubmitted"):
                assert start >= inst.app_start[app] - EPS, "a resubmitted AR application started before its time"
            elif inst.app_ar[app] and preds.size == 0:
                assert abs(start - inst.app_start[app]) <= EPS, "AR entry task off its reserved time"
        assert abs(jobs[str(app)]["finish"] - max(finish[t][0] for t in range(lo, hi))) <= EPS


def capacities(scenario_clouds: list[dict]) -> dict[str, int]:
    return {c["name"]: c["server_capacity"] for c in scenario_clouds}


def active_server_seconds(schedule: list[dict]) -> dict[str, float]:
    """Per cloud: Σ over servers of the length of the union of their segments."""
    by_res = defaultdict(list)
    for seg in schedule:
        by_res[seg["resource"]].append((seg["start"], seg["end"]))
    out = defaultdict(float)
    for res, iv in by_res.items():
        iv = np.array(sorted(iv))
        cur_s, cur_e = iv[0]
        total = 0.0
        for s, e in iv[1:]:
            if s > cur_e:
                total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        total += cur_e - cur_s
        out[res.split("/")[0]] += total
    return dict(out)
