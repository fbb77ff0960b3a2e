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
  const timeAxis = { type: "linear", title: { display: true, text: `time (${window.cs.unit})` } };
  const lineOptions = (title) => ({
    animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
    scales: { x: { ...timeAxis }, y: { title: { display: true, text: title } } },
    plugins: { zoom: link.zoomOptions, title: { display: true, text: title },
      legend: { position: "bottom", labels: { filter: (item, data) => !/ max$/.test(data.datasets[item.datasetIndex].label) } } },
    interaction: { mode: "nearest", intersect: false },
  });

  function lineChart(key, title, lines, holder) {
    const datasets = [];
    Object.entries(lines).forEach(([label, s]) => {
      const colour = algColour(label);
      if (s.min && s.max) { // bucketed: the band of levels held in each bucket, under the mean
        datasets.push({ label: label + " max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.max[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: false });
        datasets.push({ label: label + " min–max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.min[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: "-1", backgroundColor: colour + "33" });
      }
      datasets.push({ label: s.min ? label + " (mean)" : label, data: s.t.map((t, k) => ({ x: t, y: s.v[k] })), stepped: true, pointRadius: 0, borderWidth: 1.5, borderColor: colour });
    });
    let chart = registry.series[key];
    if (chart) { chart.data.datasets = datasets; chart.update("none"); return chart; }
    const div = document.createElement("div");
    div.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = "series-" + key;
    div.appendChild(canvas);
    holder.appendChild(div);
    chart = new Chart(canvas, { type: "line", data: { datasets }, options: lineOptions(title) });
    registry.series[key] = chart;
    link.add(chart);
    return chart;
  }

  const SERIES_TITLES = { power_w: "power (W)", energy_j: "cumulative energy (J)" };
  function drawSeries(data) {
    const names = Object.keys(data.series).sort((a, b) => order(a) - order(b));
    names.forEach((name) => lineChart(name, SERIES_TITLES[name] || name.replace(/_/g, " "), data.series[name], seriesHolder));
    if (data.frequency) drawStrips(data.frequency);
  }

  // DVFS: a heat strip per host for each algorithm (rows = hosts), one colour bar for all.
  function drawStrips(freq) {
    document.getElementById("freq-section").hidden = false;
    window.cs.gantt.stripLegend(document.getElementById("freq-legend"), freq.range);
    const holder = document.getElementById("freq-charts");
    registry.freq = registry.freq || {};
    freq.runs.forEach((f) => {
      let chart = registry.freq[f.index];
      const labels = f.hosts;
      if (chart) { chart.$strip = f; chart.$range = freq.range; chart.data.labels = labels; chart.update("none"); return; }
      const div = document.createElement("div");
      div.className = "chart strip";
      div.style.height = Math.max(120, 70 + 18 * labels.length) + "px";
      const canvas = document.createElement("canvas");
      canvas.id = "freq-" + f.index;
      div.appendChild(canvas);
      holder.appendChild(div);
      chart = new Chart(canvas, { type: "bar", data: { labels, datasets: [{ label: "frequency", data: [] }] }, plugins: [window.cs.gantt.stripPlugin],
        options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
          scales: { x: { ...timeAxis, min: f.t[0], max: f.t[1] }, y: { type: "category", title: { display: true, text: "host" }, ticks: { autoSkip: false, font: { size: 10 } } } },
          plugins: { legend: { display: false }, zoom: link.zoomOptions, tooltip: { enabled: false }, title: { display: true, text: `core frequency per host (GHz), ${f.algorithm}` } } } });
      chart.$strip = f; chart.$range = freq.range;
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

  let generation = 0;
  async function load(lo, hi) {
    const gen = ++generation;
    const rep = repSelect.value;
    const win = lo === null || lo === undefined ? "" : `&t0=${lo}&t1=${hi}`;
    const status = document.getElementById("timeline-status");
    status.textContent = "loading…";
    try {
      const runs = payload.runs.filter((r) => String(r.repetition) === String(rep));
      const [series, ...gantts] = await Promise.all([
        window.cs.getJson(`${dataUrl}?kind=series&rep=${rep}${win}`),
        ...runs.map((r) => window.cs.getJson(ganttUrl(r.i, win))),
      ]);
      if (gen !== generation) return;
      drawSeries(series);
      gantts.forEach(drawGantt);
      drawLegend();
      if (!win) { // whole run: every time chart on the same range
        const spans = [series.window, ...gantts.map((g) => g.window)].filter((w) => w && w[1] > w[0]);
        if (spans.length) link.align(Math.min(...spans.map((w) => w[0])), Math.max(...spans.map((w) => w[1])));
      }
      status.textContent = win ? `window ${fmt(lo)} – ${fmt(hi)} ${window.cs.unit}` : "whole run";
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
    drawGantt(await window.cs.getJson(ganttUrl(i, win)));
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
