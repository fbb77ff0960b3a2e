// Shared chart helpers for the result, study and diff pages (no page logic here).
(function () {
  "use strict";
  const palette = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00", "#b82e2e", "#316395"];

  // An algorithm's colour, the same on every page (run, study, diff) and in every family: a fixed
  // table (distinct within each family), "policy:algorithm" names (ep_jobs online) as their
  // algorithm's colour lightened or darkened by the policy, and a stable hash for any other name.
  const ALGORITHM_COLOURS = {
    fcfs: "#7f7f7f", lpt: "#ff7f0e",
    easy: "#1f77b4", keasy: "#d62728", reasy: "#2ca02c", measy: "#9467bd", // backfill
    cloud_aware: "#17becf", baseline: "#8c564b", // dvfs_bot
    tapra: "#d62728", tapra_fast: "#ff7f0e", min_min: "#1f77b4", mm_ga: "#2ca02c", gsa: "#9467bd", // ep_jobs
    round_robin: "#bcbd22", cls: "#1f77b4", cmms: "#2ca02c", dcls: "#d62728", dcmms: "#ff7f0e", // federated
    opt_min_migration: "#d62728", min_migration: "#ff7f0e", llif: "#1f77b4", ffd: "#2ca02c", est: "#9467bd", mffde: "#8c564b", exact: "#17becf", // vm_reservations
  };
  const POLICY_SHADE = { ontapra: 0, "ontapra-ndrc": -0.35, fcfs: 0.45, "fcfs-ndrc": 0.25, slf: -0.55, "slf-ndrc": 0.65, llf: -0.2, "llf-ndrc": 0.8 };
  function shade(hex, f) { // f > 0 mixes toward white, f < 0 toward black
    const n = parseInt(hex.slice(1), 16), c = [n >> 16, (n >> 8) & 255, n & 255];
    const out = c.map((v) => Math.round(f >= 0 ? v + (255 - v) * f : v * (1 + f)));
    return "#" + out.map((v) => v.toString(16).padStart(2, "0")).join("");
  }
  function hashColour(name) { // "#rrggbb" (callers append an alpha byte), from FNV-1a of the name
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
    const hue = h % 360, sat = (50 + ((h >>> 9) % 30)) / 100, light = (35 + ((h >>> 17) % 20)) / 100;
    const a = sat * Math.min(light, 1 - light);
    const channel = (n) => { const k = (n + hue / 30) % 12; return Math.round(255 * (light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)))); };
    return "#" + [0, 8, 4].map((n) => channel(n).toString(16).padStart(2, "0")).join("");
  }
  function algorithmColor(name) {
    const s = String(name);
    if (ALGORITHM_COLOURS[s]) return ALGORITHM_COLOURS[s];
    const [policy, alg] = s.split(":");
    if (alg !== undefined && ALGORITHM_COLOURS[alg] && policy in POLICY_SHADE) return shade(ALGORITHM_COLOURS[alg], POLICY_SHADE[policy]);
    return hashColour(s);
  }

  // A job's colour: the same job has the same colour on every chart of the page.
  function jobColour(job) {
    let h = 2166136261; // FNV-1a, then golden-angle hues so neighbouring ids look different
    const s = String(job);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
    return `hsl(${((h % 1000) * 137.508) % 360}, ${55 + ((h >>> 10) % 30)}%, ${42 + ((h >>> 20) % 22)}%)`;
  }

  // Whiskers for every dataset that carries an `err` array (bar or line charts).
  const errorBars = {
    id: "errorBars",
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const vScale = chart.options.indexAxis === "y" ? chart.scales.x : chart.scales.y;
      chart.data.datasets.forEach((ds, d) => {
        if (!ds.err) return;
        const meta = chart.getDatasetMeta(d);
        if (meta.hidden) return;
        ctx.save();
        ctx.strokeStyle = ds.errColor || "#222";
        ctx.lineWidth = 1.2;
        meta.data.forEach((el, i) => {
          const e = ds.err[i];
          const raw = ds.data[i];
          const v = raw && typeof raw === "object" ? raw.y : raw;
          if (!e || v === null || v === undefined) return;
          const top = vScale.getPixelForValue(v + e), bottom = vScale.getPixelForValue(v - e);
          ctx.beginPath();
          ctx.moveTo(el.x, top); ctx.lineTo(el.x, bottom);
          ctx.moveTo(el.x - 5, top); ctx.lineTo(el.x + 5, top);
          ctx.moveTo(el.x - 5, bottom); ctx.lineTo(el.x + 5, bottom);
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };

  // A plain number (times on the time axis, shares): four significant digits by format.js where the
  // page ships its rules, never an exponent (no "1.447e+5 s").
  const fmt = (v) => (v === null || v === undefined ? "—" : window.csFormat && document.getElementById("format-rules") ? window.csFormat.value(v) : String(+v.toPrecision(5)));

  // The Gantt's data, tooltip, notes and occupancy drawing live in gantt.js (cs.gantt), which
  // also exposes them here under their older names for the diff page.

  // Time axes (issue #24): every chart whose x axis is time, on every page, reads time alike.
  // The unit follows the axis span (s, min, h, d) with round ticks (0, 6 h, 12 h …); a window far
  // from t = 0 counts from a round origin named in the axis title (“s after 785 d 21 h 44 min”), so
  // no tick is ever a raw number of seconds; tooltips give the exact seconds (timeText). And the
  // plot area of every time chart of a page starts and ends at the same x (alignTime), so one
  // instant is one pixel column on the power, energy, DVFS and Gantt charts alike.
  const SECONDS = { ms: 0.001, s: 1, min: 60, h: 3600, d: 86400 };
  const ROUND = { s: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30], min: [1, 2, 5, 10, 15, 30], h: [1, 2, 3, 6, 12] };
  const ORIGIN = { s: 60, min: 3600, h: 86400 }; // a window far from 0 counts from a whole minute, hour or day
  const THIN = "\u202f";
  const PLOT_RIGHT = 28; // px right of every time chart's plot area: room for half the last tick label
  const perStored = () => SECONDS[window.cs.unit] || 1; // seconds per stored time unit (vm_reservations: min)
  function decimalText(v, decimals) {
    let text = Number(v).toFixed(decimals);
    if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
    const [whole, frac] = text.split(".");
    return whole.replace(/\B(?=(\d{3})+$)/g, THIN) + (frac ? "." + frac : "");
  }
  function clock(sec) { // 67,902,240 s → "785 d 21 h 44 min"; parts that are zero are left out
    const sign = sec < 0 ? "-" : "";
    let rest = Math.abs(sec);
    const parts = [];
    [["d", 86400], ["h", 3600], ["min", 60]].forEach(([u, f]) => { const n = Math.floor(rest / f + 1e-9); if (n) parts.push(`${decimalText(n, 0)} ${u}`); rest -= n * f; });
    if (rest > 1e-9 || !parts.length) parts.push(`${decimalText(rest, 3)} s`);
    return sign + parts.join(" ");
  }
  const timeUnitOf = (span) => (span >= 4 * 86400 ? "d" : span >= 3 * 3600 ? "h" : span >= 180 ? "min" : "s");

  // Round ticks for [lo, hi] (stored units; `per` seconds each): {unit, origin (s), ticks: [{value, label}], title}.
  function timeTicks(lo, hi, maxTicks, per) {
    per = per || perStored();
    const a = lo * per, b = hi * per, span = Math.max(b - a, 1e-6);
    const unit = timeUnitOf(span), f = SECONDS[unit], want = span / f / Math.max(2, maxTicks || 8);
    let step;
    if (unit === "d") { const mag = 10 ** Math.floor(Math.log10(Math.max(want, 1e-9))); step = Math.max(1, ([1, 2, 5, 10].find((k) => k * mag >= want) || 10) * mag); }
    else step = ROUND[unit].find((k) => k >= want) || ROUND[unit][ROUND[unit].length - 1];
    const far = unit !== "d" && Math.max(Math.abs(a), Math.abs(b)) / f >= 1000;
    const origin = far ? Math.floor(a / ORIGIN[unit]) * ORIGIN[unit] : 0;
    const decimals = step < 1 ? Math.ceil(-Math.log10(step) - 1e-9) : 0;
    const ticks = [];
    for (let k = Math.ceil((a - origin) / (step * f) - 1e-9); k <= Math.floor((b - origin) / (step * f) + 1e-9) && ticks.length < 200; k++) {
      const n = k * step;
      ticks.push({ value: (origin + n * f) / per, label: `${far && n > 0 ? "+" : ""}${decimalText(n, decimals)} ${unit}` });
    }
    const title = far ? `time (${unit} after ${clock(origin)})` : `time (${unit})`;
    return { unit, origin, step, ticks, title };
  }

  // A time in stored units as exact seconds, for tooltips: "67 902 282.8 s (785 d 21 h 44 min 42.8 s)".
  function timeText(t, per) {
    if (t === null || t === undefined) return "—";
    const sec = t * (per || perStored());
    return `${decimalText(sec, 3)} s` + (Math.abs(sec) >= 60 ? ` (${clock(sec)})` : "");
  }
  // A window [lo, hi] in words: "785 d 21 h 44 min 42.8 s – +60 s".
  function windowText(lo, hi, per) {
    per = per || perStored();
    return `${clock(lo * per)} – ${clock(hi * per)} (${decimalText((hi - lo) * per, 3)} s)`;
  }

  const timeHooks = {
    afterBuildTicks(axis) {
      axis.$time = timeTicks(axis.min, axis.max, Math.max(2, Math.floor((axis.width || 800) / 90)));
      axis.ticks = axis.$time.ticks.map((t) => ({ value: t.value }));
    },
    afterFit(axis) { axis.paddingLeft = 0; axis.paddingRight = PLOT_RIGHT; }, // the plot area's right edge never follows a label
    tickLabel(v, i) { return this.$time && this.$time.ticks[i] ? this.$time.ticks[i].label : ""; },
    title: (ctx) => (ctx.scale && ctx.scale.$time ? ctx.scale.$time.title : "time"),
  };
  // Chart.js options of a time x axis (spread more options over it: min, max).
  function timeScale(extra) {
    return { type: "linear", ...(extra || {}), afterBuildTicks: timeHooks.afterBuildTicks, afterFit: timeHooks.afterFit,
      title: { display: true, text: timeHooks.title }, ticks: { maxRotation: 0, autoSkip: false, callback: timeHooks.tickLabel } };
  }

  // One plot-area left edge for every time chart of the page: each y axis is as wide as the widest
  // one needs (with the chart's own left padding, e.g. the Gantt's group labels).
  const aligned = new Set();
  let sharedLeft = 0, pending = false;
  function alignLeft(scale) {
    const chart = scale.chart, pad = Chart.helpers.toPadding(chart.options.layout && chart.options.layout.padding).left;
    chart.$naturalLeft = scale.width + pad;
    aligned.add(chart);
    aligned.forEach((c) => { if (!c.canvas) aligned.delete(c); }); // destroyed
    const left = Math.max(...[...aligned].map((c) => c.$naturalLeft || 0));
    if (left !== sharedLeft) {
      sharedLeft = left;
      if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; aligned.forEach((c) => { if (c !== chart && c.canvas) c.update("none"); }); }); }
    }
    scale.width = Math.max(scale.width, sharedLeft - pad);
  }
  // Make `chart` a time chart: the time axis on x, the shared left edge on y. Idempotent; linkedTime.add calls it.
  function alignTime(chart) {
    const s = chart.options.scales;
    if (s.x.afterBuildTicks !== timeHooks.afterBuildTicks) {
      Object.assign(s.x, { afterBuildTicks: timeHooks.afterBuildTicks, afterFit: timeHooks.afterFit });
      s.x.title.display = true; s.x.title.text = timeHooks.title;
      Object.assign(s.x.ticks, { maxRotation: 0, autoSkip: false, callback: timeHooks.tickLabel });
    }
    if (s.y && s.y.afterFit !== alignLeft) s.y.afterFit = alignLeft;
    return chart;
  }

  async function getJson(url) {
    const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }

  // getJson through a cache of the last `size` URLs (a failed request is forgotten): a window drawn before
  // (zooming back out, paging back) is drawn again without asking the server.
  function cachedJson(size) {
    const cache = new Map();
    return (url) => {
      if (cache.has(url)) { const hit = cache.get(url); cache.delete(url); cache.set(url, hit); return hit; }
      cache.set(url, getJson(url).catch((e) => { cache.delete(url); throw e; }));
      if (cache.size > size) cache.delete(cache.keys().next().value);
      return cache.get(url);
    };
  }

  // Linked time axes: zooming or panning one chart sets the window of all, then reloads data.
  function linkedTime(onWindow) {
    const charts = new Set();
    let timer = null;
    let current = null;
    function apply(lo, hi, source) {
      current = [lo, hi];
      // The data of a window is asked once the gesture pauses (wheel ticks and pinch steps come every
      // 16–50 ms): the axes move at once, the data follows 150 ms after the last step (counted from the
      // step, not from the end of the redraw below).
      clearTimeout(timer);
      timer = setTimeout(() => onWindow(lo, hi), 150);
      charts.forEach((c) => {
        if (c === source) return;
        c.options.scales.x.min = lo; c.options.scales.x.max = hi;
        c.update("none");
      });
    }
    const zoomOptions = {
      pan: { enabled: true, mode: "x", onPanComplete: ({ chart }) => apply(chart.scales.x.min, chart.scales.x.max, chart) },
      zoom: { wheel: { enabled: true }, pinch: { enabled: true }, mode: "x", onZoomComplete: ({ chart }) => apply(chart.scales.x.min, chart.scales.x.max, chart) },
      limits: { x: { minRange: 1e-3 / perStored() } }, // down to a millisecond anywhere in the run
    };
    return {
      zoomOptions,
      add(chart) { alignTime(chart); charts.add(chart); chart.update("none"); if (current) { chart.options.scales.x.min = current[0]; chart.options.scales.x.max = current[1]; chart.update("none"); } },
      remove(chart) { charts.delete(chart); },
      set(lo, hi) { apply(lo, hi, null); }, // every chart, each redrawn once
      align(lo, hi) { charts.forEach((c) => { c.options.scales.x.min = lo; c.options.scales.x.max = hi; c.update("none"); }); },
      reset() { current = null; charts.forEach((c) => { c.options.scales.x.min = undefined; c.options.scales.x.max = undefined; c.update("none"); }); clearTimeout(timer); timer = setTimeout(() => onWindow(null, null), 50); },
      get window() { return current; },
    };
  }

  // Screen readers (issue #25): every chart's canvas is an image named by its title or the heading above
  // it, described by its datasets and its axes' ranges, and focusable; the numbers themselves are in the
  // page's tables (metrics, per-job table, diff table) that the description points to.
  function headingBefore(el) {
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        const h = /^H[1-4]$/.test(sib.tagName) ? sib : sib.querySelector && [...sib.querySelectorAll("h1, h2, h3, h4")].pop();
        if (h && h.textContent.trim()) return h.textContent.trim();
      }
    }
    return "";
  }
  function axisRange(scale) {
    if (!scale || scale.type === "category") return "";
    const title = scale.options.title && scale.options.title.text;
    const isTime = scale.axis === "x" && /time/i.test(Array.isArray(title) ? title.join(" ") : title || "");
    const text = (v) => (isTime ? timeText(v) : fmt(v)); // time in exact seconds (and as a clock)
    return `${scale.axis} from ${text(scale.min)} to ${text(scale.max)}`;
  }
  if (window.Chart) window.Chart.register({
    id: "csAccessible",
    afterUpdate(chart) {
      const canvas = chart.canvas;
      if (!canvas || !canvas.isConnected) return;
      const title = chart.options.plugins && chart.options.plugins.title && chart.options.plugins.title.display ? chart.options.plugins.title.text : "";
      const name = (Array.isArray(title) ? title.join(" ") : title) || headingBefore(canvas) || "chart";
      const lines = chart.data.datasets.map((d) => d.label).filter(Boolean);
      const axes = ["x", "y"].map((k) => axisRange(chart.scales[k])).filter(Boolean);
      canvas.setAttribute("role", "img");
      canvas.setAttribute("tabindex", "0");
      canvas.setAttribute("aria-label", [`Chart: ${name}`, lines.length ? `shows ${lines.join(", ")}` : "", axes.join("; "),
        "its numbers are in the tables of this page"].filter(Boolean).join(". "));
    },
  });

  window.cs = { palette, algorithmColor, jobColour, errorBars, fmt, getJson, cachedJson, linkedTime,
    timeTicks, timeScale, timeText, windowText, alignTime, alignLeft };
})();
