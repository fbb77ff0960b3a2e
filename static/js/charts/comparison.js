// The result page's comparison chart of one summary metric across algorithms (from the page's payload,
// not the data endpoint). Bars are the means (in the stored unit, ticks written by format.js); whiskers
// the one spread the metrics table shows (95 % CI over repetitions, else the family's within-run CI),
// named on the chart; the axis always spans mean ± spread so no whisker is clipped. The lower bound is an
// extra grey bar.
import { Chart } from "../lib/chart-global.js";
import { algorithmColor } from "../lib/colours.js";
import { spread as formatSpread, unit as displayUnit, value as formatValue } from "../format.js";
import { errorBars } from "./errorbars.js";

// Draws into #comparison-chart with #metric-select and #comparison-caption; `chart`: the chart drawn.
export function comparisonChart(payload) {
  const canvas = document.getElementById("comparison-chart");
  const state = { chart: null };
  if (!canvas) return state;
  const specs = payload.metrics || {};
  const spec = (name) => specs[name] || { kind: "number", unit: "", label: name };
  const labelOf = (name) => spec(name).label || name;
  const select = document.getElementById("metric-select");
  const caption = document.getElementById("comparison-caption");
  const comparison = Object.values(payload.comparison);
  const boundNames = new Set(comparison.filter((c) => c.bound).map((c) => c.bound.name));
  const names = Object.keys(payload.comparison).filter((m) => !boundNames.has(m));
  names.forEach((m) => select.add(new Option(labelOf(m), m)));

  function draw(name) {
    const m = payload.comparison[name];
    if (!m) return;
    const s = spec(name);
    const labels = [...m.labels];
    const mean = [...m.mean];
    const err = [...m.spread];
    const std = [...m.std];
    const colours = labels.map((alg) => algorithmColor(alg)); // one colour per algorithm, everywhere
    if (m.bound) {
      const bound = labelOf(m.bound.name);
      labels.push(/bound/.test(bound) ? bound : `${bound} (lower bound)`);
      mean.push(m.bound.value);
      err.push(0);
      std.push(0);
      colours.push("#999");
    }
    const whiskers = err.some((e) => e) ? m.spread_label : "";
    const lows = mean.map((v, i) => (v ?? 0) - (err[i] || 0));
    const highs = mean.map((v, i) => (v ?? 0) + (err[i] || 0));
    const lo = Math.min(0, ...lows);
    const hi = Math.max(0, ...highs);
    const pad = (hi - lo) * 0.05 || 1;
    const ref = Math.max(Math.abs(lo), Math.abs(hi));
    // ticks at 1, 2 or 5 × 10^k of the display unit (hours, kWh, %), counts never below 1
    const per = displayUnit(s, ref);
    const span = (hi - lo) / per || 1;
    const raw = span / 6;
    const mag = 10 ** Math.floor(Math.log10(raw));
    let stepSize = ([1, 2, 5, 10].find((k) => k * mag >= raw) || 10) * mag * per;
    if (s.kind === "count" || s.kind === "flag") stepSize = Math.max(1, stepSize);
    const data = { labels, datasets: [{ label: labelOf(name), data: mean, err, backgroundColor: colours }] };
    const tooltip = (c) => {
      const i = c.dataIndex;
      const v = mean[i];
      const line = `${formatValue(v, s)} ${formatSpread(v, err[i], s)}`.trim();
      if (!std[i] || !whiskers.includes("repetitions")) return line;
      return [line, `standard deviation ${formatSpread(v, std[i], s).slice(2)}`];
    };
    if (state.chart) state.chart.destroy();
    state.chart = new Chart(canvas, {
      type: "bar",
      data,
      plugins: [errorBars],
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          y: {
            suggestedMin: lo < 0 ? lo - pad : 0,
            suggestedMax: hi + pad,
            title: { display: true, text: labelOf(name) },
            ticks: { stepSize, callback: (v) => formatValue(v, s, ref) },
          },
        },
        plugins: {
          legend: { display: false },
          subtitle: {
            display: true,
            text: whiskers ? `bars: mean · whiskers: ${whiskers}` : "bars: mean (no spread: one repetition)",
            color: "#555",
          },
          tooltip: { callbacks: { label: tooltip } },
        },
      },
    });
    const reps = (payload.repetitions || []).length;
    caption.textContent =
      `${labelOf(name)}: bars are each algorithm's mean` +
      (reps > 1 ? ` over ${reps} repetitions` : "") +
      (whiskers
        ? `; whiskers are the ${whiskers.replace(/^± /, "")}.`
        : "; no whiskers: one repetition and no within-run interval.") +
      (s.description ? ` (${s.description})` : "");
  }
  select.addEventListener("change", () => draw(select.value));
  const first = (payload.primary || []).find((m) => names.includes(m)) || names[0];
  if (first) {
    select.value = first;
    draw(first);
  }
  return state;
}
