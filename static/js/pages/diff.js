// The diff page (templates/runs/diff.html): two Gantt charts of the same instance on one linked, windowed
// time axis, each job coloured by what happened to it in B (moved, later, earlier, unchanged). A and B are
// two runs of one result, or (data-with) run A of this result and run B of another result on the same
// workload; the counts tell jobs missing from a side apart from jobs its schedule limit cut.
// window.cloudsched: this page's charts and diff, for the browser tests and the console (set here only).
import * as gantt from "../charts/gantt/index.js";
import { changedJobs, counts, summary } from "../charts/diff.js";
import { linkedTime } from "../charts/linked.js";
import { secondsPer, windowText } from "../charts/time.js";
import { algorithmColor } from "../lib/colours.js";
import { cachedJson, getJson } from "../lib/net.js";

const section = document.getElementById("diff");
const url = section.dataset.dataUrl;
const a = section.dataset.a;
const b = section.dataset.b;
const other = section.dataset.with;
const unit = section.dataset.timeUnit || "s";
// A job's status in B (the server's, per window: results/jobdiff.status_of), one colour each.
const COLOURS = {
  moved: "#d62728",
  later: "#ff9900",
  earlier: "#2ca02c",
  other_end: "#17becf",
  same: "#b9c2cc",
  not_in_b: "#6a3d9a",
  not_in_a: "#6a3d9a",
  cut_in_b: "#cab2d6",
  cut_in_a: "#cab2d6",
};
const ROWS = 40;
const charts = {};
let row0 = 0;
let total = 0;
const link = linkedTime(secondsPer(unit), (lo, hi) => loadGantts(lo, hi));
window.cloudsched = { gantt: charts, link, diff: null };
const statusColour = (g, k) => COLOURS[g.bars.statuses[g.bars.status[k]]] || "#999999";
// An occupancy block: its changed jobs' main status (grey only when every job in it is unchanged).
const occupancyColour = (code, g) => COLOURS[g.occupancy.statuses[code]] || "#999999";

function draw(which, g) {
  const byStatus = g.mode === "occupancy" && g.occupancy && g.occupancy.c && g.occupancy.c.status;
  document.getElementById("gantt-note-" + which).textContent =
    gantt.note(g, link.per) +
    (byStatus
      ? " Each block takes the colour of the change with the most busy time among its changed jobs;" +
        " grey only where every job busy in it is unchanged."
      : "");
  const title = document.getElementById("title-" + which);
  title.textContent = `${which.toUpperCase()}: ${g.algorithm} · repetition ${g.repetition}`;
  const sw = document.createElement("span");
  sw.className = "sw algorithm-swatch";
  sw.style.background = algorithmColor(g.algorithm);
  sw.title = `${g.algorithm}'s colour on every chart`;
  title.prepend(sw);
  document.getElementById("gantt-box-" + which).style.height = gantt.height(g) + "px";
  if (charts[which]) gantt.update(charts[which], g);
  else {
    const canvas = document.getElementById("gantt-" + which);
    const pair = `a=${a}&b=${b}${other ? `&with=${other}` : ""}`;
    charts[which] = gantt.create(canvas, g, link, {
      colourOf: statusColour,
      statusColour: occupancyColour,
      exactUrl: () => `${url}?kind=bar&side=${which}&${pair}`,
    });
  }
}

// The pager: both sides show the same rows (one resource axis per result, so they line up).
function pager(g) {
  total = g.total_resources;
  const p = document.getElementById("diff-pager");
  p.hidden = total <= ROWS;
  const last = g.row0 + g.resources.length;
  p.querySelector(".rows").textContent = `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${total}`;
  p.querySelector(".prev").disabled = g.row0 <= 0;
  p.querySelector(".next").disabled = last >= total;
}

function ganttUrl(side, win) {
  const width = Math.max(200, Math.min(4000, Math.round(section.clientWidth || 1000)));
  const pair = `a=${a}&b=${b}${other ? `&with=${other}` : ""}`;
  return `${url}?kind=gantt&side=${side}&${pair}&row0=${row0}&rows=${ROWS}&pixels=${width}${win}`;
}
const sideWindow = cachedJson(24); // a window drawn before (zooming back out) is not asked again
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
  document.getElementById("timeline-status").textContent = win ? `window ${windowText(lo, hi, link.per)}` : "whole run";
  document.body.dataset.timelineLoaded = String(gen);
}
function page(delta) {
  row0 = Math.max(0, Math.min(Math.max(0, total - 1), row0 + delta * ROWS));
  const w = link.window;
  loadGantts(w ? w[0] : null, w ? w[1] : null);
}
document.querySelector("#diff-pager .prev").addEventListener("click", () => page(-1));
document.querySelector("#diff-pager .next").addEventListener("click", () => page(1));

const table = document.getElementById("diff-table");
const tablePager = document.getElementById("diff-table-pager");
const diffUrl = `${url}?kind=diff&a=${a}&b=${b}` + (other ? `&with=${other}` : "");
const ROWS_PER_PAGE = 100;
function tablePage(delta) {
  const offset = Math.max(0, Number(tablePager.dataset.offset || 0) + delta * ROWS_PER_PAGE);
  tablePager.querySelectorAll("button").forEach((x) => {
    x.disabled = true;
  });
  getJson(`${diffUrl}&offset=${offset}&limit=${ROWS_PER_PAGE}`)
    .then((d) => changedJobs(table, tablePager, d, unit))
    .catch((e) => {
      tablePager.querySelector(".rows").textContent = "could not load: " + e.message;
    });
}
tablePager.querySelector(".prev").addEventListener("click", () => tablePage(-1));
tablePager.querySelector(".next").addEventListener("click", () => tablePage(1));
getJson(`${diffUrl}&limit=${ROWS_PER_PAGE}`)
  .then((d) => {
    window.cloudsched.diff = d;
    document.getElementById("diff-summary").textContent = summary(d);
    counts(document.getElementById("diff-counts"), d, link.per);
    changedJobs(table, tablePager, d, unit);
    return loadGantts(null, null);
  })
  .catch((e) => {
    document.getElementById("diff-summary").textContent = "could not load: " + e.message;
  });
document.getElementById("zoom-reset").addEventListener("click", () => link.reset());
