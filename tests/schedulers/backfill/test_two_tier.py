"""KEASY, REASY and MEASY on the two-tier machine: validity, progress model, kill/migrate/swap."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers

from .helpers import assert_jobs_complete, assert_no_overlap, config, crowded, instance, jobs_workload
from .test_easy import EXTRA_COMPLETION, TIE_COMPLETION

TWO_TIER = ["keasy", "reasy", "measy"]


def _scenario(algs, workload, processors=64, **params):
    return {"family": "backfill", "seed": 3, "algorithms": algs, "datacenter": {"processors": processors},
            "workload": workload, "params": params}  # fmt: skip


GEN = {"kind": "generator", "model": "feitelson", "n_jobs": 400, "load": 0.9, "feitelson": {"max_size": 64}}


@pytest.fixture(scope="module")
def generated():
    return schedulers.run(_scenario(TWO_TIER, GEN))


@pytest.mark.parametrize("k", range(3))
def test_no_vm_ever_hosts_two_processes(generated, k):
    run = generated["runs"][k]
    assert_no_overlap(run["schedule"], 64)
    assert "schedule_cut" not in run.get("extra", {})


@pytest.mark.parametrize("k", range(3))
def test_every_job_finishes_once_after_submission(generated, k):
    inst = instance(config(**_scenario(TWO_TIER, GEN)))
    assert_jobs_complete(generated["runs"][k], inst, two_tier=True)


@pytest.mark.parametrize("k", range(3))
def test_background_work_only_where_the_fg_cpu_use_is_below_the_threshold(generated, k):
    """A bg process is placed only on a processor whose fg process uses < 96 % CPU (Section 2.1)."""
    segs = generated["runs"][k]["schedule"]
    fg = defaultdict(list)
    first_bg = {}
    for s in segs:
        if s["tier"] == "fg":
            fg[s["resource"]].append(s)
        else:
            key = (s["task"], s["resource"])
            if key not in first_bg or s["start"] < first_bg[key]["start"]:
                first_bg[key] = s
    checked = 0
    for (_, res), s in first_bg.items():
        t = s["start"]
        for f in fg[res]:
            if f["start"] < t < f["end"]:
                assert f["cpu"] < 0.96
                checked += 1
    assert checked > 0


def test_only_keasy_kills_and_only_measy_migrates(generated):
    keasy, reasy, measy = (r["metrics"] for r in generated["runs"])
    assert keasy["kills"] > 0 and keasy["migrations"] == 0
    assert reasy["kills"] == 0 and reasy["migrations"] == 0
    assert measy["migrations"] > 0 and measy["kills"] == 0


@pytest.mark.parametrize("k", range(3))
def test_segments_carry_exactly_the_work_of_the_last_run(generated, k):
    """Σ rate·duration over a job's stretches after its last kill equals its runtime (+ migration cost)."""
    run = generated["runs"][k]
    inst = instance(config(**_scenario(TWO_TIER, GEN)))
    work = defaultdict(float)
    for s in run["schedule"]:
        if s["task"].endswith(".0"):
            work[s["job"]] += s["rate"] * (s["end"] - s["start"])
    runtime = {str(i): r for i, r in zip(inst.ids.tolist(), inst.runtime.tolist(), strict=True)}
    m = run["metrics"]
    total_extra = m["wasted_work_s"] + 20.0 * m["migrations"]
    assert sum(work.values()) == pytest.approx(sum(runtime.values()) + total_extra, rel=1e-9)


def test_progress_model_matches_a_hand_computation():
    """J1 (2 procs, CPU 50 %) in fg; J2 (serial, CPU 100 %) arrives at 1 and goes to bg on p.

    J2 progresses at eff · CPU_idle / CPU_req = 0.9 · 0.5 / 1 = 0.45 (eq. 3.2); J1 at 1 − loss = 0.98
    while J2 is there (eq. 3.1). J2 ends at 1 + 10 / 0.45; J1 then has 100 − 1 − 0.98 · 10/0.45 left at rate 1.
    """
    wl = jobs_workload([(0, 2, 100, 100, 0.5), (1, 1, 10, 10, 1.0)])
    params = {"eff_single_min": 0.9, "eff_single_max": 0.9, "fg_loss_min": 0.02, "fg_loss_max": 0.02}
    run = schedulers.run(_scenario(["keasy"], wl, processors=2, **params))["runs"][0]
    j1, j2 = run["jobs"]
    t2 = 1 + 10 / 0.45
    assert j2["end_s"] == pytest.approx(t2)
    assert j1["end_s"] == pytest.approx(t2 + (100 - 1 - 0.98 * (t2 - 1)))
    assert {s["tier"] for s in run["schedule"] if s["job"] == "2"} == {"bg"}


def test_a_full_cpu_fg_process_blocks_background_placement():
    wl = jobs_workload([(0, 2, 100, 100, 1.0), (1, 1, 10, 10, 1.0)])
    run = schedulers.run(_scenario(["keasy"], wl, processors=2))["runs"][0]
    assert run["jobs"][1]["start_s"] == 100


def test_kill_swap_and_migrate_on_a_small_case():
    """J1 (1 proc, 100 s, CPU 50 %) on p0; J2 (1 proc, 50 s) fg on p1; J3 (1 proc, 30 s, est 30) arrives at 1 → bg.

    Dispatch(BG) puts J3 on the processor with the least loaded fg VM: p0 (50 %) before p1 (J2's 100 %...
    J2 is serial so 100 % ≥ 96 % and p1 is not eligible). J2 ends at 50: J3 (head) fits on the idle fg VM of p1
    but its own fg VM (p0) is busy → KEASY kills and restarts it on p1, MEASY migrates it (+20 s), REASY waits.
    """
    wl = jobs_workload([(0, 1, 100, 100, 0.5), (0, 1, 50, 50, 1.0), (1, 1, 30, 30, 1.0)])
    runs = schedulers.run(_scenario(TWO_TIER, wl, processors=2))["runs"]
    by = {r["algorithm"]: r for r in runs}
    assert by["keasy"]["metrics"]["kills"] == 1
    assert by["keasy"]["jobs"][2]["end_s"] == pytest.approx(80.0)
    assert by["measy"]["metrics"]["migrations"] == 1
    done = by["measy"]["jobs"][2]
    assert 70.0 < done["end_s"] < 100.0
    assert by["reasy"]["metrics"]["kills"] == by["reasy"]["metrics"]["migrations"] == 0


def test_swap_when_a_background_job_owns_idle_foreground_vms():
    """J2 runs in bg under J1; when J1 ends the fg VM above J2 is idle → priorities swap, no kill."""
    wl = jobs_workload([(0, 1, 10, 10, 0.5), (1, 1, 100, 100, 1.0)])
    assert TWO_TIER  # the loop below checks each
    for alg in TWO_TIER:
        run = schedulers.run(_scenario([alg], wl, processors=1))["runs"][0]
        assert run["metrics"]["swaps"] == 1
        assert run["metrics"]["kills"] == run["metrics"]["migrations"] == 0
        tiers = [s["tier"] for s in sorted(run["schedule"], key=lambda s: s["start"]) if s["job"] == "2"]
        assert tiers[0] == "bg" and tiers[-1] == "fg"


job_rows = st.lists(
    st.tuples(st.integers(0, 100), st.integers(1, 6), st.integers(1, 50), st.integers(0, 50),
              st.sampled_from([0.3, 0.6, 0.97, 1.0])),
    min_size=1, max_size=25,
)  # fmt: skip


@settings(max_examples=60, deadline=None, derandomize=True)
@given(job_rows, st.sampled_from(TWO_TIER), st.sampled_from(["exact", "none"]))
def test_random_instances_stay_valid(rows, alg, cpu_info):
    """Any workload: every job ends once, no VM is shared, bg only under fg use < 96 % (exact info)."""
    wl = jobs_workload([(s, n, r, r + e, c) for s, n, r, e, c in rows])
    run = schedulers.run(_scenario([alg], wl, processors=6, cpu_info=cpu_info))["runs"][0]
    assert len(run["jobs"]) == len(rows)
    assert_jobs_complete(run, instance(config(**_scenario([alg], wl, processors=6, cpu_info=cpu_info))), two_tier=True)
    assert_no_overlap(run["schedule"], 6)
    if cpu_info == "exact":
        fg = defaultdict(list)
        for s in run["schedule"]:
            if s["tier"] == "fg":
                fg[s["resource"]].append(s)
        for s in run["schedule"]:
            if s["tier"] == "bg":
                for f in fg[s["resource"]]:
                    if f["start"] < s["start"] < f["end"] and f["job"] != s["job"]:
                        placed_before = all(
                            o["start"] >= s["start"] for o in run["schedule"]
                            if o["job"] == s["job"] and o["resource"] == s["resource"] and o["tier"] == "bg"
                        )  # fmt: skip
                        assert not placed_before or f["cpu"] < 0.96


def test_fig3_a_job_easy_cannot_backfill_runs_on_idle_cycles_even_at_full_cpu():
    """Fig. 3 situation with 100 % CPU usage everywhere, 4 processors, exact runtimes.

    J1 (2 procs, 100 s) runs; J2 (4 procs, 10 s) is the head with shadow 100 and no extra processors;
    J3 (2 procs, 50 s, estimate 200) may not backfill under EASY. KEASY puts J3 into the background VMs
    of the two idle processors, where it runs at full speed (their fg VMs are idle, eq. 3.2 case 1) and
    ends at 52; the head still starts at 100.
    """
    wl = jobs_workload([(0, 2, 100, 100, 1.0), (1, 4, 10, 10, 1.0), (2, 2, 50, 200, 1.0)])
    runs = {r["algorithm"]: r for r in schedulers.run(_scenario(["easy", "keasy"], wl, processors=4))["runs"]}
    easy, keasy = runs["easy"]["jobs"], runs["keasy"]["jobs"]
    assert [j["end_s"] for j in easy] == [100, 110, 160]
    assert [j["end_s"] for j in keasy] == [100, 110, 52]
    assert keasy[1]["start_s"] == 100


def test_reasy_pins_a_background_job_while_keasy_kills_and_measy_migrates():
    """J1 (2 procs, 10 s, CPU 80 %) on p0–p1, J2 (2 procs, 100 s, CPU 40 %) on p2–p3; J3 (2 procs, 20 s,
    CPU 50 %) arrives at 1 and goes to the background of p2–p3 (least loaded fg, Alg. 2 line 24), where it
    progresses at eff = 0.5 (CPU_idle 0.6 ≥ CPU_req 0.5). At 10 J1 ends: KEASY kills J3 and restarts it on
    p0–p1 (ends 30), MEASY (cost 0) moves it with 20 − 9·0.5 = 15.5 s left (ends 25.5), REASY keeps it
    pinned in the background (Alg. 3) where it ends at 1 + 20 / 0.5 = 41.
    """
    wl = jobs_workload([(0, 2, 10, 10, 0.8), (0, 2, 100, 100, 0.4), (1, 2, 20, 20, 0.5)])
    params = {"eff_multi_min": 0.5, "eff_multi_max": 0.5, "migration_cost_s": 0.0}
    runs = {r["algorithm"]: r for r in schedulers.run(_scenario(TWO_TIER, wl, processors=4, **params))["runs"]}
    assert runs["keasy"]["jobs"][2]["end_s"] == pytest.approx(30.0)
    assert runs["measy"]["jobs"][2]["end_s"] == pytest.approx(25.5)
    assert runs["reasy"]["jobs"][2]["end_s"] == pytest.approx(41.0)
    assert {s["resource"] for s in runs["reasy"]["schedule"] if s["job"] == "3"} == {"p2", "p3"}
    assert {s["tier"] for s in runs["reasy"]["schedule"] if s["job"] == "3"} == {"bg"}


def _starts(run):
    return [j["start_s"] for j in run["jobs"]]


def test_ties_at_the_shadow_time_free_extra_fg_vms_in_every_two_tier_variant():
    """test_easy.TIE_COMPLETION with 100 % CPU everywhere (no bg VM is eligible while the machine is full).

    At 5 the 3-processor job ends: head J5 (5 procs) gets shadow 20 (3 idle + J1 at 10 + J2 at 20) and, since J3
    also ends at 20, N_E = 6 − 5 = 1; J6 (serial, 100 s) backfills into the fg tier at 5 on that extra VM and
    stays there (no swap). Reading only the first job at the shadow time gives N_E = 0: J6 would go to a bg VM by
    SJF (Step 3) and be swapped to the fg tier later.
    """
    wl = jobs_workload([(*r, r[2], 1.0) for r in TIE_COMPLETION])
    assert TWO_TIER  # the loop below checks each
    for alg in TWO_TIER:
        run = schedulers.run(_scenario([alg], wl, processors=6))["runs"][0]
        assert _starts(run)[4:] == [20, 5], alg
        assert {s["tier"] for s in run["schedule"] if s["job"] == "6"} == {"fg"}, alg
        assert run["metrics"]["swaps"] == 0, alg


def test_extra_fg_vms_are_used_up_in_every_two_tier_variant():
    """test_easy.EXTRA_COMPLETION at 100 % CPU: at 10 the head J3 gets shadow 20, N_E = 1; J4 takes the extra VM
    (N_E → 0, Alg. 1 line 32 / Alg. 3 line 28), J6 ends by the shadow and backfills, J5 may not backfill and goes
    to a bg VM by SJF (Step 3). J3 starts at 20 as reserved; without line 32 J5 takes a fg VM and J3 waits to 110.
    """
    wl = jobs_workload([(*r, r[2], 1.0) for r in EXTRA_COMPLETION])
    assert TWO_TIER  # the loop below checks each
    for alg in TWO_TIER:
        run = schedulers.run(_scenario([alg], wl, processors=6))["runs"][0]
        assert _starts(run) == [0, 0, 20, 10, 10, 10], alg
        first = min((s for s in run["schedule"] if s["job"] == "5"), key=lambda s: s["start"])
        assert first["tier"] == "bg", alg
        assert {s["tier"] for s in run["schedule"] if s["job"] in ("4", "6")} == {"fg"}, alg


def _crowded_instance(seed: int, exact: bool = False):
    """helpers.crowded on 6 processors with CPU usages, eff and a large fg loss (up to 50 %: shared fg jobs overrun
    their estimates, so reservations meet overrun terminations); ``exact``: estimate = runtime, no fg loss."""
    from schedulers.backfill.workloads import Instance

    subs, sizes, runs, ests = crowded(seed)
    rng = np.random.default_rng(seed)
    n = len(subs)
    cpu = np.where(np.asarray(sizes) == 1, 1.0, rng.choice([0.3, 0.6, 0.97, 1.0], n))
    eff, loss = rng.uniform(0.2, 0.9, n), np.zeros(n) if exact else rng.uniform(0.0, 0.5, n)
    f = np.asarray
    return Instance(6, f(subs, float), f(sizes, np.int64), f(runs, float), f(runs if exact else ests, float), cpu,
                    eff, loss, np.arange(1, n + 1))  # fmt: skip


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["keasy", "measy"]), st.sampled_from(["exact", "none"]))
def test_a_reserved_head_reaches_the_fg_tier_by_its_shadow_time(seed, alg, cpu_info):
    """With exact estimates and no fg loss every estimated termination is exact, so KEASY and MEASY keep EASY's
    guarantee: the head of J_q ∪ J_bg is in the fg tier (or done) by the first shadow time computed for it.
    (REASY does not: a pinned bg head waits for its own fg VMs, Alg. 3.) Derandomised crowded instances."""
    from schedulers.backfill.keasy import simulate_two_tier

    inst = _crowded_instance(seed, exact=True)
    rng = np.random.default_rng(seed)
    params = config(params={"cpu_info": cpu_info, "migration_cost_s": float(rng.choice([0, 7]))}).params
    reservations = {}
    res = simulate_two_tier(inst, alg, params, reservations=reservations)
    st_ = res.stretches
    in_fg = res.end.copy()
    assert len(st_.job)  # the loop below checks each
    for j, s, tier in zip(st_.job, st_.start, st_.tier, strict=True):
        if tier == "fg":
            in_fg[j] = min(in_fg[j], s)
    assert (in_fg >= inst.submit - 1e-9).all()  # nobody reaches the fg tier before arriving
    for h, (shadow, _) in reservations.items():  # (a crowded instance may still need no reservation)
        assert in_fg[h] <= shadow + 1e-6, f"head {h} reserved for {shadow} reaches fg at {in_fg[h]}"


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from(TWO_TIER), st.sampled_from([0.0, 20.0]))
def test_the_fast_paths_equal_the_plain_passes(seed, alg, cost):
    """The long-list branch of Step 2 (one numpy comparison) picks the same jobs as the short-list loop, and
    the incremental pass after arrivals (keasy.arrival_pass) gives the same schedule as full Steps 1–2."""
    from schedulers.backfill import keasy
    from schedulers.backfill.keasy import simulate_two_tier

    inst = _crowded_instance(seed)
    params = config(params={"record_schedule": False, "migration_cost_s": cost}).params
    out = []
    saved = keasy.LONG_LIST, keasy.INCREMENTAL
    for long_list, incremental in ((10**9, False), (0, False), (10**9, True)):
        keasy.LONG_LIST, keasy.INCREMENTAL = long_list, incremental
        try:
            res = simulate_two_tier(inst, alg, params)
        finally:
            keasy.LONG_LIST, keasy.INCREMENTAL = saved
        out.append((res.first_start.tolist(), res.end.tolist(), res.counters))
    assert out[1] == out[0], "vectorised candidate search differs from the loop"
    assert out[2] == out[0], "arrival_pass differs from the full pass"


def test_the_arrival_pass_equals_the_full_pass_on_a_long_jwload_run():
    """8,000 JWload jobs at load 0.85 under MEASY: long enough for arrivals to meet reservations whose shadow
    time has passed while its fg job overran (eq. 3.1's loss), which the small random instances rarely do."""
    from schedulers.backfill import keasy
    from schedulers.backfill.keasy import simulate_two_tier

    cfg = config(workload={"model": "jann", "n_jobs": 8000, "load": 0.85}, params={"record_schedule": False})
    inst = instance(cfg)
    out = []
    for incremental in (False, True):
        keasy.INCREMENTAL, saved = incremental, keasy.INCREMENTAL
        try:
            res = simulate_two_tier(inst, "measy", cfg.params)
        finally:
            keasy.INCREMENTAL = saved
        out.append((res.first_start.tolist(), res.end.tolist(), res.counters))
    assert out[0] == out[1]
