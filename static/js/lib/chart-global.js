// The pages' handle on Chart.js (not the library: that is npm's chart.js, installed at set-up): its
// UMD build, served from /static/vendor/, is a classic script before the page's module, with
// chartjs-plugin-zoom where the page zooms. Their ES builds name their dependencies by bare specifiers
// ("@kurkle/color", "chart.js/helpers"), which a browser resolves only through an import map, an inline
// script the Content-Security-Policy forbids. This module is the one place that reads the library's
// global; every chart gets the accessibility plugin (charts/accessible.js).
import { accessible } from "../charts/accessible.js";

export const Chart = window.Chart; // eslint-disable-line no-restricted-properties
if (!Chart)
  throw new Error("Chart.js is not loaded: the page needs vendor/chart.js/dist/chart.umd.js before its module");
Chart.register(accessible);
