// The renderer of the data endpoint's kind=jobs (cloudsched_web/results/jobstats.py), on the run page:
// the job table, paged, sorted and filtered on the server. The view lives in an element with
// data-jobs="table"; its controls are found by data-role.
import { getJson } from "../lib/net.js";
import { plain as fmt, specOfUnit, value as formatValue } from "../format.js";

const role = (root, name) => root.querySelector(`[data-role="${name}"]`);
const unitOf = (m) => (m && m.unit ? ` (${m.unit})` : "");
const count = (n) => Number(n).toLocaleString("en");
// A stored field's unit by the project's naming (submit_s, runtime_s, lifetime_min, energy_j …), a derived
// measure's as the server names it; none for counts and ratios.
const SUFFIX_UNITS = { s: "s", min: "min", h: "h", j: "J", wh: "Wh", kwh: "kWh", w: "W", kw: "kW" };
function unitOfColumn(column, measures) {
  if (measures[column]) return measures[column].unit;
  const suffix = /_([a-z]+)$/.exec(column);
  return (suffix && SUFFIX_UNITS[suffix[1]]) || "";
}

// The table in `root`; returns its state ({offset, limit, order, data}).
export function jobTable(root) {
  const algSelect = role(root, "alg");
  const repSelect = role(root, "rep");
  const table = role(root, "table");
  const rows = role(root, "rows");
  const prev = role(root, "prev");
  const next = role(root, "next");
  const state = { offset: 0, limit: 50, order: "", data: null };

  // A cell's text: a number with a unit in its unit (format.js: seconds as min, h, d …), another number as
  // every number of the page.
  function cell(v, unit) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "number") return unit ? formatValue(v, specOfUnit(unit)) : fmt(v);
    if (typeof v === "boolean") return v ? "yes" : "no";
    return String(v);
  }

  function drawTable(data) {
    state.data = data;
    table.innerHTML = "";
    const measures = Object.fromEntries(data.measures.map((m) => [m.key, m]));
    const head = table.createTHead().insertRow();
    data.columns.forEach((c) => {
      const th = document.createElement("th");
      const sorted = state.order.replace(/^-/, "") === c;
      th.textContent = c + (sorted ? (state.order.startsWith("-") ? " ▼" : " ▲") : "");
      th.title =
        (measures[c] ? `${measures[c].label}${unitOf(measures[c])}. ` : "") +
        "Click to sort by it (again: the other way).";
      th.dataset.column = c;
      th.className = "sortable";
      if (c !== "run" && c !== "algorithm" && c !== "repetition") th.addEventListener("click", () => sortBy(c));
      head.appendChild(th);
    });
    const body = table.createTBody();
    data.rows.forEach((r) => {
      const tr = body.insertRow();
      r.forEach((v, k) => {
        const td = tr.insertCell();
        const unit = unitOfColumn(data.columns[k], measures);
        td.textContent = cell(v, unit);
        if (typeof v === "number" && k > 2) td.className = "num";
        if (typeof v === "number" && unit) td.title = `${v} ${unit}`; // the stored number
      });
    });
    const first = data.rows.length ? data.offset + 1 : 0;
    rows.textContent =
      `rows ${count(first)}–${count(data.offset + data.rows.length)} of ${count(data.total)}` +
      (state.order
        ? `, sorted by ${state.order.replace(/^-/, "")} ${state.order.startsWith("-") ? "descending" : "ascending"}`
        : ", in run order");
    prev.disabled = data.offset <= 0;
    next.disabled = data.offset + data.rows.length >= data.total;
    if (algSelect.options.length !== data.algorithms.length + 1) {
      algSelect.innerHTML = "";
      algSelect.add(new Option("all", ""));
      data.algorithms.forEach((a) => algSelect.add(new Option(a, a)));
    }
    if (repSelect.options.length !== data.repetitions.length + 1) {
      repSelect.innerHTML = "";
      repSelect.add(new Option("all", ""));
      data.repetitions.forEach((r) => repSelect.add(new Option(`repetition ${r}`, r)));
    }
    root.dataset.loaded = String(Number(root.dataset.loaded || 0) + 1);
  }

  async function load() {
    const params = new URLSearchParams({ kind: "jobs", offset: state.offset, limit: state.limit });
    if (state.order) params.set("order", state.order);
    if (algSelect.value) params.set("alg", algSelect.value);
    if (repSelect.value) params.set("rep", repSelect.value);
    try {
      drawTable(await getJson(`${root.dataset.url}?${params}`));
    } catch (e) {
      rows.textContent = "could not load the jobs: " + e.message;
    }
  }
  function sortBy(c) {
    state.order = state.order === c ? "-" + c : c;
    state.offset = 0;
    load();
  }
  prev.addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - state.limit);
    load();
  });
  next.addEventListener("click", () => {
    state.offset += state.limit;
    load();
  });
  [algSelect, repSelect].forEach((s) =>
    s.addEventListener("change", () => {
      state.offset = 0;
      load();
    }),
  );
  load();
  return state;
}
