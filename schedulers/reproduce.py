"""Run presets and check their claims: the engine of ``python -m schedulers claims`` and docs/reproduction.md.

Scenarios shared by several presets (Table I and Table II of dvfs_bot run the same twelve
workloads; the three vm_reservations figures of a sweep differ only in the metric they plot)
run once: results are keyed by the validated scenario without its name.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import schedulers
from schedulers.core.claims import NOT_EVALUATED, NOT_REPRODUCED, REPRODUCED, Reading, Table, evaluate
from schedulers.core.traces import DirectoryCatalog, set_catalog
from schedulers.result import digest

__all__ = [
    "UnitCache",
    "check_study",
    "code_digest",
    "logs_used",
    "markdown",
    "preset_readings",
    "readings",
    "run_claims",
    "run_units",
    "study_table",
    "verdict_counts",
    "without_logs",
]

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


def _unit(scenario: dict[str, Any], algorithm: str, repetition: int) -> tuple[dict[str, Any] | None, float, str]:
    """Run one ``(algorithm, repetition)`` of a scenario: its run record's metrics, the CPU seconds it took
    (stable on a shared machine, unlike wall time) and any error. Only the metrics travel back."""
    t0 = time.process_time()
    try:
        record = schedulers.run_unit(scenario, algorithm, repetition)
    except Exception as exc:  # one failed point leaves its claims "not evaluated", not the whole report
        return None, time.process_time() - t0, f"{type(exc).__name__}: {exc}"
    slim = {"algorithm": algorithm, "repetition": repetition, "metrics": record["metrics"]}
    return slim, time.process_time() - t0, ""


def _merged(scenario: dict[str, Any], records: list[dict[str, Any] | None], errors: list[str]) -> tuple[
        dict[str, Any] | None, str]:  # fmt: skip
    """A scenario's mean metrics from its units' records (``schedulers.merge``: :func:`schedulers.run`'s summary)."""
    if errors:
        return None, errors[0]
    try:
        doc = schedulers.merge(scenario, [r for r in records if r is not None])
    except Exception as exc:  # e.g. a NaN metric (InvalidResult), as schedulers.run would have raised
        return None, f"{type(exc).__name__}: {exc}"
    return {alg: {k: {x: v.get(x) for x in ("mean", "ci", "n")} for k, v in m.items()}
            for alg, m in doc["summary"].items()}, ""  # fmt: skip


def _expected_cpu(scenario: dict[str, Any], algorithm: str) -> float:
    """The family's estimate of one unit's CPU seconds (``schedulers.estimate``), to start the longest first."""
    try:
        est = schedulers.estimate(scenario)
        return float(est.detail["runs"][algorithm]["cpu_s"])
    except Exception:  # no footprint for this family or algorithm: order unknown, run it last
        return 0.0


Unit = tuple[str, str, int]  # (scenario key, algorithm, repetition)
NOT_RUN = "not run: the unit is not in the cache (claims --from-cache)"


def code_digest(family: str) -> str:
    """SHA-256 of the library code a family's results depend on: its package, ``core``, and the front door.

    The family's ``presets.py`` is left out: it builds scenarios (part of a unit's key) and words the
    claims and notes, but computes nothing a unit's result depends on; so is ``core/claims.py``, which
    only checks finished results (a change to how a claim is checked re-checks, it never reruns)."""
    root = Path(schedulers.__file__).resolve().parent
    files = sorted([*(f for f in (root / family).rglob("*.py") if f.name != "presets.py"),
                    *(f for f in (root / "core").rglob("*.py") if f.name != "claims.py"), root / "result.py",
                    root / "registry.py", root / "__init__.py"])  # fmt: skip
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


class UnitCache:
    """Finished units on disk, so an interrupted ``claims`` run resumes where it stopped (``--cache DIR``).

    A unit is stored under the digest of its scenario (name aside) *and* of the code its family runs
    (:func:`code_digest`): any change to the family, ``core`` or the front door misses the cache, so a
    stored unit is only reused by the code that computed it. Its record's metrics and its CPU seconds
    are kept (the CPU seconds reported are those of the run that computed it); failed units are not.
    """

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        self._code: dict[str, str] = {}

    def _path(self, scenario: dict[str, Any], key: str, algorithm: str, repetition: int) -> Path:
        family = str(scenario.get("family"))
        if family not in self._code:
            self._code[family] = code_digest(family)
        name = hashlib.sha256(f"{key}|{self._code[family]}|{algorithm}|{repetition}".encode()).hexdigest()[:32]
        return self.root / family / f"{name}.json"

    def get(self, scenario: dict[str, Any], key: str, algorithm: str, repetition: int) -> tuple[Any, float, str] | None:
        path = self._path(scenario, key, algorithm, repetition)
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return doc["record"], float(doc["cpu_s"]), ""

    def put(
        self, scenario: dict[str, Any], key: str, algorithm: str, repetition: int, done: tuple[Any, float, str]
    ) -> None:
        record, cpu_s, error = done
        if error:
            return
        path = self._path(scenario, key, algorithm, repetition)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"record": record, "cpu_s": cpu_s}))
        os.replace(tmp, path)


def run_units(
    todo: Mapping[str, dict[str, Any]],
    workers: int,
    log: Callable[[str], None],
    cache: UnitCache | None = None,
    run: bool = True,
) -> tuple[dict[Unit, tuple[dict[str, Any] | None, float, str]], dict[str, tuple[dict[str, Any] | None, str]]]:
    """Run every unit of the scenarios ``todo`` (key → scenario), ``workers`` at a time, the longest expected first.

    Returns each unit's ``(record, CPU s, error)`` and each scenario's merged ``(summary or None, error)``.
    Units found in ``cache`` are not run again; the others are stored there as they finish.
    ``run=False`` runs nothing: a unit not in the cache is reported as not run (:data:`NOT_RUN`).
    """
    units: list[Unit] = [(k, alg, rep) for k, s in todo.items() for alg, rep in schedulers.units(s)]
    done: dict[Unit, tuple[dict[str, Any] | None, float, str]] = {}
    if cache is not None:
        for u in units:
            hit = cache.get(todo[u[0]], *u)
            if hit is not None:
                done[u] = hit
        if done:
            log(f"{len(done)} of {len(units)} units found in {cache.root}")
        units = [u for u in units if u not in done]
    if not run:
        done.update(dict.fromkeys(units, (None, 0.0, NOT_RUN)))
        units = []
    expected = {(k, alg): _expected_cpu(todo[k], alg) for k, alg, _ in units}
    units.sort(key=lambda u: -expected[u[:2]])  # stable: equal estimates keep the preset order
    log(
        f"{len(units)} units ((scenario, algorithm, repetition)) of {len(todo)} distinct scenarios, {workers} worker(s)"
    )

    def note(i: int, u: Unit) -> None:
        s = todo[u[0]]
        if cache is not None:
            cache.put(s, *u, done[u])
        log(f"[{i}/{len(units)}] {s.get('family')} {s.get('name')} {u[1]} rep {u[2]}: {done[u][1]:.1f} CPU s")

    if workers <= 1:
        for i, u in enumerate(units, 1):
            done[u] = _unit(todo[u[0]], u[1], u[2])
            note(i, u)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_unit, todo[u[0]], u[1], u[2]): u for u in units}
            for i, fut in enumerate(as_completed(futures), 1):
                done[futures[fut]] = fut.result()
                note(i, futures[fut])
    merged = {}
    for k, s in todo.items():
        mine = [done[(k, alg, rep)] for alg, rep in schedulers.units(s)]
        merged[k] = _merged(s, [m[0] for m in mine], [m[2] for m in mine if m[2]])
    return done, merged


def preset_readings(family: str, preset: str) -> list[Reading]:
    """The readings a preset declares (``READINGS_BY_PRESET[preset]`` of its family's presets module), default
    first; [] when it declares none (its scenarios are then run as given, once)."""
    try:
        module = importlib.import_module(f"schedulers.{family}.presets")
    except ImportError:
        return []
    found = list(getattr(module, "READINGS_BY_PRESET", {}).get(preset, []))
    return sorted(found, key=lambda r: not r.default)


def logs_used(scenarios: Sequence[Mapping[str, Any]]) -> list[str]:
    """The real logs a preset's scenarios replay, named as in the trace directories (the file name, no path)."""
    names = []
    for s in scenarios:
        wl = s.get("workload") or {}
        ref = wl.get("path") or wl.get("trace") if wl.get("kind") == "trace" else None
        if ref:
            names.append(Path(str(ref)).name)
    return list(dict.fromkeys(names))


def run_claims(
    targets: Sequence[tuple[str, str]],
    scale: str = "small",
    workers: int = 2,
    log: Callable[[str], None] = lambda line: None,
    cache: UnitCache | None = None,
    run: bool = True,
) -> list[dict[str, Any]]:
    """Run every ``(family, preset)`` at ``scale`` and check its claims, under each reading it declares.

    The unit of work is one ``(scenario, algorithm, repetition)`` (:func:`schedulers.run_unit`);
    a scenario's units are merged as :func:`schedulers.run` would have (:func:`schedulers.merge`),
    so one heavy scenario spreads over every worker and the verdicts are those of whole runs.

    Returns one report per preset: its name, description, verdicts (under its default reading), the
    number of scenarios, the CPU seconds its scenarios took (``seconds``; ``total_cpu_s`` is the
    whole run's, shared scenarios counted once), its units' CPU seconds
    (``units``: ``[scenario name, algorithm, repetition, CPU s, scenario key]``), how many of them were
    not run (``not_run``, with ``run=False``: only the cache is read), any scenario errors, the real logs
    it replays (``logs``, file names) and those it called for but this machine lacks (``missing_traces``:
    its points ran on the synthetic stand-in its description names), and ``readings``: per declared
    reading ``{name, text, default, why, params, verdicts}`` (empty when the preset declares none).
    """
    docs = {t: schedulers.preset(*t, scale=scale) for t in targets}
    variants: dict[tuple[str, str], list[tuple[Reading | None, list[dict[str, Any]]]]] = {}
    for t, doc in docs.items():
        readings_ = preset_readings(*t) or [None]
        variants[t] = [(r, [r.apply(s) if r else s for s in doc["scenarios"]]) for r in readings_]
    keys = {(t, i): [_key(s) for s in scs] for t, vs in variants.items() for i, (_, scs) in enumerate(vs)}
    todo: dict[str, dict[str, Any]] = {}
    for (t, i), ks in keys.items():
        for k, s in zip(ks, variants[t][i][1], strict=True):
            todo.setdefault(k, s)
    done, merged = run_units(todo, workers, log, cache, run)
    cpu = {k: sum(v[1] for u, v in done.items() if u[0] == k) for k in todo}
    total_cpu = sum(cpu.values())
    reports = []
    for (family, name), doc in docs.items():
        all_keys = list(
            dict.fromkeys(k for i in range(len(variants[(family, name)])) for k in keys[((family, name), i)])
        )
        evaluated = []
        base = keys[((family, name), 0)]  # the default reading's scenarios (readings list the default first)
        for i, (reading, scenarios) in enumerate(variants[(family, name)]):
            pairs = list(zip(keys[((family, name), i)], scenarios, strict=True))
            points = [
                (s["name"], reading.merged(merged[k][0], merged[d][0]) if reading else merged[k][0], s)
                for (k, s), d in zip(pairs, base, strict=True)
            ]
            errors = sorted({f"{s['name']}: {merged[k][1]}" for k, s in pairs if merged[k][1]})
            evaluated.append((reading, pairs, errors, check_study(family, name, points)))
        _, pairs, errors, verdicts = evaluated[0]
        reports.append(
            {
                "family": family,
                "preset": name,
                "title": doc.get("name", name),
                "description": doc.get("description", ""),
                "scale": scale,
                "scenarios": len(doc["scenarios"]),
                "seconds": sum(cpu[k] for k in all_keys),
                "units": [[s["name"], u[1], u[2], done[u][1], k] for k, s in pairs for u in done if u[0] == k],
                "total_cpu_s": total_cpu,
                "errors": errors,
                "not_run": sum(1 for k in all_keys for u, v in done.items() if u[0] == k and v[2] == NOT_RUN),
                "verdicts": verdicts,
                "logs": logs_used(doc["scenarios"]),
                "missing_traces": list(doc.get("missing_traces", [])),
                "readings": [
                    {
                        "name": r.name,
                        "text": r.text,
                        "default": r.default,
                        "why": r.why,
                        "params": dict(r.params),
                        "algorithms": list(r.algorithms),
                        "errors": errs,
                        "verdicts": vs,
                    }
                    for r, _, errs, vs in evaluated
                    if r is not None
                ],
            }
        )
    return reports


class _HiddenLogs(DirectoryCatalog):
    """The trace directories with every real log a preset names hidden (a clone without the logs)."""

    def log(self, filename: str) -> dict[str, str] | None:
        return None


def without_logs(
    targets: Sequence[tuple[str, str]], scale: str, workers: int, cache: UnitCache | None = None, run: bool = True
) -> list[dict[str, Any]]:
    """:func:`run_claims` of ``targets`` as a machine without the real logs runs them (their synthetic stand-ins)."""
    old = set_catalog(_HiddenLogs())
    try:
        return run_claims(targets, scale, workers, cache=cache, run=run)
    finally:
        set_catalog(old)


def readings(family: str) -> list[str]:
    """The readings a family's presets chose where its paper is silent (``READINGS`` of its presets module)."""
    try:
        module = importlib.import_module(f"schedulers.{family}.presets")
    except ImportError:
        return []
    return list(getattr(module, "READINGS", []))


def _longest(report: Mapping[str, Any]) -> str:
    """``, N units, the longest …``: a preset's units and its most expensive one, in CPU seconds."""
    units = report.get("units") or []
    if not units:
        return ""
    ran = [u for u in units if u[3] > 0 or not report.get("not_run")]
    missing = f" ({report['not_run']} not run)" if report.get("not_run") else ""
    if not ran:
        return f", {len(units)} units{missing}"
    name, alg, rep, cpu = max(ran, key=lambda u: u[3])[:4]
    return (f", {len(units)} units (scenario, algorithm, repetition){missing}; "
            f"the longest {name} {alg} rep {rep}: {cpu:.1f} s")  # fmt: skip


UNIT_TARGET_S = 120.0  # no unit of `claims all --scale paper` above this many CPU seconds


def _units_section(reports: Sequence[Mapping[str, Any]]) -> list[str]:
    """The CPU seconds of the longest units and of every unit above :data:`UNIT_TARGET_S`."""
    seen: dict[tuple[str, str, int], tuple[float, tuple[str, str, str, int]]] = {}
    for r in reports:
        for name, alg, rep, cpu, key in r.get("units") or []:
            seen.setdefault((key, alg, rep), (cpu, (r["family"], name, alg, rep)))  # a shared scenario once
    ran = sorted((x for x in seen.values() if x[0] > 0), key=lambda x: -x[0])
    if not ran:
        return []
    over = [x for x in ran if x[0] > UNIT_TARGET_S]
    lines = ["", "## CPU time per unit", "",
             f"{len(ran)} units ran, {sum(c for c, _ in ran):,.0f} CPU s in all; {len(over)} above "
             f"{UNIT_TARGET_S:.0f} CPU s. The longest:", "",
             "| Family | Scenario | Algorithm | Repetition | CPU s |", "|---|---|---|---|---|"]  # fmt: skip
    for cpu, (family, name, alg, rep) in over if len(over) > 15 else ran[:15]:
        lines.append(f"| {family} | {_cell(name)} | {alg} | {rep} | {cpu:.1f} |")
    return lines


def _logs_line(r: Mapping[str, Any]) -> list[str]:
    out = []
    if r.get("logs"):
        out.append(
            "Real logs replayed (named as in the trace directories): " + ", ".join(f"`{n}`" for n in r["logs"]) + "."
        )
    for m in r.get("missing_traces") or []:
        out.append(f"**Log missing, synthetic stand-in used:** {m}.")
    return ["", *out] if out else []


def _verdict_table(r: Mapping[str, Any]) -> list[str]:
    """The claims table; with readings, one verdict column per reading (the default first)."""
    readings_ = r.get("readings") or []
    if not readings_:
        lines = ["", "| Claim | Paper | Measured | Verdict |", "|---|---|---|---|"]
        for v in r["verdicts"]:
            lines.append(f"| {_cell(v['text'])} | {_cell(v['paper'])} | {_cell(v['measured'])} | {v['verdict']} |")
        return lines
    heads = [f"{x['name']}" + (" (default)" if x["default"] else "") for x in readings_]
    lines = ["", "| Claim | Paper | Measured (default reading) | " + " | ".join(f"Verdict: {h}" for h in heads) + " |",
             "|---|---|---|" + "---|" * len(heads)]  # fmt: skip
    for i, v in enumerate(r["verdicts"]):
        cells = " | ".join(x["verdicts"][i]["verdict"] for x in readings_)
        lines.append(f"| {_cell(v['text'])} | {_cell(v['paper'])} | {_cell(v['measured'])} | {cells} |")
    return lines


def _readings_section(r: Mapping[str, Any]) -> list[str]:
    """What each reading sets and, for the alternatives, what every claim measured under it."""
    readings_ = r.get("readings") or []
    if not readings_:
        return []
    lines = ["", "Readings evaluated side by side (the paper leaves these open):", ""]
    for x in readings_:
        params = (
            ", ".join(f"`params.{k} = {json.dumps(v)}`" for k, v in x["params"].items()) or "the scenarios as given"
        )
        if x.get("algorithms"):  # the other algorithms' runs are the default reading's
            params += "; runs only " + ", ".join(x["algorithms"]) + " again"
        lines.append(f"- **{x['name']}**" + (" (default)" if x["default"] else "") + f" ({params}): {x['text']}"
                     + (f" Default because {x['why']}" if x["default"] and x["why"] else ""))  # fmt: skip
    for x in readings_[1:]:
        lines += ["", f"Measured under *{x['name']}*:", ""]
        lines += [f"- failed: {e}" for e in x.get("errors", [])]
        for v in x["verdicts"]:
            lines.append(f"- *{v['text']}* **{v['verdict']}**: {v['measured']}")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def differences(reports: Sequence[Mapping[str, Any]], other: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The claims whose verdict differs between two sets of reports of the same presets (two scales).

    A claim not evaluated in either set (its scenario failed or was not run) is left out: there is no
    verdict to compare."""
    theirs = {(r["family"], r["preset"]): r for r in other}
    out = []
    for r in reports:
        o = theirs.get((r["family"], r["preset"]))
        if o is None:
            continue
        for mine, their in zip(r["verdicts"], o["verdicts"], strict=True):
            if NOT_EVALUATED in (mine["verdict"], their["verdict"]) or mine["verdict"] == their["verdict"]:
                continue
            out.append({"family": r["family"], "preset": r["preset"], "text": mine["text"], "note": mine["note"],
                        r["scale"]: mine["verdict"], o["scale"]: their["verdict"],
                        f"{r['scale']} measured": mine["measured"], f"{o['scale']} measured": their["measured"]})  # fmt: skip
    return out


def _differences_section(
    reports: Sequence[Mapping[str, Any]], other: Sequence[Mapping[str, Any]], link: str
) -> list[str]:
    if not reports or not other:
        return []
    a, b = reports[0]["scale"], other[0]["scale"]
    diffs = differences(reports, other)
    compared = sum(1 for r in other for v in r["verdicts"] if v["verdict"] != NOT_EVALUATED)
    lines = ["", f"## Verdicts that differ at {b} scale", "",
             f"The {b}-scale verdicts are in [{link}]({link}) ({compared} claims evaluated there). "
             f"{len(diffs)} claims evaluated at both scales change verdict; the measured numbers at both sizes "
             "say why (the quantity a claim tests moves with the workload's size), the claim's known note beside them.",
             ""]  # fmt: skip
    if diffs:
        lines += [f"| Preset | Claim | {a} | {b} | Measured at {a} → at {b} |", "|---|---|---|---|---|"]
        for d in diffs:
            why = f"{d[f'{a} measured']} → {d[f'{b} measured']}" + (f" — {d['note']}" if d["note"] else "")
            lines.append(f"| {d['family']} {d['preset']} | {_cell(d['text'])} | {d[a]} | {d[b]} | {_cell(why)} |")
    return lines


def _logs_section(reports: Sequence[Mapping[str, Any]], nologs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Which real logs the run had, which it lacked, and the verdicts a clone without the logs gets instead."""
    used = list(dict.fromkeys(n for r in reports for n in r.get("logs") or []))
    missing = list(dict.fromkeys(m for r in reports for m in r.get("missing_traces") or []))
    lines = ["", "## Logs", "",
             "Logs are looked up by file name in the trace directories (`$CLOUDSCHED_TRACE_DIRS`, then "
             "`../shared/workloads/traces` beside the checkout). "
             + (f"Present when this was generated: {', '.join(f'`{n}`' for n in used)}. " if used else
                "No real log was present when this was generated. ")
             + ("Missing (their presets ran on the synthetic stand-in their description names): "
                + "; ".join(missing) + "." if missing else "")]  # fmt: skip
    if not nologs:
        return lines
    mine = {(r["family"], r["preset"]): r for r in reports}
    changed = []
    for o in nologs:
        r = mine.get((o["family"], o["preset"]))
        if r is None:
            continue
        for a, b in zip(r["verdicts"], o["verdicts"], strict=True):
            if a["verdict"] != b["verdict"]:
                changed.append((o, a, b))
    presets = ", ".join(f"{o['family']} {o['preset']}" for o in nologs)
    lines += ["", f"A clone without these logs runs {presets} on their synthetic stand-ins (run here with the logs "
              f"hidden): {len(changed)} verdicts differ from the ones below"
              + (":" if changed else "."), ""]  # fmt: skip
    if changed:
        lines += ["| Preset | Claim | With the logs | Without them | Measured without them |", "|---|---|---|---|---|"]
        for o, a, b in changed:
            lines.append(f"| {o['family']} {o['preset']} | {_cell(a['text'])} | {a['verdict']} | {b['verdict']} | "
                         f"{_cell(b['measured'])} |")  # fmt: skip
    totals = verdict_counts([v for r in reports for v in r["verdicts"]])
    delta = {k: sum(1 for _, a, b in changed if b["verdict"] == k) - sum(1 for _, a, b in changed if a["verdict"] == k)
             for k in totals}  # fmt: skip
    lines += ["", "Totals without the logs: " + ", ".join(f"{totals[k] + delta[k]} {k}" for k in totals) + "."]
    return lines


def markdown(reports: Sequence[Mapping[str, Any]], wall_s: float, command: str, note: str = "",
             other: Sequence[Mapping[str, Any]] = (), other_link: str = "",
             nologs: Sequence[Mapping[str, Any]] = ()) -> str:  # fmt: skip
    """docs/reproduction.md: per family, each claim's paper number, measurement and verdict, then the readings.

    ``note`` is printed under the header (how the run was made, when it was not one command);
    ``other`` are the same presets' reports at another scale (written at ``other_link``): the claims
    whose verdict differs are listed after the totals; ``nologs`` are the reports of the presets that
    replay a real log, run again with the logs hidden (what a clone without them gets)."""
    total = verdict_counts([v for r in reports for v in r["verdicts"]])
    not_run = sum(r.get("not_run", 0) for r in reports)
    lines = [
        "# Reproduction: the papers' claims, checked",
        "",
        f"Generated by `{command}` (from the repository root; `--cache DIR` only saves recomputation): "
        f"{reports[0]['total_cpu_s'] if reports else 0:.0f} s of CPU for the "
        "distinct scenarios (shared ones run once), "
        + (f"{wall_s / 60:.1f} min wall" if wall_s >= 0 else "every unit read from the cache (wall times below)")
        + " on this machine (2 cores, shared with other jobs when generated). Do not edit by hand: rerun the command. "
        "Each preset states its claims as checks over its study results "
        "(`schedulers/core/claims.py`); the same verdicts appear on a preset study's page when it finishes.",
        *(["", note] if note else []),
        *(
            [
                "",
                f"**Partial:** {not_run} units were not run (not in the cache when this was written): "
                "a scenario missing a unit has no values, so its presets' claims over it are 'not evaluated' "
                "and name it as failed.",
            ]
            if not_run
            else []
        ),
        "",
        f"Totals: {total[REPRODUCED]} reproduced, {total[NOT_REPRODUCED]} not reproduced, "
        f"{total[NOT_EVALUATED]} not evaluated.",
        "",
        "Scale: " + ", ".join(sorted({r["scale"] for r in reports})) + ". The `small` scale is a documented "
        "reduction (each preset's description says which); a claim that holds at `paper` scale may not at "
        "`small`, and the reverse. Run `python -m schedulers claims FAMILY --scale paper` for the paper's sizes"
        + (
            "; the paper-scale document is [reproduction-paper.md](reproduction-paper.md)."
            if {r["scale"] for r in reports} == {"small"} and not other
            else "."
        ),
    ]
    alt = [(r, x) for r in reports for x in (r.get("readings") or [])[1:]]
    if alt:
        flips = sum(1 for r, x in alt for a, b in zip(r["verdicts"], x["verdicts"], strict=True)
                    if a["verdict"] != b["verdict"])  # fmt: skip
        lines += ["", f"Readings: {len(alt)} alternative readings (of {len({(r['family'], r['preset']) for r, _ in alt})} "
                  f"presets) are evaluated beside their default; {flips} verdicts change under them (the tables "
                  "show one verdict column per reading; the totals above count the defaults)."]  # fmt: skip
    lines += _logs_section(reports, nologs)
    lines += _differences_section(reports, other, other_link)
    for family in dict.fromkeys(r["family"] for r in reports):
        lines += ["", f"## {family}", ""]
        for r in (r for r in reports if r["family"] == family):
            lines += [f"### {r['title']} (`{r['preset']}`)", "", r["description"], ""]
            lines.append(f"{r['scenarios']} scenarios, {r['seconds']:.0f} s of CPU{_longest(r)}.")
            for e in r["errors"]:
                lines.append(f"- failed: {e}")
            lines += _logs_line(r)
            lines += _verdict_table(r)
            notes = [v for v in r["verdicts"] if v.get("note")]
            if notes:
                lines += ["", "Known differences (numbers from the run above):", ""]
                lines += [f"- *{v['text']}* {v['note']}" for v in notes]
            lines += _readings_section(r)
            lines.append("")
        notes = readings(family)
        lines += ["### Readings chosen where the paper is silent", ""]
        lines += [f"- {n}" for n in notes]
        lines.append(
            f"- The algorithms' own readings (tie-breaks, models, units) are stated in the docstrings of "
            f"`schedulers/{family}/` and collected in `docs/{family}.md`."
        )
    lines += _units_section(reports)
    return "\n".join(lines).rstrip() + "\n"
