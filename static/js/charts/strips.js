// The renderer of the data endpoint's kind=strips: DVFS heat strips beside the Gantt (results.strips): one
// row per host, one block per pixel column, colour = the host's highest running core frequency,
// time-weighted mean over the busy part of the column (viridis, as the Gantt's colour bar), paler = busy
// only part of the column; grey = idle.
// An exact strip (every change of its window) is cut into the chart's pixel columns here, at whatever zoom
// inside that window the chart shows; a strip sent as columns is drawn as the server cut it (stripSource asks
// for new columns when they would be coarser than the pixels). chart.$drawn holds what was drawn, per host.
import { Chart } from "../lib/chart-global.js";
import { getJson } from "../lib/net.js";
import { plain } from "../format.js";
import { gradient, scaleColour } from "./gantt/colours.js";
import { timeScale } from "./time.js";
const EPS = 1e-6; // as results.occupancy.EPS: a column busy for less than EPS of its width is idle
const IDLE = "#e8e8e8";

// One exact strip over [lo, hi] in n columns: {busy: fraction of each column, ghz: mean level over its busy
// part or null}.
export function columns(strip, levels, lo, hi, n) {
  const t = strip.t;
  const f = strip.f;
  const width = (hi - lo) / n;
  const on = new Float64Array(n);
  const sum = new Float64Array(n);
  if (!(width > 0)) return { busy: Array(n).fill(0), ghz: Array(n).fill(null) };
  for (let j = 0; j < f.length; j++) {
    const g = levels[f[j]];
    const a = Math.max(t[j], lo);
    const b = Math.min(t[j + 1], hi);
    if (!(g > 0) || b <= a) continue;
    const k0 = Math.min(n - 1, Math.floor((a - lo) / width));
    const k1 = Math.min(n - 1, Math.floor((b - lo) / width));
    for (let k = k0; k <= k1; k++) {
      const c0 = lo + (k * (hi - lo)) / n;
      const c1 = k === n - 1 ? hi : lo + ((k + 1) * (hi - lo)) / n;
      const d = Math.min(b, c1) - Math.max(a, c0);
      if (d > 0) {
        on[k] += d;
        sum[k] += d * g;
      }
    }
  }
  const eps = EPS * width;
  const busy = [];
  const ghz = [];
  for (let k = 0; k < n; k++) {
    const idle = on[k] <= eps;
    busy.push(idle ? 0 : Math.min(1, on[k] / width));
    ghz.push(idle ? null : sum[k] / on[k]);
  }
  return { busy, ghz };
}

// A strip sent as runs of equal columns over the window: every column again.
export function expand(strip) {
  const busy = [];
  const ghz = [];
  strip.n.forEach((n, i) => {
    for (let k = 0; k < n; k++) {
      busy.push(strip.busy[i]);
      ghz.push(strip.ghz[i]);
    }
  });
  return { busy, ghz };
}

// What the chart shows now, per host: {exact, t: [lo, hi], busy, ghz} (exact: cut to the view's pixel columns).
function drawnColumns(chart) {
  const f = chart.$strip;
  const [w0, w1] = chart.$window;
  const x = chart.scales.x;
  const lo = Math.max(x.min, w0);
  const hi = Math.min(x.max, w1);
  const n = Math.max(1, Math.round(chart.chartArea.width));
  return f.strips.map((s) =>
    s.n
      ? { exact: false, t: [w0, w1], ...expand(s) }
      : { exact: true, t: [lo, hi], ...columns(s, f.levels, lo, hi, n) },
  );
}

export const plugin = {
  id: "csStrip",
  beforeDatasetsDraw(chart) {
    const f = chart.$strip;
    const range = chart.$range;
    if (!f || !chart.$window) return;
    const { ctx, chartArea, scales } = chart;
    const band = scales.y.height / Math.max(1, f.hosts.length);
    const drawn = drawnColumns(chart);
    chart.$drawn = { hosts: f.hosts, strips: drawn };
    const colour = (v) =>
      v === null ? IDLE : scaleColour(range[1] > range[0] ? (v - range[0]) / (range[1] - range[0]) : 1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
    ctx.clip();
    drawn.forEach((d, r) => {
      const y = scales.y.getPixelForValue(r) - band * 0.45;
      const h = band * 0.9;
      const n = d.busy.length;
      const [t0, t1] = d.t;
      const at = (k) => Math.round(scales.x.getPixelForValue(t0 + ((t1 - t0) * k) / n));
      for (let k = 0; k < n;) {
        // a run of equal columns is one rectangle
        let e = k + 1;
        while (e < n && d.busy[e] === d.busy[k] && d.ghz[e] === d.ghz[k]) e++;
        const v = d.ghz[k];
        const x0 = at(k);
        const x1 = at(e);
        ctx.globalAlpha = v === null ? 1 : 0.35 + 0.65 * d.busy[k];
        ctx.fillStyle = colour(v);
        ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
        k = e;
      }
    });
    ctx.restore();
  },
};

// The strips' colour bar.
export function legend(el, range) {
  el.innerHTML = "";
  const s = (t) => {
    const e = document.createElement("span");
    e.textContent = t;
    return e;
  };
  const bar = document.createElement("span");
  bar.className = "colourbar";
  bar.style.background = gradient();
  const idle = document.createElement("span");
  idle.className = "sw";
  idle.style.background = IDLE;
  el.append(
    s("Colour: each host's highest running core frequency, time-weighted mean over the busy part of each column: "),
    s(`${plain(range[0])} GHz`),
    bar,
    s(`${plain(range[1])} GHz`),
    s("; paler = busy only part of the column; "),
    idle,
    s("idle."),
  );
}

// Strips come apart from the series and are kept per repetition: a window the page holds is drawn from
// what it has — exact strips at any zoom inside their window, columns while they are no coarser than the
// pixels — so only a window that needs new detail is asked for. A result without DVFS answers once with
// no runs, and is not asked again. `get(rep, lo, hi, px)`: a promise of the strips (null: none).
export function stripSource(dataUrl) {
  const cache = new Map(); // repetition → [{lo, hi, px, promise, data}], oldest first
  let none = false;
  function get(rep, lo, hi, px) {
    if (none) return Promise.resolve(null);
    const held = cache.get(rep) || [];
    cache.set(rep, held);
    if (lo === null || lo === undefined) {
      // the whole run: its window, once one answer has told it
      const known = held.find((e) => e.data);
      [lo, hi] = known ? known.data.span : [null, null];
    }
    const hit = held.find((e) => {
      if (!e.data) return e.lo === lo && e.hi === hi && e.px === px; // on its way: the same request only
      if (lo === null) return false;
      const [a, b] = e.data.window;
      const fine = e.data.exact || (b - a) / e.data.columns <= ((hi - lo) / px) * (1 + 1e-9);
      return a <= lo && hi <= b && fine;
    });
    if (hit) return hit.promise;
    const entry = { lo, hi, px, data: null };
    const win = lo === null ? "" : `&t0=${lo}&t1=${hi}`;
    entry.promise = getJson(`${dataUrl}?kind=strips&rep=${rep}&points=${px}${win}`).then(
      (d) => {
        entry.data = d;
        if (!d.runs.length) none = true;
        return d;
      },
      (e) => {
        held.splice(held.indexOf(entry), 1);
        throw e;
      },
    );
    held.push(entry);
    if (held.length > 12) held.shift();
    return entry.promise;
  }
  return { get, cache };
}

// The strip charts of a page: one per algorithm run (rows = hosts) in `holder`, on the linked time axis
// `link`; `draw(freq)` makes or updates them, `clear()` removes them. `charts`: index → chart.
export function stripCharts(holder, link) {
  const charts = {};
  function draw(freq) {
    freq.runs.forEach((f) => {
      let chart = charts[f.index];
      const labels = f.hosts;
      if (chart) {
        Object.assign(chart, { $strip: f, $window: freq.window, $range: freq.range });
        chart.data.labels = labels;
        chart.update("none");
        return;
      }
      const div = document.createElement("div");
      div.className = "chart strip";
      div.style.height = Math.max(120, 70 + 18 * labels.length) + "px";
      const canvas = document.createElement("canvas");
      canvas.id = "freq-" + f.index;
      div.appendChild(canvas);
      holder.appendChild(div);
      chart = new Chart(canvas, {
        type: "bar",
        data: { labels, datasets: [{ label: "frequency", data: [] }] },
        plugins: [plugin],
        options: {
          indexAxis: "y",
          animation: false,
          maintainAspectRatio: false,
          scales: {
            x: timeScale({ min: freq.window[0], max: freq.window[1] }),
            y: {
              type: "category",
              title: { display: true, text: "host" },
              ticks: { autoSkip: false, font: { size: 10 } },
            },
          },
          plugins: {
            legend: { display: false },
            zoom: link.zoomOptions,
            tooltip: { enabled: false },
            title: { display: true, text: `core frequency per host (GHz), ${f.algorithm}` },
          },
        },
      });
      Object.assign(chart, { $strip: f, $window: freq.window, $range: freq.range });
      charts[f.index] = chart;
      link.add(chart);
    });
  }
  function clear() {
    Object.entries(charts).forEach(([k, c]) => {
      link.remove(c);
      c.destroy();
      delete charts[k];
    });
    holder.innerHTML = "";
  }
  return { charts, draw, clear };
}
