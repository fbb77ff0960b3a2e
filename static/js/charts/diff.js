// The renderer of the data endpoint's kind=diff (results/jobdiff): the counts of jobs in both runs,
// changed, missing from a side or cut by a side's schedule limit, and the changed jobs a page at a time.
import { duration } from "../format.js";
import { timeText } from "./time.js";

const number = (n) => n.toLocaleString("en-US");

// The summary sentence above the charts.
export function summary(d) {
  const nothing = !d.jobs && !d.only_a && !d.only_b && !d.cut_in_a && !d.cut_in_b;
  if (nothing) {
    return (
      "Neither run recorded a schedule (its scenario turned schedule recording off, or the runs had no jobs): " +
      "there is nothing to compare."
    );
  }
  const one =
    d.jobs === 1 && !d.only_a && !d.only_b
      ? " Both runs schedule a single job (ep_jobs offline: one job's tasks on the servers): the table compares " +
        "that job's start and end; the Gantts below show where each of its tasks ran."
      : "";
  return `${d.jobs} jobs in both: ${d.changed} changed — ${categories(d)}.${one}`;
}

// The changed jobs' categories, a partition (each job once, as the Gantts colour it): by its start first, then
// its resources (same start, other resources), then its end. They add up to d.changed.
export function categories(d) {
  return (
    `${d.later} started later in B, ${d.earlier} started earlier, ` +
    `${d.moved} started at the same time on other resources, ${d.other_end} same start and resources, other end`
  );
}

// One row per kind of job into table `t`: in both, missing from a side, or cut by a side's schedule limit.
// `per`: seconds per stored time unit.
export function counts(t, d, per) {
  t.innerHTML = "";
  const cutNote = (side) =>
    d[side].cut_at === null || d[side].cut_at === undefined
      ? ""
      : ` (${side.toUpperCase()} recorded its schedule up to t = ${timeText(d[side].cut_at, per)})`;
  const rows = [
    ["jobs", "in both A and B", ""],
    ["changed", "in both, changed in B", categories(d)],
    ["only_a", "in A, not in B", "e.g. rejected or never run by B"],
    ["cut_in_b", "in A, cut by B's schedule limit", "B stopped recording before these would start" + cutNote("b")],
    ["only_b", "in B, not in A", ""],
    ["cut_in_a", "in B, cut by A's schedule limit", "A stopped recording before these would start" + cutNote("a")],
  ];
  const body = t.createTBody();
  rows.forEach(([key, label, note]) => {
    const cut = key === "cut_in_a" || key === "cut_in_b";
    if (cut && !d[key] && d[key === "cut_in_a" ? "a" : "b"].cut_at == null) return;
    const row = body.insertRow();
    row.insertCell().textContent = label;
    const cell = row.insertCell();
    cell.textContent = d[key];
    cell.dataset.count = key;
    cell.className = "num";
    row.insertCell().textContent = note;
  });
}

// A changed job's category (the server's row.change: results/jobdiff), as the summary counts it and the Gantts
// colour it, in the legend's words.
const CHANGE = {
  later: "started later",
  earlier: "started earlier",
  moved: "same start, other resources",
  other_end: "same start and resources, other end",
};

// A page of the changed jobs (the server orders all of them; d.offset, d.rows, d.changed) into table `t`,
// its position and buttons into `pager`. Times exact and readable ("1 d 21 h 25 min 23 s"), the stored number
// in each cell's title (to copy), as the job table.
export function changedJobs(t, pager, d, unit) {
  const first = d.changed ? d.offset + 1 : 0;
  const last = d.offset + d.rows.length;
  pager.querySelector(".rows").textContent = `changed jobs ${number(first)}–${number(last)} of ${number(d.changed)}`;
  pager.querySelector(".prev").disabled = d.offset <= 0;
  pager.querySelector(".next").disabled = last >= d.changed;
  pager.dataset.offset = String(d.offset);
  t.innerHTML = "";
  const head = t.createTHead().insertRow();
  ["job", "change", "start A", "start B", "Δ start", "end A", "end B", "Δ end", "other resources"].forEach((h) => {
    const th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  });
  const body = t.createTBody();
  d.rows.forEach((r) => {
    const row = body.insertRow();
    row.insertCell().textContent = r.job;
    row.insertCell().textContent = CHANGE[r.change] || r.change;
    [r.start_a, r.start_b, r.delta_start, r.end_a, r.end_b, r.delta_end].forEach((v) => {
      const cell = row.insertCell();
      cell.textContent = duration(v, { kind: "duration", unit });
      cell.className = "num";
      if (v !== null && v !== undefined) cell.title = `${v} ${unit}`; // the stored number
    });
    row.insertCell().textContent = r.moved ? "yes" : "";
  });
}
