// Gantt charts and DVFS heat strips of the result page: colour modes with their legend, lanes
// inside a row, group headings on the resource axis, event markers, and what the chart shows
// said truthfully. The server (runs/timeline.py) sends every value drawn: a bar's lane, its
// category or value per colour mode, the dominant category of each occupancy block, the events.
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

  // The colour of bar k of g in mode `key` (job: the hashed job colour of every chart).
  function barColour(g, key, k) {
    const mode = modeOf(g, key), b = g.bars;
    if (mode.type === "category") return categoryColour(mode, b.c[key][k]);
    if (mode.type === "scale") return valueColour(mode, b.c[key][k]);
    const oneJob = b.job.length > 1 && b.job.every((j) => j === b.job[0]);
    return cs.jobColour(oneJob ? b.job[k] + "/" + b.task[k] : b.job[k]); // one job: tell its tasks apart
  }

  function hasJobRow(g) { return (g.events && g.events.kinds || []).some((k) => k === "rejected" || k === "deadline missed"); }
  function rowLabels(g) { return hasJobRow(g) ? [JOB_ROW, ...g.resources] : [...g.resources]; }

  // The chart's data: dataset 0 the bars (with lane, lanes of their row), then one scatter dataset per
  // event kind. Colour: the mode `key`, or a page's own function of (job, bar index) (the diff page).
  function data(g, key, colourOf) {
    const b = g.bars;
    const bars = b.s.map((s, k) => ({ x: [s, b.e[k]], y: g.resources[b.r[k]], k, lane: (b.lane || [])[k] || 0, lanes: (g.lanes || [])[b.r[k]] || 1 }));
    const colour = colourOf ? (d) => colourOf(b.job[d.k], d.k) : (d) => barColour(g, key, d.k);
    const datasets = [{ label: "segments", data: bars, backgroundColor: bars.map(colour), borderWidth: 0, borderSkipped: false, barPercentage: 0.9, categoryPercentage: 1, minBarLength: 2 }];
    const ev = g.events || { kind: [] };
    Object.keys(MARKERS).forEach((kind) => {
      const idx = ev.kind.map((k, i) => (k === kind ? i : -1)).filter((i) => i >= 0);
      if (!idx.length) return;
      const m = MARKERS[kind];
      datasets.push({ type: "scatter", label: kind, marker: kind, data: idx.map((i) => ({ x: ev.t[i], y: ev.r[i] >= 0 ? g.resources[ev.r[i]] : JOB_ROW, e: i })),
        order: -1, pointStyle: m.style, pointRadius: 6, pointHoverRadius: 8, backgroundColor: m.colour, // over the bars
        borderColor: STROKED.has(m.style) ? m.colour : "#ffffff", borderWidth: STROKED.has(m.style) ? 3 : 1 }); // crosses and stars are only strokes
    });
    return { labels: rowLabels(g), datasets };
  }

  // Lanes: segments overlapping on one resource share its row, each in its own horizontal lane.
  const lanesPlugin = {
    id: "csLanes",
    afterDatasetsUpdate(chart) {
      const meta = chart.getDatasetMeta(0), y = chart.scales.y;
      if (!meta || !y || !chart.data.labels.length) return;
      const band = (y.height / chart.data.labels.length) * 0.9;
      meta.data.forEach((el, i) => {
        const raw = chart.data.datasets[0].data[i];
        if (!raw || raw.lanes <= 1) return;
        const centre = y.getPixelForValue(chart.data.labels.indexOf(raw.y)), h = band / raw.lanes;
        el.y = centre - band / 2 + (raw.lane + 0.5) * h;
        el.height = Math.max(1, h - 0.5);
      });
    },
  };

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

  // Occupancy: a block per row and pixel column; darkness = busy fraction; colour = the mode's
  // dominant category (most busy time in the block) or busy-weighted mean value, sent by the server.
  const occupancyPlugin = {
    id: "csOccupancy",
    beforeDatasetsDraw(chart) {
      const g = chart.$g;
      if (!g || g.mode !== "occupancy" || !g.occupancy) return;
      const { ctx, chartArea, scales } = chart, labels = chart.data.labels;
      const occ = g.occupancy, [t0, t1] = occ.t, n = occ.columns, step = (t1 - t0) / n;
      const band = scales.y.height / Math.max(1, labels.length);
      const mode = modeOf(g, chart.$colour), codes = mode.type !== "job" && occ.c ? occ.c[mode.key] : null;
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      occ.rows.forEach((row, r) => {
        const yc = scales.y.getPixelForValue(labels.indexOf(g.resources[r])), y = yc - band * 0.45, h = band * 0.9;
        const line = codes ? codes[r] : null;
        let painted = -Infinity; // whole pixels, each painted once: no darker seams where translucent blocks overlap
        row.forEach((v, k) => {
          if (!v) return;
          const x0 = Math.round(scales.x.getPixelForValue(t0 + k * step));
          if (x0 < painted) return; // a sub-pixel column whose pixel an earlier column painted
          const x1 = Math.max(x0 + 1, Math.round(scales.x.getPixelForValue(t0 + (k + 1) * step)));
          painted = x1;
          ctx.globalAlpha = Math.min(1, 0.2 + 0.8 * v);
          if (line && line[k] !== ".") {
            const code = line.charCodeAt(k) - 48;
            ctx.fillStyle = mode.type === "scale" ? scaleColour(code / 63) : categoryColour(mode, code);
          } else {
            ctx.fillStyle = "rgb(31, 92, 160)";
          }
          ctx.fillRect(x0, y, x1 - x0, h);
        });
      });
      ctx.restore();
    },
  };

  function tooltip(getG) {
    return {
      filter: (item) => item.datasetIndex === 0 || item.dataset.marker,
      callbacks: {
        title: (items) => {
          const g = getG(items[0].chart), raw = items[0].raw;
          if (items[0].dataset.marker) return `${items[0].dataset.marker} · job ${g.events.job[raw.e]}`;
          return "job " + g.bars.job[raw.k];
        },
        label: (c) => {
          const g = getG(c.chart), raw = c.raw, unit = cs.unit || "s";
          if (c.dataset.marker) {
            const ev = g.events, i = raw.e;
            return [ev.labels[ev.kind[i]], `at ${cs.fmt(ev.t[i])} ${unit}`, ev.r[i] >= 0 ? `on ${g.resources[ev.r[i]]}` : "no resource (the job never ran there)", ev.task[i] ? `task ${ev.task[i]}` : ""].filter(Boolean);
          }
          const b = g.bars, k = raw.k;
          const lines = [`task ${b.task[k]} on ${g.resources[b.r[k]]}${raw.lanes > 1 ? ` (lane ${raw.lane + 1} of ${raw.lanes})` : ""}`, `share ${b.share[k]}`, `${cs.fmt(b.s[k])} – ${cs.fmt(b.e[k])} ${unit}`];
          Object.entries(b.extra || {}).forEach(([name, vals]) => { if (vals[k] !== null && vals[k] !== undefined) lines.push(`${name} ${vals[k]}`); });
          if (b.kind[k]) lines.push(`kind ${b.kind[k]}`);
          return lines;
        },
      },
    };
  }

  // What the chart shows, said in words under its title.
  function note(g) {
    const last = g.row0 + g.resources.length;
    const by = g.group_by ? ` (grouped by ${g.group_by.replace("_", " ")}: ${g.groups.length} groups)` : "";
    const rows = `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${g.total_resources} resources${by}`;
    let what;
    if (g.mode === "occupancy") {
      what = `${g.window_segments} segments in this window on these rows, more than the ${g.max_bars} drawn one by one, so drawn as occupancy blocks (one per row and pixel column: darker = a larger share of the resource busy)`;
      what += g.zoom_shows_bars ? "; zoom in to see single bars" : `; zooming in will not separate them (more than ${g.max_bars} segments overlap every instant of this window on these rows)`;
    } else {
      const multi = (g.lanes || []).some((n) => n > 1) ? "; segments overlapping on one resource are drawn in lanes inside its row" : "";
      what = `${g.bars.s.length} bars, every segment of this window on these rows${multi}`;
    }
    const ev = g.events || { total: 0, t: [] };
    const events = ev.total ? ` ${ev.total} events here${ev.t.length < ev.total ? ` (the first ${ev.t.length} marked; zoom in for the rest)` : ""}.` : "";
    const cut = g.schedule_cut;
    let rec = "";
    if (cut) {
      const limit = cut.limit ? `its limit of ${cut.limit} segments` : "its max_segments setting";
      rec = ` The family stopped recording the schedule at ${limit} (${cut.recorded} recorded)` + (cut.cut_at_s !== null && cut.cut_at_s !== undefined ? `, at t = ${cs.fmt(cut.cut_at_s)} ${cs.unit || "s"}: nothing later is drawn.` : ".");
    }
    return `${g.algorithm} · repetition ${g.repetition}: ${rows}; ${what} (${g.total_segments} segments in all).${events}${rec}`;
  }

  function subtitle(g) {
    const cut = g.schedule_cut;
    if (cut && cut.cut_at_s !== null && cut.cut_at_s !== undefined && g.window[0] >= cut.cut_at_s) return { display: true, text: `nothing recorded after t = ${cs.fmt(cut.cut_at_s)}: the family capped its schedule recording`, color: "#a60" };
    if (!g.bars.s.length && g.mode !== "occupancy" && cut) return { display: true, text: "no segments recorded in this window: the family capped its schedule recording", color: "#a60" };
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
    const oneJob = gantts.every((g) => g.bars.job.length > 1 && g.bars.job.every((j) => j === g.bars.job[0]));
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

  // DVFS heat strips: one row per host, one block per time column, colour = mean frequency
  // while busy (viridis, the colour bar), paler = busy part of the column; grey = idle.
  const stripPlugin = {
    id: "csStrip",
    beforeDatasetsDraw(chart) {
      const f = chart.$strip, range = chart.$range;
      if (!f) return;
      const { ctx, chartArea, scales } = chart, [t0, t1] = f.t, step = (t1 - t0) / f.columns;
      const band = scales.y.height / Math.max(1, f.hosts.length);
      ctx.save();
      ctx.beginPath(); ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height); ctx.clip();
      f.hosts.forEach((_, r) => {
        const y = scales.y.getPixelForValue(r) - band * 0.45, h = band * 0.9;
        f.ghz[r].forEach((v, k) => {
          const x0 = Math.round(scales.x.getPixelForValue(t0 + k * step)), x1 = Math.round(scales.x.getPixelForValue(t0 + (k + 1) * step));
          ctx.globalAlpha = v === null ? 1 : 0.35 + 0.65 * f.busy[r][k];
          ctx.fillStyle = v === null ? IDLE : scaleColour(range[1] > range[0] ? (v - range[0]) / (range[1] - range[0]) : 1);
          ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
        });
      });
      ctx.restore();
    },
  };
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
  Object.assign(cs, { ganttData: (g, colourOf) => data(g, "job", colourOf), ganttTooltip: tooltip, ganttNote: note, ganttSubtitle: subtitle, occupancyPlugin });
  cs.gantt = { data, barColour, lanesPlugin, groupsPlugin, occupancyPlugin, tooltip, note, subtitle, legend, modes, height, stripPlugin, stripLegend, scaleColour, categoryColour, MARKERS, JOB_ROW };
})();
