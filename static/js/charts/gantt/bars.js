// Gantt charts (the data endpoint's kind=gantt): each bar decoded from the server's columns, where
// it sits on the canvas (rows, lanes), its colour, and the plugin that paints them.
import { jobColour } from "../../lib/colours.js";
import { categoryColour, modeOf, valueColour } from "./colours.js";

export const JOB_ROW = "(jobs: no resource)";

// The bars' columns decoded once per payload: times in the axis' units, each (row, lane)'s range of
// bars (sorted by start inside it: the server sorts by row, lane, start), the job ids.
export function decoded(g) {
  if (g.$bars) return g.$bars;
  const b = g.bars;
  const n = b.n || 0;
  const S = new Float64Array(n);
  const E = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    S[k] = b.t0 + b.s[k] * b.q;
    E[k] = b.t0 + (b.s[k] + b.d[k]) * b.q;
  }
  const exact = new Map(); // bars reaching past the window: their exact times (drawing uses the clipped ones)
  ((b.edge && b.edge.k) || []).forEach((k, i) => exact.set(k, [b.edge.s[i], b.edge.e[i]]));
  const ranges = new Map(); // "row/lane" -> [first, end)
  for (let k = 0; k < n; k++) {
    const key = b.r[k] * 1024 + b.lane[k];
    const r = ranges.get(key);
    if (r) r[1] = k + 1;
    else ranges.set(key, [k, k + 1]);
  }
  const oneJob = n > 1 && b.job.every((j) => j === b.job[0]);
  g.$bars = { n, S, E, exact, ranges, oneJob };
  return g.$bars;
}
export const coded = (col, k) => (col ? (col.codes ? col.values[col.codes[k]] : col.values[0]) : undefined);
export const jobOf = (g, k) => g.bars.jobs[g.bars.job[k]];
export const taskOf = (g, k) => (g.bars.tasks ? g.bars.tasks[g.bars.task[k]] : `${jobOf(g, k)}.${g.bars.task[k]}`);

// The colour of bar k of g in mode `key` (job: the hashed job colour of every chart).
export function barColour(g, key, k) {
  const mode = modeOf(g, key);
  const b = g.bars;
  if (mode.type === "category") return categoryColour(mode, b.c[key][k]);
  if (mode.type === "scale") return valueColour(mode, b.c[key][k]);
  return jobColour(decoded(g).oneJob ? taskOf(g, k) : jobOf(g, k)); // one job: tell its tasks apart
}

function hasJobRow(g) {
  return ((g.events && g.events.kinds) || []).some((k) => k === "rejected" || k === "deadline missed");
}
export function rowLabels(g) {
  return hasJobRow(g) ? [JOB_ROW, ...g.resources] : [...g.resources];
}

// The bars grouped by colour (kept per payload and colour choice): one fillStyle per group when drawing.
function colourGroups(chart) {
  const g = chart.$g;
  const key = chart.$colourOf ? "custom" : chart.$colour || "job";
  if (g.$groups && g.$groups.key === key) return g.$groups.map;
  const colour = chart.$colourOf ? (k) => chart.$colourOf(g, k) : (k) => barColour(g, key, k);
  const map = new Map();
  const n = decoded(g).n;
  const cache = new Map();
  for (let k = 0; k < n; k++) {
    // job colours: hashed once per job, not per bar
    const id = key === "job" && !decoded(g).oneJob ? g.bars.job[k] : -1;
    let c = id >= 0 ? cache.get(id) : undefined;
    if (c === undefined) {
      c = colour(k);
      if (id >= 0) cache.set(id, c);
    }
    let list = map.get(c);
    if (!list) {
      list = [];
      map.set(c, list);
    }
    list.push(k);
  }
  g.$groups = { key, map };
  return map;
}

// A row's band on the canvas and its lanes: [top, height] of lane `lane` of `lanes` in row r.
export function rowGeometry(chart, r) {
  const g = chart.$g;
  const y = chart.scales.y;
  const labels = chart.data.labels;
  const band = y.height / Math.max(1, labels.length);
  const centre = y.getPixelForValue(labels.indexOf(g.resources[r]));
  return { top: centre - band * 0.45, height: band * 0.9, lanes: (g.lanes || [])[r] || 1 };
}
export function laneBox(geo, lane) {
  const h = geo.height / geo.lanes;
  return [geo.top + lane * h, Math.max(1, h - (geo.lanes > 1 ? 0.5 : 0))];
}
export const xPixel = (xs) => {
  const f = xs.width / (xs.max - xs.min || 1);
  return (t) => xs.left + (t - xs.min) * f;
};

// Every bar, painted in batches: per colour one fillStyle, then one fillRect per bar (at least a pixel wide).
export const barsPlugin = {
  id: "csBars",
  beforeDraw(chart) {
    chart.$painted = { bars: 0, colours: 0, blocks: 0, marks: 0 };
  }, // what this draw paints
  beforeDatasetsDraw(chart) {
    const g = chart.$g;
    if (!g || g.mode !== "bars" || !g.bars || !g.bars.n) return;
    const { ctx, chartArea, scales } = chart;
    const px = xPixel(scales.x);
    const d = decoded(g);
    const b = g.bars;
    const geo = g.resources.map((_, r) => rowGeometry(chart, r));
    ctx.save();
    ctx.beginPath();
    ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
    ctx.clip();
    let painted = 0;
    colourGroups(chart).forEach((list, colour) => {
      ctx.fillStyle = colour;
      for (let i = 0; i < list.length; i++) {
        const k = list[i];
        const x0 = px(d.S[k]);
        const x1 = px(d.E[k]);
        if (x1 < chartArea.left - 1 || x0 > chartArea.right + 1) continue;
        const [top, h] = laneBox(geo[b.r[k]], b.lane[k]);
        ctx.fillRect(x0, top, Math.max(1, x1 - x0), h);
        painted++;
      }
    });
    ctx.restore();
    chart.$painted.bars = painted;
    chart.$painted.colours = colourGroups(chart).size;
  },
};

// What the bars look like on screen (tests and the tooltip): each bar's row, times, job, lane, colour, box.
export function drawn(chart) {
  const g = chart.$g;
  if (!g || g.mode !== "bars") return [];
  const d = decoded(g);
  const b = g.bars;
  const out = new Array(d.n);
  const colour = new Array(d.n);
  colourGroups(chart).forEach((list, c) =>
    list.forEach((k) => {
      colour[k] = c;
    }),
  );
  for (let k = 0; k < d.n; k++) {
    const [top, h] = laneBox(rowGeometry(chart, b.r[k]), b.lane[k]);
    const ex = d.exact.get(k);
    out[k] = {
      row: g.resources[b.r[k]],
      s: ex ? ex[0] : d.S[k],
      e: ex ? ex[1] : d.E[k],
      job: jobOf(g, k),
      task: taskOf(g, k),
      lane: b.lane[k],
      colour: colour[k],
      top,
      bottom: top + h,
      status: b.status ? b.statuses[b.status[k]] : undefined,
    };
  }
  return out;
}

// The bar under the pointer: the row and lane from y, then a binary search by start in that lane.
export function barAt(chart, x, y) {
  const g = chart.$g;
  if (!g || g.mode !== "bars" || !g.bars.n) return -1;
  const d = decoded(g);
  const t = chart.scales.x.getValueForPixel(x);
  for (let r = 0; r < g.resources.length; r++) {
    const geo = rowGeometry(chart, r);
    if (y < geo.top || y > geo.top + geo.height) continue;
    const lane = Math.min(geo.lanes - 1, Math.floor(((y - geo.top) / geo.height) * geo.lanes));
    const range = d.ranges.get(r * 1024 + lane);
    if (!range) return -1;
    let lo = range[0];
    let hi = range[1] - 1;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (d.S[mid] <= t) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const slack = (chart.scales.x.max - chart.scales.x.min) / chart.scales.x.width; // a bar is at least a pixel wide
    return best >= 0 && t <= Math.max(d.E[best], d.S[best] + slack) ? best : -1;
  }
  return -1;
}
