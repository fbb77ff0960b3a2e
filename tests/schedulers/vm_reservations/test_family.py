"""The family through the library front door: validation, determinism, result format, presets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedulers
from schedulers.core import jsonio
from schedulers.core.series import usage_by_resource
from schedulers.core.validation import ScenarioError
from schedulers.vm_reservations import FAMILY
from schedulers.vm_reservations.presets import MAX_DURATIONS, PRESETS
from tests import traces
from tests.series import assert_change_points, step_integral

ALL = ["opt_min_migration", "llif", "ffd", "est", "mffde"]


def small(**workload) -> dict:
    wl = {"kind": "generator", "n_requests": 150, "max_duration_slots": 40} | workload
    return {"family": "vm_reservations", "seed": 5, "algorithms": ALL, "workload": wl}


@pytest.fixture(scope="module")
def result():
    return schedulers.run(small())


def test_family_alone_validates_and_runs():
    """{"family": "vm_reservations"} is a complete scenario (1000 requests, Table 1 and 3)."""
    out = schedulers.run({"family": "vm_reservations"})
    assert {r["algorithm"] for r in out["runs"]} == set(ALL)
    assert all(r["metrics"]["requests"] == 1000 for r in out["runs"])


def test_example_runs_fast():
    out = schedulers.run(FAMILY.example())
    assert len(out["runs"]) == 10


def test_result_is_json_and_deterministic(result):
    """Same scenario and seed → the same result (wall times aside); the document is JSON."""
    again = schedulers.run(small())
    assert len(result["runs"])  # the loop below checks each
    for a, b in zip(result["runs"], again["runs"], strict=True):
        ma = {k: v for k, v in a["metrics"].items() if k != "algorithm_runtime_s"}
        mb = {k: v for k, v in b["metrics"].items() if k != "algorithm_runtime_s"}
        assert ma == mb and a["schedule"] == b["schedule"]
    jsonio.dumps(result)


def test_segments_respect_capacity_and_cover_each_request(result):
    """Every PM's held CPU ≤ its capacity at all times; each VM's segments tile [start, end)."""
    caps = {"pm1": 16.0, "pm2": 52.0, "pm3": 40.0}
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        # reading: VM family k-x runs on PM type k (Tables 1–2, strongly divisible per family)
        assert all(
            seg["pm_type"] == "pm" + seg["vm_type"][0] == seg["resource"].split("-")[0] for seg in run["schedule"]
        )
        for res, (_t, level) in usage_by_resource(run["schedule"]).items():
            assert level.max() <= caps[res.split("-")[0]] + 1e-9, (run["algorithm"], res)
        by_job: dict[str, list] = {}
        for seg in run["schedule"]:
            by_job.setdefault(seg["job"], []).append((seg["start"], seg["end"]))
        for job in run["jobs"]:
            pieces = sorted(by_job[job["job"]])
            assert pieces[0][0] == job["start_min"] and pieces[-1][1] == job["end_min"]
            assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
        assert len(by_job) == len(run["jobs"]) == 150


def test_energy_from_segments_is_alpha_t_plus_beta_l(result):
    """Theorem 5: E = Pmin·T + (Pmax − Pmin)·Σ u·t, recomputed from the segments, equals energy_kwh."""
    pm = {"pm1": (16, 210, 300), "pm2": (52, 420, 600), "pm3": (40, 350, 500)}
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        joules_min = 0.0
        for res, (t, level) in usage_by_resource(run["schedule"]).items():
            cap, pmin, pmax = pm[res.split("-")[0]]
            dt = np.diff(t)
            on = level[:-1] > 0
            joules_min += pmin * dt[on].sum() + (pmax - pmin) * (level[:-1] * dt).sum() / cap
        assert joules_min / 60 / 1000 == pytest.approx(run["metrics"]["energy_kwh"], rel=1e-9)
        on_min = sum(np.diff(t)[level[:-1] > 0].sum() for t, level in usage_by_resource(run["schedule"]).values())
        assert on_min == pytest.approx(run["metrics"]["power_on_time_min"])


def test_metrics_order_and_bound(result):
    """Energy ≥ the bound for all; OPT-Min-Migration equals it; only OPT migrates."""
    m = {r["algorithm"]: r["metrics"] for r in result["runs"]}
    for alg, met in m.items():
        assert met["energy_kwh"] >= met["lower_bound_energy_kwh"] - 1e-9
        assert met["power_on_time_min"] >= met["lower_bound_power_on_time_min"]
        assert (met["migrations"] > 0) == (alg == "opt_min_migration") or met["migrations"] == 0
    opt = m["opt_min_migration"]
    assert opt["power_on_time_min"] == opt["lower_bound_power_on_time_min"]
    moved = sum(
        j["migrations"] for j in next(r for r in result["runs"] if r["algorithm"] == "opt_min_migration")["jobs"]
    )
    assert moved == opt["migrations"]


def test_series_shape(result):
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        s = run["series"]
        assert len(s["t"]) == len(s["pms_on"]) == len(s["power_w"]) == len(s["energy_j"])
        assert len(s["running_vms"]) == len(s["t"]) and max(s["running_vms"]) >= 1
        assert max(s["pms_on"]) <= run["metrics"]["pms_used"]
        assert s["energy_j"][-1] / 3.6e6 == pytest.approx(run["metrics"]["energy_kwh"], rel=1e-9)


@pytest.mark.parametrize(
    ("seed", "workload", "slot_minutes"),
    [
        (5, {"n_requests": 150}, 5),
        (9, {"n_requests": 1500, "max_duration_slots": 200}, 1),
        (3, {"n_requests": 600}, 15),
    ],
)
def test_the_stored_power_series_integrates_to_the_energy_metric(seed, workload, slot_minutes):
    """Every change point is stored (none dropped, no bucket maxima): ∫ power dt (t in minutes) = energy_kwh."""
    sc = small(**workload) | {"seed": seed, "datacenter": {"slot_minutes": slot_minutes}}
    runs = schedulers.run(sc)["runs"]
    assert runs
    for run in runs:  # every algorithm
        s, energy = run["series"], run["metrics"]["energy_kwh"] * 3.6e6
        assert_change_points(s)
        assert step_integral(s["t"], s["power_w"], 60.0) == pytest.approx(energy, rel=1e-9), run["algorithm"]
        assert s["energy_j"][-1] == pytest.approx(energy, rel=1e-9)


def test_record_schedule_off_skips_segments():
    sc = small() | {"params": {"record_schedule": False}}
    out = schedulers.run(sc)
    assert all(r["schedule"] == [] and r["jobs"] == [] for r in out["runs"])


def test_inline_jobs_example4_through_run():
    """Example #4 as a scenario: a PM of 3 units, unit VMs; bound 4 slots, exact 5, OPT 4 with one migration."""
    sc = {
        "family": "vm_reservations",
        "algorithms": ["opt_min_migration", "llif", "exact"],
        "datacenter": {
            "slot_minutes": 1,
            "pm_types": [{"name": "g3", "cpu": 3, "p_min_w": 100, "p_max_w": 200}],
            "vm_types": [{"name": "unit", "cpu": 1, "pm_type": "g3"}],
        },
        "workload": {
            "kind": "jobs",
            "jobs": [{"start": s, "end": e, "vm_type": "unit"} for s, e in [(0, 3), (0, 2), (1, 3), (0, 3)]],
        },
    }
    m = {r["algorithm"]: r["metrics"] for r in schedulers.run(sc)["runs"]}
    assert m["opt_min_migration"]["power_on_time_min"] == 4 and m["opt_min_migration"]["migrations"] == 1
    assert m["exact"]["power_on_time_min"] == 5 and m["exact"]["exact_optimal"] == 1.0
    assert m["llif"]["lower_bound_power_on_time_min"] == 4
    # eq. 11: E = 100 W · 4 min + 100 W · (10 unit-slots / 3) min
    assert m["opt_min_migration"]["energy_kwh"] == pytest.approx((100 * 4 + 100 * 10 / 3) / 60 / 1000)


def test_validation_names_every_bad_field():
    sc = {
        "family": "vm_reservations",
        "algorithms": ["llif", "exact"],
        "datacenter": {
            "pm_types": [{"name": "a", "cpu": 10, "p_min_w": 300, "p_max_w": 200}],
            "vm_types": [{"name": "v", "cpu": 12, "pm_type": "a"}, {"name": "w", "cpu": 1, "pm_type": "zz"}],
        },
        "workload": {"kind": "jobs", "jobs": [{"start": 4, "end": 2, "vm_type": "nope"}] * 41},
    }
    with pytest.raises(ScenarioError) as info:
        schedulers.run(sc)
    fields = {e["field"] for e in info.value.errors}
    assert {
        "datacenter.pm_types[0].p_max_w",
        "datacenter.vm_types[0].cpu",
        "datacenter.vm_types[1].pm_type",
        "workload.jobs[0].end",
        "workload.jobs[0].vm_type",
        "algorithms",
    } <= fields


def test_limits_come_from_the_schema():
    with pytest.raises(ScenarioError) as info:
        schedulers.run(small(n_requests=0, max_duration_slots=10**9) | {"datacenter": {"slot_minutes": -1}})
    fields = {e["field"] for e in info.value.errors}
    assert {"workload.n_requests", "workload.max_duration_slots"} <= fields  # the keys written, no union tag
    assert "datacenter.slot_minutes" in fields


def test_missing_trace_path_is_a_validation_error():
    sc = {"family": "vm_reservations", "workload": {"kind": "trace", "path": "/no/such.swf"}}
    with pytest.raises(ScenarioError) as info:
        schedulers.run(sc)
    assert "workload.path" in info.value.by_field()


def test_swf_text_workload():
    """Section 5.4 conversion: start = submit + wait, minutes, processors → nearest VM type."""
    swf = "\n".join(
        [
            "; Version: 2.2",
            "1 0 100 120 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1",
            "2 30 0 61 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1",
            "3 40 0 0 8 -1 -1 8 -1 -1 0 1 1 1 1 1 -1 -1",
            "4 50 -1 300 -1 -1 -1 20 -1 -1 1 1 1 1 1 1 -1 -1",
        ]
    )
    sc = {
        "family": "vm_reservations",
        "algorithms": ["ffd"],
        "datacenter": {"slot_minutes": 1},
        "workload": {"kind": "trace", "text": swf, "n_requests": 10},
    }
    jobs = schedulers.run(sc)["runs"][0]["jobs"]
    assert [(j["start_min"], j["end_min"], j["vm_type"]) for j in jobs] == [
        (1.0, 3.0, "1-2"),  # starts at 100 s; slot 0 begins at the earliest start, 30 s
        (0.0, 2.0, "1-1"),  # 61 s → 2 slots
        (0.0, 5.0, "3-2"),  # job 3 (run time 0) skipped; wait −1 = 0; allocated −1 → requested 20
    ]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_validate(name):
    study = PRESETS[name]()
    assert study["claims"] and study["scenarios"]
    for sc in study["scenarios"]:
        schedulers.validate(sc)


@traces.needs_trace(traces.ATLAS)
def test_real_trace_replay_is_valid():
    """A slice of LLNL-Atlas at 1 min slots: OPT meets the bound, the others stay above it."""
    sc = {
        "family": "vm_reservations",
        "algorithms": ALL,
        "datacenter": {"slot_minutes": 1},
        "workload": {"kind": "trace", "path": str(traces.trace(traces.ATLAS)), "n_requests": 500},
        "params": {"record_schedule": False},
    }
    m = {r["algorithm"]: r["metrics"] for r in schedulers.run(sc)["runs"]}
    assert m["opt_min_migration"]["power_on_ratio_to_bound"] == 1.0
    assert all(v["power_on_ratio_to_bound"] >= 1.0 for v in m.values())


def test_generator_respects_its_parameters():
    """Section 5.3 generator: n requests, 1 ≤ duration ≤ cap, only weighted VM types, mean gap ≈ 5 slots."""
    from schedulers.core.rng import stream
    from schedulers.vm_reservations.model import Scenario
    from schedulers.vm_reservations.workloads import build_instance

    wl = {
        "kind": "generator",
        "n_requests": 5000,
        "max_duration_slots": 30,
        "vm_type_weights": [1, 0, 0, 0, 0, 0, 0, 1],
    }
    cfg = Scenario.model_validate({"family": "vm_reservations", "workload": wl})
    inst = build_instance(cfg, stream(1, 0, "workload"))
    dur = inst.end - inst.start
    assert len(inst) == 5000 and dur.min() >= 1 and dur.max() <= 30
    assert set(inst.vm.tolist()) == {0, 7}
    assert np.diff(inst.start).mean() == pytest.approx(5.0, rel=0.05)
    assert sum(p.s.size for p in inst.pools) == 5000


def test_est_order_parameter_changes_est_only():
    """params.est_order = latest_first reverses EST's sort (the literal Section 5.2 text)."""
    base = schedulers.run(small() | {"algorithms": ["est", "ffd"]})
    flip = schedulers.run(small() | {"algorithms": ["est", "ffd"], "params": {"est_order": "latest_first"}})
    by = {r["algorithm"]: r for r in base["runs"]}, {r["algorithm"]: r for r in flip["runs"]}
    assert by[0]["ffd"]["schedule"] == by[1]["ffd"]["schedule"]
    assert by[0]["est"]["schedule"] != by[1]["est"]["schedule"]


@pytest.mark.parametrize("max_duration", [50, 800])
def test_fig5_4_claims_we_reproduce(max_duration):
    """Fig. 5.4 setting: EST ≥ FFD, every heuristic > OPT, LLIF < 2 × OPT (means over 3 runs)."""
    sc = PRESETS["fig5_4"]()["scenarios"][MAX_DURATIONS.index(max_duration)]
    sc = sc | {"repetitions": 3, "params": {"record_schedule": False}}
    e = {a: m["energy_kwh"]["mean"] for a, m in schedulers.run(sc)["summary"].items()}
    assert e["est"] >= e["ffd"]
    assert min(e["llif"], e["ffd"], e["est"], e["mffde"]) > e["opt_min_migration"]
    assert e["llif"] < 2 * e["opt_min_migration"]


def test_every_run_declares_every_pm_of_the_data_centre(result):
    """``extra.resources``: of each PM type, as many PMs as the most of its reservations running at once,
    the same in every run of a repetition (the Gantt's rows), and every PM a run used among them."""
    by_rep = {}
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        by_rep.setdefault(run["repetition"], []).append(run)
    assert by_rep  # the loop below checks each
    for runs in by_rep.values():
        declared = runs[0]["extra"]["resources"]
        segs = [s for r in runs for s in r["schedule"]]
        peak = {}
        for pm_type in {s["pm_type"] for s in segs}:
            ivs = {(s["job"], min(t["start"] for t in segs if t["job"] == s["job"]),
                    max(t["end"] for t in segs if t["job"] == s["job"])) for s in segs if s["pm_type"] == pm_type}  # fmt: skip
            times = sorted([(a, 1) for _, a, _ in ivs] + [(b, -1) for _, _, b in ivs], key=lambda x: (x[0], x[1]))
            peak[pm_type] = max(itertools.accumulate(d for _, d in times))
        assert declared == {f"{t}-{k}": t for t in sorted(peak) for k in range(1, peak[t] + 1)}
        used = set()
        for run in runs:
            assert run["extra"]["resources"] == declared
            names = {s["resource"] for s in run["schedule"]}
            assert names <= set(declared) and set(run["extra"]["capacities"]) == set(declared)
            used |= names
        assert set(declared) - used, "no PM left idle by every algorithm: the test would not see one"
