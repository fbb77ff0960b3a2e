"""A paper preset's claims as the pages show them: each with its verdict when a study evaluated it.

The claims and their checks are the library's (``schedulers.preset_claims``, ``schedulers/core/claims.py``);
a study evaluates them once when it finishes (``Study.check_claims`` stores ``Study.verdicts``).
Here they are only looked up: the latest evaluated study of each preset, per user, in one query.
"""

from cloudsched_web.runs.models import Study


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


def study_claims(study):
    """The claims beside a study: its verdicts once checked, else the preset's claims (not yet evaluated)."""
    if study.verdicts:
        return study.verdicts
    if study.preset:
        return preset_claims(study.scenario.family, study.preset) or [{"text": c} for c in study.claims]
    return [{"text": c, "verdict": "not checked"} for c in study.claims]
