// The renderer of the data endpoint's kind=series: one line chart per series (power, cumulative energy,
// busy hosts …) with a line per algorithm, exact change points or per-pixel buckets (mean line, min–max
// band), on the page's linked time axis.
import { Chart } from "../lib/chart-global.js";
import { algorithmColor } from "../lib/colours.js";
import { plain, unit as displayUnit, value as formatValue } from "../format.js";
import { timeScale, timeText } from "./time.js";

const TITLES = { power_w: "power", energy_j: "cumulative energy" };
const Y_SPECS = {
  power_w: { kind: "power", unit: "W", label: "power" },
  energy_j: { kind: "energy", unit: "J", label: "cumulative energy" },
};
const order = (n) => (n === "power_w" ? 0 : n === "energy_j" ? 1 : 2);

// The y axis of series `name` ({title, ticks, text}: `text(v)` writes a value as the axis does, for the
// tooltip). One energy unit on the whole page (table, comparison and this chart): the
// server picks it from the run's energy (`energyWh`, in Wh); a run without an energy metric: from the curve.
function yAxis(name, title, lines, energyWh) {
  const spec = Y_SPECS[name];
  const whole = Object.values(lines).every((s) => s.v.every(Number.isInteger)); // counts: no 2.5 hosts on the axis
  if (!spec) {
    return {
      title: { display: true, text: title },
      ticks: { callback: (v) => plain(v), precision: whole ? 0 : undefined },
      text: (v) => plain(v),
    };
  }
  const highest = (key) => Math.max(0, ...Object.values(lines).flatMap((s) => s[key] || s.v));
  const ref = name === "energy_j" ? (energyWh ? energyWh * 3600 : highest("v")) : highest("max");
  const unit = formatValue(ref || 1, spec, ref)
    .split(" ")
    .pop(); // the display unit of the axis (kWh, kW …)
  const per = displayUnit(spec, ref);
  const want = (ref || 1) / per / 6;
  const mag = 10 ** Math.floor(Math.log10(want));
  const stepSize = ([1, 2, 5, 10].find((k) => k * mag >= want) || 10) * mag * per; // 1, 2 or 5 × 10^k
  return {
    title: { display: true, text: `${spec.label} (${unit})` },
    ticks: { stepSize, callback: (v) => formatValue(v, spec, ref) },
    text: (v) => formatValue(v, spec, ref),
  };
}

function lineOptions(title, link) {
  const isBand = (item, data) => / (max|min–max)$/.test(data.datasets[item.datasetIndex].label);
  return {
    animation: false,
    maintainAspectRatio: false,
    parsing: false,
    normalized: true,
    // every series is a count or a non-negative quantity: its axis starts at 0 (power from 5 kW read as a swing)
    scales: { x: timeScale(), y: { beginAtZero: true, title: { display: true, text: title } } },
    plugins: {
      zoom: link.zoomOptions,
      title: { display: true, text: title },
      subtitle: { display: false, text: "", color: "#555" },
      legend: { position: "bottom", labels: { filter: (item, data) => !isBand(item, data) } },
      tooltip: {
        callbacks: {
          title: (items) => (items.length ? `t = ${timeText(items[0].parsed.x, link.per)}` : ""),
          // in the axis' unit (kW, kWh …), never the stored joules or watts
          label: (c) => `${c.dataset.label}: ${c.chart.$yText(c.parsed.y)}`,
        },
      },
    },
    interaction: { mode: "nearest", intersect: false },
  };
}

// What a chart's lines are: exact change points, or per-pixel buckets (and how wide), and which coincide.
function lineNote(name, lines, coincide, per) {
  const notes = [];
  const bucketed = Object.entries(lines).filter(([, s]) => s.bucket);
  if (bucketed.length) {
    const [, s] = bucketed[0];
    const width = formatValue(s.bucket * per, { kind: "duration", unit: "s" });
    const how =
      name === "energy_j"
        ? " (values at the bucket edges, linear between)"
        : " (line: time-weighted mean; band: min–max)";
    notes.push(
      `${bucketed.map(([a]) => a).join(", ")}: ${s.changes.toLocaleString("en")} changes in the window, ` +
        `drawn as ${s.v.length - 1} buckets of ${width}${how}`,
    );
  } else if (Object.keys(lines).length) notes.push("every change point in the window");
  (coincide || []).forEach((algs) =>
    notes.push(`${algs.slice(0, -1).join(", ")} and ${algs[algs.length - 1]} coincide (identical series)`),
  );
  return notes.join(" · ");
}

function datasetsOf(key, lines, data) {
  const datasets = [];
  const cumulative = (data.cumulative || []).includes(key);
  const twins = new Set(((data.coincide || {})[key] || []).flatMap((algs) => algs.slice(1)));
  Object.entries(lines).forEach(([label, s]) => {
    const colour = algorithmColor(label);
    const points = (values) => s.t.map((t, k) => ({ x: t, y: values[k] }));
    if (s.min && s.max) {
      // bucketed: the band of levels held in each bucket, under the mean
      const edge = { band: true, stepped: true, pointRadius: 0, borderWidth: 0 };
      datasets.push({ ...edge, label: label + " max", data: points(s.max), fill: false });
      datasets.push({
        ...edge,
        label: label + " min–max",
        data: points(s.min),
        fill: "-1",
        backgroundColor: colour + "33",
      });
    }
    // A cumulative series (energy) is linear between its points; the others hold their level until the next.
    // A line identical to an earlier one is dashed, so both stay visible (and the subtitle says so).
    datasets.push({
      label: s.min ? label + " (mean)" : label,
      data: points(s.v),
      stepped: !cumulative,
      pointRadius: 0,
      borderWidth: twins.has(label) ? 2.5 : 1.5,
      borderDash: twins.has(label) ? [6, 4] : [],
      borderColor: colour,
    });
  });
  return datasets;
}

// The series charts of a page, in `holder`, on the linked time axis `link`. `draw(data)` makes or updates
// one chart per series of the endpoint's answer; `charts`: series name → chart.
export function seriesCharts(holder, link, energyWh) {
  const charts = {};
  function lineChart(key, title, lines, data) {
    const datasets = datasetsOf(key, lines, data);
    const note = lineNote(key, lines, (data.coincide || {})[key], link.per);
    const y = yAxis(key, title, lines, energyWh);
    let chart = charts[key];
    if (chart) {
      chart.data.datasets = datasets;
      const yOptions = chart.options.scales.y;
      yOptions.title = y.title;
      yOptions.ticks.callback = y.ticks.callback;
      yOptions.ticks.stepSize = y.ticks.stepSize;
      yOptions.ticks.precision = y.ticks.precision;
      chart.options.plugins.subtitle.display = Boolean(note);
      chart.options.plugins.subtitle.text = note;
      chart.$yText = y.text;
      chart.update("none");
      return chart;
    }
    const div = document.createElement("div");
    div.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = "series-" + key;
    div.appendChild(canvas);
    holder.appendChild(div);
    const options = lineOptions(title, link);
    options.scales.y = { ...options.scales.y, title: y.title, ticks: y.ticks };
    Object.assign(options.plugins.subtitle, { display: Boolean(note), text: note });
    chart = new Chart(canvas, { type: "line", data: { datasets }, options });
    chart.$yText = y.text;
    charts[key] = chart;
    link.add(chart);
    return chart;
  }
  function draw(data) {
    const names = Object.keys(data.series).sort((a, b) => order(a) - order(b));
    names.forEach((name) => lineChart(name, TITLES[name] || name.replace(/_/g, " "), data.series[name], data));
  }
  return { charts, draw };
}
