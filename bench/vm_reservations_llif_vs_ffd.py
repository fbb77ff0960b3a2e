"""Where LLIF and FFD differ on the paper-figure workloads, and how much any algorithm could save over FFD.

The paper (003, Section 5.4) reports LLIF 5–15 % and MFFDE 2–10 % more energy-saving than FFD. This script
rebuilds the instances of the Fig. 5.4 (duration sweep) and Fig. 5.7 (LLNL-Atlas replay) presets exactly as
the study runner does (same seeds and streams) and prints per point:

* energy (kWh, mean over the repetitions) of the Theorem 1 bound (OPT, reachable only with migration),
  LLIF and FFD, and the *headroom* 1 − E_bound / E_FFD: no algorithm, even with migration, saves more than
  this over FFD (E = α·T + β·L, eq. 11; L is the same for every placement);
* per PM pool: the instance features (requests, demand units per PM, share of busy slots needing 1, 2,
  ≥ 3 PMs, utilisation of the PMs the bound keeps on) and LLIF's power-on time relative to FFD's;
* the time-connected component (requests linked through overlaps) where LLIF loses most to FFD, and its
  share of the whole difference;
* with ``--exact``, the exact optimum without migration (MILP per component, exact.py), which bounds what
  any migration-free heuristic such as LLIF can save over FFD;
* with ``--line8``, the energy saving over FFD of other readings of Alg. 3.1 line 8 (ETF/STF groups):
  STF before ETF, the ETF group by earliest end, and no split (longest first within the run).

    .venv/bin/python bench/vm_reservations_llif_vs_ffd.py [--scale small|paper] [--preset fig5_4 fig5_7]
        [--points 0] [--exact --exact-limit 10] [--line8]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from schedulers.core.rng import stream
from schedulers.vm_reservations.bound import Axis, Placement, busy_intervals, lower_bound_slots, min_machines
from schedulers.vm_reservations.exact import _solve
from schedulers.vm_reservations.ffd import ffd, first_fit
from schedulers.vm_reservations.llif import _range_min, llif, llif_order, load_runs
from schedulers.vm_reservations.model import Scenario, kwh
from schedulers.vm_reservations.presets import PRESETS, SMALL
from schedulers.vm_reservations.workloads import build_instance


def on_slots(p: Placement) -> int:
    _, a, b = busy_intervals(p)
    return int((b - a).sum())


def components(s: np.ndarray, e: np.ndarray) -> list[np.ndarray]:
    order = np.lexsort((-(e - s), s))
    reach = np.maximum.accumulate(e[order])
    return np.split(order, np.flatnonzero(s[order][1:] >= reach[:-1]) + 1)


def exact_no_migration(s, e, d, g, limit_s: float) -> tuple[int, int, int]:
    """The exact optimum without migration, per component: (power-on slots of the placements found, components
    not proven optimal, a proven lower bound: the found value where proven, the Theorem 1 bound elsewhere)."""
    total = unproven = floor = 0
    for c in components(s, e):
        pm, ok = _solve(s[c], e[c], d[c], g, limit_s)
        found = on_slots(Placement.static(pm, s[c], e[c]))
        total += found
        floor += found if ok else lower_bound_slots(s[c], e[c], d[c], g)
        unproven += not ok
    return total, unproven, floor


def line8_order(s, e, d, g, variant: str) -> np.ndarray:
    """LLIF's order with another reading of line 8 (the runs, lines 2-7, as in llif.py)."""
    if variant == "paper":
        return llif_order(s, e, d, g)
    axis = Axis.of(s, e)
    first, end, _ = load_runs(axis, d, g)
    run_len = axis.bounds[end] - axis.bounds[first]
    processing = np.lexsort((np.arange(first.size), -run_len))
    rank = np.empty(first.size, dtype=np.int64)
    rank[processing] = np.arange(first.size)
    run_of_segment = np.repeat(np.arange(first.size), end - first)
    job_rank = _range_min(rank, run_of_segment[axis.a], run_of_segment[axis.b - 1])
    stf = (s >= axis.bounds[first[processing[job_rank]]]).astype(np.int64)
    tie = (np.arange(s.size), s)
    if variant == "stf_first":
        return np.lexsort((*tie, -(e - s), 1 - stf, job_rank))
    if variant == "etf_by_end":
        return np.lexsort((*tie, np.where(stf == 0, e, -(e - s)), stf, job_rank))
    if variant == "no_split":
        return np.lexsort((*tie, -(e - s), job_rank))
    raise ValueError(variant)


LINE8 = ("paper", "stf_first", "etf_by_end", "no_split")


def point(sc: dict, scale: str, exact: bool, limit_s: float, line8: bool = False) -> None:
    if scale == "small":
        sc = SMALL["shrink"](dict(sc))
    cfg = Scenario.model_validate(sc)
    slot = cfg.datacenter.slot_minutes
    reps = cfg.repetitions
    energy = dict.fromkeys(("bound", "llif", "ffd", "exact", "exact_floor"), 0.0)
    pools: dict[str, dict[str, float]] = {}
    worst = (0, None)
    unproven = 0
    tally = [0, 0, 0]  # components (≥ 2 requests) where LLIF is below, equal to, above FFD
    variants = dict.fromkeys(LINE8, 0.0)
    for r in range(reps):
        inst = build_instance(cfg, stream(cfg.seed, r, "workload"))
        for pool in inst.pools:
            s, e, d, g = pool.s, pool.e, pool.d, pool.g
            if s.size == 0:
                continue
            beta_l = (pool.p_max_w - pool.p_min_w) * float(((e - s) * d).sum()) / g
            t = {
                "bound": lower_bound_slots(s, e, d, g),
                "llif": on_slots(llif(s, e, d, g)),
                "ffd": on_slots(ffd(s, e, d, g)),
            }
            if exact:
                t["exact"], u, t["exact_floor"] = exact_no_migration(s, e, d, g, limit_s)
                unproven += u
            for k, v in t.items():
                energy[k] += kwh(pool.p_min_w * v + beta_l, slot) / reps
            if line8:
                for v in LINE8:
                    placed = on_slots(first_fit(s, e, d, g, line8_order(s, e, d, g, v)))
                    variants[v] += kwh(pool.p_min_w * placed + beta_l, slot) / reps
            ax = Axis.of(s, e)
            lvl, ln = min_machines(ax.load(d), g), ax.lengths
            a = pools.setdefault(pool.name, {"n": 0, "busy": 0, "l1": 0, "l2": 0, "l3": 0, "work": 0, "g": g})
            a["n"] += s.size / reps
            a["busy"] += ln[lvl > 0].sum()
            a["l1"] += ln[lvl == 1].sum()
            a["l2"] += ln[lvl == 2].sum()
            a["l3"] += ln[lvl >= 3].sum()
            a["work"] += float((ax.load(d) * ln).sum()) / g
            for k in ("bound", "llif", "ffd"):
                a[k] = a.get(k, 0) + t[k]
            a["units"] = sorted(set(a.get("units", [])) | {g / int(x) for x in np.unique(d)})
            for c in components(s, e):
                loss = on_slots(llif(s[c], e[c], d[c], g)) - on_slots(ffd(s[c], e[c], d[c], g))
                if c.size > 1:
                    tally[int(np.sign(loss)) + 1] += 1
                if loss > worst[0]:
                    worst = (
                        loss,
                        (r, pool.name, c.size, int(s[c].min()), int(e[c].max()), pool.p_min_w, t["llif"] - t["ffd"]),
                    )
    head = 1 - energy["bound"] / energy["ffd"]
    line = (
        f"{sc['name']} ({reps} runs): energy kWh bound {energy['bound']:.1f}, LLIF {energy['llif']:.1f}, "
        f"FFD {energy['ffd']:.1f}; headroom over FFD {head:.1%}, LLIF saves {1 - energy['llif'] / energy['ffd']:+.2%}"
    )
    if exact:
        line += (
            f", exact without migration saves {1 - energy['exact'] / energy['ffd']:+.2%} ({unproven} components "
            f"unproven; with their Theorem 1 bound instead, at most {1 - energy['exact_floor'] / energy['ffd']:+.2%})"
        )
    print(line)
    for name, a in pools.items():
        print(
            f"  {name}: {a['n']:.0f} VMs/run, VMs per PM {'/'.join(f'{u:g}' for u in a['units'])}; busy slots needing 1 / 2 / ≥3 PMs "
            f"{a['l1'] / a['busy']:.0%} / {a['l2'] / a['busy']:.0%} / {a['l3'] / a['busy']:.0%}; "
            f"utilisation at the bound {a['work'] / a['bound']:.2f}; power-on / bound FFD {a['ffd'] / a['bound']:.3f}, "
            f"LLIF {a['llif'] / a['bound']:.3f} (LLIF {a['llif'] / a['ffd'] - 1:+.2%} vs FFD)"
        )
    if line8:
        print(
            "  line 8 readings, saving over FFD: "
            + ", ".join(f"{v} {1 - x / energy['ffd']:+.2%}" for v, x in variants.items())
        )
    print(f"  components of ≥ 2 requests (all runs): LLIF below FFD {tally[0]}, equal {tally[1]}, above {tally[2]}")
    if worst[1]:
        r, name, size, lo, hi, pmin, pool_diff = worst[1]
        print(
            f"  largest LLIF loss: run {r}, {name}, one component of {size} requests, slots {lo}–{hi}: "
            f"+{worst[0]} PM-slots ({kwh(pmin * worst[0], slot):.1f} kWh); LLIF − FFD over that pool and run: {pool_diff:+d}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", default="small", choices=["small", "paper"])
    ap.add_argument("--preset", nargs="+", default=["fig5_4", "fig5_7"])
    ap.add_argument("--points", nargs="*", type=int, help="indices of the preset's points (default: all)")
    ap.add_argument("--exact", action="store_true", help="also solve the exact optimum without migration")
    ap.add_argument("--exact-limit", type=float, default=10.0, help="HiGHS seconds per component")
    ap.add_argument("--line8", action="store_true", help="also run other readings of Alg. 3.1 line 8")
    args = ap.parse_args()
    t0 = time.process_time()
    for name in args.preset:
        study = PRESETS[name]()
        print(f"== {name}: {study['description']}")
        for i, sc in enumerate(study["scenarios"]):
            if args.points is None or i in args.points:
                point(sc, args.scale, args.exact, args.exact_limit, args.line8)
    cpu = time.process_time() - t0
    print(
        f"CPU {cpu:.1f} s, load {Path('/proc/loadavg').read_text().split()[0]}, max RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()
