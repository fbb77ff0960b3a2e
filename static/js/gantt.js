// Gantt charts and DVFS heat strips of the result and diff pages: colour modes with their legend,
// lanes inside a row, group headings on the resource axis, event markers, and what the chart shows
// said truthfully. The server (results/gantt.py, bars.py) sends every value drawn as compact columns:
// a bar's row, lane, times in ticks of the window, job code, its category or value per colour mode;
// the dominant category of each occupancy block; the events (or their counts per pixel column).
// Bars are painted on the canvas by a plugin, batched by colour (one fillStyle per colour, then
// fillRect per bar), never as Chart.js elements: Chart.js draws the axes and handles zoom and pan.
(function () {
  "use strict";
  const cs = window.cs;
  // 24 colours told apart on screen (Kelly's list, less white and black), by category index.
  const CATEGORY = ["#3366cc", "#f38400", "#2ca02c", "#be0032", "#875692", "#a1caf1", "#c2b280", "#848482",
    "#008856", "#e68fac", "#0067a5", "#f99379", "#604e97", "#f6a600", "#b3446c", "#dcd300", "#882d17",
    "#8db600", "#654522", "#e25822", "#2b3d26", "#17becf", "#bcbd22", "#7f7f7f"];
  // State mode: fixed colours for the kinds families record, and for how a segment ended
  // (whatever its kind: red for work stopped, purple for a move), the same on every chart.
  const STATE = { "foreground tier": "#3366cc", "background tier": "#8db600", "AR lease": "#1f3d99", "BE lease": "#17becf", "VM": "#6f8faf", "task": "#3366cc", "segment": "#888888" };
  const ENDED = { "killed": "#d62728", "preempted": "#d62728", "migrated away": "#9467bd" };
  // Event markers: Chart.js point style, colour, and the character the legend shows for it.
  const MARKERS = {
    "migrated": { style: "rectRot", colour: "#6a3d9a", glyph: "◆" },
    "killed": { style: "crossRot", colour: "#b10026", glyph: "✕" },
    "preempted": { style: "triangle", colour: "#d95f02", glyph: "▲" },
    "rejected": { style: "rect", colour: "#222222", glyph: "■" },
    "deadline missed": { style: "star", colour: "#8c2d04", glyph: "✱" },
  };
  const STROKED = new Set(["cross", "crossRot", "star"]); // point styles Chart.js draws with lines only
  const JOB_ROW = "(jobs: no resource)";
  const IDLE = "#e8e8e8";

  // Viridis, 5 stops: dark purple (low) to yellow (high); perceptually even, readable in grey.
  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function scaleColour(f) {
    const x = Math.max(0, Math.min(1, f)) * (VIRIDIS.length - 1), i = Math.min(VIRIDIS.length - 2, Math.floor(x)), u = x - i;
    const c = VIRIDIS[i].map((v, k) => Math.round(v + (VIRIDIS[i + 1][k] - v) * u));
    return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
  }
  const gradient = () => `linear-gradient(to right, ${VIRIDIS.map((c, i) => `rgb(${c.join(", ")}) ${(100 * i) / (VIRIDIS.length - 1)}%`).join(", ")})`;

  function categoryColour(mode, code) {
    if (code === null || code === undefined || code < 0) return "#999999";
    const label = mode.categories[code];
    if (mode.key === "state") {
      const ended = Object.keys(ENDED).find((e) => label.endsWith(", " + e));
      if (ended) return ENDED[ended];
      if (STATE[label]) return STATE[label];
    }
    return CATEGORY[code % CATEGORY.length];
  }
  function valueColour(mode, v) {
    if (v === null || v === undefined) return "#999999";
    const [lo, hi] = mode.range;
    return scaleColour(hi > lo ? (v - lo) / (hi - lo) : 1);
  }
  const modeOf = (g, key) => (g.colour && g.colour.modes || []).find((m) => m.key === key) || { key: "job", type: "job" };

  // The bars' columns decoded once per payload: times in the axis' units, each (row, lane)'s range of
  // bars (sorted by start inside it: the server sorts by row, lane, start), the job ids.
  function decoded(g) {
    if (g.$bars) return g.$bars;
    const b = g.bars, n = b.n || 0, S = new Float64Array(n), E = new Float64Array(n);
    for (let k = 0; k < n; k++) { S[k] = b.t0 + b.s[k] * b.q; E[k] = b.t0 + (b.s[k] + b.d[k]) * b.q; }
    const exact = new Map(); // bars reaching past the window: their exact times (drawing uses the clipped ones)
    (b.edge && b.edge.k || []).forEach((k, i) => exact.set(k, [b.edge.s[i], b.edge.e[i]]));
    const ranges = new Map(); // "row/lane" -> [first, end)
    for (let k = 0; k < n; k++) {
      const key = b.r[k] * 1024 + b.lane[k], r = ranges.get(key);
      if (r) r[1] = k + 1; else ranges.set(key, [k, k + 1]);
    }
    const oneJob = n > 1 && b.job.every((j) => j === b.job[0]);
    g.$bars = { n, S, E, exact, ranges, oneJob };
    return g.$bars;
  }
  const coded = (col, k) => (col ? (col.codes ? col.values[col.codes[k]] : col.values[0]) : undefined);
  const jobOf = (g, k) => g.bars.jobs[g.bars.job[k]];
  const taskOf = (g, k) => (g.bars.tasks ? g.bars.tasks[g.bars.task[k]] : `${jobOf(g, k)}.${g.bars.task[k]}`);

  // The colour of bar k of g in mode `key` (job: the hashed job colour of every chart).
  function barColour(g, key, k) {
    const mode = modeOf(g, key), b = g.bars;
    if (mode.type === "category") return categoryColour(mode, b.c[key][k]);
    if (mode.type === "scale") return valueColour(mode, b.c[key][k]);
    return cs.jobColour(decoded(g).oneJob ? taskOf(g, k) : jobOf(g, k)); // one job: tell its tasks apart
  }

  function hasJobRow(g) { return (g.events && g.events.kinds || []).some((k) => k === "rejected" || k === "deadline missed"); }
  function rowLabels(g) { return hasJobRow(g) ? [JOB_ROW, ...g.resources] : [...g.resources]; }

  // The bars grouped by colour (kept per payload and colour choice): one fillStyle per group when drawing.
  function colourGroups(chart) {
    const g = chart.$g, key = chart.$colourOf ? "custom" : chart.$colour || "job";
    if (g.$groups && g.$groups.key === key) return g.$groups.map;
    const colour = chart.$colourOf ? (k) => chart.$colourOf(g, k) : (k) => barColour(g, key, k);
    const map = new Map(), n = decoded(g).n, cache = new Map();
    for (let k = 0; k < n; k++) {
      const id = key === "job" && !decoded(g).oneJob ? g.bars.job[k] : -1; // job colours: hashed once per job, not per bar
      let c = id >= 0 ? cache.get(id) : undefined;
      if (c === undefined) { c = colour(k); if (id >= 0) cache.set(id, c); }
      let list = map.get(c);
      if (!list) { list = []; map.set(c, list); }
      list.push(k);
    }
    g.$groups = { key, map };
    return map;
  }

  // A row's band on the canvas and its lanes: [top, height] of lane `lane` of `lanes` in row r.
  function rowGeometry(chart, r) {
    const g = chart.$g, y = chart.scales.y, labels = chart.data.labels;
    const band = y.height / Math.max(1, labels.length), centre = y.getPixelForValue(labels.indexOf(g.resources[r]));
    return { top: centre - band * 0.45, height: band * 0.9, lanes: (g.lanes || [])[r] || 1 };
  }
  function laneBox(geo, lane) {
    const h = geo.height / geo.lanes;
    return [geo.top + lane * h, Math.max(1, h - (geo.lanes > 1 ? 0.5 : 0))];
  }
  const xPixel = (xs) => { const f = xs.width / (xs.max - xs.min || 1); return (t) => xs.left + (t - xs.min) * f; };

  // Every bar, painted in batches: per colour one fillStyle, then one fillRect per bar (at least a pixel wide).
  const barsPlugin = {
    id: "csBars",
    beforeDraw(chart) { chart.$painted = { bars: 0, colours: 0, blocks: 0, marks: 0 }; }, // what this draw paints
    beforeDatasetsDraw(chart) {
      const g = chart.$g;
      if (!g || g.mode !== "bars" || !g.bars || !g.bars.n) return;
      const { ctx, chartArea, scales } = chart, px = xPixel(scales.x), d = decoded(g), b = g.bars;
      const geo = g.resources.map((_, r) => rowGeometry(chart, r));
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      let painted = 0;
      colourGroups(chart).forEach((list, colour) => {
        ctx.fillStyle = colour;
        for (let i = 0; i < list.length; i++) {
          const k = list[i], x0 = px(d.S[k]), x1 = px(d.E[k]);
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
  function drawn(chart) {
    const g = chart.$g;
    if (!g || g.mode !== "bars") return [];
    const d = decoded(g), b = g.bars, out = new Array(d.n), colour = new Array(d.n);
    colourGroups(chart).forEach((list, c) => list.forEach((k) => { colour[k] = c; }));
    for (let k = 0; k < d.n; k++) {
      const [top, h] = laneBox(rowGeometry(chart, b.r[k]), b.lane[k]), ex = d.exact.get(k);
      out[k] = { row: g.resources[b.r[k]], s: ex ? ex[0] : d.S[k], e: ex ? ex[1] : d.E[k], job: jobOf(g, k), task: taskOf(g, k),
        lane: b.lane[k], colour: colour[k], top, bottom: top + h, status: b.status ? b.statuses[b.status[k]] : undefined };
    }
    return out;
  }

  // The bar under the pointer: the row and lane from y, then a binary search by start in that lane.
  function barAt(chart, x, y) {
    const g = chart.$g;
    if (!g || g.mode !== "bars" || !g.bars.n) return -1;
    const d = decoded(g), t = chart.scales.x.getValueForPixel(x);
    for (let r = 0; r < g.resources.length; r++) {
      const geo = rowGeometry(chart, r);
      if (y < geo.top || y > geo.top + geo.height) continue;
      const lane = Math.min(geo.lanes - 1, Math.floor(((y - geo.top) / geo.height) * geo.lanes));
      const range = d.ranges.get(r * 1024 + lane);
      if (!range) return -1;
      let lo = range[0], hi = range[1] - 1, best = -1;
      while (lo <= hi) { const mid = (lo + hi) >> 1; if (d.S[mid] <= t) { best = mid; lo = mid + 1; } else hi = mid - 1; }
      const slack = (chart.scales.x.max - chart.scales.x.min) / chart.scales.x.width; // a bar is at least a pixel wide
      return best >= 0 && t <= Math.max(d.E[best], d.S[best] + slack) ? best : -1;
    }
    return -1;
  }

  // Lanes are part of the geometry above (rowGeometry, laneBox); kept as a no-op name for older callers.
  const lanesPlugin = { id: "csLanes" };

  // Group headings: the group's name beside its rows, a rule between groups.
  const groupsPlugin = {
    id: "csGroups",
    afterDraw(chart) {
      const g = chart.$g;
      if (!g || !g.groups || !g.groups.length) return;
      const { ctx, chartArea, scales } = chart, y = scales.y, labels = chart.data.labels;
      const band = y.height / Math.max(1, labels.length), x = y.left - 6;
      ctx.save();
      ctx.font = "bold 11px sans-serif"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      g.groups.forEach((grp) => {
        const a = Math.max(grp.row0, g.row0), z = Math.min(grp.row0 + grp.rows, g.row0 + g.resources.length);
        if (a >= z) return;
        const top = y.getPixelForValue(labels.indexOf(g.resources[a - g.row0])) - band / 2;
        const bottom = y.getPixelForValue(labels.indexOf(g.resources[z - 1 - g.row0])) + band / 2;
        ctx.strokeStyle = "#666"; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(x, top + 2); ctx.lineTo(x, bottom - 2); ctx.stroke();
        ctx.fillStyle = "#333";
        const name = grp.name.length > 12 ? grp.name.slice(0, 11) + "…" : grp.name;
        ctx.fillText(name, x - 4, (top + bottom) / 2);
        ctx.strokeStyle = "#bbb";
        ctx.beginPath(); ctx.moveTo(chartArea.left, top); ctx.lineTo(chartArea.right, top); ctx.stroke();
      });
      ctx.restore();
    },
  };

  // Occupancy: a block per row (or per tier lane of a row) and pixel column; darkness = busy fraction;
  // colour = the mode's dominant category (most busy time in the block) or busy-weighted mean value,
  // sent by the server. Two tiers on one processor (backfill) are two lanes, each its own fraction.
  const TIER_COLOUR = ["rgb(31, 92, 160)", "rgb(110, 150, 0)"];
  const occupancyPlugin = {
    id: "csOccupancy",
    beforeDatasetsDraw(chart) {
      const g = chart.$g;
      if (!g || g.mode !== "occupancy" || !g.occupancy) return;
      const { ctx, chartArea, scales } = chart, px = xPixel(scales.x);
      const occ = g.occupancy, [t0, t1] = occ.t, n = occ.columns, step = (t1 - t0) / n;
      // The diff page (`opts.statusColour`): each block in the colour of its changed jobs' main status (the server's).
      const byStatus = chart.$statusColour && occ.c && occ.c.status;
      const mode = byStatus ? { type: "status" } : chart.$colourOf ? { type: "job" } : modeOf(g, chart.$colour);
      const codes = byStatus ? occ.c.status : mode.type !== "job" && occ.c ? occ.c[mode.key] : null;
      const tiers = occ.tiers ? occ.tiers.rows : null;
      let blocks = 0;
      const byColour = {}; // blocks painted per colour (what the tests read: a changed job is never painted unchanged)
      // Painted as pixels: every block is written into one image of the plot area (a line of each row band,
      // then copied down the band) and the image drawn once — 40 rows × 2 tiers × 1,400 columns were
      // 112,000 fillRects with a colour and an alpha each. Alpha as before: 0.2 + 0.8 × busy fraction.
      const left = Math.floor(chartArea.left), top = Math.floor(chartArea.top);
      const W = Math.max(1, Math.ceil(chartArea.right) - left), H = Math.max(1, Math.ceil(chartArea.bottom) - top);
      const off = chart.$occupancyCanvas || (chart.$occupancyCanvas = document.createElement("canvas"));
      if (off.width !== W || off.height !== H) { off.width = W; off.height = H; }
      const octx = off.getContext("2d");
      const image = octx.createImageData(W, H), pixels = new Uint32Array(image.data.buffer);
      // Pixels as 32-bit words in the byte order of every browser platform (little-endian: R, G, B, A).
      const rgb = new Map(); // a colour as the canvas writes it ("#rrggbb") → [name, r | g << 8 | b << 16]
      const rgbOf = (css) => {
        let hit = rgb.get(css);
        if (!hit) {
          octx.fillStyle = css;
          const name = octx.fillStyle, hex = name.startsWith("#") ? name : "#999999";
          const v = parseInt(hex.slice(1), 16);
          hit = [name, ((v >> 16) & 255) | (((v >> 8) & 255) << 8) | ((v & 255) << 16)];
          rgb.set(css, hit);
        }
        return hit;
      };
      const paint = (row, line, y, h, base) => {
        const y0 = Math.max(0, Math.round(y) - top), y1 = Math.min(H, Math.max(y0 + 1, Math.round(y + h) - top));
        if (y1 <= y0) return;
        const start = y0 * W;
        let painted = -Infinity; // whole pixels, each painted once: no darker seams where translucent blocks overlap
        row.forEach((v, k) => {
          if (!v) return;
          const x0 = Math.round(px(t0 + k * step));
          if (x0 < painted) return; // a sub-pixel column whose pixel an earlier column painted
          const x1 = Math.max(x0 + 1, Math.round(px(t0 + (k + 1) * step)));
          painted = x1;
          let css = base;
          if (line && line[k] !== ".") {
            const code = line.charCodeAt(k) - 48;
            css = mode.type === "status" ? chart.$statusColour(code, g) : mode.type === "scale" ? scaleColour(code / 63) : categoryColour(mode, code);
          }
          const [name, colour] = rgbOf(css);
          const alpha = Math.round(255 * Math.min(1, 0.2 + 0.8 * v));
          const a = Math.max(0, x0 - left), b = Math.min(W, x1 - left);
          if (b > a) pixels.fill((colour | (alpha << 24)) >>> 0, start + a, start + b);
          blocks++;
          byColour[name] = (byColour[name] || 0) + 1;
        });
        for (let yy = y0 + 1; yy < y1; yy++) pixels.copyWithin(yy * W, start, start + W);
      };
      occ.rows.forEach((row, r) => {
        const geo = rowGeometry(chart, r), line = codes ? codes[r] : null;
        if (!tiers) { paint(row, line, geo.top, geo.height, TIER_COLOUR[0]); return; }
        tiers[r].forEach((tierRow, t) => { const [y, h] = laneBox({ ...geo, lanes: 2 }, t); paint(tierRow, line, y, h, TIER_COLOUR[t]); });
      });
      octx.putImageData(image, 0, 0);
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      ctx.drawImage(off, left, top);
      ctx.restore();
      chart.$painted = { ...(chart.$painted || {}), blocks, byColour };
    },
  };

  // Event marks: a glyph per event; where the window holds too many, per pixel column and kind a tick
  // whose opacity grows with the count (the server's counts; the note says so).
  const eventsPlugin = {
    id: "csEvents",
    afterDatasetsDraw(chart) {
      const g = chart.$g, ev = g && g.events;
      if (!ev || !ev.total) return;
      const { ctx, chartArea, scales } = chart, px = xPixel(scales.x), labels = chart.data.labels;
      const band = scales.y.height / Math.max(1, labels.length);
      const yOf = (r) => scales.y.getPixelForValue(labels.indexOf(r >= 0 ? g.resources[r] : JOB_ROW));
      let marks = 0;
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.font = `${Math.max(8, Math.min(14, band))}px sans-serif`;
      if (ev.mode === "counts") {
        const [t0, t1] = g.window, w = (t1 - t0) / ev.columns;
        ev.cn.forEach((n, i) => {
          const kind = ev.kinds[ev.ck[i]], x = px(t0 + (ev.cp[i] + 0.5) * w), y = yOf(ev.cr[i]);
          ctx.globalAlpha = Math.min(1, 0.35 + 0.25 * Math.log10(1 + n));
          ctx.fillStyle = MARKERS[kind].colour;
          ctx.fillRect(Math.round(x) - 1, y - band * 0.45, 2, band * 0.9);
          marks++;
        });
      } else {
        ev.t.forEach((t, i) => {
          const m = MARKERS[ev.kind[i]];
          ctx.fillStyle = m.colour;
          ctx.fillText(m.glyph, px(t), yOf(ev.r[i]));
          marks++;
        });
      }
      ctx.restore();
      chart.$painted = { ...(chart.$painted || {}), marks };
    },
  };

  // Tooltip: our own box over the canvas (Chart.js has no elements for the bars), from barAt / the marks.
  function eventAt(chart, x, y) {
    const g = chart.$g, ev = g && g.events;
    if (!ev || !ev.total) return null;
    const px = xPixel(chart.scales.x), labels = chart.data.labels;
    const yOf = (r) => chart.scales.y.getPixelForValue(labels.indexOf(r >= 0 ? g.resources[r] : JOB_ROW));
    if (ev.mode === "counts") {
      const [t0, t1] = g.window, w = (t1 - t0) / ev.columns;
      const i = ev.cn.findIndex((_, j) => Math.abs(px(t0 + (ev.cp[j] + 0.5) * w) - x) <= 3 && Math.abs(yOf(ev.cr[j]) - y) <= 6);
      return i < 0 ? null : [`${ev.cn[i]} × ${ev.labels[ev.kinds[ev.ck[i]]] || ev.kinds[ev.ck[i]]}`,
        `in ${cs.timeText(t0 + ev.cp[i] * w)} – ${cs.timeText(t0 + (ev.cp[i] + 1) * w)}`,
        ev.cr[i] >= 0 ? `on ${g.resources[ev.cr[i]]}` : "no resource", "(counts: too many events here to mark one by one; zoom in)"];
    }
    const i = ev.t.findIndex((t, j) => Math.abs(px(t) - x) <= 6 && Math.abs(yOf(ev.r[j]) - y) <= 6);
    return i < 0 ? null : [`${ev.kind[i]} · job ${ev.job[i]}`, ev.labels[ev.kind[i]], `at ${cs.timeText(ev.t[i])}`,
      ev.r[i] >= 0 ? `on ${g.resources[ev.r[i]]}` : "no resource (the job never ran there)", ev.task[i] ? `task ${ev.task[i]}` : ""].filter(Boolean);
  }
  function barLines(chart, k) {
    const g = chart.$g, b = g.bars, d = decoded(g), ex = d.exact.get(k);
    const lanes = (g.lanes || [])[b.r[k]] || 1;
    const lines = [`job ${jobOf(g, k)}`, `task ${taskOf(g, k)} on ${g.resources[b.r[k]]}${lanes > 1 ? ` (lane ${b.lane[k] + 1} of ${lanes})` : ""}`,
      `share ${coded(b.share, k)}`, `${cs.timeText(ex ? ex[0] : d.S[k])} – ${cs.timeText(ex ? ex[1] : d.E[k])}`];
    Object.entries(b.extra || {}).forEach(([name, col]) => { const v = coded(col, k); if (v !== null && v !== undefined) lines.push(`${name} ${v}`); });
    const kind = coded(b.kind, k);
    if (kind) lines.push(`kind ${kind}`);
    if (b.status) lines.push(`in B: ${b.statuses[b.status[k]].replace(/_/g, " ")}`);
    return lines;
  }
  function attachTooltip(chart) {
    const box = chart.canvas.parentNode, tip = document.createElement("div");
    tip.className = "gantt-tip"; tip.hidden = true;
    box.appendChild(tip);
    chart.canvas.addEventListener("mousemove", (e) => {
      const rect = chart.canvas.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
      const k = barAt(chart, x, y), lines = eventAt(chart, x, y) || (k >= 0 ? barLines(chart, k) : null);
      tip.hidden = !lines;
      if (!lines) return;
      tip.textContent = "";
      lines.forEach((l, i) => { const div = document.createElement(i ? "div" : "strong"); div.textContent = l; tip.appendChild(div); });
      tip.style.left = Math.min(x + 12, box.clientWidth - 260) + "px"; tip.style.top = (y + 12) + "px";
    });
    chart.canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  }

  // The one place the Gantt's time axis is configured (the shared time-axis helper of charts-common.js
  // can take it over): linear, the window's bounds, the page's unit.
  function timeAxis(g) {
    return { type: "linear", title: { display: true, text: `time (${cs.unit || "s"})` }, min: g.window[0], max: g.window[1] };
  }

  // The chart: Chart.js for the axes, zoom and pan (one empty dataset gives the rows their category axis);
  // the plugins paint occupancy, bars, marks and group headings. `opts.colourOf(g, k)`: a page's own colours;
  // `opts.statusColour(code, g)`: the diff's colour of a status code in occupancy blocks.
  function data(g) { return { labels: rowLabels(g), datasets: [{ label: "segments", data: [] }] }; }
  function create(canvas, g, link, opts) {
    const chart = new Chart(canvas, {
      type: "bar", data: data(g), plugins: [occupancyPlugin, barsPlugin, eventsPlugin, groupsPlugin],
      options: {
        indexAxis: "y", animation: false, maintainAspectRatio: false,
        layout: { padding: { left: g.groups && g.groups.length ? 90 : 0 } },
        scales: { x: timeAxis(g), y: { type: "category", ticks: { autoSkip: false, font: { size: 10 } } } },
        plugins: { legend: { display: false }, zoom: link.zoomOptions, tooltip: { enabled: false }, subtitle: subtitle(g) },
      },
    });
    chart.$g = g;
    chart.$colour = (opts && opts.colour) || "job";
    chart.$colourOf = opts && opts.colourOf;
    chart.$statusColour = opts && opts.statusColour;
    attachTooltip(chart);
    link.add(chart);
    return chart;
  }
  function update(chart, g, colour) {
    chart.$g = g;
    if (colour !== undefined) chart.$colour = colour;
    chart.data = data(g);
    chart.options.plugins.subtitle = subtitle(g);
    chart.options.layout.padding.left = g.groups && g.groups.length ? 90 : 0;
    chart.update("none");
  }

  // What the chart shows, said in words under its title.
  function note(g) {
    const last = g.row0 + g.resources.length;
    const by = g.group_by ? ` (grouped by ${g.group_by.replace("_", " ")}: ${g.groups.length} groups)` : "";
    const rows = `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${g.total_resources} resources${by}`;
    let what;
    if (g.mode === "occupancy") {
      const tiers = g.occupancy && g.occupancy.tiers ? "; the foreground and background tiers in two lanes, each its own busy fraction" : "";
      what = `${g.window_segments} segments in this window on these rows, more than the ${g.max_bars} drawn one by one, so drawn as occupancy blocks (one per row and pixel column: darker = a larger share of the resource busy${tiers})`;
      what += g.zoom_shows_bars ? "; zoom in to see single bars" : `; zooming in will not separate them (more than ${g.max_bars} segments overlap every instant of this window on these rows)`;
    } else {
      const multi = (g.lanes || []).some((n) => n > 1) ? "; segments overlapping on one resource are drawn in lanes inside its row" : "";
      what = `${g.bars.n} bars, every segment of this window on these rows${multi}`;
    }
    const ev = g.events || { total: 0, t: [] };
    const events = ev.total ? ` ${ev.total} events here${ev.mode === "counts" ? ` (too many to mark one by one: marked as counts per pixel column and kind, darker = more; zoom in for single marks)` : ", every one marked"}.` : "";
    const cut = g.schedule_cut;
    let rec = "";
    if (cut) {
      const limit = cut.limit ? `its limit of ${cut.limit} segments` : "its max_segments setting";
      rec = ` The family stopped recording the schedule at ${limit} (${cut.recorded} recorded)` + (cut.cut_at_s !== null && cut.cut_at_s !== undefined ? `, at t = ${cs.timeText(cut.cut_at_s)}: nothing later is drawn.` : ".");
    }
    return `${g.algorithm} · repetition ${g.repetition}: ${rows}; ${what} (${g.total_segments} segments in all).${events}${rec}`;
  }

  function subtitle(g) {
    const cut = g.schedule_cut;
    if (cut && cut.cut_at_s !== null && cut.cut_at_s !== undefined && g.window[0] >= cut.cut_at_s) return { display: true, text: `nothing recorded after t = ${cs.timeText(cut.cut_at_s)}: the family capped its schedule recording`, color: "#a60" };
    if (!g.bars.n && g.mode !== "occupancy" && cut) return { display: true, text: "no segments recorded in this window: the family capped its schedule recording", color: "#a60" };
    if (g.mode === "occupancy") return { display: true, text: `occupancy blocks (${g.window_segments} segments)` + (g.zoom_shows_bars ? ": zoom in for single bars" : ": too dense to separate at any zoom"), color: "#555" };
    return { display: false, text: "" };
  }

  // The legend: what every colour and mark of the Gantts means, for the chosen mode.
  function legend(el, gantts, key) {
    el.innerHTML = "";
    const add = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text) e.textContent = text; return e; };
    const item = (colour, text, glyph) => {
      const s = add("span", "legend-item");
      const sw = add("span", glyph ? "glyph" : "sw", glyph || "");
      if (glyph) sw.style.color = colour; else sw.style.background = colour;
      s.append(sw, add("span", null, text));
      s.dataset.colour = colour;
      return s;
    };
    const g0 = gantts[0];
    if (!g0) return;
    const mode = modeOf(g0, key);
    const head = add("div", "legend-row");
    head.append(add("strong", null, "Bar colour: " + (mode.type === "job" ? "job" : mode.label) + ". "));
    const oneJob = gantts.every((g) => decoded(g).oneJob);
    if (mode.type === "job" && oneJob) {
      head.append(add("span", null, "the run has one job, so each of its tasks has its own colour (hashed from the task id); hover a bar for its task and times."));
    } else if (mode.type === "job") {
      head.append(add("span", null, "each job its own colour, hashed from its id (the same job has the same colour on every chart); hover a bar for its job, task and times."));
    } else if (mode.type === "category") {
      mode.categories.forEach((c, i) => { const it = item(categoryColour(mode, i), c); it.dataset.category = String(i); head.append(it); });
    } else {
      const bar = add("span", "colourbar");
      bar.style.background = gradient();
      head.append(add("span", null, `${cs.fmt(mode.range[0])} ${mode.unit}`), bar, add("span", null, `${cs.fmt(mode.range[1])} ${mode.unit}`));
    }
    el.append(head);
    if (gantts.some((g) => g.mode === "occupancy")) {
      const occ = add("div", "legend-row help");
      occ.textContent = mode.type === "job"
        ? "Occupancy blocks (where a window holds too many bars): blue, darker = a larger share of the resource busy in that pixel column."
        : mode.type === "scale"
          ? `Occupancy blocks: colour = the busy-weighted mean ${mode.label} in the block (share × time), darker = busier.`
          : `Occupancy blocks: colour = the ${mode.label} with the most busy time (share × time) in the block, darker = busier.`;
      el.append(occ);
    }
    if (gantts.some((g) => (g.lanes || []).some((n) => n > 1))) {
      el.append(add("div", "legend-row help", "Lanes: segments that overlap in time on one resource (VMs sharing a machine, tiers, shares) are stacked in thinner lanes inside its row, never drawn over each other."));
    }
    const kinds = [...new Set(gantts.flatMap((g) => (g.events && g.events.kinds) || []))];
    if (kinds.length) {
      const row = add("div", "legend-row");
      row.append(add("strong", null, "Marks: "));
      kinds.forEach((k) => { const it = item(MARKERS[k].colour, (gantts[0].events.labels || {})[k] || k, MARKERS[k].glyph); it.dataset.marker = k; row.append(it); });
      if (kinds.some((k) => k === "rejected" || k === "deadline missed")) row.append(add("span", "help", ` Job events without a resource are on the top line, "${JOB_ROW}".`));
      el.append(row);
    }
  }

  // The modes a page offers: those of any of its Gantts, in the server's order.
  function modes(gantts) {
    const seen = new Map();
    gantts.forEach((g) => (g.colour && g.colour.modes || []).forEach((m) => { if (!seen.has(m.key)) seen.set(m.key, m); }));
    return [...seen.values()];
  }

  function height(g) {
    const lanes = Math.max(1, ...(g.lanes || [1]));
    const perRow = Math.max(16, Math.min(90, 8 + 7 * lanes));
    return Math.max(160, 70 + perRow * rowLabels(g).length);
  }

  // The DVFS strips' colour bar (the strips themselves: strips.js).
  function stripLegend(el, range) {
    el.innerHTML = "";
    const s = (t) => { const e = document.createElement("span"); e.textContent = t; return e; };
    const bar = document.createElement("span");
    bar.className = "colourbar"; bar.style.background = gradient();
    const idle = document.createElement("span");
    idle.className = "sw"; idle.style.background = IDLE;
    el.append(s("Colour: each host's highest running core frequency, time-weighted mean over the busy part of each column: "), s(`${cs.fmt(range[0])} GHz`), bar, s(`${cs.fmt(range[1])} GHz`), s("; paler = busy only part of the column; "), idle, s("idle."));
  }

  // The older names the diff page uses (one implementation).
  cs.gantt = { create, update, data, drawn, barAt, barColour, timeAxis, lanesPlugin, groupsPlugin, occupancyPlugin, barsPlugin, eventsPlugin,
    note, subtitle, legend, modes, height, stripLegend, scaleColour, categoryColour, MARKERS, JOB_ROW };
})();
