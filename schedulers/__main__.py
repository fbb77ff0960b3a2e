"""Command line: ``cloudsched families | example | schema | run | preset | claims`` (the installed console
script; ``python -m schedulers`` is the same).

Exit codes: 0 on success; 1 when the run failed (every unit failed: the first error, naming the plug-in
if one failed, goes to stderr); 2 on invalid input (the validation message goes to stderr); 3 when some
units failed: the result (with the others' records and a ``failures`` list) is written all the same and
each failed unit is named on stderr; 4 when the run exceeded ``--time-limit`` (stderr names the plug-in it
interrupted, if any). ``claims`` exits 0 when every claim is reproduced and 1 when any is not (or could not be
checked).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import schedulers
from schedulers.core import jsonio
from schedulers.core.validation import ScenarioError, json_type
from schedulers.plugins import PluginError, RunLimit, time_limit
from schedulers.result import InvalidResult, RunFailed

PARTLY_FAILED, TIME_LIMIT = 3, 4


class TimeLimit(RunLimit):
    """``--time-limit`` ran out: the run's limit (it passes plug-in guards, with a note naming the plug-in)."""


def _failed_units(results: list[dict[str, Any]]) -> int:
    """Name every failed unit of ``results`` on stderr; returns how many failed."""
    count = 0
    for doc in results:
        for f in doc.get("failures", []):
            count += 1
            print(f"unit failed: {f['algorithm']} repetition {f['repetition']}: {f['error']}", file=sys.stderr)
    return count


def _progress_bar() -> Any:
    state = {"last": 0.0}

    def report(fraction: float, message: str = "") -> None:
        now = time.monotonic()
        if fraction < 1.0 and now - state["last"] < 0.2:
            return
        state["last"] = now
        filled = int(30 * fraction)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {100 * fraction:5.1f}% {message[:40]:<40}")
        if fraction >= 1.0:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report


def _load_json(path: str) -> Any:
    return jsonio.read(path, "(file)")


def _emit(doc: Any, out: str | None) -> None:
    if out:  # streamed from the columns: a result's segments never all exist as dicts
        with open(out, "w") as f:
            jsonio.dump(doc, f)
    else:
        sys.stdout.write(jsonio.dumps(doc, indent=2) + "\n")


def cmd_families(args: argparse.Namespace) -> None:
    """One line per family (its built-in algorithms), then one per plug-in algorithm with its origin."""
    from schedulers import plugins

    for name, fam in schedulers.all_families().items():
        builtin = [a for a in fam.algorithms if "entry_point" not in fam.origins.get(a, {})]
        print(f"{name:<16} {', '.join(builtin):<40} {fam.description}")
        for alg, origin in fam.origins.items():
            if "entry_point" in origin:
                print(f"  + {alg:<24} plug-in from {origin['package']} {origin['version']} ({origin['entry_point']}): "
                      f"{fam.algorithms[alg]}")  # fmt: skip
    for bad in plugins.broken():
        print(f"plug-in left out: {bad['entry_point']}: {bad['error']}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    doc = _load_json(args.scenario)
    report = _progress_bar() if args.progress else None
    limit = args.time_limit
    with time_limit(limit, lambda: TimeLimit(f"the run exceeded its time limit of {limit:g} s")):
        if isinstance(doc, dict) and "scenarios" in doc:  # a preset study: run each scenario
            results = [_run_in_study(i, s, report) for i, s in enumerate(_study_scenarios(doc))]
            out = {"study": doc.get("name"), "claims": doc.get("claims", []), "results": results}
        else:
            results = [out := schedulers.run(doc, progress=report)]
    _emit(out, args.output)
    return PARTLY_FAILED if _failed_units(results) else 0


def cmd_check(args: argparse.Namespace) -> int:
    """The validity contract (docs/validity.md) on a result file: one line per check that did not pass,
    then the verdict; exit 0 when passed, 1 when a check failed or did not run."""
    from schedulers.core import validity

    doc = _load_json(args.result)
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise ScenarioError.single("(file)", "not a result: it has no list of runs", "the JSON `run` writes")
    report = validity.report(doc)
    for line in report["failed"]:
        print(f"FAILED {line}")
    for line in report["not_run"]:
        print(f"did not run: {line}")
    for line in report["na"]:
        print(f"not applicable: {line}")
    verdict = "checks passed" if report["passed"] else "checks FAILED" if not report["ok"] else "not all checks ran"
    print(f"{verdict}: {len(report['runs'])} runs × {len(validity.CONTRACT)} checks of the contract")
    return 0 if report["passed"] else 1


def _study_scenarios(doc: dict[str, Any]) -> list[Any]:
    scenarios = doc["scenarios"]
    if not isinstance(scenarios, list) or not scenarios:
        raise ScenarioError.single(
            "scenarios", f"a study needs a list of scenarios, not {json_type(scenarios)}", "a non-empty array"
        )
    for i, s in enumerate(scenarios):  # validate them all before running any
        _in_study(i, schedulers.validate, s)
    return scenarios


def _in_study(index: int, func: Any, *args: Any) -> Any:
    """``func(*args)`` with a ScenarioError's fields prefixed by ``scenarios[index].``."""
    try:
        return func(*args)
    except ScenarioError as exc:
        prefix = f"scenarios[{index}]"
        raise ScenarioError(
            [{**e, "field": prefix + ("" if e["field"].startswith("(") else "." + e["field"])} for e in exc.errors]
        ) from None


def _run_in_study(index: int, scenario: Any, report: Any) -> dict[str, Any]:
    return _in_study(index, lambda s: schedulers.run(s, progress=report), scenario)


def main(argv: list[str] | None = None) -> int:
    prog = "cloudsched" if Path(sys.argv[0]).name == "cloudsched" else "python -m schedulers"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("families", help="list families and their algorithms").set_defaults(func=cmd_families)
    p = sub.add_parser("example", help="a small runnable scenario as JSON")
    p.add_argument("family")
    p.set_defaults(func=lambda a: _emit(schedulers.example(a.family), None))
    p = sub.add_parser("schema", help="the scenario JSON schema")
    p.add_argument("family")
    p.set_defaults(func=lambda a: _emit(schedulers.schema(a.family), None))
    p = sub.add_parser("run", help="run a scenario (or a preset study) file; '-' reads stdin")
    p.add_argument("scenario")
    p.add_argument("-o", "--output", help="write the result JSON here instead of stdout")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr")
    p.add_argument("--time-limit", type=_seconds, metavar="S", help="stop the run after S seconds (exit 4)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("check", help="the validity contract on a result file (exit 1 unless every check passed)")
    p.add_argument("result")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("preset", help="a paper-figure experiment")
    p.add_argument("family")
    p.add_argument("name", nargs="?", help="omit to list the family's presets")
    p.add_argument("--scale", default="paper", help="paper (default) or small")
    p.set_defaults(func=cmd_preset)
    p = sub.add_parser("claims", help="run presets and check the paper's claims (verdict table)")
    p.add_argument("family", help="a family, or 'all'")
    p.add_argument("preset", nargs="?", help="one preset (default: every preset of the family)")
    p.add_argument("--scale", default="small", help="small (a documented reduction, the default) or paper")
    p.add_argument("--workers", type=int, default=2, help="processes running scenarios in parallel")
    p.add_argument("--markdown", metavar="FILE", help="also write the verdicts as docs/reproduction.md-style markdown")
    p.add_argument("--cache", metavar="DIR", help="keep finished units here and reuse them (same scenario and code)")
    p.add_argument(
        "--from-cache", action="store_true", help="run nothing: report the units in --cache (others: not run)"
    )
    p.add_argument("--note", default="", help="a sentence for the markdown's header (how the results were made)")
    p.add_argument("--compare", nargs=3, metavar=("SCALE", "CACHE", "LINK"),
                   help="list the claims whose verdict differs at SCALE, read from the units in CACHE (nothing is "
                   "run), linking LINK (the markdown of that scale)")  # fmt: skip
    p.add_argument("--without-logs", action="store_true",
                   help="with --markdown: also run the presets that replay a real log with the logs hidden (their "
                   "synthetic stand-ins, as in a clone without them) and list the verdicts that differ")  # fmt: skip
    p.set_defaults(func=cmd_claims)
    args = parser.parse_args(argv)
    try:
        rc = args.func(args)
    except ScenarioError as exc:
        print(exc.format(), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (InvalidResult, PluginError, RunFailed) as exc:  # an algorithm's failure, not the input's: no traceback
        print(f"error: {exc}", file=sys.stderr)
        for note in getattr(exc, "__notes__", []):
            print(note, file=sys.stderr)
        return 1
    except TimeLimit as exc:
        where = "".join(f" ({n})" for n in getattr(exc, "__notes__", []))
        print(f"error: {exc}{where}", file=sys.stderr)
        return TIME_LIMIT
    return rc or 0


def _seconds(text: str) -> float:
    """``--time-limit``: a positive number of seconds (argparse names the option when this raises)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds; allowed: > 0 and < 1e9")
    return value


def _targets(family: str, preset: str | None) -> list[tuple[str, str]]:
    families = list(schedulers.all_families()) if family == "all" else [schedulers.get_family(family).name]
    if preset is not None:
        if family == "all":
            raise ScenarioError.single("preset", "a preset needs one family, not 'all'")
        schedulers.preset(family, preset)  # raises the error naming the presets
        return [(family, preset)]
    return [(f, p) for f in families for p in schedulers.get_family(f).presets]


def cmd_claims(args: argparse.Namespace) -> int:
    from schedulers import reproduce
    from schedulers.core.claims import REPRODUCED

    if args.scale not in schedulers.SCALES:
        raise ScenarioError.single("--scale", f"unknown scale {args.scale!r}", "one of " + ", ".join(schedulers.SCALES))
    if not 1 <= args.workers <= 64:
        raise ScenarioError.single("--workers", f"{args.workers} workers", "1..64")
    targets = _targets(args.family, args.preset)
    t0 = time.monotonic()
    if args.from_cache and not args.cache:
        raise ScenarioError.single("--from-cache", "--from-cache reads the units of --cache DIR", "--cache DIR")
    cache = reproduce.UnitCache(args.cache) if args.cache else None
    reports = reproduce.run_claims(
        targets,
        args.scale,
        args.workers,
        log=lambda line: print(line, file=sys.stderr, flush=True),
        cache=cache,
        run=not args.from_cache,
    )
    wall = time.monotonic() - t0
    for r in reports:
        print(f"\n{r['family']} {r['preset']} ({r['scale']}, {r['scenarios']} scenarios, {r['seconds']:.0f} s CPU)")
        for e in r["errors"]:
            print(f"  failed: {e}")
        alternatives = r.get("readings", [])[1:]
        for i, v in enumerate(r["verdicts"]):
            print(f"  [{v['verdict']}] {v['text']}")
            if v["paper"]:
                print(f"      paper:    {v['paper']}")
            print(f"      measured: {v['measured']}")
            for x in alternatives:
                print(f"      reading {x['name']!r}: {x['verdicts'][i]['verdict']}")
    for r in reports:  # last, where the eye lands: a verdict made without the preset's real log
        for m in r.get("missing_traces", []):
            print(f"warning: {r['family']} {r['preset']}: {m}; its points ran on a synthetic stand-in "
                  "(see its description), so its verdicts are not the real log's", file=sys.stderr)  # fmt: skip
    counts = reproduce.verdict_counts([v for r in reports for v in r["verdicts"]])
    cpu = reports[0]["total_cpu_s"] if reports else 0.0
    print(
        f"\n{len(reports)} presets in {wall:.0f} s wall, {cpu:.0f} s CPU: "
        + ", ".join(f"{n} {k}" for k, n in counts.items())
    )
    if args.markdown:
        try:
            where = str(Path(args.markdown).resolve().relative_to(Path.cwd().resolve()))
        except ValueError:  # outside the working directory: its name only, never a machine's path
            where = ".." + Path(args.markdown).name
        command = (
            "python -m schedulers claims "
            + " ".join(  # path-free: a cache directory is named CACHE
                [
                    args.family,
                    *([args.preset] if args.preset else []),
                    "--scale",
                    args.scale,
                    "--markdown",
                    where.removeprefix(".."),
                    *(["--without-logs"] if args.without_logs else []),
                    *(["--compare", args.compare[0], "CACHE", args.compare[2]] if args.compare else []),
                ]
            )
            + (f"` after the {args.compare[0]}-scale command with `--cache CACHE" if args.compare else "")
        )
        other = []
        if args.compare:
            scale, cache_dir, _ = args.compare
            other = reproduce.run_claims(targets, scale, 1, cache=reproduce.UnitCache(cache_dir), run=False)
        link = args.compare[2] if args.compare else ""
        nologs = []
        if args.without_logs:
            with_logs = [(r["family"], r["preset"]) for r in reports if r.get("logs")]
            if with_logs:
                print(f"\nagain with the logs hidden: {len(with_logs)} presets", file=sys.stderr)
                nologs = reproduce.without_logs(with_logs, args.scale, args.workers, cache, not args.from_cache)
        Path(args.markdown).write_text(
            reproduce.markdown(reports, -1.0 if args.from_cache else wall, command, args.note, other, link, nologs)
        )
    return 0 if counts[REPRODUCED] == sum(counts.values()) else 1


def cmd_preset(args: argparse.Namespace) -> None:
    if args.name is None:
        for name in schedulers.get_family(args.family).presets:
            print(name)
        return
    _emit(schedulers.preset(args.family, args.name, args.scale), None)


if __name__ == "__main__":
    sys.exit(main())
