// The renderer of the data endpoint's kind=gantt, on the result and diff pages: Gantt charts with colour
// modes and their legend, lanes inside a row, group headings on the resource axis, event markers, and
// what the chart shows said truthfully. The server (results/gantt.py, bars.py) sends every value drawn
// as compact columns: a bar's row, lane, times in ticks of the window, job code, its category or value
// per colour mode; the dominant category of each occupancy block; the events (or their counts per pixel
// column). Bars are painted on the canvas by a plugin, batched by colour (one fillStyle per colour, then
// fillRect per bar), never as Chart.js elements: Chart.js draws the axes and handles zoom and pan.
//
// By concern: colours.js (what each colour means), bars.js (decoding, geometry, painting the bars),
// occupancy.js (blocks), marks.js (events, group headings), tooltip.js, notes.js (the chart in words),
// legend.js.
import { Chart } from "../../lib/chart-global.js";
import { barsPlugin, rowLabels } from "./bars.js";
import { eventsPlugin, groupsPlugin } from "./marks.js";
import { occupancyPlugin } from "./occupancy.js";
import { subtitle } from "./notes.js";
import { attachTooltip } from "./tooltip.js";

export { JOB_ROW, barAt, barColour, drawn } from "./bars.js";
export { categoryColour, scaleColour } from "./colours.js";
export { legend, modes } from "./legend.js";
export { note } from "./notes.js";

const data = (g) => ({ labels: rowLabels(g), datasets: [{ label: "segments", data: [] }] });
const groupPadding = (g) => (g.groups && g.groups.length ? 90 : 0);

// The chart: Chart.js for the axes, zoom and pan (one empty dataset gives the rows their category axis);
// the plugins paint occupancy, bars, marks and group headings. `link`: the page's linked time axis
// (charts/linked.js), which also knows the time unit. `opts.colour`: the colour mode's key;
// `opts.colourOf(g, k)`: a page's own colours; `opts.statusColour(code, g)`: the diff's colour of a
// status code in occupancy blocks.
export function create(canvas, g, link, opts) {
  const chart = new Chart(canvas, {
    type: "bar",
    data: data(g),
    plugins: [occupancyPlugin, barsPlugin, eventsPlugin, groupsPlugin],
    options: {
      indexAxis: "y",
      animation: false,
      maintainAspectRatio: false,
      layout: { padding: { left: groupPadding(g) } },
      scales: {
        x: { type: "linear", title: { display: true, text: "time" }, min: g.window[0], max: g.window[1] },
        y: { type: "category", ticks: { autoSkip: false, font: { size: 10 } } },
      },
      plugins: {
        legend: { display: false },
        zoom: link.zoomOptions,
        tooltip: { enabled: false },
        subtitle: subtitle(g, link.per),
      },
    },
  });
  chart.$g = g;
  chart.$colour = (opts && opts.colour) || "job";
  chart.$colourOf = opts && opts.colourOf;
  chart.$statusColour = opts && opts.statusColour;
  attachTooltip(chart, opts && opts.exactUrl);
  link.add(chart);
  return chart;
}

// New data (a window, a page of rows) for a chart `create` made; `colour`: a new colour mode, if given.
export function update(chart, g, colour) {
  chart.$g = g;
  if (colour !== undefined) chart.$colour = colour;
  chart.data = data(g);
  chart.options.plugins.subtitle = subtitle(g, chart.$per);
  chart.options.layout.padding.left = groupPadding(g);
  chart.update("none");
}

// The chart's height in px: its rows, each tall enough for its lanes.
export function height(g) {
  const lanes = Math.max(1, ...(g.lanes || [1]));
  const perRow = Math.max(16, Math.min(90, 8 + 7 * lanes));
  return Math.max(160, 70 + perRow * rowLabels(g).length);
}
