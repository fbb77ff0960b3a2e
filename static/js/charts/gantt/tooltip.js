// Gantt charts (the data endpoint's kind=gantt): the tooltip, our own box over the canvas (Chart.js has no
// elements for the bars), from barAt and the marks.
//
// A bar's times travel in ticks of the window (results/bars.py: at whole-run zoom of a long schedule, 1 or
// 10 s), so the tooltip asks the server once for the exact times of the bar it shows (kind=bar: its job's
// segments on its row, in the window its ticks bound), shows "≈" until they come, and keeps them for the
// payload. Exact times for all bars would more than double a payload of 100,000 bars (docs/results.md).
import { barAt, coded, decoded, jobOf, taskOf } from "./bars.js";
import { eventAt } from "./marks.js";
import { duration } from "../../format.js";
import { getJson } from "../../lib/net.js";
import { timeText } from "../time.js";

const at = (chart, t) => timeText(t, chart.$per); // a time of the chart, exact, in d h min s

// The stored segment bar k of g is: of the job's segments on the bar's row in [S − q, E + q], the one of its
// task nearest the drawn times.
function nearest(g, k, segments) {
  const d = decoded(g);
  const task = taskOf(g, k);
  const mine = segments.filter((s) => s.task === null || s.task === task);
  const cost = (s) => Math.abs(s.start - d.S[k]) + Math.abs(s.end - d.E[k]);
  return mine.length ? mine.reduce((a, s) => (cost(s) < cost(a) ? s : a)) : null;
}

// The exact [start, end] of bar k: known (bars past the window's edges come exact), or asked once.
function exactTimes(chart, k) {
  const g = chart.$g;
  const d = decoded(g);
  if (d.exact.has(k)) return d.exact.get(k);
  if (!chart.$exactUrl) return null;
  d.asked = d.asked || new Map();
  if (!d.asked.has(k)) {
    const q = g.bars.q;
    const params = new URLSearchParams({
      resource: g.resources[g.bars.r[k]],
      job: jobOf(g, k),
      t0: d.S[k] - q,
      t1: d.E[k] + q,
    });
    d.asked.set(
      k,
      getJson(`${chart.$exactUrl(g)}&${params}`)
        .then((answer) => {
          const s = nearest(g, k, answer.segments);
          d.exact.set(k, s ? [s.start, s.end] : null); // null: not found, the drawn times stay
        })
        .catch(() => d.asked.delete(k)), // asked again on the next hover
    );
  }
  return d.asked.get(k);
}

function barLines(chart, k) {
  const g = chart.$g;
  const b = g.bars;
  const d = decoded(g);
  const ex = exactTimes(chart, k);
  const lanes = (g.lanes || [])[b.r[k]] || 1;
  const drawnTimes = `${at(chart, d.S[k])} – ${at(chart, d.E[k])}`;
  let times = `${drawnTimes} (as drawn: to ${duration(b.q * chart.$per)})`;
  if (Array.isArray(ex))
    times = `${at(chart, ex[0])} – ${at(chart, ex[1])} (${duration((ex[1] - ex[0]) * chart.$per)})`;
  else if (ex) times = `≈ ${drawnTimes} (asking for the exact times…)`;
  const lines = [
    `job ${jobOf(g, k)}`,
    `task ${taskOf(g, k)} on ${g.resources[b.r[k]]}${lanes > 1 ? ` (lane ${b.lane[k] + 1} of ${lanes})` : ""}`,
    `share ${coded(b.share, k)}`,
    times,
  ];
  Object.entries(b.extra || {}).forEach(([name, col]) => {
    const v = coded(col, k);
    if (v !== null && v !== undefined) lines.push(`${name} ${v}`);
  });
  const kind = coded(b.kind, k);
  if (kind) lines.push(`kind ${kind}`);
  if (b.status) lines.push(`in B: ${b.statuses[b.status[k]].replace(/_/g, " ")}`);
  return { lines, exact: Array.isArray(ex), pending: ex && !Array.isArray(ex) ? ex : null };
}

// `exactUrl(g)`: the data endpoint's kind=bar for g's run (the run page: run=i; the diff: side, a, b).
export function attachTooltip(chart, exactUrl) {
  chart.$exactUrl = exactUrl;
  const box = chart.canvas.parentNode;
  const tip = document.createElement("div");
  tip.className = "gantt-tip";
  tip.hidden = true;
  box.appendChild(tip);
  let shown = null; // [payload, bar] the tip shows

  function show(lines, x, y) {
    tip.textContent = "";
    lines.forEach((l, i) => {
      const div = document.createElement(i ? "div" : "strong");
      div.textContent = l;
      tip.appendChild(div);
    });
    tip.style.left = Math.min(x + 12, box.clientWidth - 260) + "px";
    tip.style.top = y + 12 + "px";
  }

  chart.canvas.addEventListener("mousemove", (e) => {
    const rect = chart.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const marks = eventAt(chart, x, y);
    const k = marks ? -1 : barAt(chart, x, y);
    const bar = k >= 0 ? barLines(chart, k) : null;
    const lines = marks || (bar && bar.lines);
    tip.hidden = !lines;
    shown = bar ? [chart.$g, k] : null;
    delete tip.dataset.exact;
    if (!lines) return;
    show(lines, x, y);
    if (bar && bar.exact) tip.dataset.exact = "1";
    if (bar && bar.pending) {
      const g = chart.$g;
      bar.pending.then(() => {
        if (!shown || shown[0] !== g || shown[1] !== k || chart.$g !== g) return; // the pointer moved on
        const again = barLines(chart, k);
        show(again.lines, x, y);
        if (again.exact) tip.dataset.exact = "1";
      });
    }
  });
  chart.canvas.addEventListener("mouseleave", () => {
    tip.hidden = true;
    shown = null;
  });
}
