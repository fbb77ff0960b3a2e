// Run page: poll the status while the run is in progress; when it is done draw the comparison
// bars, the series overlays, DVFS frequencies and one Gantt per algorithm, all on one linked
// time axis whose window the server cuts (data endpoint) as the user zooms and pans.
(function () {
  "use strict";
  const box = document.getElementById("run-status");
  const statusUrl = box && box.dataset.statusUrl;

  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => {
        document.getElementById("status-text").textContent = s.status;
        document.getElementById("progress").value = s.progress;
        document.getElementById("progress-message").textContent = s.message || "";
        box.className = "status status-" + s.status;
        const stalled = document.getElementById("run-stalled");
        stalled.textContent = s.stalled ? s.stalled.text : "";
        stalled.hidden = !s.stalled;
        if (s.error) {
          const err = document.getElementById("run-error");
          err.textContent = s.error;
          err.hidden = false;
        }
        if (s.finished) {
          if (s.status === "succeeded") window.location.reload();
        } else {
          setTimeout(poll, 1000);
        }
      })
      .catch(() => setTimeout(poll, 3000));
  }

  const payloadEl = document.getElementById("run-payload");
  if (!payloadEl) {
    if (statusUrl && !/succeeded|failed|cancelled/.test(box.className)) setTimeout(poll, 500);
    return;
  }
  const payload = JSON.parse(payloadEl.textContent);
  const dataUrl = document.getElementById("results").dataset.dataUrl;
  const { palette, fmt, algorithmColor } = window.cs;
  const registry = { gantt: {}, series: {}, comparison: null, freq: null };
  window.cloudsched = registry;

  // Comparison: one metric at a time, mean ± sd whiskers, the lower bound as an extra bar.
  const select = document.getElementById("metric-select");
  const metricNames = Object.keys(payload.comparison).filter((m) => !/bound/.test(m) || !Object.values(payload.comparison).some((c) => c.bound && c.bound.name === m));
  metricNames.forEach((m) => select.add(new Option(m, m)));
  function drawComparison(name) {
    const m = payload.comparison[name];
    if (!m) return;
    const labels = [...m.labels], mean = [...m.mean], err = [...m.std];
    const colours = labels.map((alg) => algorithmColor(alg));
    if (m.bound) { labels.push("lower bound (" + m.bound.name + ")"); mean.push(m.bound.value); err.push(0); colours.push("#999"); }
    const data = { labels, datasets: [{ label: name + " (mean ± sd)", data: mean, err, backgroundColor: colours }] };
    if (registry.comparison) registry.comparison.destroy();
    registry.comparison = new Chart(document.getElementById("comparison-chart"), {
      type: "bar", data, plugins: [window.cs.errorBars],
      options: { animation: false, maintainAspectRatio: false, plugins: { legend: { display: false },
        tooltip: { callbacks: { label: (c) => `${fmt(c.raw)} ± ${fmt(err[c.dataIndex])}` } } } },
    });
  }
  select.addEventListener("change", () => drawComparison(select.value));
  const first = (payload.primary || []).find((m) => metricNames.includes(m)) || metricNames[0];
  if (first) { select.value = first; drawComparison(first); }

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

  function lineChart(key, title, lines, holder, registryKey) {
    const datasets = [];
    Object.entries(lines).forEach(([label, s], i) => {
      const colour = registryKey === "freq" ? palette[i % palette.length] : algColour(label);
      if (s.min && s.max) { // bucketed: the band of levels held in each bucket, under the mean
        datasets.push({ label: label + " max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.max[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: false });
        datasets.push({ label: label + " min–max", band: true, data: s.t.map((t, k) => ({ x: t, y: s.min[k] })), stepped: true, pointRadius: 0, borderWidth: 0, fill: "-1", backgroundColor: colour + "33" });
      }
      datasets.push({ label: s.min ? label + " (mean)" : label, data: s.t.map((t, k) => ({ x: t, y: s.v[k] })), stepped: true, pointRadius: 0, borderWidth: 1.5, borderColor: colour });
    });
    let chart = registryKey === "freq" ? registry.freq : registry.series[key];
    if (chart) { chart.data.datasets = datasets; chart.update("none"); return chart; }
    const div = document.createElement("div");
    div.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = registryKey === "freq" ? "freq-chart" : "series-" + key;
    div.appendChild(canvas);
    holder.appendChild(div);
    chart = new Chart(canvas, { type: "line", data: { datasets }, options: lineOptions(title) });
    if (registryKey === "freq") registry.freq = chart; else registry.series[key] = chart;
    link.add(chart);
    return chart;
  }

  const SERIES_TITLES = { power_w: "power (W)", energy_j: "cumulative energy (J)" };
  function drawSeries(data) {
    const names = Object.keys(data.series).sort((a, b) => order(a) - order(b));
    names.forEach((name) => lineChart(name, SERIES_TITLES[name] || name.replace(/_/g, " "), data.series[name], seriesHolder, "series"));
    if (data.frequency) {
      document.getElementById("freq-section").hidden = false;
      lineChart("freq", `core frequency per host (GHz), ${data.frequency.algorithm}`, data.frequency.hosts, document.getElementById("freq-charts"), "freq");
    }
  }
  const order = (n) => (n === "power_w" ? 0 : n === "energy_j" ? 1 : 2);

  function drawGantt(g) {
    let chart = registry.gantt[g.index];
    const note = document.getElementById("gantt-note-" + g.index);
    note.textContent = window.cs.ganttNote(g);
    const data = window.cs.ganttData(g, (job) => window.cs.jobColour(job));
    const holder = document.getElementById("gantt-box-" + g.index);
    holder.style.height = Math.max(160, 60 + 16 * g.resources.length) + "px";
    const pager = document.getElementById("gantt-pager-" + g.index);
    pager.dataset.row0 = String(g.row0);
    pager.dataset.total = String(g.total_resources);
    pager.querySelector(".rows").textContent = `rows ${g.resources.length ? g.row0 + 1 : 0}–${g.row0 + g.resources.length} of ${g.total_resources}`;
    pager.querySelector(".prev").disabled = g.row0 <= 0;
    pager.querySelector(".next").disabled = g.row0 + g.resources.length >= g.total_resources;
    pager.hidden = g.total_resources <= g.rows;
    if (chart) { chart.$g = g; chart.data = data; chart.options.plugins.subtitle = window.cs.ganttSubtitle(g); chart.update("none"); return; }
    chart = new Chart(document.getElementById("gantt-" + g.index), {
      type: "bar", data, plugins: [window.cs.occupancyPlugin],
      options: {
        indexAxis: "y", animation: false, maintainAspectRatio: false,
        scales: { x: { ...timeAxis, min: g.window[0], max: g.window[1] }, y: { type: "category", ticks: { autoSkip: false, font: { size: 10 } } } },
        plugins: { legend: { display: false }, zoom: link.zoomOptions, tooltip: window.cs.ganttTooltip((c) => c.$g), subtitle: window.cs.ganttSubtitle(g) },
      },
    });
    chart.$g = g;
    registry.gantt[g.index] = chart;
    link.add(chart);
  }

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
  async function page(i, delta) {
    const pager = document.getElementById("gantt-pager-" + i);
    const total = Number(pager.dataset.total || 0);
    rowStart[i] = Math.max(0, Math.min(Math.max(0, total - 1), (rowStart[i] || 0) + delta * ROWS));
    const w = link.window;
    const win = w ? `&t0=${w[0]}&t1=${w[1]}` : "";
    drawGantt(await window.cs.getJson(ganttUrl(i, win)));
  }

  function ganttBoxes() {
    ganttHolder.innerHTML = "";
    Object.values(registry.gantt).forEach((c) => { link.remove(c); c.destroy(); });
    registry.gantt = {};
    payload.runs.filter((r) => String(r.repetition) === String(repSelect.value)).forEach((r) => {
      const h = document.createElement("h3");
      h.textContent = r.algorithm;
      const note = document.createElement("p");
      note.className = "help"; note.id = "gantt-note-" + r.i;
      const pager = document.createElement("p");
      pager.className = "pager"; pager.id = "gantt-pager-" + r.i; pager.hidden = true;
      const prev = document.createElement("button"), next = document.createElement("button"), label = document.createElement("span");
      prev.type = next.type = "button";
      prev.className = "prev"; prev.textContent = "◀ previous rows";
      next.className = "next"; next.textContent = "next rows ▶";
      label.className = "rows";
      prev.addEventListener("click", () => page(r.i, -1));
      next.addEventListener("click", () => page(r.i, 1));
      pager.append(prev, " ", label, " ", next);
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
