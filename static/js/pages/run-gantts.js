// The run page's Gantts: one per algorithm run of the chosen repetition, each with its pager (40
// resource rows at a time, a jump to a group), and the colour mode, legend and markers shared by all.
import * as gantt from "../charts/gantt/index.js";
import { cachedJson } from "../lib/net.js";

const ROWS = 40;

// `holder`: where the charts go; `dataUrl`: the data endpoint; `link`: the page's linked time axis.
export function runGantts(holder, dataUrl, link) {
  const charts = {}; // run index → chart
  const rowStart = {}; // run index → the first resource row shown (the pager's state)
  const colourSelect = document.getElementById("gantt-colour");
  let colourKey = "job";
  // A Gantt window (algorithm, rows, window, width) is fetched once for the last 48 asked (12 zoom steps
  // of 4 algorithms): zooming back out or paging back draws it again at once.
  const ganttWindow = cachedJson(48);

  function url(i, win) {
    const width = Math.max(200, Math.min(4000, Math.round(holder.clientWidth || 1000)));
    return `${dataUrl}?kind=gantt&run=${i}&row0=${rowStart[i] || 0}&rows=${ROWS}&pixels=${width}${win}`;
  }

  function showPager(g) {
    const pager = document.getElementById("gantt-pager-" + g.index);
    const last = g.row0 + g.resources.length;
    pager.dataset.row0 = String(g.row0);
    pager.dataset.total = String(g.total_resources);
    pager.querySelector(".rows").textContent =
      `rows ${g.resources.length ? g.row0 + 1 : 0}–${last} of ${g.total_resources}`;
    pager.querySelector(".prev").disabled = g.row0 <= 0;
    pager.querySelector(".next").disabled = last >= g.total_resources;
    const jump = pager.querySelector(".group");
    const grouped = g.groups && g.groups.length > 1;
    if (grouped && jump.options.length !== g.groups.length) {
      jump.innerHTML = "";
      g.groups.forEach((grp) =>
        jump.add(new Option(`${g.group_by.replace("_", " ")} ${grp.name} (${grp.rows} rows)`, grp.row0)),
      );
    }
    jump.hidden = !grouped;
    if (grouped) jump.value = String([...g.groups].reverse().find((grp) => grp.row0 <= g.row0).row0);
    pager.hidden = g.total_resources <= g.rows && jump.hidden;
  }

  function draw(g) {
    document.getElementById("gantt-note-" + g.index).textContent = gantt.note(g, link.per);
    document.getElementById("gantt-box-" + g.index).style.height = gantt.height(g) + "px";
    showPager(g);
    if (charts[g.index]) gantt.update(charts[g.index], g, colourKey);
    else
      charts[g.index] = gantt.create(document.getElementById("gantt-" + g.index), g, link, {
        colour: colourKey,
        exactUrl: (shown) => `${dataUrl}?kind=bar&run=${shown.index}`,
      });
  }

  function drawLegend() {
    const gantts = Object.values(charts).map((c) => c.$g);
    const modes = gantt.modes(gantts);
    if (colourSelect.options.length !== modes.length) {
      colourSelect.innerHTML = "";
      modes.forEach((m) => colourSelect.add(new Option(m.type === "job" ? "job" : m.label, m.key)));
      colourSelect.value = colourKey;
    }
    document.getElementById("gantt-colour-bar").hidden = modes.length < 2;
    gantt.legend(document.getElementById("gantt-legend"), gantts, colourKey);
  }
  colourSelect.addEventListener("change", () => {
    colourKey = colourSelect.value;
    Object.values(charts).forEach((c) => draw(c.$g));
    drawLegend();
  });

  async function page(i, delta, to) {
    const pager = document.getElementById("gantt-pager-" + i);
    const total = Number(pager.dataset.total || 0);
    const want = to === undefined ? (rowStart[i] || 0) + delta * ROWS : to;
    rowStart[i] = Math.max(0, Math.min(Math.max(0, total - 1), want));
    const w = link.window;
    draw(await ganttWindow(url(i, w ? `&t0=${w[0]}&t1=${w[1]}` : "")));
    drawLegend();
  }

  function button(cls, text, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  // A heading, note, pager and canvas per run (`runs`: the payload's runs of the chosen repetition).
  function boxes(runs) {
    holder.innerHTML = "";
    Object.entries(charts).forEach(([k, c]) => {
      link.remove(c);
      c.destroy();
      delete charts[k];
    });
    runs.forEach((r) => {
      const h = document.createElement("h3");
      h.textContent = r.algorithm;
      const note = document.createElement("p");
      note.className = "help";
      note.id = "gantt-note-" + r.i;
      const pager = document.createElement("p");
      pager.className = "pager";
      pager.id = "gantt-pager-" + r.i;
      pager.hidden = true;
      const label = document.createElement("span");
      label.className = "rows";
      const jump = document.createElement("select");
      jump.className = "group";
      jump.hidden = true;
      jump.setAttribute("aria-label", "jump to group");
      jump.addEventListener("change", () => page(r.i, 0, Number(jump.value)));
      const prev = button("prev", "◀ previous rows", () => page(r.i, -1));
      const next = button("next", "next rows ▶", () => page(r.i, 1));
      pager.append(prev, " ", label, " ", next, " ", jump);
      const div = document.createElement("div");
      div.className = "chart gantt";
      div.id = "gantt-box-" + r.i;
      const canvas = document.createElement("canvas");
      canvas.id = "gantt-" + r.i;
      div.appendChild(canvas);
      holder.append(h, note, pager, div);
    });
  }

  return { charts, url, fetch: ganttWindow, draw, drawLegend, boxes };
}
