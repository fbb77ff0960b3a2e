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

  const fmt = (v) => (v === null || v === undefined ? "—" : Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : +v.toPrecision(5));

  // Gantt chart: floating horizontal bars per resource, one colour per job.
  function ganttData(g, colourOf) {
    const b = g.bars;
    const data = b.s.map((s, k) => ({ x: [s, b.e[k]], y: g.resources[b.r[k]], k }));
    const oneJob = b.job.length > 1 && b.job.every((j) => j === b.job[0]);
    if (oneJob) colourOf = ((outer) => (job, k) => outer(job + "/" + b.task[k], k))(colourOf); // one job: tell its tasks apart
    return {
      labels: g.resources,
      datasets: [{ label: g.algorithm, data, backgroundColor: data.map((d) => colourOf(b.job[d.k], d.k)), borderWidth: 0, borderSkipped: false, barPercentage: 0.9, categoryPercentage: 1, minBarLength: 2 }],
    };
  }
  function ganttTooltip(getG) {
    return {
      callbacks: {
        title: (items) => { const g = getG(items[0].chart); return "job " + g.bars.job[items[0].raw.k]; },
        label: (c) => {
          const g = getG(c.chart), b = g.bars, k = c.raw.k;
          const lines = [`task ${b.task[k]} on ${g.resources[b.r[k]]}`, `share ${b.share[k]}`, `${fmt(b.s[k])} – ${fmt(b.e[k])} ${window.cs.unit || "s"}`];
          Object.entries(b.extra || {}).forEach(([name, vals]) => { if (vals[k] !== null && vals[k] !== undefined) lines.push(`${name} ${vals[k]}`); });
          if (b.kind[k]) lines.push(`kind ${b.kind[k]}`);
          return lines;
        },
      },
    };
  }
  function ganttNote(g) {
    const last = g.row0 + g.resources.length;
    const rows = `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${g.total_resources} resources`;
    const what = g.mode === "occupancy"
      ? `${g.window_segments} segments in this window on these rows, drawn as occupancy (how busy each resource is in each pixel column; darker = busier); zoom in to see single bars`
      : `${g.bars.s.length} bars, every segment of this window on these rows`;
    const rec = g.recording_cut ? ` The family recorded only the first ${g.total_segments} segments of this run (its max_segments setting), up to t = ${fmt(g.span[1])}.` : "";
    return `${g.algorithm} · repetition ${g.repetition}: ${rows}; ${what} (${g.total_segments} segments in all).${rec}`;
  }

  // Said on the chart itself: what it shows, truthfully.
  function ganttSubtitle(g) {
    if (!g.bars.s.length && g.mode !== "occupancy" && g.recording_cut) return { display: true, text: "no segments recorded in this window: the family capped its schedule recording", color: "#a60" };
    if (g.mode === "occupancy") return { display: true, text: `occupancy per pixel column (${g.window_segments} segments): zoom in for single bars`, color: "#555" };
    return { display: false, text: "" };
  }

  // Occupancy mode: a heat strip per resource row, drawn under the (empty) bar dataset.
  const occupancyPlugin = {
    id: "csOccupancy",
    beforeDatasetsDraw(chart) {
      const g = chart.$g;
      if (!g || g.mode !== "occupancy" || !g.occupancy) return;
      const { ctx, chartArea, scales } = chart;
      const occ = g.occupancy, [t0, t1] = occ.t, n = occ.columns, step = (t1 - t0) / n;
      const band = scales.y.height / Math.max(1, g.resources.length);
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      occ.rows.forEach((row, r) => {
        const yc = scales.y.getPixelForValue(r), y = yc - band * 0.45, h = band * 0.9;
        row.forEach((v, k) => {
          if (!v) return;
          const x0 = scales.x.getPixelForValue(t0 + k * step), x1 = scales.x.getPixelForValue(t0 + (k + 1) * step);
          ctx.fillStyle = `rgba(31, 92, 160, ${Math.min(1, 0.15 + 0.85 * v)})`;
          ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
        });
      });
      ctx.restore();
    },
  };

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

  window.cs = { palette, algorithmColor, jobColour, errorBars, fmt, ganttData, ganttTooltip, ganttNote, ganttSubtitle, occupancyPlugin, getJson, linkedTime };
})();
