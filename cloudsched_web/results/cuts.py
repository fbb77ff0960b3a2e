"""Where a family's segment limit stopped recording a run's schedule (the charts' and the diff's notice)."""

__all__ = ["cut_at", "cut_for_chart", "recording_cut", "schedule_cuts"]


def schedule_cut(run):
    """How a segment limit stopped the family's recording: ``{"limit", "recorded", "cut_at_s"}``, or None.

    ``extra.schedule_cut`` (schedulers.core.columns.schedule_cut) says it all. Results stored
    before it existed flagged a cut with ``extra.schedule_truncated`` (backfill) or the metric
    ``schedule_truncated`` (federated): the cut is known, its figures are not (None).
    """
    extra = run.get("extra") or {}
    cut = extra.get("schedule_cut")
    if isinstance(cut, dict):
        return {"limit": cut.get("limit"), "recorded": cut.get("recorded"), "cut_at_s": cut.get("cut_at_s")}
    legacy = any("truncat" in k and v for k, v in extra.items())
    if legacy or (run.get("metrics") or {}).get("schedule_truncated"):
        return {"limit": None, "recorded": None, "cut_at_s": None}
    return None


def recording_cut(run):
    """Whether a limit stopped the family's schedule recording (see :func:`schedule_cut`)."""
    return schedule_cut(run) is not None


def cut_for_chart(run, recorded, span):
    """:func:`schedule_cut` with what a result from before ``extra.schedule_cut`` can still tell:
    the segments recorded and the last recorded end."""
    cut = schedule_cut(run)
    if cut is None:
        return None
    if cut["recorded"] is None:
        cut["recorded"] = recorded
    if cut["limit"] is None and cut["cut_at_s"] is None and recorded:
        cut["cut_at_s"] = span[1]
    return cut


def schedule_cuts(doc):
    """Every algorithm × repetition run whose schedule a limit cut, for the result page's notice."""
    out = []
    for run in doc.get("runs", []):
        cut = schedule_cut(run)
        if cut is not None:
            out.append({"algorithm": run.get("algorithm", ""), "repetition": run.get("repetition", 0), **cut})
    return out


def cut_at(parsed, index):
    """Where the family stopped recording run ``index``'s segments, on its time axis; None if it recorded all.

    ``extra.schedule_cut = {"limit", "recorded", "cut_at_s"}`` says it; an older result that only
    flags ``schedule_truncated`` (in its extras or metrics) is taken as cut at the end of what it
    recorded (the latest segment end), the earliest time from which nothing is known to be recorded.
    """
    cut = schedule_cut(parsed.run(index))  # the one reading of a cut (and of the older flags)
    if cut is None:
        return None
    at = cut["cut_at_s"]
    return float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else parsed.span(index)[1]
