// Shared chart helpers for the result, study and diff pages (no page logic here).
(function () {
  "use strict";
  const palette = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00", "#b82e2e", "#316395"];

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

  window.cs = { palette, jobColour, errorBars, fmt, getJson, linkedTime };
})();
