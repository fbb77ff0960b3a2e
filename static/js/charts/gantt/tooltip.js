// Gantt charts (the data endpoint's kind=gantt): the tooltip, our own box over the canvas (Chart.js has no
// elements for the bars), from barAt and the marks.
import { barAt, coded, decoded, jobOf, taskOf } from "./bars.js";
import { eventAt } from "./marks.js";
import { timeText } from "../time.js";

const at = (chart, t) => timeText(t, chart.$per); // a time of the chart in exact seconds

function barLines(chart, k) {
  const g = chart.$g;
  const b = g.bars;
  const d = decoded(g);
  const ex = d.exact.get(k);
  const lanes = (g.lanes || [])[b.r[k]] || 1;
  const lines = [
    `job ${jobOf(g, k)}`,
    `task ${taskOf(g, k)} on ${g.resources[b.r[k]]}${lanes > 1 ? ` (lane ${b.lane[k] + 1} of ${lanes})` : ""}`,
    `share ${coded(b.share, k)}`,
    `${at(chart, ex ? ex[0] : d.S[k])} – ${at(chart, ex ? ex[1] : d.E[k])}`,
  ];
  Object.entries(b.extra || {}).forEach(([name, col]) => {
    const v = coded(col, k);
    if (v !== null && v !== undefined) lines.push(`${name} ${v}`);
  });
  const kind = coded(b.kind, k);
  if (kind) lines.push(`kind ${kind}`);
  if (b.status) lines.push(`in B: ${b.statuses[b.status[k]].replace(/_/g, " ")}`);
  return lines;
}
export function attachTooltip(chart) {
  const box = chart.canvas.parentNode;
  const tip = document.createElement("div");
  tip.className = "gantt-tip";
  tip.hidden = true;
  box.appendChild(tip);
  chart.canvas.addEventListener("mousemove", (e) => {
    const rect = chart.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const k = barAt(chart, x, y);
    const lines = eventAt(chart, x, y) || (k >= 0 ? barLines(chart, k) : null);
    tip.hidden = !lines;
    if (!lines) return;
    tip.textContent = "";
    lines.forEach((l, i) => {
      const div = document.createElement(i ? "div" : "strong");
      div.textContent = l;
      tip.appendChild(div);
    });
    tip.style.left = Math.min(x + 12, box.clientWidth - 260) + "px";
    tip.style.top = y + 12 + "px";
  });
  chart.canvas.addEventListener("mouseleave", () => {
    tip.hidden = true;
  });
}
