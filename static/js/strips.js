// DVFS heat strips beside the Gantt (results.strips): one row per host, one block per pixel column, colour =
// the host's highest running core frequency, time-weighted mean over the busy part of the column (viridis,
// the colour bar of gantt.js), paler = busy only part of the column; grey = idle.
// An exact strip (every change of its window) is cut into the chart's pixel columns here, at whatever zoom
// inside that window the chart shows; a strip sent as columns is drawn as the server cut it (run.js asks for
// new columns when they would be coarser than the pixels). chart.$drawn holds what was drawn, per host.
(function () {
  "use strict";
  const cs = window.cs;
  const EPS = 1e-6; // as results.occupancy.EPS: a column busy for less than EPS of its width is idle
  const IDLE = "#e8e8e8";

  // One exact strip over [lo, hi] in n columns: {busy: fraction of each column, ghz: mean level over its busy part or null}.
  function columns(strip, levels, lo, hi, n) {
    const t = strip.t, f = strip.f, width = (hi - lo) / n, on = new Float64Array(n), sum = new Float64Array(n);
    if (!(width > 0)) return { busy: Array(n).fill(0), ghz: Array(n).fill(null) };
    for (let j = 0; j < f.length; j++) {
      const g = levels[f[j]], a = Math.max(t[j], lo), b = Math.min(t[j + 1], hi);
      if (!(g > 0) || b <= a) continue;
      const k0 = Math.min(n - 1, Math.floor((a - lo) / width)), k1 = Math.min(n - 1, Math.floor((b - lo) / width));
      for (let k = k0; k <= k1; k++) {
        const c0 = lo + (k * (hi - lo)) / n, c1 = k === n - 1 ? hi : lo + ((k + 1) * (hi - lo)) / n;
        const d = Math.min(b, c1) - Math.max(a, c0);
        if (d > 0) { on[k] += d; sum[k] += d * g; }
      }
    }
    const eps = EPS * width, busy = [], ghz = [];
    for (let k = 0; k < n; k++) {
      const idle = on[k] <= eps;
      busy.push(idle ? 0 : Math.min(1, on[k] / width));
      ghz.push(idle ? null : sum[k] / on[k]);
    }
    return { busy, ghz };
  }

  // A strip sent as runs of equal columns over the window: every column again.
  function expand(strip) {
    const busy = [], ghz = [];
    strip.n.forEach((n, i) => { for (let k = 0; k < n; k++) { busy.push(strip.busy[i]); ghz.push(strip.ghz[i]); } });
    return { busy, ghz };
  }

  // What the chart shows now, per host: {exact, t: [lo, hi], busy, ghz} (exact: cut to the view's pixel columns).
  function drawnColumns(chart) {
    const f = chart.$strip, [w0, w1] = chart.$window, x = chart.scales.x;
    const lo = Math.max(x.min, w0), hi = Math.min(x.max, w1), n = Math.max(1, Math.round(chart.chartArea.width));
    return f.strips.map((s) => (s.n ? { exact: false, t: [w0, w1], ...expand(s) } : { exact: true, t: [lo, hi], ...columns(s, f.levels, lo, hi, n) }));
  }

  const plugin = {
    id: "csStrip",
    beforeDatasetsDraw(chart) {
      const f = chart.$strip, range = chart.$range;
      if (!f || !chart.$window) return;
      const { ctx, chartArea, scales } = chart;
      const band = scales.y.height / Math.max(1, f.hosts.length);
      const drawn = drawnColumns(chart);
      chart.$drawn = { hosts: f.hosts, strips: drawn };
      const colour = (v) => (v === null ? IDLE : cs.gantt.scaleColour(range[1] > range[0] ? (v - range[0]) / (range[1] - range[0]) : 1));
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      drawn.forEach((d, r) => {
        const y = scales.y.getPixelForValue(r) - band * 0.45, h = band * 0.9, n = d.busy.length, [t0, t1] = d.t;
        const at = (k) => Math.round(scales.x.getPixelForValue(t0 + ((t1 - t0) * k) / n));
        for (let k = 0; k < n; ) { // a run of equal columns is one rectangle
          let e = k + 1;
          while (e < n && d.busy[e] === d.busy[k] && d.ghz[e] === d.ghz[k]) e++;
          const v = d.ghz[k], x0 = at(k), x1 = at(e);
          ctx.globalAlpha = v === null ? 1 : 0.35 + 0.65 * d.busy[k];
          ctx.fillStyle = colour(v);
          ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
          k = e;
        }
      });
      ctx.restore();
    },
  };

  cs.strips = { plugin, columns, expand };
})();
