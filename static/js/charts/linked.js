// Linked time axes: zooming or panning one chart sets the window of all, then reloads data.
import { alignTime, leftEdge } from "./time.js";

// `per`: seconds per stored time unit of the charts' x values; `onWindow(lo, hi)`: the data of a window
// (null, null: the whole run) is wanted.
export function linkedTime(per, onWindow) {
  const charts = new Set();
  const alignLeft = leftEdge();
  let timer = null;
  let current = null;
  function apply(lo, hi, source) {
    current = [lo, hi];
    // The data of a window is asked once the gesture pauses (wheel ticks and pinch steps come every
    // 16–50 ms): the axes move at once, the data follows 150 ms after the last step (counted from the
    // step, not from the end of the redraw below).
    clearTimeout(timer);
    timer = setTimeout(() => onWindow(lo, hi), 150);
    charts.forEach((c) => {
      if (c === source) return;
      c.options.scales.x.min = lo;
      c.options.scales.x.max = hi;
      c.update("none");
    });
  }
  const settled = ({ chart }) => apply(chart.scales.x.min, chart.scales.x.max, chart);
  const zoomOptions = {
    pan: { enabled: true, mode: "x", onPanComplete: settled },
    zoom: { wheel: { enabled: true }, pinch: { enabled: true }, mode: "x", onZoomComplete: settled },
    limits: { x: { minRange: 1e-3 / per } }, // down to a millisecond anywhere in the run
  };
  const setAll = (lo, hi) =>
    charts.forEach((c) => {
      c.options.scales.x.min = lo;
      c.options.scales.x.max = hi;
      c.update("none");
    });
  return {
    per,
    zoomOptions,
    add(chart) {
      alignTime(chart, per, alignLeft);
      charts.add(chart);
      chart.update("none");
      if (current) {
        chart.options.scales.x.min = current[0];
        chart.options.scales.x.max = current[1];
        chart.update("none");
      }
    },
    remove(chart) {
      charts.delete(chart);
    },
    // every chart, each redrawn once
    set(lo, hi) {
      apply(lo, hi, null);
    },
    align(lo, hi) {
      setAll(lo, hi);
    },
    reset() {
      current = null;
      setAll(undefined, undefined);
      clearTimeout(timer);
      timer = setTimeout(() => onWindow(null, null), 50);
    },
    get window() {
      return current;
    },
  };
}
