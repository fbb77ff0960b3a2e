// Gantt charts (the data endpoint's kind=gantt): the legend of every colour and mark, and the colour modes offered.
import { plain } from "../../format.js";
import { MARKERS, categoryColour, gradient, modeOf } from "./colours.js";
import { JOB_ROW, decoded } from "./bars.js";

// The legend: what every colour and mark of the Gantts means, for the chosen mode.
export function legend(el, gantts, key) {
  el.innerHTML = "";
  const add = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  };
  const item = (colour, text, glyph) => {
    const s = add("span", "legend-item");
    const sw = add("span", glyph ? "glyph" : "sw", glyph || "");
    if (glyph) sw.style.color = colour;
    else sw.style.background = colour;
    s.append(sw, add("span", null, text));
    s.dataset.colour = colour;
    return s;
  };
  const g0 = gantts[0];
  if (!g0) return;
  const mode = modeOf(g0, key);
  const head = add("div", "legend-row");
  head.append(add("strong", null, "Bar colour: " + (mode.type === "job" ? "job" : mode.label) + ". "));
  const oneJob = gantts.every((g) => decoded(g).oneJob);
  if (mode.type === "job" && oneJob) {
    head.append(
      add(
        "span",
        null,
        "the run has one job, so each of its tasks has its own colour (hashed from the task id); " +
          "hover a bar for its task and times.",
      ),
    );
  } else if (mode.type === "job") {
    head.append(
      add(
        "span",
        null,
        "each job its own colour, hashed from its id (the same job has the same colour on every chart); " +
          "hover a bar for its job, task and times.",
      ),
    );
  } else if (mode.type === "category") {
    mode.categories.forEach((c, i) => {
      const it = item(categoryColour(mode, i), c);
      it.dataset.category = String(i);
      head.append(it);
    });
  } else {
    const bar = add("span", "colourbar");
    bar.style.background = gradient();
    head.append(
      add("span", null, `${plain(mode.range[0])} ${mode.unit}`),
      bar,
      add("span", null, `${plain(mode.range[1])} ${mode.unit}`),
    );
  }
  el.append(head);
  if (gantts.some((g) => g.mode === "occupancy")) {
    const occ = add("div", "legend-row help");
    occ.textContent =
      mode.type === "job"
        ? "Occupancy blocks (where a window holds too many bars): blue, darker = a larger share of the resource " +
          "busy in that pixel column."
        : mode.type === "scale"
          ? `Occupancy blocks: colour = the busy-weighted mean ${mode.label} in the block (share × time), ` +
            "darker = busier."
          : `Occupancy blocks: colour = the ${mode.label} with the most busy time (share × time) in the block, ` +
            "darker = busier.";
    el.append(occ);
  }
  if (gantts.some((g) => (g.lanes || []).some((n) => n > 1))) {
    el.append(
      add(
        "div",
        "legend-row help",
        "Lanes: segments that overlap in time on one resource (VMs sharing a machine, tiers, shares) are stacked " +
          "in thinner lanes inside its row, never drawn over each other.",
      ),
    );
  }
  const kinds = [...new Set(gantts.flatMap((g) => (g.events && g.events.kinds) || []))];
  if (kinds.length) {
    const row = add("div", "legend-row");
    row.append(add("strong", null, "Marks: "));
    kinds.forEach((k) => {
      const it = item(MARKERS[k].colour, (gantts[0].events.labels || {})[k] || k, MARKERS[k].glyph);
      it.dataset.marker = k;
      row.append(it);
    });
    if (kinds.some((k) => k === "rejected" || k === "deadline missed"))
      row.append(add("span", "help", ` Job events without a resource are on the top line, "${JOB_ROW}".`));
    el.append(row);
  }
}

// The modes a page offers: those of any of its Gantts, in the server's order.
export function modes(gantts) {
  const seen = new Map();
  gantts.forEach((g) =>
    ((g.colour && g.colour.modes) || []).forEach((m) => {
      if (!seen.has(m.key)) seen.set(m.key, m);
    }),
  );
  return [...seen.values()];
}
