"""How the pages write a metric's number: one rule table, read here and by ``static/js/format.js``.

A metric's kind and unit come from its family's declaration (``Family.metrics``, a
:class:`schedulers.core.metrics.Metric`). :data:`RULES` says, per kind, how a stored unit
converts to the kind's base unit and which display unit a value of a given size takes; the
browser receives the same table (``{% format_rules %}``) so the table, the chart ticks and the
tooltips write a number the same way. The algorithm below and its JavaScript twin are kept
line for line alike; a browser test compares their output on every cell of a result page.

* count — an integer with thin-space thousands (a mean over repetitions keeps one decimal);
* flag — ✓ / ✗ (a mean over repetitions: the share of repetitions where it held);
* duration — ``3.2 s``, ``12.5 min``, ``40.2 h``, ``2 d 22 h``, the exact seconds in the title; exact and still
  readable (tooltips, the diff table): ``1 d 21 h 25 min 23.5 s`` (:func:`duration_text`);
* energy Wh / kWh / MWh, power W / kW / MW, frequency MHz / GHz — by size;
* fraction — a percentage (its spread in percentage points, ``± 1.2 pp``); ratio, quantity and undeclared numbers — four significant digits.

Never ``1000.0000``, and an exponent only past :data:`HUGE` (``1.23 × 10¹⁸``): a number of
hundreds of digits (a load of 1e-300 once made a 400-digit makespan) is written by its magnitude.
"""

from __future__ import annotations

import math

__all__ = ["DEFAULT_SPEC", "HUGE", "RULES", "THIN", "duration_text", "exact_text", "fixed", "full", "page_refs",
           "scientific", "setting_text", "significant", "spec_dict", "specs", "spread_text", "value_text", "with_ref"]  # fmt: skip

THIN = "\u202f"  # narrow no-break space: the SI thousands separator, never a line break
HUGE = 1e15  # from here on a number is written as mantissa × 10 to a power (RULES["huge"])

RULES = {
    "thousands": THIN,
    "huge": HUGE,
    "flag": ["✓", "✗"],
    # The spread of a percentage is a difference of percentages: percentage points, not a percent of it.
    "points": "pp",
    "significant": {"scaled": 3, "ratio": 4, "quantity": 4, "money": 2, "number": 4, "spread": 2},
    # per kind: stored unit → factor to the base unit; display steps [threshold in base units, unit, factor]
    "scales": {
        "duration": {
            "to_base": {"ms": 0.001, "s": 1, "min": 60, "h": 3600, "d": 86400},
            "steps": [[172800, "d h", 86400], [3600, "h", 3600], [60, "min", 60], [1, "s", 1], [0, "ms", 0.001]],
        },
        "energy": {
            "to_base": {"J": 1 / 3600, "Wh": 1, "kWh": 1e3, "MWh": 1e6},
            "steps": [[1e9, "GWh", 1e9], [1e6, "MWh", 1e6], [1e3, "kWh", 1e3], [0, "Wh", 1]],
        },
        "power": {
            "to_base": {"W": 1, "kW": 1e3, "MW": 1e6},
            "steps": [[1e6, "MW", 1e6], [1e3, "kW", 1e3], [0, "W", 1]],
        },
        "frequency": {
            "to_base": {"MHz": 1, "GHz": 1e3},
            "steps": [[1e3, "GHz", 1e3], [0, "MHz", 1]],
        },
    },
}

DEFAULT_SPEC = {"kind": "number", "unit": "", "label": "", "description": ""}


def _group(digits: str) -> str:
    """Thousands separators in the integer part of a plain decimal string."""
    sign = "-" if digits.startswith("-") else ""
    whole, _, frac = digits.lstrip("-").partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return sign + RULES["thousands"].join(groups) + ("." + frac if frac else "")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int) -> str:
    """``value`` as ``1.23 × 10¹⁸``: ``digits`` significant digits, trailing zeros dropped."""
    mantissa, exponent = f"{value:.{max(0, digits - 1)}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, trailing zeros dropped, thousands grouped; an exponent only
    from :data:`HUGE` on (then 6 significant digits)."""
    if math.isfinite(value) and abs(value) >= HUGE:
        return scientific(value, 6)
    text = f"{value:.{max(0, min(12, decimals))}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return _group(text)


def full(value: float) -> str:
    """``value`` to 15 significant digits, all a float holds without noise (``122 420 000.125``; ``0.1 + 0.2``
    reads ``0.3``), at most 12 decimals, trailing zeros dropped."""
    if value == 0 or not math.isfinite(value) or abs(value) >= HUGE:
        return fixed(value, 0) if math.isfinite(value) and abs(value) < HUGE else scientific(value, 15)
    return fixed(value, 14 - math.floor(math.log10(abs(value))))


def significant(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits (all of its integer digits are kept)."""
    if value == 0 or not math.isfinite(value):
        return fixed(value, 0) if math.isfinite(value) else str(value)
    if abs(value) >= HUGE:
        return scientific(value, digits)
    magnitude = math.floor(math.log10(abs(value)))
    return fixed(value, digits - 1 - magnitude)


def _step(kind: str, base: float) -> list:
    """The display step of a value (in base units); zero takes the base unit (``0 s``, never ``0 ms``)."""
    steps = RULES["scales"][kind]["steps"]
    if base == 0:
        return next(s for s in steps if s[2] == 1)
    return next((s for s in steps if abs(base) >= s[0]), steps[-1])


def _to_base(kind: str, unit: str, value: float) -> float:
    return value * RULES["scales"][kind]["to_base"].get(unit, 1)


def _days_hours(base: float) -> str:
    if abs(base) >= HUGE:  # millions of years: days by their magnitude, no hours
        return f"{significant(base / 86400, RULES['significant']['scaled'])} d"
    sign = "-" if base < 0 else ""
    hours = math.floor(abs(base) / 3600 + 0.5)  # half up, as JavaScript's Math.round
    return f"{sign}{_group(str(hours // 24))} d {hours % 24} h"


def value_text(value, spec=None, ref=None) -> str:
    """The text of one value of a metric (``spec``: kind, unit); ``ref`` picks the display unit (a chart axis).

    A spec's own ``ref`` (set by :func:`page_refs`: one energy unit for a whole page) wins over ``ref``.
    """
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    spec = spec or DEFAULT_SPEC
    kind, unit = spec.get("kind", "number"), spec.get("unit", "")
    ref = spec["ref"] if spec.get("ref") is not None else ref  # one unit for the page (energy)
    sig = RULES["significant"]
    if kind == "count":
        return fixed(value, 0 if float(value).is_integer() else 1)
    if kind == "flag":
        yes, no = RULES["flag"]
        if value in (0, 1):
            return yes if value == 1 else no
        return f"{yes} {significant(value * 100, 2)} %"
    if kind in ("fraction", "percent"):
        return significant(value * 100 if kind == "fraction" else value, sig["scaled"]) + " %"
    if kind in RULES["scales"]:
        base = _to_base(kind, unit, value)
        step = _step(kind, _to_base(kind, unit, ref) if ref is not None else base)
        if step[1] == "d h":
            return _days_hours(base)
        return f"{significant(base / step[2], sig['scaled'])} {step[1]}"
    if kind == "money":
        return f"{fixed(value, sig['money'])} {unit}"
    text = significant(value, sig.get(kind, sig["number"]))
    return f"{text} {unit}" if unit else text


def setting_text(value) -> str:
    """A scenario setting as a person wrote it: a float to 12 significant digits, so a value made by
    arithmetic (``0.6 * 262`` = ``157.20000000000002``) reads ``157.2``; anything else as ``str``."""
    if isinstance(value, float) and math.isfinite(value):
        return repr(float(f"{value:.12g}"))
    return str(value)


def spread_text(value, err, spec=None) -> str:
    """``± err`` in the display unit of ``value`` (a duration over two days: in hours)."""
    if not err:
        return ""
    spec = spec or DEFAULT_SPEC
    kind, unit = spec.get("kind", "number"), spec.get("unit", "")
    digits = RULES["significant"]["spread"]
    if kind in ("fraction", "percent"):
        return "± " + significant(err * 100 if kind == "fraction" else err, digits) + " " + RULES["points"]
    if kind in RULES["scales"]:
        step = _step(kind, _to_base(kind, unit, spec["ref"] if spec.get("ref") is not None else value))
        factor, name = (3600, "h") if step[1] == "d h" else (step[2], step[1])
        return f"± {significant(_to_base(kind, unit, err) / factor, digits)} {name}"
    text = significant(err, digits)
    return f"± {text} {unit}" if unit and kind not in ("count", "flag", "ratio") else f"± {text}"


def exact_text(value, spec=None) -> str:
    """The tooltip and the diff table: the stored number in full (durations in seconds, :func:`full`)."""
    if value is None:
        return ""
    spec = spec or DEFAULT_SPEC
    kind, unit = spec.get("kind", "number"), spec.get("unit", "")
    if kind == "duration":
        return f"{full(_to_base(kind, unit, value))} s"
    text = fixed(value, 6)
    return f"{text} {unit}" if unit else text


def duration_text(value, spec=None) -> str:
    """A duration, or a time since the run's start, exact and readable: ``1 d 21 h 25 min 23 s``, ``42.8 s``.

    The whole number is rounded once to the decimals :func:`full` keeps (15 significant digits: no float
    noise), then split into days, hours, minutes and seconds, so the seconds never read 60; parts that are
    zero are left out. Past :data:`HUGE`, days by their magnitude. ``spec``'s unit (default seconds)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    sec = _to_base("duration", (spec or {}).get("unit") or "s", value)
    if abs(sec) >= HUGE:
        return f"{scientific(sec / 86400, 15)} d"
    decimals = 0 if sec == 0 else max(0, min(12, 14 - math.floor(math.log10(abs(sec)))))
    rest = float(f"{abs(sec):.{decimals}f}")
    parts = []
    for name, size in (("d", 86400), ("h", 3600), ("min", 60)):
        n = math.floor(rest / size)
        if n:
            parts.append(f"{_group(str(n))} {name}")
        rest -= n * size
    if rest > 0 or not parts:
        parts.append(f"{fixed(rest, decimals)} s")
    text = " ".join(parts)
    return "-" + text if sec < 0 and text != "0 s" else text


def spec_dict(metric) -> dict:
    """A declared :class:`~schedulers.core.metrics.Metric` as the JSON the pages use."""
    return {"kind": metric.kind, "unit": metric.unit, "label": metric.label,
            "description": metric.description, "ci_of": metric.ci_of, "same_as": metric.same_as}  # fmt: skip


PAGE_UNIT_KINDS = ("energy",)  # kinds a page writes in one unit, whatever the size of each value


def page_refs(specs: dict, values: dict) -> dict:
    """``{kind: largest |value| in the kind's base unit}`` over ``values`` (``{metric: [numbers]}``).

    A page gives every metric of such a kind this reference (:func:`with_ref`), so its table,
    charts and tooltips write energy in one unit (``kWh``) chosen by the largest value.
    """
    refs = {}
    for name, numbers in values.items():
        spec = specs.get(name) or DEFAULT_SPEC
        kind = spec.get("kind")
        if kind in PAGE_UNIT_KINDS:
            for v in numbers:
                if isinstance(v, (int, float)) and math.isfinite(v):
                    refs[kind] = max(refs.get(kind, 0.0), abs(_to_base(kind, spec.get("unit", ""), v)))
    return refs


def with_ref(spec: dict, refs: dict) -> dict:
    """``spec`` with its page reference (in its own stored unit) when its kind has one."""
    kind = spec.get("kind")
    if kind not in refs or not refs[kind]:
        return spec
    return {**spec, "ref": refs[kind] / RULES["scales"][kind]["to_base"].get(spec.get("unit", ""), 1)}


def _family_metrics(family: str):
    import schedulers

    try:
        return schedulers.get_family(family).metrics
    except schedulers.ScenarioError:
        return {}


def specs(family: str, names) -> dict:
    """``{name: spec}`` for the metrics of a result; an undeclared name (an older result) is a plain number."""
    from schedulers.core.metrics import declared

    declared_metrics = _family_metrics(family)
    out = {}
    for name in names:
        metric = declared(declared_metrics, name)
        out[name] = spec_dict(metric) if metric else {**DEFAULT_SPEC, "label": name, "ci_of": None, "same_as": None}
    return out
