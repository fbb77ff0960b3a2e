// The renderer of the data endpoint's kind=dist (cloudsched_web/results/jobstats.py), on the run page and
// the study page: the distributions of one per-job measure — a CDF per algorithm drawn from the server's
// quantiles and a box plot per algorithm × repetition (floating q1–q3 bars; whiskers, medians, means and
// every outlier drawn by a plugin). The view lives in an element with data-jobs="dist"; its controls are
// found by data-role, so the run page and the study page share the code.
import { Chart } from "../lib/chart-global.js";
import { algorithmColor } from "../lib/colours.js";
import { getJson } from "../lib/net.js";
import { specOfUnit, unit as displayUnit, value as formatValue } from "../format.js";

const role = (root, name) => root.querySelector(`[data-role="${name}"]`);
const unitOf = (m) => (m && m.unit ? ` (${m.unit})` : "");

// A measure's values written by format.js in its unit's kind (seconds as min, h, d …; joules as Wh, kWh …).
const textOf = (m) => {
  const spec = specOfUnit(m.unit);
  return (v) => formatValue(v, spec);
};

// Round durations (s) for a logarithmic axis of times: Chart.js's own ticks fall at 1–9 × 10^k seconds, which
// read as "1.17 min", "1.67 min", "19.4 h" side by side.
const ROUND_S = [
  [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30],
  [60, 120, 300, 600, 1200, 1800, 3600, 7200, 3 * 3600, 6 * 3600, 12 * 3600],
  [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5].map((d) => d * 86400),
].flat();
function roundLogTicks(spec) {
  const per = { ms: 0.001, s: 1, min: 60, h: 3600, d: 86400 }[spec.unit] || 1;
  return (axis) => {
    const all = ROUND_S.filter((t) => t >= axis.min * per * (1 - 1e-9) && t <= axis.max * per * (1 + 1e-9));
    const room = Math.max(2, Math.floor(axis.isHorizontal() ? (axis.width || 600) / 64 : (axis.height || 300) / 22));
    const stride = Math.ceil(all.length / room);
    const ticks = all.filter((_, i) => i % stride === 0); // every stride-th: still round, spread over the axis
    if (ticks.length >= 2) axis.ticks = ticks.map((t) => ({ value: t / per }));
  };
}

// A value axis of measure `m` up to `hi`: the title (the unit in it only where the ticks do not say it),
// ticks written in one display unit, at 1, 2 or 5 × 10^k of it on a linear axis; round durations on a
// logarithmic axis of times.
function valueAxis(m, type, hi) {
  const spec = specOfUnit(m.unit);
  const scaled = spec.kind !== "number";
  const axis = {
    type,
    title: { display: true, text: scaled ? m.label : m.label + unitOf(m) },
    ticks: { callback: (v) => formatValue(v, spec, type === "linear" ? hi : undefined) },
  };
  if (scaled && type === "linear" && hi > 0) {
    const per = displayUnit(spec, hi);
    const want = hi / per / 6;
    const mag = 10 ** Math.floor(Math.log10(want));
    axis.ticks.stepSize = ([1, 2, 5, 10].find((k) => k * mag >= want) || 10) * mag * per;
  }
  if (spec.kind === "duration" && type === "logarithmic") axis.afterBuildTicks = roundLogTicks(spec);
  return axis;
}
const count = (n) => Number(n).toLocaleString("en");

// Whiskers, median lines, mean markers and outliers over the floating q1–q3 bars of a box chart. Outliers
// come from the server as every value (a hollow circle each) or, where a box has more of them than the
// chart has pixel rows, as counts per pixel row (a bar across the row's values, darker with more).
// chart.$outliersDrawn: what was drawn, per box.
const boxPlugin = {
  id: "jobBoxes",
  afterDatasetsDraw(chart) {
    const boxes = chart.$boxes || [];
    const meta = chart.getDatasetMeta(0);
    const y = chart.scales.y;
    const { ctx } = chart;
    ctx.save();
    chart.$outliersDrawn = boxes.map((b, k) => {
      const bar = meta.data[k];
      const o = b.outliers;
      if (!bar || !o) return null;
      const x = bar.x;
      const half = bar.width / 2;
      const py = (v) => y.getPixelForValue(v);
      ctx.strokeStyle = algorithmColor(b.algorithm);
      ctx.fillStyle = algorithmColor(b.algorithm);
      ctx.lineWidth = 1.2;
      if (o.values) {
        o.values.forEach((v) => {
          ctx.beginPath();
          ctx.arc(x, py(v), 2.5, 0, 2 * Math.PI);
          ctx.stroke();
        });
        return { values: o.values.filter((v) => v >= y.min && v <= y.max) };
      }
      const most = Math.max(...o.n);
      o.n.forEach((n, i) => {
        const top = py(o.hi[i]);
        const bottom = py(o.lo[i]);
        ctx.globalAlpha = 0.25 + 0.75 * (Math.log(1 + n) / Math.log(1 + most));
        ctx.fillRect(x - half / 2, Math.min(top, bottom) - 0.5, half, Math.max(1, Math.abs(bottom - top) + 1));
      });
      ctx.globalAlpha = 1;
      return { rows: o.rows, n: o.n, lo: o.lo, hi: o.hi };
    });
    boxes.forEach((b, k) => {
      const bar = meta.data[k];
      if (!bar || !b.n) return;
      const half = bar.width / 2;
      const x = bar.x;
      const py = (v) => y.getPixelForValue(v);
      ctx.strokeStyle = "#333";
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      [
        [b.whisker_lo, b.q1],
        [b.q3, b.whisker_hi],
      ].forEach(([a, c]) => {
        ctx.moveTo(x, py(a));
        ctx.lineTo(x, py(c));
      });
      [b.whisker_lo, b.whisker_hi].forEach((v) => {
        ctx.moveTo(x - half / 2, py(v));
        ctx.lineTo(x + half / 2, py(v));
      });
      ctx.stroke();
      ctx.lineWidth = 2.5;
      ctx.beginPath();
      ctx.moveTo(x - half, py(b.median));
      ctx.lineTo(x + half, py(b.median));
      ctx.stroke();
      const my = py(b.mean);
      ctx.fillStyle = "#fff";
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      ctx.moveTo(x, my - 5);
      ctx.lineTo(x + 5, my);
      ctx.lineTo(x, my + 5);
      ctx.lineTo(x - 5, my);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    });
    ctx.restore();
  },
};

function boxTooltip(b, m) {
  const v = textOf(m);
  return [
    `n ${count(b.n)}`,
    `min ${v(b.min)} · max ${v(b.max)}`,
    `q1 ${v(b.q1)} · median ${v(b.median)} · q3 ${v(b.q3)}`,
    `mean ${v(b.mean)}`,
    `whiskers ${v(b.whisker_lo)} – ${v(b.whisker_hi)}`,
    `outliers: ${count(b.outliers_lo)} below, ${count(b.outliers_hi)} above` +
      (b.outliers && b.outliers.n
        ? ` (drawn in ${count(b.outliers.n.length)} pixel rows, up to ${count(Math.max(...b.outliers.n))} in one)`
        : b.outliers_lo + b.outliers_hi
          ? " (each drawn as ○)"
          : ""),
  ];
}

// The view in `root`; returns its state ({cdf, box, data}: the charts and the data drawn).
export function distView(root) {
  const url = () => root.dataset.url;
  const measureSelect = role(root, "measure");
  const repSelect = role(root, "rep");
  const logBox = role(root, "log");
  const caption = role(root, "caption");
  const state = { cdf: null, box: null, data: null };

  function scaleType(data) {
    const all = data.algorithms.flatMap((a) => a.cdf.x);
    const positive = all.length > 0 && Math.min(...all) > 0;
    logBox.disabled = !positive;
    if (!positive) logBox.checked = false;
    return logBox.checked ? "logarithmic" : "linear";
  }

  // The file links (cloudsched_web/results/jobfigures.py) ask for what the charts show: the point, measure,
  // repetition, scale and the pixel rows the outliers were counted in; none until something is drawn.
  function files(data) {
    const box = role(root, "files");
    if (!box) return;
    const params = data
      ? new URLSearchParams({ measure: data.measure.key, log: logBox.checked ? "1" : "0", pixels: data.pixels })
      : null;
    if (params && repSelect.value) params.set("rep", repSelect.value);
    if (params && root.dataset.point !== undefined) params.set("point", role(root, "point").value);
    box.querySelectorAll("a[data-file]").forEach((a) => {
      const [chart, format] = a.dataset.file.split(".");
      if (params) a.href = box.dataset.base.replace("CHART", chart).replace("FMT", format) + "?" + params;
      else a.removeAttribute("href");
    });
  }

  function draw(data) {
    state.data = data;
    const m = data.measure;
    const type = scaleType(data);
    const perRow = data.runs.some((r) => r.box.outliers && r.box.outliers.n);
    if (perRow && data.log !== (type === "logarithmic") && !state.again) {
      state.again = true;
      load();
      return;
    } // rows cut for the other scale
    state.again = false;
    const cdfSets = data.algorithms.map((a) => ({
      label: a.algorithm,
      data: a.cdf.x.map((x, k) => ({ x, y: a.cdf.p[k] })),
      borderColor: algorithmColor(a.algorithm),
      backgroundColor: algorithmColor(a.algorithm),
      pointRadius: 0,
      borderWidth: 2,
      tension: 0,
    }));
    if (state.cdf) state.cdf.destroy();
    state.cdf = new Chart(role(root, "cdf"), {
      type: "line",
      data: { datasets: cdfSets },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x: valueAxis(m, type, Math.max(0, ...data.algorithms.flatMap((a) => a.cdf.x))),
          y: { min: 0, max: 1, title: { display: true, text: "fraction of jobs ≤ x" } },
        },
        interaction: { mode: "nearest", intersect: false },
        plugins: {
          title: { display: true, text: `CDF of ${m.label}` },
          legend: { position: "bottom" },
          tooltip: {
            callbacks: {
              label: (c) => `${c.dataset.label}: ${(100 * c.raw.y).toFixed(1)} % ≤ ${textOf(m)(c.raw.x)}`,
            },
          },
        },
      },
    });
    const boxes = data.runs
      .filter((r) => r.box.n)
      .map((r) => ({ ...r.box, label: `${r.algorithm} #${r.repetition}`, algorithm: r.algorithm }));
    if (state.box) state.box.destroy();
    state.box = new Chart(role(root, "box"), {
      type: "bar",
      plugins: [boxPlugin],
      data: {
        labels: boxes.map((b) => b.label),
        datasets: [
          {
            label: "q1–q3",
            data: boxes.map((b) => [b.q1, b.q3]),
            backgroundColor: boxes.map((b) => algorithmColor(b.algorithm) + "66"),
            borderColor: boxes.map((b) => algorithmColor(b.algorithm)),
            borderWidth: 1,
            borderSkipped: false,
            minBarLength: 2,
          },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          y: {
            ...valueAxis(m, type, boxes.length ? data.box_range[1] : 0),
            min: boxes.length ? data.box_range[0] : undefined,
            max: boxes.length ? data.box_range[1] : undefined,
            grace: "3%",
          },
        }, // every outlier inside
        plugins: {
          legend: { display: false },
          title: { display: true, text: `${m.label} per algorithm × repetition` },
          tooltip: { callbacks: { label: (c) => boxTooltip(boxes[c.dataIndex], m) } },
        },
      },
    });
    state.box.$boxes = boxes;
    state.box.update("none");
    const jobs = data.algorithms.reduce((s, a) => s + a.jobs, 0);
    const missing = data.algorithms.reduce((s, a) => s + a.missing, 0);
    const reps =
      data.repetition === "all"
        ? data.repetitions.length > 1
          ? "repetitions pooled"
          : ""
        : `repetition ${data.repetition}`;
    const outliers = boxes.reduce((s, b) => s + b.outliers_lo + b.outliers_hi, 0);
    const dense = boxes.filter((b) => b.outliers && b.outliers.n);
    const few = boxes.filter((b) => b.outliers && b.outliers.values && b.outliers.values.length);
    const drawnAs = !outliers
      ? "no values beyond them"
      : `${count(outliers)} values beyond them (outliers)` +
        (few.length
          ? dense.length
            ? `, in ${few.map((b) => b.label).join(", ")} each drawn as ○`
            : ", each drawn as ○"
          : "") +
        (dense.length
          ? `; in ${dense.map((b) => `${b.label} (${count(b.outliers_lo + b.outliers_hi)} outliers)`).join(", ")} ` +
            `more than the chart's ${count(data.pixels)} pixel rows, so drawn per pixel row holding any ` +
            "(▮, darker = more of them; the box's tooltip gives the most in one row)"
          : "");
    caption.textContent =
      `CDF: each algorithm's curve is drawn from ${data.cdf_points} quantiles of all its jobs ` +
      `(${data.algorithms.map((a) => `${a.algorithm} ${count(a.jobs)}`).join(", ")}${reps ? "; " + reps : ""}). ` +
      `Boxes: q1–q3, the median (line) and the mean (◆); whiskers: ${data.whiskers}; ${drawnAs}.` +
      (missing ? ` ${count(missing)} of ${count(jobs + missing)} jobs have no ${m.label} and are left out.` : "");
    files(data);
    root.dataset.drawn = String(Number(root.dataset.drawn || 0) + 1);
  }

  async function load() {
    // outliers are drawn for the box chart's height (pixel rows) and scale
    const params = new URLSearchParams({
      kind: "dist",
      pixels: Math.max(10, Math.round(role(root, "box").parentElement.clientHeight || 320)),
    });
    if (logBox.checked) params.set("log", "1");
    if (measureSelect.value) params.set("measure", measureSelect.value);
    if (repSelect.value) params.set("rep", repSelect.value);
    if (root.dataset.point !== undefined) params.set("point", role(root, "point").value);
    try {
      const data = await getJson(`${url()}?${params}`);
      if (!data.measure) {
        caption.textContent = "These results keep no per-job records.";
        files(null);
        return;
      }
      if (measureSelect.options.length !== data.measures.length) {
        measureSelect.innerHTML = "";
        data.measures.forEach((mm) => measureSelect.add(new Option(mm.label + unitOf(mm), mm.key)));
        logBox.checked = data.measure.log;
      }
      measureSelect.value = data.measure.key;
      if (repSelect.options.length !== data.repetitions.length + 1) {
        repSelect.innerHTML = "";
        repSelect.add(new Option(data.repetitions.length > 1 ? "all, pooled" : "all", ""));
        data.repetitions.forEach((r) => repSelect.add(new Option(`repetition ${r}`, r)));
      }
      draw(data);
    } catch (e) {
      caption.textContent = "could not load the distributions: " + e.message;
      files(null);
    }
  }
  measureSelect.addEventListener("change", () => {
    logBox.dataset.touched = "";
    load();
  });
  repSelect.addEventListener("change", load);
  // Counts per pixel row were cut for the other scale: those come again.
  logBox.addEventListener(
    "change",
    () => state.data && (state.data.runs.some((r) => r.box.outliers && r.box.outliers.n) ? load() : draw(state.data)),
  );
  const point = role(root, "point");
  if (point)
    point.addEventListener("change", () => {
      measureSelect.innerHTML = "";
      repSelect.innerHTML = "";
      load();
    });
  load();
  return state;
}
