// Run page (run-header.js polls the status while the run is in progress): draw the comparison
// bars, the series overlays, DVFS heat strips and one Gantt per algorithm, all on one linked
// time axis whose window the server cuts (data endpoint) as the user zooms and pans.
(function () {
  "use strict";
  const payloadEl = document.getElementById("run-payload");
  if (!payloadEl) return; // still running, or failed: run-header.js polls the status
  const payload = JSON.parse(payloadEl.textContent);
  const dataUrl = document.getElementById("results").dataset.dataUrl;
  const { palette, fmt, algorithmColor } = window.cs;
  const registry = { gantt: {}, series: {}, comparison: null, freq: {} };
  window.cloudsched = registry;

  // The comparison chart of the summary metrics: comparison.js.

  // Timeline: series overlays + frequency + Gantts on one linked, server-windowed time axis.
  const repSelect = document.getElementById("rep-select");
  payload.repetitions.forEach((r) => repSelect.add(new Option("repetition " + r, r)));
  const link = window.cs.linkedTime((lo, hi) => load(lo, hi));
  const algColour = (alg) => algorithmColor(alg);
  const seriesHolder = document.getElementById("series-charts");
  const ganttHolder = document.getElementById("gantt-charts");
  window.cs.unit = payload.time_unit || "s";
  const timeAxis = window.cs.timeScale(); // round ticks in s / min / h / d by the span (charts-common.js)
  const F = window.csFormat;
  // One energy unit on the whole page (table, comparison and this chart): the server picks it from
  // the run's energy (payload.units.energy, in Wh); a run without an energy metric: from the curve.
  const energyRef = (lines) => {
    const wh = payload.units && payload.units.energy;
    if (wh) return wh * 3600;
    return Math.max(0, ...Object.values(lines).flatMap((s) => s.v));
  };
  const Y_SPECS = { power_w: { kind: "power", unit: "W", label: "power" }, energy_j: { kind: "energy", unit: "J", label: "cumulative energy" } };
  function yAxis(name, title, lines) {
    const spec = Y_SPECS[name];
    const whole = Object.values(lines).every((s) => s.v.every(Number.isInteger)); // counts: no 2.5 hosts on the axis
    if (!spec) return { title: { display: true, text: title }, ticks: { callback: (v) => fmt(v), precision: whole ? 0 : undefined } };
    const ref = name === "energy_j" ? energyRef(lines) : Math.max(0, ...Object.values(lines).flatMap((s) => s.max || s.v));
    const unit = F.value(ref || 1, spec, ref).split(" ").pop(); // the display unit of the axis (kWh, kW …)
    const per = F.unit(spec, ref), want = (ref || 1) / per / 6, mag = 10 ** Math.floor(Math.log10(want));
    const stepSize = ([1, 2, 5, 10].find((k) => k * mag >= want) || 10) * mag * per; // 1, 2 or 5 × 10^k of the display unit
    return { title: { display: true, text: `${spec.label} (${unit})` }, ticks: { stepSize, callback: (v) => F.value(v, spec, ref) } };
  }
  const lineOptions = (title) => ({
    animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
    scales: { x: { ...timeAxis }, y: { title: { display: true, text: title } } },
    plugins: { zoom: link.zoomOptions, title: { display: true, text: title }, subtitle: { display: false, text: "", color: "#555" },
      legend: { position: "bottom", labels: { filter: (item, data) => !/ (max|min–max)$/.test(data.datasets[item.datasetIndex].label) } },
      tooltip: { callbacks: { title: (items) => (items.length ? `t = ${window.cs.timeText(items[0].parsed.x)}` : "") } } },
    interaction: { mode: "nearest", intersect: false },
  });

  // What a chart's lines are: exact change points, or per-pixel buckets (and how wide), and which coincide.
  function lineNote(name, lines, coincide) {
    const notes = [];
    const bucketed = Object.entries(lines).filter(([, s]) => s.bucket);
    if (bucketed.length) {
      const [, s] = bucketed[0];
      notes.push(`${bucketed.map(([a]) => a).join(", ")}: ${s.changes.toLocaleString("en")} changes in the window, drawn as ${s.v.length - 1} buckets of ${window.cs.timeText(s.bucket).split(" (")[0]}` +
        (name === "energy_j" ? " (values at the bucket edges, linear between)" : " (line: time-weighted mean; band: min–max)"));
    } else if (Object.keys(lines).length) notes.push("every change point in the window");
    (coincide || []).forEach((algs) => notes.push(`${algs.slice(0, -1).join(", ")} and ${algs[algs.length - 1]} coincide (identical series)`));
    return notes.join(" · ");
  }

  function lineChart(key, title, lines, holder, data) {
    const datasets = [];
    const cumulative = (data.cumulative || []).includes(key);
    const twins = new Set(((data.coincide || {})[key] || []).flatMap((algs) => algs.slice(1)));
    Object.entries(lines).forEach(([label, s]) => {
      const colour = algColour(label);
      if (s.min && s.max) { // bucketed: the band of levels held in each bucket, under the mean
        datasets.push({ label: label + " max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.max[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: false });
        datasets.push({ label: label + " min–max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.min[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: "-1", backgroundColor: colour + "33" });
      }
      // A cumulative series (energy) is linear between its points; the others hold their level until the next.
      // A line identical to an earlier one is dashed, so both stay visible (and the subtitle says so).
      datasets.push({ label: s.min ? label + " (mean)" : label, data: s.t.map((t, k) => ({ x: t, y: s.v[k] })), stepped: !cumulative, pointRadius: 0,
        borderWidth: twins.has(label) ? 2.5 : 1.5, borderDash: twins.has(label) ? [6, 4] : [], borderColor: colour });
    });
    const note = lineNote(key, lines, (data.coincide || {})[key]);
    const y = yAxis(key, title, lines);
    let chart = registry.series[key];
    if (chart) {
      chart.data.datasets = datasets;
      chart.options.scales.y.title = y.title;
      chart.options.scales.y.ticks.callback = y.ticks.callback;
      chart.options.scales.y.ticks.stepSize = y.ticks.stepSize;
      chart.options.scales.y.ticks.precision = y.ticks.precision;
      chart.options.plugins.subtitle.display = Boolean(note); chart.options.plugins.subtitle.text = note;
      chart.update("none");
      return chart;
    }
    const div = document.createElement("div");
    div.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = "series-" + key;
    div.appendChild(canvas);
    holder.appendChild(div);
    const options = lineOptions(title);
    options.scales.y = { ...options.scales.y, title: y.title, ticks: y.ticks };
    Object.assign(options.plugins.subtitle, { display: Boolean(note), text: note });
    chart = new Chart(canvas, { type: "line", data: { datasets }, options });
    registry.series[key] = chart;
    link.add(chart);
    return chart;
  }

  const SERIES_TITLES = { power_w: "power", energy_j: "cumulative energy" };
  function drawSeries(data) {
    const names = Object.keys(data.series).sort((a, b) => order(a) - order(b));
    names.forEach((name) => lineChart(name, SERIES_TITLES[name] || name.replace(/_/g, " "), data.series[name], seriesHolder, data));
  }

  // DVFS: a heat strip per host for each algorithm (rows = hosts), one colour bar for all (strips.js draws them).
  function drawStrips(freq) {
    if (!freq || !freq.runs.length) return;
    document.getElementById("freq-section").hidden = false;
    window.cs.gantt.stripLegend(document.getElementById("freq-legend"), freq.range);
    const holder = document.getElementById("freq-charts");
    registry.freq = registry.freq || {};
    freq.runs.forEach((f) => {
      let chart = registry.freq[f.index];
      const labels = f.hosts;
      if (chart) { Object.assign(chart, { $strip: f, $window: freq.window, $range: freq.range }); chart.data.labels = labels; chart.update("none"); return; }
      const div = document.createElement("div");
      div.className = "chart strip";
      div.style.height = Math.max(120, 70 + 18 * labels.length) + "px";
      const canvas = document.createElement("canvas");
      canvas.id = "freq-" + f.index;
      div.appendChild(canvas);
      holder.appendChild(div);
      chart = new Chart(canvas, { type: "bar", data: { labels, datasets: [{ label: "frequency", data: [] }] }, plugins: [window.cs.strips.plugin],
        options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
          scales: { x: { ...timeAxis, min: freq.window[0], max: freq.window[1] }, y: { type: "category", title: { display: true, text: "host" }, ticks: { autoSkip: false, font: { size: 10 } } } },
          plugins: { legend: { display: false }, zoom: link.zoomOptions, tooltip: { enabled: false }, title: { display: true, text: `core frequency per host (GHz), ${f.algorithm}` } } } });
      Object.assign(chart, { $strip: f, $window: freq.window, $range: freq.range });
      registry.freq[f.index] = chart;
      link.add(chart);
    });
  }
  const order = (n) => (n === "power_w" ? 0 : n === "energy_j" ? 1 : 2);

  // Gantts: one per algorithm; the colour mode, legend and markers are shared by all (gantt.js).
  const G = window.cs.gantt;
  const colourSelect = document.getElementById("gantt-colour");
  let colourKey = "job";
  function drawGantt(g) {
    let chart = registry.gantt[g.index];
    document.getElementById("gantt-note-" + g.index).textContent = G.note(g);
    document.getElementById("gantt-box-" + g.index).style.height = G.height(g) + "px";
    const pager = document.getElementById("gantt-pager-" + g.index);
    pager.dataset.row0 = String(g.row0);
    pager.dataset.total = String(g.total_resources);
    pager.querySelector(".rows").textContent = `rows ${g.resources.length ? g.row0 + 1 : 0}–${g.row0 + g.resources.length} of ${g.total_resources}`;
    pager.querySelector(".prev").disabled = g.row0 <= 0;
    pager.querySelector(".next").disabled = g.row0 + g.resources.length >= g.total_resources;
    const jump = pager.querySelector(".group");
    if (g.groups && g.groups.length > 1 && jump.options.length !== g.groups.length) {
      jump.innerHTML = "";
      g.groups.forEach((grp) => jump.add(new Option(`${g.group_by.replace("_", " ")} ${grp.name} (${grp.rows} rows)`, grp.row0)));
    }
    jump.hidden = !(g.groups && g.groups.length > 1);
    if (!jump.hidden) jump.value = String([...g.groups].reverse().find((grp) => grp.row0 <= g.row0).row0);
    pager.hidden = g.total_resources <= g.rows && jump.hidden;
    if (chart) { G.update(chart, g, colourKey); return; }
    chart = G.create(document.getElementById("gantt-" + g.index), g, link, { colour: colourKey });
    registry.gantt[g.index] = chart;
  }
  function drawLegend() {
    const gantts = Object.values(registry.gantt).map((c) => c.$g);
    const modes = G.modes(gantts);
    if (colourSelect.options.length !== modes.length) {
      colourSelect.innerHTML = "";
      modes.forEach((m) => colourSelect.add(new Option(m.type === "job" ? "job" : m.label, m.key)));
      colourSelect.value = colourKey;
    }
    document.getElementById("gantt-colour-bar").hidden = modes.length < 2;
    G.legend(document.getElementById("gantt-legend"), gantts, colourKey);
  }
  colourSelect.addEventListener("change", () => {
    colourKey = colourSelect.value;
    Object.values(registry.gantt).forEach((c) => drawGantt(c.$g));
    drawLegend();
  });

  // The series window of a URL (repetition, window, width) is fetched once: zooming back, paging the
  // Gantt or switching repetitions again never resends it.
  const seriesWindow = window.cs.cachedJson(12);
  // A Gantt window (algorithm, rows, window, width) is fetched once for the last 48 asked (12 zoom steps
  // of 4 algorithms): zooming back out or paging back draws it again at once.
  const ganttWindow = window.cs.cachedJson(48);
  // DVFS strips (results.strips) come apart from the series and are kept per repetition: a window the page
  // holds is drawn from what it has — exact strips at any zoom inside their window, columns while they are no
  // coarser than the pixels — so only a window that needs new detail is asked for. A result without DVFS
  // answers once with no runs, and is not asked again.
  const stripCache = new Map(); // repetition → [{lo, hi, px, promise, data}], oldest first
  let noStrips = false;
  function stripWindow(rep, lo, hi, px) {
    if (noStrips) return Promise.resolve(null);
    const held = stripCache.get(rep) || [];
    stripCache.set(rep, held);
    if (lo === null || lo === undefined) { // the whole run: its window, once one answer has told it
      const known = held.find((e) => e.data);
      [lo, hi] = known ? known.data.span : [null, null];
    }
    const hit = held.find((e) => {
      if (!e.data) return e.lo === lo && e.hi === hi && e.px === px; // on its way: the same request only
      if (lo === null) return false;
      const [a, b] = e.data.window, fine = e.data.exact || (b - a) / e.data.columns <= ((hi - lo) / px) * (1 + 1e-9);
      return a <= lo && hi <= b && fine;
    });
    if (hit) return hit.promise;
    const entry = { lo, hi, px, data: null };
    const win = lo === null ? "" : `&t0=${lo}&t1=${hi}`;
    entry.promise = window.cs.getJson(`${dataUrl}?kind=strips&rep=${rep}&points=${px}${win}`).then((d) => {
      entry.data = d;
      if (!d.runs.length) noStrips = true;
      return d;
    }, (e) => { held.splice(held.indexOf(entry), 1); throw e; });
    held.push(entry);
    if (held.length > 12) held.shift();
    return entry.promise;
  }
  registry.stripCache = stripCache;
  // Points per line and strip columns: the plot area's width in pixels (every time chart has the same one).
  // Strip columns: the same, but before any chart is laid out the holder's whole width (more than the plot has),
  // so that the first strips are never coarser than the pixels.
  const stripWidth = () => (Object.values(registry.series)[0] ? plotWidth() : Math.max(200, Math.min(2000, Math.round(seriesHolder.clientWidth || 1000))));
  const plotWidth = () => {
    const any = Object.values(registry.series)[0];
    const px = any && any.chartArea ? any.chartArea.width : (seriesHolder.clientWidth || 1000) - 180;
    return Math.max(200, Math.min(2000, Math.round(px)));
  };

  let generation = 0;
  async function load(lo, hi) {
    const gen = ++generation;
    const rep = repSelect.value;
    const win = lo === null || lo === undefined ? "" : `&t0=${lo}&t1=${hi}`;
    const status = document.getElementById("timeline-status");
    status.textContent = "loading…";
    try {
      const runs = payload.runs.filter((r) => String(r.repetition) === String(rep));
      const [series, strips, ...gantts] = await Promise.all([
        seriesWindow(`${dataUrl}?kind=series&rep=${rep}&points=${plotWidth()}${win}`),
        stripWindow(rep, win ? lo : null, win ? hi : null, stripWidth()),
        ...runs.map((r) => ganttWindow(ganttUrl(r.i, win))),
      ]);
      if (gen !== generation) return;
      drawSeries(series);
      drawStrips(strips);
      gantts.forEach(drawGantt);
      drawLegend();
      if (!win) { // whole run: every time chart on the same range
        const spans = [series.window, ...gantts.map((g) => g.window)].filter((w) => w && w[1] > w[0]);
        if (spans.length) link.align(Math.min(...spans.map((w) => w[0])), Math.max(...spans.map((w) => w[1])));
      }
      // The first answer was asked for an estimated width; now that the charts are laid out, strips sent as
      // columns coarser than the plot's pixels come again (held ones are not asked for).
      if (strips && !strips.exact) {
        const finer = await stripWindow(rep, win ? lo : null, win ? hi : null, plotWidth());
        if (gen !== generation) return;
        if (finer !== strips) drawStrips(finer);
      }
      status.textContent = win ? `window ${window.cs.windowText(lo, hi)}` : "whole run";
      document.body.dataset.timelineLoaded = String(gen);
    } catch (e) {
      status.textContent = "could not load chart data: " + e.message;
    }
  }

  const rowStart = {}; // per run: the first resource row shown (the pager's state)
  const ROWS = 40;
  function ganttUrl(i, win) {
    const width = Math.max(200, Math.min(4000, Math.round(ganttHolder.clientWidth || 1000)));
    return `${dataUrl}?kind=gantt&run=${i}&row0=${rowStart[i] || 0}&rows=${ROWS}&pixels=${width}${win}`;
  }
  async function page(i, delta, to) {
    const pager = document.getElementById("gantt-pager-" + i);
    const total = Number(pager.dataset.total || 0);
    const want = to === undefined ? (rowStart[i] || 0) + delta * ROWS : to;
    rowStart[i] = Math.max(0, Math.min(Math.max(0, total - 1), want));
    const w = link.window;
    const win = w ? `&t0=${w[0]}&t1=${w[1]}` : "";
    drawGantt(await ganttWindow(ganttUrl(i, win)));
    drawLegend();
  }

  function ganttBoxes() {
    ganttHolder.innerHTML = "";
    Object.values(registry.gantt).forEach((c) => { link.remove(c); c.destroy(); });
    registry.gantt = {};
    Object.values(registry.freq || {}).forEach((c) => { link.remove(c); c.destroy(); });
    registry.freq = {};
    document.getElementById("freq-charts").innerHTML = "";
    payload.runs.filter((r) => String(r.repetition) === String(repSelect.value)).forEach((r) => {
      const h = document.createElement("h3");
      h.textContent = r.algorithm;
      const note = document.createElement("p");
      note.className = "help"; note.id = "gantt-note-" + r.i;
      const pager = document.createElement("p");
      pager.className = "pager"; pager.id = "gantt-pager-" + r.i; pager.hidden = true;
      const prev = document.createElement("button"), next = document.createElement("button"), label = document.createElement("span");
      const jump = document.createElement("select");
      jump.className = "group"; jump.hidden = true; jump.setAttribute("aria-label", "jump to group");
      jump.addEventListener("change", () => page(r.i, 0, Number(jump.value)));
      prev.type = next.type = "button";
      prev.className = "prev"; prev.textContent = "◀ previous rows";
      next.className = "next"; next.textContent = "next rows ▶";
      label.className = "rows";
      prev.addEventListener("click", () => page(r.i, -1));
      next.addEventListener("click", () => page(r.i, 1));
      pager.append(prev, " ", label, " ", next, " ", jump);
      const div = document.createElement("div");
      div.className = "chart gantt"; div.id = "gantt-box-" + r.i;
      const canvas = document.createElement("canvas");
      canvas.id = "gantt-" + r.i;
      div.appendChild(canvas);
      ganttHolder.append(h, note, pager, div);
    });
  }
  repSelect.addEventListener("change", () => { ganttBoxes(); const w = link.window; load(w && w[0], w && w[1]); });
  document.getElementById("zoom-reset").addEventListener("click", () => link.reset());
  document.getElementById("zoom-in").addEventListener("click", () => {
    const any = Object.values(registry.gantt)[0] || Object.values(registry.series)[0];
    if (!any) return;
    const { min, max } = any.scales.x;
    const mid = (min + max) / 2, half = (max - min) / 4;
    link.set(mid - half, mid + half);
  });
  registry.link = link;
  ganttBoxes();
  load(null, null);
})();
