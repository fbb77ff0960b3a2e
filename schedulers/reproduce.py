"""Run presets and check their claims: the engine of ``python -m schedulers claims`` and docs/reproduction.md.

Scenarios shared by several presets (Table I and Table II of dvfs_bot run the same twelve
workloads; the three vm_reservations figures of a sweep differ only in the metric they plot)
run once: results are keyed by the validated scenario without its name.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import schedulers
from schedulers.core.claims import NOT_EVALUATED, NOT_REPRODUCED, REPRODUCED, Table, evaluate
from schedulers.result import digest

__all__ = ["check_study", "markdown", "readings", "run_claims", "study_table", "verdict_counts"]

Point = tuple[str, Mapping[str, Any] | None, Mapping[str, Any]]  # (label, summary or None if the run failed, config)


def study_table(points: Sequence[Point]) -> Table:
    """The tidy table of a study's points (a failed point has no values: claims needing it are not evaluated)."""
    return Table.from_summaries(
        [(label, summary) for label, summary, _ in points],
        configs={label: config for label, _, config in points},
    )


def check_study(family: str, preset: str, points: Sequence[Point]) -> list[dict[str, str]]:
    """Verdicts of ``preset``'s claims on a study's points, in the preset's order."""
    return evaluate(schedulers.preset_claims(family, preset), study_table(points))


def verdict_counts(verdicts: Sequence[Mapping[str, str]]) -> dict[str, int]:
    counts = dict.fromkeys((REPRODUCED, NOT_REPRODUCED, NOT_EVALUATED), 0)
    for v in verdicts:
        counts[v["verdict"]] += 1
    return counts


def _key(scenario: dict[str, Any]) -> str:
    _, cfg = schedulers.validate(scenario)
    normalised = cfg.model_dump(mode="json")
    normalised.pop("name", None)
    return digest(normalised)


def _summary(scenario: dict[str, Any]) -> tuple[dict[str, Any] | None, float, str]:
    """Run one scenario; its mean metrics, the CPU seconds it took (stable on a shared machine) and any error."""
    t0 = time.process_time()
    try:
        result = schedulers.run(scenario)
    except Exception as exc:  # one failed point leaves its claims "not evaluated", not the whole report
        return None, time.process_time() - t0, f"{type(exc).__name__}: {exc}"
    summary = {alg: {k: v["mean"] for k, v in m.items()} for alg, m in result["summary"].items()}
    return summary, time.process_time() - t0, ""


def run_claims(
    targets: Sequence[tuple[str, str]],
    scale: str = "small",
    workers: int = 2,
    log: Callable[[str], None] = lambda line: None,
) -> list[dict[str, Any]]:
    """Run every ``(family, preset)`` at ``scale`` and check its claims.

    Returns one report per preset: its name, description, verdicts, the number of
    scenarios, the CPU seconds its scenarios took (``seconds``; ``total_cpu_s`` is the
    whole run's, shared scenarios counted once) and any scenario errors.
    """
    docs = {t: schedulers.preset(*t, scale=scale) for t in targets}
    keys = {t: [_key(s) for s in doc["scenarios"]] for t, doc in docs.items()}
    todo: dict[str, dict[str, Any]] = {}
    for t, doc in docs.items():
        for k, s in zip(keys[t], doc["scenarios"], strict=True):
            todo.setdefault(k, s)
    done: dict[str, tuple[dict[str, Any] | None, float, str]] = {}
    log(f"{len(todo)} distinct scenarios for {len(targets)} presets, {workers} worker(s)")
    if workers <= 1:
        for i, (k, s) in enumerate(todo.items(), 1):
            done[k] = _summary(s)
            log(f"[{i}/{len(todo)}] {s.get('family')} {s.get('name')}: {done[k][1]:.1f} s")
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_summary, s): k for k, s in todo.items()}
            for i, fut in enumerate(as_completed(futures), 1):
                k = futures[fut]
                done[k] = fut.result()
                log(f"[{i}/{len(todo)}] {todo[k].get('family')} {todo[k].get('name')}: {done[k][1]:.1f} s")
    total_cpu = sum(d[1] for d in done.values())
    reports = []
    for (family, name), doc in docs.items():
        points = [(s["name"], done[k][0], s) for k, s in zip(keys[(family, name)], doc["scenarios"], strict=True)]
        errors = sorted({f"{s['name']}: {done[k][2]}" for k, s in zip(keys[(family, name)], doc["scenarios"],
                                                                       strict=True) if done[k][2]})  # fmt: skip
        reports.append(
            {
                "family": family,
                "preset": name,
                "title": doc.get("name", name),
                "description": doc.get("description", ""),
                "scale": scale,
                "scenarios": len(doc["scenarios"]),
                "seconds": sum(done[k][1] for k in keys[(family, name)]),
                "total_cpu_s": total_cpu,
                "errors": errors,
                "verdicts": check_study(family, name, points),
            }
        )
    return reports


def readings(family: str) -> list[str]:
    """The readings a family's presets chose where its paper is silent (``READINGS`` of its presets module)."""
    try:
        module = importlib.import_module(f"schedulers.{family}.presets")
    except ImportError:
        return []
    return list(getattr(module, "READINGS", []))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(reports: Sequence[Mapping[str, Any]], wall_s: float, command: str) -> str:
    """docs/reproduction.md: per family, each claim's paper number, measurement and verdict, then the readings."""
    total = verdict_counts([v for r in reports for v in r["verdicts"]])
    lines = [
        "# Reproduction: the papers' claims, checked",
        "",
        f"Generated by `{command}`: {reports[0]['total_cpu_s'] if reports else 0:.0f} s of CPU for the "
        f"distinct scenarios (shared ones run once), {wall_s / 60:.1f} min wall on this machine (2 cores, "
        "shared with other jobs when generated). Do not edit by hand: rerun the command. "
        "Each preset states its claims as checks over its study results "
        "(`schedulers/core/claims.py`); the same verdicts appear on a preset study's page when it finishes.",
        "",
        f"Totals: {total[REPRODUCED]} reproduced, {total[NOT_REPRODUCED]} not reproduced, "
        f"{total[NOT_EVALUATED]} not evaluated.",
        "",
        "Scale: " + ", ".join(sorted({r["scale"] for r in reports})) + ". The `small` scale is a documented "
        "reduction (each preset's description says which); a claim that holds at `paper` scale may not at "
        "`small`, and the reverse. Run `python -m schedulers claims FAMILY --scale paper` for the paper's sizes.",
    ]
    for family in dict.fromkeys(r["family"] for r in reports):
        lines += ["", f"## {family}", ""]
        for r in (r for r in reports if r["family"] == family):
            lines += [f"### {r['title']} (`{r['preset']}`)", "", r["description"], ""]
            lines.append(f"{r['scenarios']} scenarios, {r['seconds']:.0f} s of CPU.")
            for e in r["errors"]:
                lines.append(f"- failed: {e}")
            lines += ["", "| Claim | Paper | Measured | Verdict |", "|---|---|---|---|"]
            for v in r["verdicts"]:
                lines.append(f"| {_cell(v['text'])} | {_cell(v['paper'])} | {_cell(v['measured'])} | {v['verdict']} |")
            notes = [v for v in r["verdicts"] if v.get("note")]
            if notes:
                lines += ["", "Known differences:", ""]
                lines += [f"- *{v['text']}* {v['note']}" for v in notes]
            lines.append("")
        notes = readings(family)
        lines += ["### Readings chosen where the paper is silent", ""]
        lines += [f"- {n}" for n in notes]
        lines.append(
            f"- The algorithms' own readings (tie-breaks, models, units) are stated in the docstrings of "
            f"`schedulers/{family}/` and collected in `docs/{family}.md`."
        )
    return "\n".join(lines).rstrip() + "\n"
