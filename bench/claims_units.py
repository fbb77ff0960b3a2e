"""CPU seconds and result digests of single claims units: before/after a speed-up.

    .venv/bin/python bench/claims_units.py paper ep_jobs,fig6_loaded,0,ontapra:tapra,0 ...
    .venv/bin/python bench/claims_units.py small --preset ep_jobs fig6   # every unit of a preset

A unit is ``family,preset,scenario index,algorithm,repetition`` (what ``claims`` runs in one
process). Each line prints the unit, the SHA-256 of its run record without the machine-timing
metrics (``tests.golden.without_timing``) and its process CPU seconds. Run it from two checkouts
(``PYTHONPATH=…``) and compare the digests: a speed-up must leave them unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import schedulers
from schedulers.core import jsonio
from tests.golden import without_timing


def units(args: argparse.Namespace) -> list[tuple[str, str, int, str, int]]:
    if args.preset:
        family, preset = args.preset
        scenarios = schedulers.preset(family, preset, scale=args.scale)["scenarios"]
        return [(family, preset, i, a, r) for i, s in enumerate(scenarios) for a, r in schedulers.units(s)]
    out = []
    for spec in args.units:
        family, preset, index, algorithm, rep = spec.split(",")
        out.append((family, preset, int(index), algorithm, int(rep)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scale", choices=schedulers.SCALES)
    parser.add_argument("units", nargs="*", help="family,preset,scenario index,algorithm,repetition")
    parser.add_argument("--preset", nargs=2, metavar=("FAMILY", "PRESET"), help="every unit of one preset")
    args = parser.parse_args()
    total = 0.0
    for family, preset, index, algorithm, rep in units(args):
        scenario = schedulers.preset(family, preset, scale=args.scale)["scenarios"][index]
        t0 = time.process_time()
        record = schedulers.run_unit(scenario, algorithm, rep)
        cpu = time.process_time() - t0
        total += cpu
        sha = hashlib.sha256(jsonio.dumps(without_timing(record)).encode()).hexdigest()[:16]
        print(f"{family},{preset},{index},{algorithm},{rep} {sha} {cpu:.2f}", flush=True)
    print(f"total {total:.1f} CPU s", flush=True)


if __name__ == "__main__":
    main()
