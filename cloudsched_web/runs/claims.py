"""A paper preset's claims as the pages show them: each with its verdict when a study evaluated it.

The claims and their checks are the library's (``schedulers.preset_claims``, ``schedulers/core/claims.py``);
a study evaluates them once when it finishes (``Study.check_claims`` stores ``Study.verdicts``).
Here they are only looked up: the latest evaluated study of each preset, per user, in one query.
"""

from cloudsched_web.runs.models import Run, Study


def preset_claims(family, preset):
    """The preset's claims as rows ``{text, paper, note}`` (no verdict); [] for a preset that is gone."""
    import schedulers
    from schedulers.core.claims import Note

    try:  # a note's numbers come from the study's run: "…" until one is evaluated
        return [{"text": c.text, "paper": c.paper, "note": c.note.unfilled() if isinstance(c.note, Note) else c.note}
                for c in schedulers.preset_claims(family, preset)]  # fmt: skip
    except schedulers.ScenarioError:
        return []


def latest_evaluations(user):
    """``{(family, preset): study}``: the user's latest study of each preset, evaluated ones first."""
    rows = (
        Study.objects.filter(scenario__owner=user)
        .exclude(preset="")
        .select_related("scenario")
        .defer("scenario__config")
        .order_by("-created_at")
    )
    out = {}
    for st in rows:
        key = (st.scenario.family, st.preset)
        if key not in out or (out[key].verdicts is None and st.verdicts is not None):
            out[key] = st
    return out


def with_verdicts(claims, study):
    """``claims`` rows with the verdict and measured numbers of ``study`` (matched by the claim's text)."""
    verdicts = {v.get("text"): v for v in (study.verdicts or [])} if study is not None else {}
    return [{**c, **{k: verdicts[c["text"]].get(k, "") for k in ("verdict", "measured")}} if c["text"] in verdicts else c
            for c in claims]  # fmt: skip


def counts(claims):
    """ "2 reproduced, 1 not reproduced" for claims rows with verdicts; "" when none is evaluated."""
    tally = {}
    for c in claims:
        if c.get("verdict"):
            tally[c["verdict"]] = tally.get(c["verdict"], 0) + 1
    return ", ".join(f"{n} {v}" for v, n in tally.items())


def study_claims(study, reading=None):
    """The claims beside a study: its verdicts once checked, else the preset's claims (not yet evaluated);
    with an alternative ``reading`` (a :class:`StudyReading` of the study), that reading's verdicts."""
    verdicts = reading.verdicts if reading is not None and not reading.default else study.verdicts
    if verdicts:
        return verdicts
    if study.preset:
        return preset_claims(study.scenario.family, study.preset) or [{"text": c} for c in study.claims]
    return [{"text": c, "verdict": "not checked"} for c in study.claims]


WAITING, RUNNING, FAILED = "waiting", "running", "failed"


def _state(counts, verdicts):
    """A reading's state from its runs' ``{status: n}``: waiting (none started), running, failed (every run
    failed or was cancelled: nothing to check the claims on), or evaluated."""
    total = sum(counts.values())
    failed = counts.get(Run.Status.FAILED, 0) + counts.get(Run.Status.CANCELLED, 0)
    if verdicts is not None:
        return FAILED if total and failed == total else "evaluated"
    if counts.get(Run.Status.QUEUED, 0) == total:
        return WAITING
    return RUNNING


def study_readings(study):
    """A preset study's claims with one verdict per reading, as ``{readings, rows}``; None for a study
    without readings (created before them, from a preset that declares none, or without its alternatives).

    ``readings``: each reading's name, text, whether it is the default and why, its parameters, its runs'
    counts by status, ``state`` (:func:`_state`) and ``failed`` (how many of its runs failed). ``rows``: per
    claim its text, paper number and note (the default reading's) and one cell per reading: its verdict
    and measured numbers once that reading's runs are done, else the reading's state (waiting, running).
    """
    declared = list(study.readings.all())
    if not declared:
        return None
    by_reading = {}
    for reading_id, status in study.runs.values_list("reading_id", "status"):
        counts = by_reading.setdefault(reading_id, {})
        counts[status] = counts.get(status, 0) + 1
    readings = []
    for r in declared:
        counts = by_reading.get(None if r.default else r.pk, {})
        verdicts = study.verdicts if r.default else r.verdicts
        failed = counts.get(Run.Status.FAILED, 0) + counts.get(Run.Status.CANCELLED, 0)
        readings.append({"name": r.name, "text": r.text, "default": r.default, "why": r.why, "params": r.params,
                         "algorithms": r.algorithms,
                         "counts": counts, "runs": sum(counts.values()), "failed": failed,
                         "state": _state(counts, verdicts), "verdicts": verdicts})  # fmt: skip
    base = study.verdicts or preset_claims(study.scenario.family, study.preset) or [{"text": c} for c in study.claims]
    by_text = [{v.get("text"): v for v in r["verdicts"] or []} for r in readings]
    rows = []
    for claim in base:
        cells = []
        for r, verdicts in zip(readings, by_text, strict=True):
            found = verdicts.get(claim.get("text"))
            if found is not None:
                cells.append({"verdict": found.get("verdict", ""), "measured": found.get("measured", "")})
            elif r["verdicts"] is not None:  # checked, but this claim is not among its verdicts (preset changed)
                cells.append({"verdict": "not evaluated", "measured": ""})
            else:
                cells.append({"verdict": r["state"], "measured": ""})
        rows.append({"text": claim.get("text", ""), "paper": claim.get("paper", ""), "note": claim.get("note", ""),
                     "cells": cells})  # fmt: skip
    return {"readings": readings, "rows": rows}
