"""A study's figure as a file (SVG or PDF), drawn with matplotlib from the payload the study page draws.

The page's chart (static/js/pages/study.js) and this figure read the same ``charts.study_payload``: one line per
algorithm (× second swept value) in the study's line order, each point the mean over repetitions with the
same whisker (the spread the table shows: 95 % CI over repetitions, else the family's within-run CI, else
the sd), the instance's lower bound as a dashed grey line, the same colours (``ALGORITHM_COLOURS`` mirrors
static/js/lib/colours.js; a test holds them equal), line styles and markers per second swept value, and the
legend below the plot. Values are plotted in the metric's stored unit, named on the y axis.

Each line is an SVG group ``id="line-<k>"`` (k: its place in ``lines_of``) and the SVG keeps its text as
text, so a reader (or a test) finds a line's points and labels in the file. Output is deterministic (no
date; fixed ids).
"""

from __future__ import annotations

import io
import logging

__all__ = ["FORMATS", "algorithm_colour", "figure_bytes", "lines_of", "save", "study_figure"]

FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}
logging.getLogger("fontTools").setLevel(logging.WARNING)  # its font subsetting (PDF) logs every glyph at INFO

# The same as ALGORITHM_COLOURS and POLICY_SHADE in static/js/lib/colours.js.
ALGORITHM_COLOURS = {
    "fcfs": "#7f7f7f", "lpt": "#ff7f0e",
    "easy": "#1f77b4", "keasy": "#d62728", "reasy": "#2ca02c", "measy": "#9467bd",
    "cloud_aware": "#17becf", "baseline": "#8c564b",
    "tapra": "#d62728", "tapra_fast": "#ff7f0e", "min_min": "#1f77b4", "mm_ga": "#2ca02c", "gsa": "#9467bd",
    "round_robin": "#bcbd22", "cls": "#1f77b4", "cmms": "#2ca02c", "dcls": "#d62728", "dcmms": "#ff7f0e",
    "opt_min_migration": "#d62728", "min_migration": "#ff7f0e", "llif": "#1f77b4", "ffd": "#2ca02c", "est": "#9467bd",
    "mffde": "#8c564b", "exact": "#17becf",
}  # fmt: skip
POLICY_SHADE = {"ontapra": 0, "ontapra-ndrc": -0.35, "fcfs": 0.45, "fcfs-ndrc": 0.25, "slf": -0.55, "slf-ndrc": 0.65,
                "llf": -0.2, "llf-ndrc": 0.8}  # fmt: skip
DASHES = [(), (7, 4), (2, 3), (12, 3, 2, 3), (4, 2, 1, 2), (1, 5)]  # pages/study.js's DASHES
MARKERS = ["o", "s", "^", "D", "x", "*"]  # pages/study.js's SHAPES: circle, rect, triangle, rectRot, crossRot, star


def _shade(hex_colour: str, f: float) -> str:
    n = int(hex_colour[1:], 16)
    c = [n >> 16, (n >> 8) & 255, n & 255]
    out = [round(v + (255 - v) * f if f >= 0 else v * (1 + f)) for v in c]
    return "#" + "".join(f"{v:02x}" for v in out)


def _hash_colour(name: str) -> str:
    """static/js/lib/colours.js's hashColour: FNV-1a of the name to a hue, saturation and lightness."""
    h = 2166136261
    for ch in name.encode("utf-16-le")[::2]:  # JS charCodeAt: UTF-16 code units (ASCII names: the bytes)
        h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
    hue, sat, light = h % 360, (50 + ((h >> 9) % 30)) / 100, (35 + ((h >> 17) % 20)) / 100
    a = sat * min(light, 1 - light)

    def channel(n):
        k = (n + hue / 30) % 12
        return round(255 * (light - a * max(-1, min(k - 3, 9 - k, 1))))

    return "#" + "".join(f"{channel(n):02x}" for n in (0, 8, 4))


def algorithm_colour(name) -> str:
    s = str(name)
    if s in ALGORITHM_COLOURS:
        return ALGORITHM_COLOURS[s]
    policy, _, alg = s.partition(":")
    if alg and alg in ALGORITHM_COLOURS and policy in POLICY_SHADE:
        return _shade(ALGORITHM_COLOURS[alg], POLICY_SHADE[policy])
    return _hash_colour(s)


def _setting(value) -> str:
    from cloudsched_web.results import formatting

    return formatting.setting_text(value)


def lines_of(payload: dict, metric: str) -> list[dict]:
    """The lines the page draws for ``metric``: label, colour, group index, and per point x, y and whisker."""
    by_line = (payload.get("metrics") or {}).get(metric) or {}
    spreads = ((payload.get("spreads") or {}).get(metric)) or {}
    groups = payload.get("groups") or []
    out = []
    for line in payload.get("lines") or []:
        pts = by_line.get(line["label"]) or []
        if not pts:
            continue
        sp = spreads.get(line["label"]) or []
        k = next((i for i, g in enumerate(groups) if g == line.get("group")), 0)
        out.append({
            "label": line["label"], "colour": algorithm_colour(line["algorithm"]), "group": k, "bound": False,
            "x": [p["x"] for p in pts], "y": [p["y"] for p in pts],
            "err": [(sp[i] or {}).get("value", p.get("err") or 0.0) if i < len(sp) and sp[i] else (p.get("err") or 0.0)
                    for i, p in enumerate(pts)],
        })  # fmt: skip
    bound = (payload.get("bounds") or {}).get(metric)
    if bound and (payload.get("metrics") or {}).get(bound):
        label, pts = next(iter(payload["metrics"][bound].items()))
        suffix = " · " + label.split(" · ")[1] if " · " in label else ""
        out.append({"label": f"lower bound ({bound}){suffix}", "colour": "#777777", "group": 0, "bound": True,
                    "x": [p["x"] for p in pts], "y": [p["y"] for p in pts], "err": [0.0] * len(pts)})  # fmt: skip
    return out


def _x_positions(payload: dict):
    """(numeric?, function x value → plotted position, tick positions, tick labels) as the page's x axis."""
    order = payload.get("x_order") or []
    numeric = bool(order) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in order)
    if numeric:
        return True, float, [float(x) for x in order], [_setting(x) for x in order]
    index = {repr(x): i for i, x in enumerate(order)}
    return False, lambda x: float(index.get(repr(x), len(index))), list(range(len(order))), [_setting(x) for x in order]


def study_figure(payload: dict, metric: str, title: str = ""):
    """The matplotlib Figure of ``metric`` (not saved; :func:`figure_bytes` writes it)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    spec = (payload.get("specs") or {}).get(metric) or {}
    lines = lines_of(payload, metric)
    fig = Figure(figsize=(8, 5.2), dpi=72, layout="constrained")  # 72 dpi: display units are the file's points
    ax = fig.add_subplot()
    numeric, pos, ticks, tick_labels = _x_positions(payload)
    for k, line in enumerate(lines):
        xs = [pos(x) for x in line["x"]]
        style = {"color": line["colour"], "linewidth": 1.5 if line["bound"] else 2}
        if line["bound"]:
            (drawn,) = ax.plot(xs, line["y"], linestyle=(0, (6, 4)), marker="o", markersize=2.5, label=line["label"],
                               **style)  # fmt: skip
        else:
            dashes = DASHES[line["group"] % len(DASHES)]
            drawn, caps, bars = ax.errorbar(
                xs, line["y"], yerr=line["err"] if any(line["err"]) else None, capsize=3, elinewidth=1.2,
                linestyle=(0, dashes) if dashes else "-", marker=MARKERS[line["group"] % len(MARKERS)], markersize=5,
                label=line["label"], **style,
            )  # fmt: skip
            for i, artist in enumerate([*caps, *bars]):
                artist.set_gid(f"line-{k}-whiskers-{i}")
        drawn.set_gid(f"line-{k}")
    ax.set_xticks(ticks, tick_labels, rotation=0 if numeric else 30, ha="center" if numeric else "right")
    if not numeric and ticks:
        ax.set_xlim(-0.5, len(ticks) - 0.5)
    x_axis = payload.get("x_axis") or "run"
    ax.set_xlabel("point (scenario name)" if x_axis == "point" else x_axis)
    label = spec.get("label") or metric
    ax.set_ylabel(f"{label} ({spec['unit']})" if spec.get("unit") else label)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_title(title or label)
    if lines:
        fig.legend(loc="outside lower center", ncols=min(4, len(lines)), frameon=False, fontsize=8)
    else:
        ax.text(0.5, 0.5, "no finished run yet", transform=ax.transAxes, ha="center", va="center", color="#555555")
    return fig


# Text stays text in the SVG (searchable, and a test reads it); TrueType in the PDF; fixed SVG ids.
RC = {"svg.fonttype": "none", "svg.hashsalt": "cloudsched", "pdf.fonttype": 42}


def save(fig, fmt: str, title: str = "") -> bytes:
    """``fig`` as ``fmt`` bytes, without a date (the same study gives the same file)."""
    import matplotlib

    out = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"CreationDate": None, "Title": title, "Creator": "cloudsched"}
    with matplotlib.rc_context(RC):
        fig.savefig(out, format=fmt, metadata=meta)
    return out.getvalue()


def figure_bytes(payload: dict, metric: str, fmt: str, title: str = "") -> bytes:
    """The figure of ``metric`` as ``fmt`` (``svg`` or ``pdf``) bytes."""
    return save(study_figure(payload, metric, title), fmt, title)
