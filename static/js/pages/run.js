// The run page (templates/runs/detail.html): the status poll while the run goes, then the comparison
// bars, the series overlays, DVFS heat strips and one Gantt per algorithm, all on one linked time axis
// whose window the server cuts (data endpoint) as the user zooms and pans, and the per-job views.
// window.cloudsched: this page's charts, for the browser tests and the console (set here only).
import { runHeader } from "./run-header.js";
import { comparisonChart } from "../charts/comparison.js";
import { distView } from "../charts/dist.js";
import { jobTable } from "../charts/jobs.js";
import { linkedTime } from "../charts/linked.js";
import { seriesCharts } from "../charts/series.js";
import { legend as stripLegend, stripCharts, stripSource } from "../charts/strips.js";
import { secondsPer, windowText } from "../charts/time.js";
import { cachedJson } from "../lib/net.js";
import { runGantts } from "./run-gantts.js";

runHeader();
const jobs = {};
document.querySelectorAll('[data-jobs="dist"]').forEach((root) => (jobs[root.id] = distView(root)));
document.querySelectorAll('[data-jobs="table"]').forEach((root) => (jobs.table = jobTable(root)));
window.cloudsched = { jobs };
const payloadEl = document.getElementById("run-payload");
if (payloadEl) timeline(JSON.parse(payloadEl.textContent)); // else still running, or failed: the header polls

function timeline(payload) {
  const dataUrl = document.getElementById("results").dataset.dataUrl;
  const repSelect = document.getElementById("rep-select");
  payload.repetitions.forEach((r) => repSelect.add(new Option("repetition " + r, r)));
  const link = linkedTime(secondsPer(payload.time_unit || "s"), (lo, hi) => load(lo, hi));
  const seriesHolder = document.getElementById("series-charts");
  const series = seriesCharts(seriesHolder, link, payload.units && payload.units.energy);
  const strips = stripCharts(document.getElementById("freq-charts"), link);
  const gantts = runGantts(document.getElementById("gantt-charts"), dataUrl, link);
  const comparison = comparisonChart(payload);
  Object.assign(window.cloudsched, {
    gantt: gantts.charts,
    series: series.charts,
    freq: strips.charts,
    link,
  });
  Object.defineProperty(window.cloudsched, "comparison", { get: () => comparison.chart });

  // The series window of a URL (repetition, window, width) is fetched once: zooming back, paging the
  // Gantt or switching repetitions again never resends it.
  const seriesWindow = cachedJson(12);
  const stripWindow = stripSource(dataUrl);
  // Points per line and strip columns: the plot area's width in pixels (every time chart has the same one).
  const plotWidth = () => {
    const any = Object.values(series.charts)[0];
    const px = any && any.chartArea ? any.chartArea.width : (seriesHolder.clientWidth || 1000) - 180;
    return Math.max(200, Math.min(2000, Math.round(px)));
  };
  // Strip columns: the same, but before any chart is laid out the holder's whole width (more than the plot
  // has), so that the first strips are never coarser than the pixels.
  const stripWidth = () =>
    Object.values(series.charts)[0]
      ? plotWidth()
      : Math.max(200, Math.min(2000, Math.round(seriesHolder.clientWidth || 1000)));

  // DVFS: a heat strip per host for each algorithm (rows = hosts), one colour bar for all.
  function drawStrips(freq) {
    if (!freq || !freq.runs.length) return;
    document.getElementById("freq-section").hidden = false;
    stripLegend(document.getElementById("freq-legend"), freq.range);
    strips.draw(freq);
  }

  let generation = 0;
  async function load(lo, hi) {
    const gen = ++generation;
    const rep = repSelect.value;
    const whole = lo === null || lo === undefined;
    const win = whole ? "" : `&t0=${lo}&t1=${hi}`;
    const status = document.getElementById("timeline-status");
    status.textContent = "loading…";
    try {
      const runs = payload.runs.filter((r) => String(r.repetition) === String(rep));
      const [lines, freq, ...gs] = await Promise.all([
        seriesWindow(`${dataUrl}?kind=series&rep=${rep}&points=${plotWidth()}${win}`),
        stripWindow.get(rep, whole ? null : lo, whole ? null : hi, stripWidth()),
        ...runs.map((r) => gantts.fetch(gantts.url(r.i, win))),
      ]);
      if (gen !== generation) return;
      series.draw(lines);
      drawStrips(freq);
      gs.forEach(gantts.draw);
      gantts.drawLegend();
      if (whole) {
        // whole run: every time chart on the same range
        const spans = [lines.window, ...gs.map((g) => g.window)].filter((w) => w && w[1] > w[0]);
        if (spans.length) link.align(Math.min(...spans.map((w) => w[0])), Math.max(...spans.map((w) => w[1])));
      }
      // The first answer was asked for an estimated width; now that the charts are laid out, strips sent as
      // columns coarser than the plot's pixels come again (held ones are not asked for).
      if (freq && !freq.exact) {
        const finer = await stripWindow.get(rep, whole ? null : lo, whole ? null : hi, plotWidth());
        if (gen !== generation) return;
        if (finer !== freq) drawStrips(finer);
      }
      status.textContent = whole ? "whole run" : `window ${windowText(lo, hi, link.per)}`;
      document.body.dataset.timelineLoaded = String(gen);
    } catch (e) {
      status.textContent = "could not load chart data: " + e.message;
    }
  }

  function boxes() {
    gantts.boxes(payload.runs.filter((r) => String(r.repetition) === String(repSelect.value)));
    strips.clear();
  }
  repSelect.addEventListener("change", () => {
    boxes();
    const w = link.window;
    load(w && w[0], w && w[1]);
  });
  document.getElementById("zoom-reset").addEventListener("click", () => link.reset());
  document.getElementById("zoom-in").addEventListener("click", () => {
    const any = Object.values(gantts.charts)[0] || Object.values(series.charts)[0];
    if (!any) return;
    const { min, max } = any.scales.x;
    const mid = (min + max) / 2;
    const half = (max - min) / 4;
    link.set(mid - half, mid + half);
  });
  boxes();
  load(null, null);
}
