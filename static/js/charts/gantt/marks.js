// Gantt charts (the data endpoint's kind=gantt): event marks and group headings, and the mark under the pointer.
import { MARKERS } from "./colours.js";
import { JOB_ROW, xPixel } from "./bars.js";
import { timeText } from "../time.js";

const at = (chart, t) => timeText(t, chart.$per); // a time of the chart, exact, in d h min s

// Group headings: the group's name beside its rows, a rule between groups.
export const groupsPlugin = {
  id: "csGroups",
  afterDraw(chart) {
    const g = chart.$g;
    if (!g || !g.groups || !g.groups.length) return;
    const { ctx, chartArea, scales } = chart;
    const y = scales.y;
    const labels = chart.data.labels;
    const band = y.height / Math.max(1, labels.length);
    const x = y.left - 6;
    ctx.save();
    ctx.font = "bold 11px sans-serif";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    g.groups.forEach((grp) => {
      const a = Math.max(grp.row0, g.row0);
      const z = Math.min(grp.row0 + grp.rows, g.row0 + g.resources.length);
      if (a >= z) return;
      const top = y.getPixelForValue(labels.indexOf(g.resources[a - g.row0])) - band / 2;
      const bottom = y.getPixelForValue(labels.indexOf(g.resources[z - 1 - g.row0])) + band / 2;
      ctx.strokeStyle = "#666";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, top + 2);
      ctx.lineTo(x, bottom - 2);
      ctx.stroke();
      ctx.fillStyle = "#333";
      const name = grp.name.length > 12 ? grp.name.slice(0, 11) + "…" : grp.name;
      ctx.fillText(name, x - 4, (top + bottom) / 2);
      ctx.strokeStyle = "#bbb";
      ctx.beginPath();
      ctx.moveTo(chartArea.left, top);
      ctx.lineTo(chartArea.right, top);
      ctx.stroke();
    });
    ctx.restore();
  },
};

// Event marks: a glyph per event; where the window holds too many, per pixel column and kind a tick
// whose opacity grows with the count (the server's counts; the note says so).
export const eventsPlugin = {
  id: "csEvents",
  afterDatasetsDraw(chart) {
    const g = chart.$g;
    const ev = g && g.events;
    if (!ev || !ev.total) return;
    const { ctx, chartArea, scales } = chart;
    const px = xPixel(scales.x);
    const labels = chart.data.labels;
    const band = scales.y.height / Math.max(1, labels.length);
    const yOf = (r) => scales.y.getPixelForValue(labels.indexOf(r >= 0 ? g.resources[r] : JOB_ROW));
    let marks = 0;
    ctx.save();
    ctx.beginPath();
    ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
    ctx.clip();
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.font = `${Math.max(8, Math.min(14, band))}px sans-serif`;
    if (ev.mode === "counts") {
      const [t0, t1] = g.window;
      const w = (t1 - t0) / ev.columns;
      ev.cn.forEach((n, i) => {
        const kind = ev.kinds[ev.ck[i]];
        const x = px(t0 + (ev.cp[i] + 0.5) * w);
        const y = yOf(ev.cr[i]);
        ctx.globalAlpha = Math.min(1, 0.35 + 0.25 * Math.log10(1 + n));
        ctx.fillStyle = "#ffffff"; // a halo, as for the glyphs below
        ctx.fillRect(Math.round(x) - 2, y - band * 0.45 - 1, 4, band * 0.9 + 2);
        ctx.fillStyle = MARKERS[kind].colour;
        ctx.fillRect(Math.round(x) - 1, y - band * 0.45, 2, band * 0.9);
        marks++;
      });
    } else {
      // A white halo under each glyph: a kill mark (dark red) stays visible on a red bar (the diff's "moved").
      ctx.lineWidth = 3;
      ctx.lineJoin = "round";
      ctx.strokeStyle = "#ffffff";
      ev.t.forEach((t, i) => {
        const m = MARKERS[ev.kind[i]];
        ctx.strokeText(m.glyph, px(t), yOf(ev.r[i]));
        ctx.fillStyle = m.colour;
        ctx.fillText(m.glyph, px(t), yOf(ev.r[i]));
        marks++;
      });
    }
    ctx.restore();
    chart.$painted = { ...(chart.$painted || {}), marks };
  },
};

// The event under the pointer: the lines of its tooltip, or null.
export function eventAt(chart, x, y) {
  const g = chart.$g;
  const ev = g && g.events;
  if (!ev || !ev.total) return null;
  const px = xPixel(chart.scales.x);
  const labels = chart.data.labels;
  const yOf = (r) => chart.scales.y.getPixelForValue(labels.indexOf(r >= 0 ? g.resources[r] : JOB_ROW));
  if (ev.mode === "counts") {
    const [t0, t1] = g.window;
    const w = (t1 - t0) / ev.columns;
    const i = ev.cn.findIndex(
      (_, j) => Math.abs(px(t0 + (ev.cp[j] + 0.5) * w) - x) <= 3 && Math.abs(yOf(ev.cr[j]) - y) <= 6,
    );
    return i < 0
      ? null
      : [
          `${ev.cn[i]} × ${ev.labels[ev.kinds[ev.ck[i]]] || ev.kinds[ev.ck[i]]}`,
          `in ${at(chart, t0 + ev.cp[i] * w)} – ${at(chart, t0 + (ev.cp[i] + 1) * w)}`,
          ev.cr[i] >= 0 ? `on ${g.resources[ev.cr[i]]}` : "no resource",
          "(counts: too many events here to mark one by one; zoom in)",
        ];
  }
  const i = ev.t.findIndex((t, j) => Math.abs(px(t) - x) <= 6 && Math.abs(yOf(ev.r[j]) - y) <= 6);
  return i < 0
    ? null
    : [
        `${ev.kind[i]} · job ${ev.job[i]}`,
        ev.labels[ev.kind[i]],
        `at ${at(chart, ev.t[i])}`,
        ev.r[i] >= 0 ? `on ${g.resources[ev.r[i]]}` : "no resource (the job never ran there)",
        ev.task[i] ? `task ${ev.task[i]}` : "",
      ].filter(Boolean);
}
