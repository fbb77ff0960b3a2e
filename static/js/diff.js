// Diff page: two Gantt charts of the same instance on one linked, windowed time axis, each job
// coloured by what happened to it in B (moved, later, earlier, unchanged). A and B are two runs
// of one result, or (data-with) run A of this result and run B of another result on the same
// workload; the counts tell jobs missing from a side apart from jobs its schedule limit cut.
(function () {
  "use strict";
  const section = document.getElementById("diff");
  const url = section.dataset.dataUrl;
  const a = section.dataset.a, b = section.dataset.b, other = section.dataset.with;
  const { fmt, algorithmColor } = window.cs;
  window.cs.unit = section.dataset.timeUnit || "s";
  // A job's status in B (the server's, per window: results/jobdiff.status_of), one colour each.
  const COLOURS = { moved: "#d62728", later: "#ff9900", earlier: "#2ca02c", other_end: "#17becf", same: "#b9c2cc",
    not_in_b: "#6a3d9a", not_in_a: "#6a3d9a", cut_in_b: "#cab2d6", cut_in_a: "#cab2d6" };
  const G = window.cs.gantt, ROWS = 40;
  const charts = {};
  let row0 = 0, total = 0;
  const link = window.cs.linkedTime((lo, hi) => loadGantts(lo, hi));
  window.cloudsched = { gantt: charts, link, diff: null };
  const statusColour = (g, k) => COLOURS[g.bars.statuses[g.bars.status[k]]] || "#999999";
  // An occupancy block: its changed jobs' main status (grey only when every job in it is unchanged).
  const occupancyColour = (code, g) => COLOURS[g.occupancy.statuses[code]] || "#999999";

  function draw(which, g) {
    const byStatus = g.mode === "occupancy" && g.occupancy && g.occupancy.c && g.occupancy.c.status;
    document.getElementById("gantt-note-" + which).textContent = G.note(g) + (byStatus
      ? " Each block takes the colour of the change with the most busy time among its changed jobs; grey only where every job busy in it is unchanged." : "");
    const title = document.getElementById("title-" + which);
    title.textContent = `${which.toUpperCase()}: ${g.algorithm} · repetition ${g.repetition}`;
    const sw = document.createElement("span");
    sw.className = "sw algorithm-swatch";
    sw.style.background = algorithmColor(g.algorithm);
    sw.title = `${g.algorithm}'s colour on every chart`;
    title.prepend(sw);
    document.getElementById("gantt-box-" + which).style.height = G.height(g) + "px";
    if (charts[which]) { G.update(charts[which], g); return; }
    charts[which] = G.create(document.getElementById("gantt-" + which), g, link, { colourOf: statusColour, statusColour: occupancyColour });
  }

  // The pager: both sides show the same rows (one resource axis per result, so they line up).
  function pager(g) {
    total = g.total_resources;
    const p = document.getElementById("diff-pager");
    p.hidden = total <= ROWS;
    p.querySelector(".rows").textContent = `rows ${g.resources.length ? g.row0 + 1 : 0}–${g.row0 + g.resources.length} of ${total}`;
    p.querySelector(".prev").disabled = g.row0 <= 0;
    p.querySelector(".next").disabled = g.row0 + g.resources.length >= total;
  }

  function ganttUrl(side, win) {
    const width = Math.max(200, Math.min(4000, Math.round(section.clientWidth || 1000)));
    return `${url}?kind=gantt&side=${side}&a=${a}&b=${b}${other ? `&with=${other}` : ""}&row0=${row0}&rows=${ROWS}&pixels=${width}${win}`;
  }
  const sideWindow = window.cs.cachedJson(24); // a window drawn before (zooming back out) is not asked again
  let generation = 0;
  async function loadGantts(lo, hi) {
    const gen = ++generation;
    const win = lo === null || lo === undefined ? "" : `&t0=${lo}&t1=${hi}`;
    const [ga, gb] = await Promise.all([sideWindow(ganttUrl("a", win)), sideWindow(ganttUrl("b", win))]);
    if (gen !== generation) return;
    draw("a", ga);
    draw("b", gb);
    pager(ga);
    if (!win) link.align(Math.min(ga.window[0], gb.window[0]), Math.max(ga.window[1], gb.window[1]));
    document.getElementById("timeline-status").textContent = win ? `window ${fmt(lo)} – ${fmt(hi)} ${window.cs.unit}` : "whole run";
    document.body.dataset.timelineLoaded = String(gen);
  }
  function page(delta) {
    row0 = Math.max(0, Math.min(Math.max(0, total - 1), row0 + delta * ROWS));
    const w = link.window;
    loadGantts(w ? w[0] : null, w ? w[1] : null);
  }
  document.querySelector("#diff-pager .prev").addEventListener("click", () => page(-1));
  document.querySelector("#diff-pager .next").addEventListener("click", () => page(1));

  // The changed jobs, a page at a time (the server orders all of them; d.offset, d.rows, d.changed).
  const tablePager = document.getElementById("diff-table-pager");
  function table(d) {
    const first = d.changed ? d.offset + 1 : 0, last = d.offset + d.rows.length;
    tablePager.querySelector(".rows").textContent = `changed jobs ${first.toLocaleString("en-US")}–${last.toLocaleString("en-US")} of ${d.changed.toLocaleString("en-US")}`;
    tablePager.querySelector(".prev").disabled = d.offset <= 0;
    tablePager.querySelector(".next").disabled = last >= d.changed;
    tablePager.dataset.offset = String(d.offset);
    const t = document.getElementById("diff-table");
    t.innerHTML = "";
    const head = t.createTHead().insertRow();
    ["job", "start A", "start B", "Δ start", "end A", "end B", "Δ end", "moved"].forEach((h) => { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); });
    const body = t.createTBody();
    const exact = (v) => window.csFormat.exact(v, { kind: "duration", unit: window.cs.unit }); // every digit, in seconds
    d.rows.forEach((r) => {
      const row = body.insertRow();
      [r.job, exact(r.start_a), exact(r.start_b), exact(r.delta_start), exact(r.end_a), exact(r.end_b), exact(r.delta_end), r.moved ? "yes" : ""].forEach((v) => { row.insertCell().textContent = v; });
    });
  }

  // One row per kind of job: in both, missing from a side, or cut by a side's schedule limit.
  function counts(d) {
    const t = document.getElementById("diff-counts");
    t.innerHTML = "";
    const cutNote = (side) => (d[side].cut_at === null || d[side].cut_at === undefined ? ""
      : ` (${side.toUpperCase()} recorded its schedule up to t = ${fmt(d[side].cut_at)} ${window.cs.unit})`);
    const rows = [
      ["jobs", "in both A and B", ""],
      ["changed", "in both, changed in B", `${d.moved} moved to other resources, ${d.later} started later, ${d.earlier} earlier`],
      ["only_a", "in A, not in B", "e.g. rejected or never run by B"],
      ["cut_in_b", "in A, cut by B's schedule limit", "B stopped recording before these would start" + cutNote("b")],
      ["only_b", "in B, not in A", ""],
      ["cut_in_a", "in B, cut by A's schedule limit", "A stopped recording before these would start" + cutNote("a")],
    ];
    const body = t.createTBody();
    rows.forEach(([key, label, note]) => {
      if ((key === "cut_in_a" || key === "cut_in_b") && !d[key] && d[key === "cut_in_a" ? "a" : "b"].cut_at == null) return;
      const row = body.insertRow();
      row.insertCell().textContent = label;
      const cell = row.insertCell();
      cell.textContent = d[key];
      cell.dataset.count = key;
      cell.className = "num";
      row.insertCell().textContent = note;
    });
  }

  const diffUrl = `${url}?kind=diff&a=${a}&b=${b}` + (other ? `&with=${other}` : "");
  const ROWS_PER_PAGE = 100;
  function tablePage(delta) {
    const offset = Math.max(0, Number(tablePager.dataset.offset || 0) + delta * ROWS_PER_PAGE);
    tablePager.querySelectorAll("button").forEach((x) => { x.disabled = true; });
    window.cs.getJson(`${diffUrl}&offset=${offset}&limit=${ROWS_PER_PAGE}`).then(table)
      .catch((e) => { tablePager.querySelector(".rows").textContent = "could not load: " + e.message; });
  }
  tablePager.querySelector(".prev").addEventListener("click", () => tablePage(-1));
  tablePager.querySelector(".next").addEventListener("click", () => tablePage(1));
  window.cs.getJson(`${diffUrl}&limit=${ROWS_PER_PAGE}`).then((d) => {
    window.cloudsched.diff = d;
    const nothing = !d.jobs && !d.only_a && !d.only_b && !d.cut_in_a && !d.cut_in_b;
    document.getElementById("diff-summary").textContent = nothing
      ? "Neither run recorded a schedule (its scenario turned schedule recording off, or the runs had no jobs): there is nothing to compare."
      : `${d.jobs} jobs in both: ${d.changed} changed — ${d.moved} moved to other resources, ${d.later} started later in B, ${d.earlier} earlier.`;
    counts(d);
    table(d);
    return loadGantts(null, null);
  }).catch((e) => { document.getElementById("diff-summary").textContent = "could not load: " + e.message; });
  document.getElementById("zoom-reset").addEventListener("click", () => link.reset());
})();
