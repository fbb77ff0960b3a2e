// Scenario wizard: lists of objects as an editable table, or CSV text.
import { el } from "./dom.js";
import { rangeText } from "./schema.js";

const TABLE_MAX_ROWS = 200;

// Lists of objects (hosts, PM types, clouds, jobs): a table, or CSV text for long lists / pasting.
export function tableWidget(ctx, n, value, path, label) {
  const { resolve, unionParts, kindOf } = ctx.schema;
  const item = resolve(n.items);
  const cols = Object.entries(item.properties).filter(([, p]) => resolve(p).const === undefined);
  const consts = Object.entries(item.properties).filter(([, p]) => resolve(p).const !== undefined);
  let rows = Array.isArray(value) ? value : Array.isArray(n.default) ? n.default : [];
  const table = el("table", { class: "grid edit" });
  const csv = el("textarea", { class: "mono", rows: 8, spellcheck: "false", id: "w-" + path + "-csv" });
  const toggle = el("button", { type: "button", class: "small", "data-csv-toggle": path });
  const addBtn = el("button", { type: "button", class: "small", text: "+ row" });
  let csvMode = rows.length > TABLE_MAX_ROWS;
  let cells = [];

  const cellText = (v) => (v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
  function parseCell(p, raw) {
    p = resolve(p);
    raw = raw.trim();
    if (raw === "") return undefined;
    const k = kindOf(p);
    if (
      k === "integer" ||
      k === "number" ||
      (k === "nullable" && ["integer", "number"].includes(unionParts(p).parts[0].type))
    ) {
      return Number.isFinite(Number(raw)) ? Number(raw) : raw;
    }
    if (k === "boolean") return /^(1|true|yes|on)$/i.test(raw);
    if (k === "string" || k === "enum") return raw;
    try {
      return JSON.parse(raw);
    } catch (e) {
      return raw;
    }
  }
  function rowValue(texts) {
    const out = {};
    consts.forEach(([k, p]) => {
      out[k] = resolve(p).const;
    });
    cols.forEach(([k, p], j) => {
      const v = parseCell(p, texts[j] ?? "");
      if (v !== undefined) out[k] = v;
    });
    return out;
  }
  function drawTable() {
    table.innerHTML = "";
    table.appendChild(
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          cols.map(([k, p]) =>
            el(
              "th",
              { title: [resolve(p).description, rangeText(resolve(p))].filter(Boolean).join(" — ") },
              resolve(p).title || k,
              el("br"),
              el("code", { class: "key", text: k }),
            ),
          ),
          el("th"),
        ),
      ),
    );
    const body = el("tbody");
    cells = rows.map((r, i) => {
      const inputs = cols.map(([k]) => {
        const input = el("input", {
          type: "text",
          value: cellText(r[k]),
          placeholder: cellText(resolve(item.properties[k]).default),
          "aria-label": `${path}[${i}].${k}`,
        });
        const td = el("td", { "data-path": `${path}[${i}].${k}` }, input);
        ctx.fieldEls[`${path}[${i}].${k}`] = td;
        return [input, td];
      });
      const del = el("button", { type: "button", class: "small", text: "✕", title: "remove row" });
      del.addEventListener("click", () => {
        rows = collectRows();
        rows.splice(i, 1);
        drawTable();
      });
      const tr = el(
        "tr",
        { "data-path": `${path}[${i}]` },
        inputs.map(([, td]) => td),
        el("td", {}, del),
      );
      ctx.fieldEls[`${path}[${i}]`] = tr;
      body.appendChild(tr);
      return inputs.map(([input]) => input);
    });
    table.appendChild(body);
  }
  const header = () => cols.map(([k]) => k).join(",");
  const toCsv = (rs) => [header(), ...rs.map((r) => cols.map(([k]) => csvCell(cellText(r[k]))).join(","))].join("\n");
  const csvCell = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  function fromCsv(text) {
    const lines = parseCsv(text.trim());
    if (!lines.length) return [];
    let head = lines[0].map((h) => h.trim());
    const known = head.every((h) => item.properties[h]);
    if (!known) head = cols.map(([k]) => k); // no header row: columns in table order
    const data = known ? lines.slice(1) : lines;
    return data
      .filter((l) => l.some((c) => c.trim() !== ""))
      .map((l) => {
        const texts = cols.map(([k]) => {
          const j = head.indexOf(k);
          return j >= 0 ? (l[j] ?? "") : "";
        });
        return rowValue(texts);
      });
  }
  function collectRows() {
    return csvMode ? fromCsv(csv.value) : cells.map((inputs) => rowValue(inputs.map((x) => x.value)));
  }
  function setMode(toCsvMode) {
    if (toCsvMode !== csvMode) rows = collectRows();
    csvMode = toCsvMode;
    if (csvMode) csv.value = toCsv(rows);
    else drawTable();
    table.hidden = csvMode;
    addBtn.hidden = csvMode;
    csv.hidden = !csvMode;
    toggle.textContent = csvMode ? "Edit as table" : "Edit / paste as CSV";
  }
  toggle.addEventListener("click", () => setMode(!csvMode));
  addBtn.addEventListener("click", () => {
    rows = collectRows();
    rows.push({});
    drawTable();
  });
  if (!csvMode) drawTable();
  setMode(csvMode);
  const help = `${item.description || ""} CSV header: ${header()}`;
  const node = el(
    "fieldset",
    { "data-path": path, class: "table-field" },
    el("legend", { text: label || n.title || path }),
    el("p", {
      class: "help",
      text: [n.description, rangeText(n) && "allowed: " + rangeText(n), help].filter(Boolean).join(" — "),
    }),
    el(
      "div",
      { class: "table-scroll", tabindex: "0", role: "region", "aria-label": (label || n.title || path) + " table" },
      table,
    ),
    csv,
    el("div", { class: "row-actions" }, addBtn, toggle),
  );
  ctx.fieldEls[path] = node;
  return {
    el: node,
    get: () => {
      const r = collectRows();
      return r.length || !("default" in n) ? r : undefined;
    },
  };
}

function parseCsv(text) {
  const out = [];
  let row = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === "," || c === "\t" || c === ";") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      out.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  row.push(cell);
  out.push(row);
  return out;
}
