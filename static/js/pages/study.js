// The study page (templates/runs/study.html): metric vs swept parameter. Colour = algorithm (the same on
// every page); line style and point shape = the second swept parameter's value. Axis values,
// lines and table rows keep the study's order (payload.x_order, payload.lines), so nothing moves
// as runs finish. The measured values sit in a table beneath; the page refreshes while runs go.
// Numbers by their metric's kind and unit (format.js, docs/metrics.md; study.html ships the rules).
// window.cloudsched: this page's chart and per-job views, for the browser tests and the console (set here only).
import { runHeader } from "./run-header.js";
import { distView } from "../charts/dist.js";
import { errorBars } from "../charts/errorbars.js";
import { secondsPer, timeTicks } from "../charts/time.js";
import { Chart } from "../lib/chart-global.js";
import { algorithmColor } from "../lib/colours.js";
import * as F from "../format.js";

const { plain } = F;
runHeader();
const jobs = {};
document.querySelectorAll('[data-jobs="dist"]').forEach((root) => (jobs[root.id] = distView(root)));
let payload = JSON.parse(document.getElementById("study-payload").textContent); // replaced as runs finish
const specOf = (metric) => (payload.specs || {})[metric];
const show = (v, metric, ref) => F.value(v, specOf(metric), ref);
const titleOf = (metric) => {
  const s = specOf(metric);
  return s && s.label ? s.label : metric;
}; // ticks carry the unit
// The one spread of a point (what the table cell shows and the whisker draws): 95 % CI over
// repetitions, else the family's within-run CI (payload.spreads); without either, the sd.
const spreadAt = (metric, label, k, p) => {
  const sp = (((payload.spreads || {})[metric] || {})[label] || [])[k];
  return sp ? sp.value : p.err;
};
const DASHES = [[], [7, 4], [2, 3], [12, 3, 2, 3], [4, 2, 1, 2], [1, 5]];
const SHAPES = ["circle", "rect", "triangle", "rectRot", "crossRot", "star"];
const select = document.getElementById("study-metric");
// a metric repeated in another unit (same_as: dvfs_bot's energy_j) is not offered twice
// nor a within-run confidence interval (ci_of: it is drawn as its metric's whisker); the menu says names, not keys
let names = [];
let xOrder = [];
let numericX = false;
let groups = [];
function derive() {
  // what the chart reads from the payload (again when a new payload arrives)
  names = Object.keys(payload.metrics)
    .filter((m) => {
      const s = specOf(m) || {};
      return !(s.same_as in payload.metrics) && !s.ci_of;
    })
    .sort((a, b) => titleOf(a).localeCompare(titleOf(b)));
  const chosen = select.value;
  select.innerHTML = "";
  names.forEach((m) => {
    const o = new Option(titleOf(m), m);
    o.title = m;
    select.add(o);
  });
  if (names.includes(chosen)) select.value = chosen;
  xOrder = payload.x_order || [];
  numericX = xOrder.length > 0 && xOrder.every((x) => typeof x === "number");
  groups = payload.groups || [];
}
derive();
const groupIndex = (g) =>
  Math.max(
    0,
    groups.findIndex((v) => JSON.stringify(v) === JSON.stringify(g)),
  );
const xLabel = payload.x_axis === "point" ? "point (scenario name)" : payload.x_axis || "run";
let chart = null;
window.cloudsched = { study: null, jobs };

// The datasets of one metric, in the study's line order; lines without a result yet are left out.
function datasetsOf(metric) {
  const lines = payload.metrics[metric] || {};
  const datasets = [];
  (payload.lines || []).forEach((line) => {
    const pts = lines[line.label];
    if (!pts || !pts.length) return;
    const colour = algorithmColor(line.algorithm);
    const k = groupIndex(line.group);
    datasets.push({
      label: line.label,
      algorithm: line.algorithm,
      group: line.group,
      data: pts.map((p) => ({ x: numericX ? p.x : F.setting(p.x), y: p.y })),
      err: pts.map((p, k) => spreadAt(metric, line.label, k, p)),
      runs: pts.map((p) => p.run),
      borderColor: colour,
      backgroundColor: colour,
      errColor: colour,
      borderDash: DASHES[k % DASHES.length],
      pointStyle: SHAPES[k % SHAPES.length],
      pointRadius: 4,
      borderWidth: 2,
      tension: 0,
    });
  });
  const bound = payload.bounds && payload.bounds[metric];
  if (bound && payload.metrics[bound]) {
    // the lower bound is the instance's: one dashed grey line
    const [label, pts] = Object.entries(payload.metrics[bound])[0];
    const groupSuffix = label.includes(" · ") ? " · " + label.split(" · ")[1] : "";
    datasets.push({
      label: `lower bound (${bound})${groupSuffix}`,
      algorithm: null,
      data: pts.map((p) => ({ x: numericX ? p.x : F.setting(p.x), y: p.y })),
      borderColor: "#777",
      backgroundColor: "#777",
      borderDash: [6, 4],
      pointRadius: 2,
      borderWidth: 1.5,
    });
  }
  return datasets;
}

function xScale() {
  const title = { display: true, text: xLabel };
  if (!numericX) return { type: "category", labels: xOrder.map((x) => F.setting(x)), title, offset: true };
  const lo = Math.min(...xOrder);
  const hi = Math.max(...xOrder);
  const pad = (hi - lo) * 0.04 || Math.abs(lo) * 0.1 || 1;
  return {
    type: "linear",
    min: lo - pad,
    max: hi + pad,
    title,
    ticks: { callback: (v) => (xOrder.includes(v) ? plain(v) : "") },
    afterBuildTicks: (axis) => {
      axis.ticks = xOrder.map((v) => ({ value: v }));
    },
  };
}

// A duration metric is time on the y axis: the shared time ticks (charts/time.js), round hours or days.
function yScale(metric) {
  const spec = specOf(metric) || {};
  if (spec.kind !== "duration")
    return { title: { display: true, text: titleOf(metric) }, ticks: { callback: (v) => show(v, metric) } };
  const per = secondsPer(spec.unit);
  return {
    title: {
      display: true,
      text: (ctx) =>
        ctx.scale && ctx.scale.$time && ctx.scale.$time.origin
          ? `${titleOf(metric)}, ${ctx.scale.$time.title.slice(6, -1)}`
          : titleOf(metric),
    },
    afterBuildTicks: (axis) => {
      axis.$time = timeTicks(axis.min, axis.max, Math.max(2, Math.floor(axis.height / 40)), per);
      axis.ticks = axis.$time.ticks.map((t) => ({ value: t.value }));
    },
    ticks: {
      callback(v, i) {
        return this.$time && this.$time.ticks[i] ? this.$time.ticks[i].label : show(v, metric);
      },
    },
  };
}

// The file links name the metric drawn; before any run has finished there is nothing to export.
function exports(metric) {
  ["svg", "pdf"].forEach((f) => {
    const a = document.getElementById("study-figure-" + f);
    if (!a) return;
    if (metric) a.href = a.dataset.base + "?metric=" + encodeURIComponent(metric);
    else a.removeAttribute("href");
  });
}

function draw(metric) {
  const datasets = metric ? datasetsOf(metric) : [];
  document.getElementById("study-waiting").hidden = datasets.length > 0;
  document.body.dataset.studyPoints = String(
    datasets.reduce((n, d) => n + (d.algorithm === null ? 0 : d.data.length), 0),
  );
  exports(metric);
  // The y range holds every whisker, not only the points (a CI drawn outside the plot was cut off).
  const ends = datasets
    .flatMap((d) =>
      d.data.flatMap((p, k) => {
        const e = (d.err || [])[k] || 0;
        return [p.y - e, p.y + e];
      }),
    )
    .filter(Number.isFinite);
  const y = yScale(metric);
  if (ends.length) Object.assign(y, { suggestedMin: Math.min(...ends), suggestedMax: Math.max(...ends) });
  if (chart) chart.destroy();
  chart = new Chart(document.getElementById("study-chart"), {
    type: "line",
    data: { datasets },
    plugins: [errorBars],
    options: {
      animation: false,
      maintainAspectRatio: false,
      responsive: true,
      scales: { x: xScale(), y },
      plugins: {
        // below the plot, where long labels wrap into rows instead of being cut at the chart's right edge
        legend: { position: "bottom", labels: { usePointStyle: true, boxWidth: 28 } },
        tooltip: {
          callbacks: {
            label: (c) =>
              `${c.dataset.label}: ${show(c.raw.y, metric)}` +
              (c.dataset.err && c.dataset.err[c.dataIndex] ? ` ± ${show(c.dataset.err[c.dataIndex], metric)}` : ""),
          },
        },
      },
    },
  });
  window.cloudsched.study = chart;
  drawStyles();
  drawTable(metric);
}

// What the line styles mean (colours are named by the legend's algorithm labels).
function drawStyles() {
  const box = document.getElementById("study-styles");
  box.innerHTML = "";
  if (!payload.series_axis) {
    box.textContent = "Colour: algorithm (the same colour on every page).";
    return;
  }
  box.append(`Colour: algorithm. Line style and marker: ${payload.series_axis} = `);
  groups.forEach((g, k) => {
    const c = document.createElement("canvas");
    c.width = 44;
    c.height = 12;
    c.className = "style-sample";
    const ctx = c.getContext("2d");
    ctx.strokeStyle = "#333";
    ctx.lineWidth = 2;
    ctx.setLineDash(DASHES[k % DASHES.length]);
    ctx.beginPath();
    ctx.moveTo(0, 6);
    ctx.lineTo(44, 6);
    ctx.stroke();
    const span = document.createElement("span");
    span.className = "style-item";
    span.append(c, ` ${g} (${SHAPES[k % SHAPES.length]})`);
    box.append(span, " ");
  });
}

// Rows: axis value (× second-axis value), in the study's order; columns: algorithms.
function drawTable(metric) {
  const lines = payload.metrics[metric] || {};
  const table = document.getElementById("study-table");
  table.innerHTML = "";
  const algs = (payload.algorithms || []).filter((a) =>
    (payload.lines || []).some((l) => l.algorithm === a && lines[l.label]),
  );
  const head = table.createTHead().insertRow();
  const heads = [xLabel, ...(payload.series_axis ? [payload.series_axis] : []), ...algs];
  heads.forEach((t, i) => {
    const th = document.createElement("th");
    th.textContent = t;
    if (i >= heads.length - algs.length) {
      const sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = algorithmColor(t);
      th.prepend(sw);
    }
    head.appendChild(th);
  });
  const body = table.createTBody();
  const same = (u, v) => JSON.stringify(u) === JSON.stringify(v);
  (payload.pairs || xOrder.map((x) => [x, null])).forEach(([x, g]) => {
    const row = body.insertRow();
    row.insertCell().textContent = typeof x === "object" ? JSON.stringify(x) : F.setting(x);
    if (payload.series_axis) row.insertCell().textContent = F.setting(g);
    algs.forEach((alg) => {
      const line = (payload.lines || []).find((l) => l.algorithm === alg && same(l.group, g));
      const p = line && (lines[line.label] || []).find((q) => same(q.x, x));
      const cell = row.insertCell();
      cell.className = "num";
      const k = p ? (lines[line.label] || []).indexOf(p) : -1;
      const sp = k >= 0 ? (((payload.spreads || {})[metric] || {})[line.label] || [])[k] : null;
      if (!p) cell.textContent = "—";
      else if (sp) {
        cell.textContent = `${show(p.y, metric)} ${F.spread(p.y, sp.value, specOf(metric)) || "± 0"}`;
        cell.title = sp.label;
      } else cell.textContent = `${show(p.y, metric)} ± ${show(p.err, metric)}`;
      if (!p) cell.title = "no finished run at this point yet";
    });
  });
  const caption = table.createCaption();
  if (!metric) {
    caption.textContent = "No run has finished yet: each row fills in as its run finishes.";
    return;
  }
  caption.textContent =
    `${titleOf(metric)}: mean ± the spread named in each cell's tooltip ` +
    "(95 % CI over repetitions, else the family's within-run CI, else sd)";
}

select.addEventListener("change", () => draw(select.value));
const varies = (m) => new Set(Object.values(payload.metrics[m]).flatMap((pts) => pts.map((p) => p.y))).size > 1;
const firstMetric = () => (payload.primary || []).find((m) => names.includes(m)) || names.find(varies) || names[0];
const first = firstMetric();
if (first) select.value = first;
draw(first);
document.body.dataset.studyDrawn = "1";

// While runs go: poll the counts; when they change, fetch the payload and draw the new points in place
// (the metric chosen stays). When the study finishes the page reloads once, for the claims' verdicts
// and the per-job distributions, which the server draws.
const status = document.getElementById("study-status");
if (status.dataset.statusUrl && status.dataset.finished === "0") {
  let last = null;
  const url = (withPayload) => status.dataset.statusUrl + (withPayload ? "?payload=1" : "");
  const poll = () =>
    fetch(url(last === null), { credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => {
        const key = JSON.stringify(s.counts);
        document.getElementById("study-counts").textContent = Object.entries(s.counts)
          .filter(([, v]) => v)
          .map(([k, v]) => `${v} ${k}`)
          .join(" ");
        if (s.finished) {
          window.location.reload();
          return;
        }
        if (last !== null && key !== last) {
          last = null;
          poll();
          return;
        } // fetch the new points now
        if (s.payload) update(s);
        last = key;
        setTimeout(poll, 2000);
      })
      .catch(() => setTimeout(poll, 4000));
  setTimeout(poll, 1500);
}
function update(s) {
  payload = s.payload;
  derive();
  draw(select.value || firstMetric());
  (s.runs || []).forEach(([pk, st]) => {
    const cell = document.querySelector(`#study-runs tr[data-run="${pk}"] .run-status`);
    if (cell) cell.textContent = st;
  });
}
