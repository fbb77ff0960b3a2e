"""Which metric of a run is a lower bound of which other (the gap rows, the bound bars, the bound checks)."""

import re

__all__ = ["bound_pairs"]

# A metric named like one of these is a lower bound of another metric of the same run.
_BOUND_PATTERNS = (
    re.compile(r"^lower_bound_(?P<target>.+)$"),  # lower_bound_energy_kwh -> energy_kwh
    re.compile(r"^(?P<target>.+)_lower_bound$"),
)
_NAMED_BOUND = re.compile(r"^(?P<kind>[a-z]+)_bound(?P<unit>_[a-z]+)?$")  # lp_bound_s


def bound_pairs(metric_names):
    """``{bound_metric: target_metric}`` for the lower bounds a family reports.

    ``lower_bound_X`` bounds ``X``; ``<kind>_bound_<unit>`` (``lp_bound_s``) bounds the
    metric ``M_<unit>`` whose ratio ``M_over_<kind>_bound`` the family also reports, or
    else the only other metric with that unit.
    """
    names = set(metric_names)
    pairs = {}
    for name in sorted(names):
        for pattern in _BOUND_PATTERNS:
            m = pattern.match(name)
            if m and m["target"] in names:
                pairs[name] = m["target"]
        m = _NAMED_BOUND.match(name)
        if m and name not in pairs:
            unit = m["unit"] or ""
            ratio = [n for n in names if n.endswith(f"_over_{m['kind']}_bound")]
            candidates = [r.split("_over_")[0] + unit for r in ratio]
            candidates = [c for c in candidates if c in names]
            if not candidates and unit:
                candidates = [n for n in names if n.endswith(unit) and n != name and "bound" not in n]
            if len(candidates) == 1:
                pairs[name] = candidates[0]
    return pairs
