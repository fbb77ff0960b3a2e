// Diff page: two algorithms' Gantt charts of the same instance on one linked, windowed time
// axis, each job coloured by what happened to it in B (moved, later, earlier, unchanged).
(function () {
  "use strict";
  const section = document.getElementById("diff");
  const url = section.dataset.dataUrl, a = section.dataset.a, b = section.dataset.b;
  const { fmt } = window.cs;
  window.cs.unit = section.dataset.timeUnit || "s";
  const COLOURS = { moved: "#d62728", later: "#ff9900", earlier: "#2ca02c", same: "#b9c2cc" };
  const charts = {};
  let status = {};
  const link = window.cs.linkedTime((lo, hi) => loadGantts(lo, hi));
  window.cloudsched = { gantt: charts, link };

  function draw(which, g) {
    document.getElementById("gantt-note-" + which).textContent = window.cs.ganttNote(g);
    document.getElementById("title-" + which).textContent = `${which.toUpperCase()}: ${g.algorithm} · repetition ${g.repetition}`;
    document.getElementById("gantt-box-" + which).style.height = Math.max(160, 60 + 16 * g.resources.length) + "px";
    const data = window.cs.ganttData(g, (job) => COLOURS[status[job] || "same"]);
    if (charts[which]) { charts[which].$g = g; charts[which].data = data; charts[which].options.plugins.subtitle = window.cs.ganttSubtitle(g); charts[which].update("none"); return; }
    const chart = new Chart(document.getElementById("gantt-" + which), {
      type: "bar", data,
      options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
        scales: { x: { type: "linear", title: { display: true, text: `time (${window.cs.unit})` }, min: g.window[0], max: g.window[1] }, y: { type: "category", ticks: { autoSkip: false, font: { size: 10 } } } },
        plugins: { legend: { display: false }, zoom: link.zoomOptions, tooltip: window.cs.ganttTooltip((c) => c.$g), subtitle: window.cs.ganttSubtitle(g) } },
    });
    chart.$g = g;
    charts[which] = chart;
    link.add(chart);
  }

  async function loadGantts(lo, hi) {
    const win = lo === null || lo === undefined ? "" : `&t0=${lo}&t1=${hi}`;
    const [ga, gb] = await Promise.all([window.cs.getJson(`${url}?kind=gantt&run=${a}${win}`), window.cs.getJson(`${url}?kind=gantt&run=${b}${win}`)]);
    draw("a", ga);
    draw("b", gb);
    if (!win) link.align(Math.min(ga.window[0], gb.window[0]), Math.max(ga.window[1], gb.window[1]));
    document.getElementById("timeline-status").textContent = win ? `window ${fmt(lo)} – ${fmt(hi)} ${window.cs.unit}` : "whole run";
    document.body.dataset.timelineLoaded = "1";
  }

  function table(d) {
    const t = document.getElementById("diff-table");
    t.innerHTML = "";
    const head = t.createTHead().insertRow();
    ["job", "start A", "start B", "Δ start", "end A", "end B", "Δ end", "moved"].forEach((h) => { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); });
    const body = t.createTBody();
    d.rows.forEach((r) => {
      const row = body.insertRow();
      [r.job, fmt(r.start_a), fmt(r.start_b), fmt(r.delta_start), fmt(r.end_a), fmt(r.end_b), fmt(r.delta_end), r.moved ? "yes" : ""].forEach((v) => { row.insertCell().textContent = v; });
    });
  }

  window.cs.getJson(`${url}?kind=diff&a=${a}&b=${b}`).then((d) => {
    status = d.status;
    document.getElementById("diff-summary").textContent =
      `${d.jobs} jobs in both: ${d.changed} changed — ${d.moved} moved to other resources, ${d.later} started later in B, ${d.earlier} earlier` +
      (d.only_a || d.only_b ? `; ${d.only_a} only in A, ${d.only_b} only in B (e.g. rejected)` : "") + ".";
    table(d);
    return loadGantts(null, null);
  }).catch((e) => { document.getElementById("diff-summary").textContent = "could not load: " + e.message; });
  document.getElementById("zoom-reset").addEventListener("click", () => link.reset());
})();
