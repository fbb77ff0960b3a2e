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

  async function getJson(url) {
    const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }

  // Linked time axes: zooming or panning one chart sets the window of all, then reloads data.
  function linkedTime(onWindow) {
    const charts = new Set();
    let timer = null;
    let current = null;
    function apply(lo, hi, source) {
      current = [lo, hi];
      charts.forEach((c) => {
        if (c === source) return;
        c.options.scales.x.min = lo; c.options.scales.x.max = hi;
        c.update("none");
      });
      clearTimeout(timer);
      timer = setTimeout(() => onWindow(lo, hi), 250);
    }
    const zoomOptions = {
      pan: { enabled: true, mode: "x", onPanComplete: ({ chart }) => apply(chart.scales.x.min, chart.scales.x.max, chart) },
      zoom: { wheel: { enabled: true }, pinch: { enabled: true }, mode: "x", onZoomComplete: ({ chart }) => apply(chart.scales.x.min, chart.scales.x.max, chart) },
      limits: { x: { minRange: 1e-3 } },
    };
    return {
      zoomOptions,
      add(chart) { charts.add(chart); if (current) { chart.options.scales.x.min = current[0]; chart.options.scales.x.max = current[1]; chart.update("none"); } },
      remove(chart) { charts.delete(chart); },
      set(lo, hi) { charts.forEach((c) => { c.options.scales.x.min = lo; c.options.scales.x.max = hi; c.update("none"); }); apply(lo, hi, null); },
      align(lo, hi) { charts.forEach((c) => { c.options.scales.x.min = lo; c.options.scales.x.max = hi; c.update("none"); }); },
      reset() { current = null; charts.forEach((c) => { c.options.scales.x.min = undefined; c.options.scales.x.max = undefined; c.update("none"); }); clearTimeout(timer); timer = setTimeout(() => onWindow(null, null), 50); },
      get window() { return current; },
    };
  }

  window.cs = { palette, algorithmColor, jobColour, errorBars, fmt, getJson, linkedTime };
})();
