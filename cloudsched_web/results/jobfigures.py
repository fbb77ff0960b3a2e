"""The per-job distribution charts as files (SVG or PDF), drawn with matplotlib from the payload the page draws.

The run page's and the study page's two charts (static/js/charts/dist.js) and these figures read the same
``jobstats.distributions`` payload (same measure, repetition or pooled, study point, log scale, pixel rows):

- ``cdf``: one line per algorithm through its ``CDF_POINTS`` quantiles (x: the value, y: the probability),
  group ``cdf-<k>`` (k: the algorithm's place in the payload);
- ``box``: one Tukey box per algorithm × repetition as the page's plugin draws it: the q1–q3 bar (``box-<k>``),
  whiskers with caps (``box-<k>-whiskers``), the median (``box-<k>-median``), the mean as a white diamond
  (``box-<k>-mean``), and the outliers as the payload gives them: every value a hollow circle
  (``box-<k>-outliers``), or — where a box has more of them than the page's chart has pixel rows — one bar
  per pixel row holding any, across that row's lowest to highest value, darker with more (``box-<k>-row-<i>``).

Both carry the page's caption (:func:`caption`), line by line as ``caption-<i>`` text, so a reader of the
file learns how the outliers were drawn. Colours are ``figures.algorithm_colour`` (static/js/lib/colours.js's).
The scale is logarithmic when asked for and every value is positive, as on the page.
"""

from __future__ import annotations

import math
import textwrap

from cloudsched_web.results.figures import FORMATS, algorithm_colour, save

__all__ = ["CHARTS", "FORMATS", "caption", "distribution_figure", "figure_bytes", "log_scale"]

CHARTS = ("cdf", "box")
WIDTH, HEIGHT = 8.0, 5.2  # inches, at 72 dpi: display units are the file's points
CAPTION_FONT = 8
CAPTION_CHARS = 120  # a caption line at 8 pt across 8 inches


def _count(n) -> str:
    return f"{int(n):,}"  # charts/dist.js: Number(n).toLocaleString("en")


def _boxes(data):
    return [{**r["box"], "label": f"{r['algorithm']} #{r['repetition']}", "algorithm": r["algorithm"]}
            for r in data.get("runs", []) if r["box"].get("n")]  # fmt: skip


def log_scale(data, asked: bool) -> bool:
    """charts/dist.js's scaleType: logarithmic when asked for and every CDF value is positive."""
    values = [x for a in data.get("algorithms", []) for x in a["cdf"]["x"]]
    return bool(asked and values and min(values) > 0)


def _drawn_as(data, boxes, in_file):
    outliers = sum(b["outliers_lo"] + b["outliers_hi"] for b in boxes)
    if not outliers:
        return "no values beyond them"
    dense = [b for b in boxes if b.get("outliers", {}).get("n")]
    few = [b for b in boxes if b.get("outliers", {}).get("values")]
    text = f"{_count(outliers)} values beyond them (outliers)"
    if few:
        text += f", in {', '.join(b['label'] for b in few)} each drawn as ○" if dense else ", each drawn as ○"
    if dense:
        most = max(max(b["outliers"]["n"]) for b in dense)
        how = f"up to {_count(most)} in one row" if in_file else "the box's tooltip gives the most in one row"
        named = ", ".join(f"{b['label']} ({_count(b['outliers_lo'] + b['outliers_hi'])} outliers)" for b in dense)
        text += (f"; in {named} more than the chart's {_count(data['pixels'])} pixel rows, so drawn per pixel row holding any"
                 f" (▮, darker = more of them; {how})")  # fmt: skip
    return text


def caption(data, in_file: bool = True) -> dict:
    """The page's caption in its three parts (``cdf``, ``box``, ``missing``: charts/dist.js joins them with a space,
    the last only when some jobs have no value). ``in_file``: the tooltip the page points to becomes a number."""
    m = data["measure"]
    algs = data.get("algorithms", [])
    jobs, missing = sum(a["jobs"] for a in algs), sum(a["missing"] for a in algs)
    rep = data.get("repetition", "all")
    pooled = "repetitions pooled" if len(data.get("repetitions", [])) > 1 else ""
    reps = pooled if rep == "all" else f"repetition {rep}"
    per_alg = ", ".join(f"{a['algorithm']} {_count(a['jobs'])}" for a in algs)
    return {
        "cdf": f"CDF: each algorithm's curve is drawn from {data['cdf_points']} quantiles of all its jobs "
               f"({per_alg}{'; ' + reps if reps else ''}).",
        "box": f"Boxes: q1–q3, the median (line) and the mean (◆); whiskers: {data['whiskers']}; "
               f"{_drawn_as(data, _boxes(data), in_file)}.",
        "missing": f"{_count(missing)} of {_count(jobs + missing)} jobs have no {m['label']} and are left out."
                   if missing else "",
    }  # fmt: skip


def _axis_label(m):
    return m["label"] + (f" ({m['unit']})" if m.get("unit") else "")


def _figure(lines):
    """A figure with room below the plot for ``lines`` of caption, each its own text ``caption-<i>``."""
    from matplotlib.figure import Figure

    line_h = CAPTION_FONT * 1.3
    below = len(lines) * line_h + 6  # points
    total = HEIGHT * 72 + below
    fig = Figure(figsize=(WIDTH, total / 72), dpi=72, layout="constrained")
    fig.get_layout_engine().set(rect=(0, below / total, 1, 1 - below / total))
    for i, line in enumerate(lines):
        y = (below - 4 - (i + 0.8) * line_h) / total
        fig.text(0.015, y, line, fontsize=CAPTION_FONT, color="#333333", gid=f"caption-{i}")
    return fig


def _draw_cdf(ax, data, log):
    m = data["measure"]
    for k, a in enumerate(data.get("algorithms", [])):
        (line,) = ax.plot(a["cdf"]["x"], a["cdf"]["p"], color=algorithm_colour(a["algorithm"]), linewidth=2,
                          label=a["algorithm"])  # fmt: skip
        line.set_gid(f"cdf-{k}")
    ax.set_xscale("log" if log else "linear")
    ax.set_ylim(0, 1)
    ax.set_xlabel(_axis_label(m))
    ax.set_ylabel("fraction of jobs ≤ x")
    return f"CDF of {m['label']}"


def _draw_outliers(ax, k, x, half, box):
    colour = algorithm_colour(box["algorithm"])
    o = box.get("outliers") or {}
    if o.get("values"):
        (pts,) = ax.plot([x] * len(o["values"]), o["values"], linestyle="none", marker="o", markersize=5,
                         markerfacecolor="none", markeredgecolor=colour, markeredgewidth=1.2)  # fmt: skip
        pts.set_gid(f"box-{k}-outliers")
    elif o.get("n"):
        from matplotlib.patches import Rectangle

        most = max(o["n"])
        for i, (n, lo, hi) in enumerate(zip(o["n"], o["lo"], o["hi"], strict=True)):
            alpha = 0.25 + 0.75 * (math.log(1 + n) / math.log(1 + most))
            # an edge as wide as a page's pixel row keeps a row of equal values visible
            ax.add_patch(Rectangle((x - half / 2, lo), half, hi - lo, facecolor=colour, edgecolor=colour, alpha=alpha,
                                   linewidth=0.7, gid=f"box-{k}-row-{i}"))  # fmt: skip


def _draw_box(ax, data, log):
    m = data["measure"]
    boxes = _boxes(data)
    width = 0.72  # Chart.js's bar: categoryPercentage 0.8 × barPercentage 0.9
    half = width / 2
    for k, b in enumerate(boxes):
        colour = algorithm_colour(b["algorithm"])
        (bar,) = ax.bar([k], [b["q3"] - b["q1"]], bottom=[b["q1"]], width=width, color=colour + "66",
                        edgecolor=colour, linewidth=1)  # fmt: skip
        bar.set_gid(f"box-{k}")
        _draw_outliers(ax, k, k, half, b)
        whiskers = ax.vlines([k, k], [b["whisker_lo"], b["q3"]], [b["q1"], b["whisker_hi"]], color="#333333", lw=1.2)
        whiskers.set_gid(f"box-{k}-whiskers")
        caps = ax.hlines([b["whisker_lo"], b["whisker_hi"]], k - half / 2, k + half / 2, color="#333333", lw=1.2)
        caps.set_gid(f"box-{k}-caps")
        ax.hlines([b["median"]], k - half, k + half, color="#333333", lw=2.5).set_gid(f"box-{k}-median")
        (mean,) = ax.plot([k], [b["mean"]], marker="D", markersize=7, markerfacecolor="white",
                          markeredgecolor="#333333", markeredgewidth=1.2, linestyle="none")  # fmt: skip
        mean.set_gid(f"box-{k}-mean")
    ax.set_yscale("log" if log else "linear")
    if boxes:  # the page's range: every box and outlier inside, with Chart.js's 3 % grace
        lo, hi = data["box_range"]
        if log:
            span = math.log10(hi) - math.log10(lo) if hi > lo else 1.0
            ax.set_ylim(10 ** (math.log10(lo) - 0.03 * span), 10 ** (math.log10(hi) + 0.03 * span))
        else:
            span = hi - lo if hi > lo else 1.0
            ax.set_ylim(lo - 0.03 * span, hi + 0.03 * span)
        ax.set_xlim(-0.5, len(boxes) - 0.5)
    ax.set_xticks(range(len(boxes)), [b["label"] for b in boxes], rotation=30 if len(boxes) > 6 else 0,
                  ha="right" if len(boxes) > 6 else "center")  # fmt: skip
    ax.set_ylabel(_axis_label(m))
    return f"{m['label']} per algorithm × repetition"


def distribution_figure(data, chart: str, log: bool = False, title: str = ""):
    """The matplotlib Figure of ``chart`` (``cdf`` or ``box``) of a ``jobstats.distributions`` payload; ``log``
    as asked on the page (drawn logarithmic only when every value is positive)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    parts = caption(data)
    text = " ".join(p for p in (parts["cdf" if chart == "cdf" else "box"], parts["missing"]) if p)
    fig = _figure(textwrap.wrap(text, CAPTION_CHARS, break_on_hyphens=False))  # joined by spaces: the text again
    ax = fig.add_subplot()
    log = log_scale(data, log)
    name = _draw_cdf(ax, data, log) if chart == "cdf" else _draw_box(ax, data, log)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_title(f"{title}: {name}" if title else name)
    if chart == "cdf" and data.get("algorithms"):
        # below the plot (inside the layout, so clear of the caption)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=min(6, len(data["algorithms"])), frameon=False,
                  fontsize=8)  # fmt: skip
    return fig


def figure_bytes(data, chart: str, fmt: str, log: bool = False, title: str = "") -> bytes:
    """The ``chart`` figure as ``fmt`` (``svg`` or ``pdf``) bytes, without a date (the same data, the same file)."""
    import matplotlib

    with matplotlib.rc_context({"path.simplify": False}):  # every quantile a vertex of its line (a reader finds it)
        fig = distribution_figure(data, chart, log, title)
        return save(fig, fmt, f"{title}: {chart}" if title else chart)
