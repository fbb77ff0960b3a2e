// Gantt charts (the data endpoint's kind=gantt): the colours of bars, occupancy blocks and marks.
// 24 colours told apart on screen (Kelly's list, less white and black), by category index.
const CATEGORY = [
  "#3366cc",
  "#f38400",
  "#2ca02c",
  "#be0032",
  "#875692",
  "#a1caf1",
  "#c2b280",
  "#848482",
  "#008856",
  "#e68fac",
  "#0067a5",
  "#f99379",
  "#604e97",
  "#f6a600",
  "#b3446c",
  "#dcd300",
  "#882d17",
  "#8db600",
  "#654522",
  "#e25822",
  "#2b3d26",
  "#17becf",
  "#bcbd22",
  "#7f7f7f",
];
export // State mode: fixed colours for the kinds families record, and for how a segment ended
// (whatever its kind: red for work stopped, purple for a move), the same on every chart.
const STATE = {
  "foreground tier": "#3366cc",
  "background tier": "#8db600",
  "AR lease": "#1f3d99",
  "BE lease": "#17becf",
  VM: "#6f8faf",
  task: "#3366cc",
  segment: "#888888",
};
const ENDED = { killed: "#d62728", preempted: "#d62728", "migrated away": "#9467bd" };
// Event markers: Chart.js point style, colour, and the character the legend shows for it.
export const MARKERS = {
  migrated: { style: "rectRot", colour: "#6a3d9a", glyph: "◆" },
  killed: { style: "crossRot", colour: "#b10026", glyph: "✕" },
  preempted: { style: "triangle", colour: "#d95f02", glyph: "▲" },
  rejected: { style: "rect", colour: "#222222", glyph: "■" },
  "deadline missed": { style: "star", colour: "#8c2d04", glyph: "✱" },
};
// Viridis, 5 stops: dark purple (low) to yellow (high); perceptually even, readable in grey.
const VIRIDIS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
export function scaleColour(f) {
  const x = Math.max(0, Math.min(1, f)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const u = x - i;
  const c = VIRIDIS[i].map((v, k) => Math.round(v + (VIRIDIS[i + 1][k] - v) * u));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
export const gradient = () =>
  `linear-gradient(to right, ${VIRIDIS.map((c, i) => `rgb(${c.join(", ")}) ${(100 * i) / (VIRIDIS.length - 1)}%`).join(
    ", ",
  )})`;

export function categoryColour(mode, code) {
  if (code === null || code === undefined || code < 0) return "#999999";
  const label = mode.categories[code];
  if (mode.key === "state") {
    const ended = Object.keys(ENDED).find((e) => label.endsWith(", " + e));
    if (ended) return ENDED[ended];
    if (STATE[label]) return STATE[label];
  }
  return CATEGORY[code % CATEGORY.length];
}
export function valueColour(mode, v) {
  if (v === null || v === undefined) return "#999999";
  const [lo, hi] = mode.range;
  return scaleColour(hi > lo ? (v - lo) / (hi - lo) : 1);
}
export const modeOf = (g, key) =>
  ((g.colour && g.colour.modes) || []).find((m) => m.key === key) || { key: "job", type: "job" };
