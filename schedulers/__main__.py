"""Command line: ``python -m schedulers families | example | schema | run | preset``.

Exit code 0 on success, 2 on invalid input (the validation message goes to stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import schedulers
from schedulers.core import jsonio
from schedulers.core.validation import ScenarioError, json_type
from schedulers.result import InvalidResult


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
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return jsonio.loads(data, "(file)")


def _emit(doc: Any, out: str | None) -> None:
    text = json.dumps(doc, indent=None if out else 2, allow_nan=False)
    if out:
        Path(out).write_text(text)
    else:
        sys.stdout.write(text + "\n")


def cmd_families(args: argparse.Namespace) -> None:
    for name, fam in schedulers.all_families().items():
        print(f"{name:<16} {', '.join(fam.algorithms):<40} {fam.description}")


def cmd_run(args: argparse.Namespace) -> None:
    doc = _load_json(args.scenario)
    report = _progress_bar() if args.progress else None
    if isinstance(doc, dict) and "scenarios" in doc:  # a preset study: run each scenario
        results = [_run_in_study(i, s, report) for i, s in enumerate(_study_scenarios(doc))]
        _emit({"study": doc.get("name"), "claims": doc.get("claims", []), "results": results}, args.output)
    else:
        _emit(schedulers.run(doc, progress=report), args.output)


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
    parser = argparse.ArgumentParser(prog="python -m schedulers", description=__doc__)
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
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("preset", help="a paper-figure experiment")
    p.add_argument("family")
    p.add_argument("name", nargs="?", help="omit to list the family's presets")
    p.set_defaults(func=cmd_preset)
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except ScenarioError as exc:
        print(exc.format(), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except InvalidResult as exc:  # a family's bug, not the input's: exit 1, but no traceback and no bad JSON
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_preset(args: argparse.Namespace) -> None:
    if args.name is None:
        for name in schedulers.get_family(args.family).presets:
            print(name)
        return
    _emit(schedulers.preset(args.family, args.name), None)


if __name__ == "__main__":
    sys.exit(main())
