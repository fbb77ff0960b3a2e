// Time axes: every chart whose x axis is time, on every page, reads time alike.
// The unit follows the axis span (s, min, h, d) with round ticks (0, 6 h, 12 h …); a window far
// from t = 0 counts from a round origin named in the axis title (“s after 785 d 21 h 44 min”), so
// no tick is ever a raw number of seconds; tooltips give the exact time in days, hours, minutes and
// seconds (timeText, format.js's duration). And the plot area of every time chart of a page starts and
// ends at the same x (alignTime), so one instant is one pixel column on the power, energy, DVFS and
// Gantt charts alike.
//
// Times are stored in the result's unit (vm_reservations: minutes); every function takes `per`, the
// seconds one stored unit holds (secondsPer(unit)), from its caller: nothing here remembers a page's unit.
import { duration } from "../format.js";

export const SECONDS = { ms: 0.001, s: 1, min: 60, h: 3600, d: 86400 };
const ROUND = {
  s: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
  min: [1, 2, 5, 10, 15, 30],
  h: [1, 2, 3, 6, 12],
};
const ORIGIN = { s: 60, min: 3600, h: 86400 }; // a window far from 0 counts from a whole minute, hour or day
const THIN = "\u202f";
const PLOT_RIGHT = 28; // px right of every time chart's plot area: room for half the last tick label

// Seconds per stored time unit ("s", "min" …; unknown or missing: seconds).
export const secondsPer = (unit) => SECONDS[unit] || 1;

function decimalText(v, decimals) {
  let text = Number(v).toFixed(decimals);
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  const [whole, frac] = text.split(".");
  return whole.replace(/\B(?=(\d{3})+$)/g, THIN) + (frac ? "." + frac : "");
}

// 67,902,240 s → "785 d 21 h 44 min" (format.js: the one formatter of every number a page shows), to the
// millisecond: a window's edges come from a pointer, their further digits say nothing.
const clock = (sec) => duration(Math.round(sec * 1000) / 1000);
const timeUnitOf = (span) => (span >= 4 * 86400 ? "d" : span >= 3 * 3600 ? "h" : span >= 180 ? "min" : "s");

function stepOf(unit, want) {
  if (unit !== "d") return ROUND[unit].find((k) => k >= want) || ROUND[unit][ROUND[unit].length - 1];
  const mag = 10 ** Math.floor(Math.log10(Math.max(want, 1e-9)));
  return Math.max(1, ([1, 2, 5, 10].find((k) => k * mag >= want) || 10) * mag);
}

// Round ticks for [lo, hi] (stored units; `per` seconds each): {unit, origin (s), ticks: [{value, label}], title}.
export function timeTicks(lo, hi, maxTicks, per) {
  const a = lo * per;
  const b = hi * per;
  const span = Math.max(b - a, 1e-6);
  const unit = timeUnitOf(span);
  const f = SECONDS[unit];
  const step = stepOf(unit, span / f / Math.max(2, maxTicks || 8));
  const far = unit !== "d" && Math.max(Math.abs(a), Math.abs(b)) / f >= 1000;
  const origin = far ? Math.floor(a / ORIGIN[unit]) * ORIGIN[unit] : 0;
  const decimals = step < 1 ? Math.ceil(-Math.log10(step) - 1e-9) : 0;
  const ticks = [];
  const first = Math.ceil((a - origin) / (step * f) - 1e-9);
  const last = Math.floor((b - origin) / (step * f) + 1e-9);
  for (let k = first; k <= last && ticks.length < 200; k++) {
    const n = k * step;
    ticks.push({
      value: (origin + n * f) / per,
      label: `${far && n > 0 ? "+" : ""}${decimalText(n, decimals)} ${unit}`,
    });
  }
  const title = far ? `time (${unit} after ${clock(origin)})` : `time (${unit})`;
  return { unit, origin, step, ticks, title };
}

// A time in stored units, exact and readable, for tooltips: "785 d 21 h 44 min 42.8 s" (every digit of the
// seconds the stored number holds, format.js's duration).
export function timeText(t, per) {
  if (t === null || t === undefined) return "—";
  return duration(t * per);
}

// A window [lo, hi] in words, its width in parentheses: "1 d 11 h 21 min 32.258 s – 2 d 5 h (17 h 38 min 27.742 s)".
export function windowText(lo, hi, per) {
  return `${clock(lo * per)} – ${clock(hi * per)} (${clock((hi - lo) * per)})`;
}

// The scale's chart knows its time unit (alignTime): chart.$per seconds per stored unit.
const timeHooks = {
  afterBuildTicks(axis) {
    const maxTicks = Math.max(2, Math.floor((axis.width || 800) / 90));
    axis.$time = timeTicks(axis.min, axis.max, maxTicks, axis.chart.$per || 1);
    axis.ticks = axis.$time.ticks.map((t) => ({ value: t.value }));
  },
  // the plot area's right edge never follows a label
  afterFit(axis) {
    axis.paddingLeft = 0;
    axis.paddingRight = PLOT_RIGHT;
  },
  tickLabel(v, i) {
    return this.$time && this.$time.ticks[i] ? this.$time.ticks[i].label : "";
  },
  title: (ctx) => (ctx.scale && ctx.scale.$time ? ctx.scale.$time.title : "time"),
};

// Chart.js options of a time x axis (spread more options over it: min, max).
export function timeScale(extra) {
  return {
    type: "linear",
    ...(extra || {}),
    afterBuildTicks: timeHooks.afterBuildTicks,
    afterFit: timeHooks.afterFit,
    title: { display: true, text: timeHooks.title },
    ticks: { maxRotation: 0, autoSkip: false, callback: timeHooks.tickLabel },
  };
}

// One plot-area left edge for every time chart of a page: each y axis is as wide as the widest one
// needs (with the chart's own left padding, e.g. the Gantt's group labels). The charts sharing an edge
// are those of one linked axis (linkedTime makes the group; see alignTime).
const leftPadding = (p) => (typeof p === "number" ? p : (p && p.left) || 0); // Chart.js's layout.padding
export function leftEdge() {
  const aligned = new Set();
  let sharedLeft = 0;
  let pending = false;
  const redrawOthers = (chart) => {
    pending = false;
    aligned.forEach((c) => {
      if (c !== chart && c.canvas) c.update("none");
    });
  };
  return function alignLeft(scale) {
    const chart = scale.chart;
    const pad = leftPadding(chart.options.layout && chart.options.layout.padding);
    chart.$naturalLeft = scale.width + pad;
    aligned.add(chart);
    aligned.forEach((c) => {
      if (!c.canvas) aligned.delete(c); // destroyed
    });
    const left = Math.max(...[...aligned].map((c) => c.$naturalLeft || 0));
    if (left !== sharedLeft) {
      sharedLeft = left;
      if (!pending) {
        pending = true;
        requestAnimationFrame(() => redrawOthers(chart));
      }
    }
    scale.width = Math.max(scale.width, sharedLeft - pad);
  };
}

// Make `chart` a time chart of `per` seconds per stored unit: the time axis on x, the edge `alignLeft`
// (leftEdge()) on y. Idempotent; linkedTime's add calls it.
export function alignTime(chart, per, alignLeft) {
  chart.$per = per;
  const s = chart.options.scales;
  if (s.x.afterBuildTicks !== timeHooks.afterBuildTicks) {
    Object.assign(s.x, { afterBuildTicks: timeHooks.afterBuildTicks, afterFit: timeHooks.afterFit });
    s.x.title.display = true;
    s.x.title.text = timeHooks.title;
    Object.assign(s.x.ticks, { maxRotation: 0, autoSkip: false, callback: timeHooks.tickLabel });
  }
  if (alignLeft && s.y && s.y.afterFit !== alignLeft) s.y.afterFit = alignLeft;
  return chart;
}
