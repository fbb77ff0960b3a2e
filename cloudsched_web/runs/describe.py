"""The line a run page prints about its workload, read the way each family reads its workload.

A trace replayed at its logged load must say so ("load: as logged (0.73)"), not show a load the
form would have used: the load of a trace is a property of the log unless the scenario scales it
(backfill ``workload.load``, Section 3.3 of the backfill paper), and the other families replay a
trace's arrivals as logged (federated divides the gaps by ``gap_divisor``). What the run measured
(the logged load, the scaling factor) comes from the result's ``extra.workload`` when the family
reports it (backfill does, see ``schedulers/backfill/output.py``).
"""

from pathlib import PurePath

# Fields the generic line never prints as such: an uploaded trace's text, its path (named in the head).
_BULKY = {"swf", "text", "path", "trace", "kind"}


def _num(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _p(template, *values):
    """``template`` filled with the values, or None when one is missing (an unnormalised configuration)."""
    return None if any(v is None for v in values) else template.format(*(_num(v) for v in values))


def _trace_name(workload):
    path, ref = (workload.get("path") or "").strip(), (workload.get("trace") or "").strip()
    if path:
        return PurePath(path).name
    return f"stored as {ref[:19]}…" if ref else "uploaded"  # ref: a stored trace's "sha256:<digest>"


def _measured(header):
    """The first run's ``extra.workload`` (the same instance for every algorithm of a repetition)."""
    runs = (header or {}).get("runs") or [{}]
    return (runs[0].get("extra") or {}).get("workload") or {}


def _load(workload, measured, as_is):
    """Backfill's offered load: the scenario's target, or the workload's own ("as logged")."""
    natural, factor = measured.get("natural_load"), measured.get("load_factor")
    target = workload.get("load")
    if target is None:
        return f"load: {as_is} ({natural:.2f})" if natural is not None else f"load: {as_is}"
    if factor and factor != 1.0:  # scaled (scale_load): inter-arrivals × factor, the workload's own load / target
        return f"load {_num(target)} ({as_is.split()[-1]} {target * factor:.2f}, inter-arrivals × {factor:.3g})"
    return f"load {_num(target)}"


def _backfill(workload, measured):
    kind = workload.get("kind", "generator")
    jobs = measured.get("jobs")
    if kind == "trace":
        size = _p("{} jobs", jobs) if jobs else _p("first {} jobs", workload.get("max_jobs") or None) or "all jobs"
        if measured.get("dropped_too_large"):
            size += f" ({measured['dropped_too_large']:,} wider than the machine left out)"
        return [f"SWF trace {_trace_name(workload)}", size, _load(workload, measured, "as logged"),
                f"estimates: {workload.get('estimates', 'trace')}"]  # fmt: skip
    if kind == "jobs":
        return [f"{len(workload.get('jobs') or [])} listed jobs", _load(workload, measured, "as given")]
    return [f"{workload.get('model', 'feitelson')} generator", _p("{} jobs", workload.get("n_jobs")),
            _load(workload, measured, "as generated"), f"estimates: {workload.get('estimates', 'tsafrir')}"]  # fmt: skip


def _gaps(workload):
    divisor = workload.get("gap_divisor", 1.0) or 1.0
    return "arrival gaps ÷ " + _num(divisor) if divisor != 1 else None


def _federated(workload, measured):
    kind = workload.get("kind", "generator")
    if kind == "trace":
        skip = f"after skipping {workload['skip_jobs']}" if workload.get("skip_jobs") else None
        return [f"SWF trace {_trace_name(workload)}", _p("at most {} jobs", workload.get("max_jobs")), skip,
                _p("grouped {}–{} jobs per application", workload.get("group_min"), workload.get("group_max")),
                _gaps(workload) or "arrivals as logged", _p("AR share {}", workload.get("ar_share"))]  # fmt: skip
    if kind == "jobs":
        return [f"{len(workload.get('jobs') or [])} listed applications", _gaps(workload)]
    return [_p("{} generated applications", workload.get("apps")),
            _p("{}–{} tasks each", workload.get("tasks_min"), workload.get("tasks_max")),
            _p("mean arrival gap {} s", workload.get("mean_gap_s")), _gaps(workload),
            _p("AR share {}", workload.get("ar_share"))]  # fmt: skip


def _vm_reservations(workload, measured):
    kind = workload.get("kind", "generator")
    if kind == "trace":
        skip = f"after skipping {workload['skip']}" if workload.get("skip") else None
        return [f"SWF trace {_trace_name(workload)}", _p("first {} usable jobs", workload.get("n_requests")), skip,
                "arrivals and durations as logged", f"VM types by {workload.get('proc_mapping', 'nearest_cpu')}"]  # fmt: skip
    if kind == "jobs":
        return [f"{len(workload.get('jobs') or [])} listed reservations"]
    return [_p("{} generated reservations", workload.get("n_requests")),
            _p("mean inter-arrival {} slots", workload.get("mean_interarrival_slots")),
            _p("durations up to {} slots", workload.get("max_duration_slots"))]  # fmt: skip


def _generic(workload, measured):
    kind = workload.get("kind", "")
    fields = [f"{k} {_num(v)}" for k, v in workload.items() if k not in _BULKY and isinstance(v, (int, float, str))]
    head = f"SWF trace {_trace_name(workload)}" if kind == "trace" else kind
    return [head, *fields[:6]]


FAMILIES = {"backfill": _backfill, "federated": _federated, "vm_reservations": _vm_reservations}


def workload(config, header=None):
    """One line about the run's workload, e.g. "SWF trace CTC.swf.gz · 5000 jobs · load: as logged (0.73)"."""
    wl = (config or {}).get("workload")
    if not isinstance(wl, dict):
        return ""
    describe = FAMILIES.get((config or {}).get("family", ""), _generic)
    try:
        parts = describe(wl, _measured(header))
    except (TypeError, ValueError, KeyError):  # a configuration from an older schema: say what we can
        parts = _generic(wl, {})
    return " · ".join(p for p in parts if p)


def dropped(header):
    """What the run left out of its trace, in words for the run header ("" when nothing was): jobs wider
    than the machine (federated: VMs of its largest cloud), which a run drops only when its scenario says so
    (``workload.wider_jobs``)."""
    measured = _measured(header)
    count = measured.get("dropped_too_large")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        return ""
    jobs = "1 job" if count == 1 else f"{count:,} jobs"
    unit = measured.get("unit") or "processors"  # federated: VMs of its largest cloud
    machine = _p(" of {} " + unit, measured.get("processors")) or ""
    kept = _p(" (it ran {} of them)", measured.get("jobs")) or ""
    why = "as the scenario asks (Jobs wider than the machine: drop)" if measured.get("wider_jobs") == "drop" else (
        "(a run from before such traces were refused)")  # fmt: skip
    return f"{jobs} of the trace needed more than the machine{machine} and {'was' if count == 1 else 'were'} " \
           f"left out{kept}, {why}."  # fmt: skip
