"""Same schedules before and after a change to the two-tier simulator. Not part of the test suite.

    .venv/bin/python bench/backfill_same_schedule.py dump OLD.npz --root /path/to/old/checkout
    .venv/bin/python bench/backfill_same_schedule.py dump NEW.npz            # this checkout
    .venv/bin/python bench/backfill_same_schedule.py compare OLD.npz NEW.npz

``dump`` runs KEASY, REASY and MEASY on the bench workload (``bench/backfill.py``: 200 000 Feitelson jobs,
320 processors, load 0.7; ``--jobs``, ``--model`` and ``--cpu-info`` change it) twice: with the schedule recorded — every stretch (job, start,
end, tier, rate, processors in Dispatch order, how it ended: killed / migrated) — and unrecorded (the benchmark's
path, which builds no processor lists); both keep every job's first start and end, the counters (migrations,
kills, swaps, wasted work), the series and the metrics. ``compare`` checks every column: integers and labels
exactly, floats exactly or, where a summation order may have changed, by the largest relative difference
(allowed ≤ 1e-12); it exits 1 on any larger difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ALGS = ("keasy", "reasy", "measy")
TOL = 1e-12


def dump(out: str, root: str | None, jobs: int, model: str, cpu_info: str) -> None:
    sys.path.insert(0, root or str(Path(__file__).resolve().parents[1]))
    import schedulers
    from schedulers.backfill import prepare, simulate
    from schedulers.backfill.keasy import simulate_two_tier
    from schedulers.backfill.model import BackfillScenario
    from schedulers.core import rng as rngmod

    print(f"code: {Path(schedulers.__file__).parent}")
    cols: dict[str, np.ndarray] = {}
    for record in (False, True):
        cfg = BackfillScenario.model_validate({
            "family": "backfill", "datacenter": {"processors": 320},
            "workload": {"model": model, "n_jobs": jobs, "load": 0.7},
            "params": {"record_schedule": record, "record_jobs": False, "cpu_info": cpu_info}})  # fmt: skip
        inst = prepare(cfg, rngmod.stream(cfg.seed, 0, "workload"))
        for alg in ALGS:
            t0 = time.process_time()
            res = simulate_two_tier(inst, alg, cfg.params)
            key = f"{alg}_{'rec' if record else 'norec'}"
            cols[f"{key}_first_start"] = np.asarray(res.first_start)
            cols[f"{key}_end"] = np.asarray(res.end)
            cols[f"{key}_counters"] = np.array([res.counters[k] for k in ("migrations", "kills", "swaps", "wasted_work_s")],
                                               dtype=float)  # fmt: skip
            cols[f"{key}_series_t"] = np.asarray(res.series_t)
            cols[f"{key}_series_int"] = np.array([res.series_fg, res.series_bg, res.series_queue], dtype=np.int64)
            st = res.stretches
            if record:
                cols[f"{key}_st_job"] = np.asarray(st.job, dtype=np.int64)
                cols[f"{key}_st_start"] = np.asarray(st.start, dtype=float)
                cols[f"{key}_st_end"] = np.asarray(st.end, dtype=float)
                cols[f"{key}_st_tier"] = np.array([t == "fg" for t in st.tier], dtype=bool)
                cols[f"{key}_st_rate"] = np.asarray(st.rate, dtype=float)
                cols[f"{key}_st_nproc"] = np.fromiter(map(len, st.procs), np.int64, len(st.procs))
                cols[f"{key}_st_procs"] = np.concatenate(st.procs).astype(np.int32)
                ended = sorted(st.ended.items())
                cols[f"{key}_st_ended_at"] = np.array([k for k, _ in ended], dtype=np.int64)
                cols[f"{key}_st_ended_why"] = np.array([v == "killed" for _, v in ended], dtype=bool)
            m = simulate(cfg, inst, alg, None, lambda *a: None).metrics
            cols[f"{key}_metrics"] = np.array([float(m[k]) for k in sorted(m)])
            print(f"{key}: {len(st.job)} stretches, counters {res.counters}, {time.process_time() - t0:.1f} CPU s")
    np.savez(out, **cols)


def compare(a: str, b: str) -> int:
    old, new = np.load(a), np.load(b)
    bad = 0
    if set(old.files) != set(new.files):
        print("different columns:", set(old.files) ^ set(new.files))
        return 1
    for k in sorted(old.files):
        x, y = old[k], new[k]
        if x.shape != y.shape:
            print(f"{k}: shape {x.shape} vs {y.shape}  DIFFERENT")
            bad += 1
            continue
        if x.dtype.kind == "f":
            same = np.array_equal(x, y, equal_nan=True)
            if same:
                print(f"{k}: {x.size} values, identical")
                continue
            both = np.isfinite(x) & np.isfinite(y)
            rel = np.abs(x[both] - y[both]) / np.maximum(np.abs(x[both]), 1e-300)
            worst = float(rel.max()) if rel.size else 0.0
            nan_ok = np.array_equal(np.isnan(x), np.isnan(y))
            ok = worst <= TOL and nan_ok
            print(f"{k}: {x.size} values, {int((x != y).sum())} differ, max relative difference {worst:.3g}"
                  f"  {'within 1e-12' if ok else 'DIFFERENT'}")  # fmt: skip
            bad += not ok
        else:
            same = np.array_equal(x, y)
            print(f"{k}: {x.size} values, {'identical' if same else 'DIFFERENT'}")
            bad += not same
    print("SAME SCHEDULES" if not bad else f"{bad} columns differ")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("--root", help="checkout whose schedulers/ to run (default: this one)")
    d.add_argument("--jobs", type=int, default=200_000)
    d.add_argument("--model", default="feitelson", choices=["feitelson", "jann", "lublin"])
    d.add_argument("--cpu-info", default="exact", choices=["exact", "none"])
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out, args.root, args.jobs, args.model, args.cpu_info)
    else:
        sys.exit(compare(args.old, args.new))


if __name__ == "__main__":
    main()
