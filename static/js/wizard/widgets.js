// Scenario wizard: the widgets a schema node becomes. Nothing here knows a family: nested objects
// become fieldsets, enums selects, unions tabs, lists of objects editable tables (table.js, with a CSV
// view), the algorithm list checkboxes, a trace workload the trace picker (traces.js).
import { el, joinPath } from "./dom.js";
import { rangeText } from "./schema.js";
import { tableWidget } from "./table.js";
import { tracePicker } from "./traces.js";

// The widgets of one form: `ctx` holds the schema's readers (schemaOf), the algorithms' descriptions, the
// traces to pick from, and fieldEls (path → the element that shows its errors), filled as widgets are made.
// Returns widget(node, value, path): {el, get}.
// The panes of a union share field paths (every workload kind has a `load`): an id a former pane already
// uses gets the pane's suffix, with the labels and help references that point to it, so each id is unique
// and a label focuses its own field.
function uniqueIds(root, used, suffix) {
  const renamed = new Map();
  root.querySelectorAll("[id]").forEach((e) => {
    if (used.has(e.id)) {
      renamed.set(e.id, e.id + suffix);
      e.id += suffix;
    }
    used.add(e.id);
  });
  if (!renamed.size) return;
  root.querySelectorAll("label[for]").forEach((l) => {
    if (renamed.has(l.htmlFor)) l.htmlFor = renamed.get(l.htmlFor);
  });
  root.querySelectorAll("[aria-describedby]").forEach((e) => {
    const id = e.getAttribute("aria-describedby");
    if (renamed.has(id)) e.setAttribute("aria-describedby", renamed.get(id));
  });
}

export function widgets(ctx) {
  const { resolve, unionParts, kindOf } = ctx.schema;
  const { algorithms, traces } = ctx;

  function field(path, n, label, input, extra) {
    const help = [n.description, rangeText(n) && `allowed: ${rangeText(n)}`].filter(Boolean).join(" — ");
    // The JSON key beside the label is for the eye (errors and the API name fields by it), hidden from screen
    // readers ("Seed seed"); the help is tied to its input, so it is read with the field.
    const helpId = "w-" + path + "-help";
    if (help && input && /^(INPUT|SELECT|TEXTAREA)$/.test(input.tagName))
      input.setAttribute("aria-describedby", helpId);
    const box = el(
      "div",
      { class: "field", "data-path": path },
      el(
        "label",
        // a label names one control: a group (the algorithm checkboxes) has none of that id, so no `for`
        { for: input && input.id === "w-" + path ? input.id : undefined },
        label || n.title || path,
        " ",
        el("code", { class: "key", "aria-hidden": "true", text: path.split(".").pop() }),
      ),
      input,
      extra,
      help ? el("p", { class: "help", id: helpId, text: help }) : null,
    );
    ctx.fieldEls[path] = box;
    return box;
  }

  // Each widget returns {el, get}; get() gives the value or undefined (= leave the default).
  function widget(n, value, path, label, opts) {
    // A nested model's property carries its title beside the $ref ("Feitelson model"): that, not the class name.
    label = label || (n.$ref ? n.title : undefined);
    n = resolve(n);
    const nullable = opts && opts.nullable;
    switch (kindOf(n)) {
      case "const":
        return { el: null, get: () => n.const };
      case "nullable":
        return widget(unionParts(n).parts[0], value, path, label || n.title, {
          nullable: true,
          title: n.title,
          description: n.description,
        });
      case "object":
        return objectWidget(n, value, path, label);
      case "union":
        return unionWidget(n, value, path, label);
      case "checkboxes":
        return checkboxWidget(n, value, path, label);
      case "table":
        return tableWidget(ctx, n, value, path, label);
      case "enum": {
        const sel = el("select", { id: "w-" + path, name: "w-" + path });
        // an option reads as the schema's label for it (x-labels), the code value beside it for the API's reader
        const labels = n["x-labels"] || (opts && opts.labels) || {};
        n.enum.forEach((v) => sel.add(new Option(labels[v] ? `${labels[v]} (${v})` : String(v), JSON.stringify(v))));
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined) sel.value = JSON.stringify(cur);
        return { el: field(path, n, label, sel), get: () => JSON.parse(sel.value) };
      }
      case "boolean": {
        const box = el("input", { type: "checkbox", id: "w-" + path });
        box.checked = value !== undefined ? !!value : !!n.default;
        return { el: field(path, n, label, box), get: () => box.checked };
      }
      case "integer":
      case "number": {
        const input = el("input", {
          type: "number",
          id: "w-" + path,
          step: n.type === "integer" ? "1" : "any",
          min: n.minimum ?? n.exclusiveMinimum,
          max: n.maximum ?? n.exclusiveMaximum,
          placeholder: nullable ? "empty = none" : "",
        });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = cur;
        const desc = opts && opts.description ? { ...n, description: opts.description } : n;
        input.addEventListener("input", () => {
          // a hint while typing; the server's check is the one that counts
          const v = Number(input.value);
          const bad =
            input.value.trim() !== "" &&
            (!Number.isFinite(v) ||
              (n.type === "integer" && !Number.isInteger(v)) ||
              (n.minimum !== undefined && v < n.minimum) ||
              (n.exclusiveMinimum !== undefined && v <= n.exclusiveMinimum) ||
              (n.maximum !== undefined && v > n.maximum) ||
              (n.exclusiveMaximum !== undefined && v >= n.exclusiveMaximum));
          input.classList.toggle("out-of-range", bad);
          input.title = bad ? "allowed: " + rangeText(n) : "";
        });
        return {
          el: field(path, desc, label, input),
          get: () => {
            const raw = input.value.trim();
            if (raw === "") return nullable ? null : undefined;
            const num = Number(raw);
            return Number.isFinite(num) ? num : raw; // the server names the field if it is not a number
          },
        };
      }
      case "string": {
        const long = (n.maxLength || 0) > 2000;
        const input = long
          ? el("textarea", { id: "w-" + path, rows: 6, class: "mono", spellcheck: "false" })
          : el("input", { type: "text", id: "w-" + path, maxlength: n.maxLength });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = cur;
        let extra = null;
        if (long) {
          // a trace or other text file: upload it into the field
          const file = el("input", { type: "file", id: "w-" + path + "-file", accept: ".swf,.txt,.csv,.gz" });
          file.addEventListener("change", () => {
            const f = file.files[0];
            if (!f) return;
            const stored = document.getElementById("id_trace_file");
            if (stored) {
              // the page's upload field: the server stores the file as a trace (never as text here)
              stored.files = file.files;
              input.value = "";
              note.textContent =
                f.name + " will be stored as a trace when you save (the scenario refers to it by its SHA-256).";
              return;
            }
            const text =
              /\.gz$/i.test(f.name) && window.DecompressionStream // gzipped traces unpack in the browser
                ? new Response(f.stream().pipeThrough(new DecompressionStream("gzip"))).text()
                : f.text();
            text
              .then((t) => {
                input.value = t;
              })
              .catch((e) => alert("Could not read " + f.name + ": " + e.message));
          });
          const note = el("span", { class: "help", id: "w-" + path + "-note" });
          extra = el("div", { class: "upload" }, "or upload a file: ", file, note);
        }
        const box = field(path, n, label, input, extra);
        if (long) box.classList.add("wide");
        // An emptied required text (a name: minLength ≥ 1) is sent as "", so the server names it instead of
        // silently taking the default ("scenario"); an emptied optional one falls back to none / the default.
        return {
          el: box,
          get: () => (input.value === "" ? (nullable ? null : n.minLength >= 1 ? "" : undefined) : input.value),
        };
      }
      case "list": {
        const items = resolve(n.items);
        const input = el("input", {
          type: "text",
          id: "w-" + path,
          placeholder: nullable ? "empty = none; else comma-separated" : "comma-separated",
        });
        const cur = value !== undefined ? value : n.default;
        if (Array.isArray(cur)) input.value = cur.join(", ");
        return {
          el: field(path, n, label, input),
          get: () => {
            const raw = input.value.trim();
            if (raw === "") return nullable ? null : n.default !== undefined ? undefined : [];
            return raw
              .split(/[,\s]+/)
              .filter(Boolean)
              .map((x) => (items.type === "string" ? x : Number.isFinite(Number(x)) ? Number(x) : x));
          },
        };
      }
      default: {
        // anything else (matrices, free-form): JSON text
        const input = el("textarea", {
          id: "w-" + path,
          rows: 4,
          class: "mono",
          spellcheck: "false",
          placeholder: "JSON" + (nullable ? "; empty = none" : ""),
        });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = JSON.stringify(cur);
        return {
          el: field(path, n, label, input),
          get: () => {
            const raw = input.value.trim();
            if (raw === "") return nullable ? null : undefined;
            try {
              return JSON.parse(raw);
            } catch (e) {
              return raw;
            }
          },
        };
      }
    }
  }

  function objectWidget(n, value, path, label, bare) {
    value = value && typeof value === "object" ? value : {};
    // A trace workload names its trace through one picker (the list of stored traces, upload beside it),
    // never a hand-typed "sha256:" reference, pasted text or a server path.
    const picked = traces && n.properties.trace && resolve(n.properties.kind || {}).const === "trace";
    const sources = picked ? traces.source_fields.filter((k) => k in n.properties) : [];
    const children = Object.entries(n.properties)
      .filter(([k]) => !sources.includes(k))
      .map(([k, sub]) => [k, widget(sub, value[k], joinPath(path, k))]);
    if (picked) children.unshift(["", tracePicker(ctx, value, path, sources)]);
    const isSimple = (w) => w.el.classList.contains("field") && !w.el.classList.contains("wide");
    const simple = children.filter(([k, w]) => w.el && k !== "" && isSimple(w));
    const complex = children.filter(([k, w]) => w.el && k !== "" && !isSimple(w));
    const body = [
      picked ? children[0][1].el : null, // the trace first, then its settings
      el(
        "div",
        { class: "grid-fields" },
        simple.map(([, w]) => w.el),
      ),
      complex.map(([, w]) => w.el),
    ];
    showChosenGroup(n, children);
    let node;
    if (path === "" || bare) node = el("div", { class: path === "" ? "wizard-root" : "branch" }, body);
    else {
      node = el(
        "fieldset",
        { "data-path": path },
        el("legend", { text: label || n.title || path }),
        n.description ? el("p", { class: "help", text: n.description }) : null,
        body,
      );
      ctx.fieldEls[path] = node;
    }
    return {
      el: node,
      get: () => {
        const out = {};
        children.forEach(([k, w]) => {
          const v = w.get();
          if (v === undefined) return;
          if (k === "") Object.assign(out, v);
          else out[k] = v;
        });
        return out;
      },
    };
  }

  // A choice among sibling groups (backfill: model = feitelson | jann | lublin beside the groups of the
  // same names) shows only the chosen group; the others keep their values and are still submitted.
  function showChosenGroup(n, children) {
    const byKey = Object.fromEntries(children);
    for (const [k, sub] of Object.entries(n.properties)) {
      const options = resolve(sub).enum;
      if (!options || !options.every((v) => byKey[v] && byKey[v].el && byKey[v].el.tagName === "FIELDSET")) continue;
      const select = byKey[k].el && byKey[k].el.querySelector("select");
      if (!select) continue;
      const sync = () =>
        options.forEach((v) => {
          byKey[v].el.hidden = JSON.stringify(v) !== select.value;
        });
      select.addEventListener("change", sync);
      sync();
    }
  }

  function tagOf(branch) {
    const props = branch.properties || {};
    for (const [k, p] of Object.entries(props)) if (p.const !== undefined) return [k, p.const];
    return [null, null];
  }

  // Common workload/data-centre tags get readable tab names; others show their tag or title.
  const TAB_NAMES = {
    generator: "Generator",
    jobs: "Job list / pasted CSV",
    trace: "SWF trace",
    job: "One job (task table)",
    online_generator: "Online generator",
    online_jobs: "Online job list",
    fattree: "FatTree",
    servers: "Server table",
  };
  const tabLabel = (tag, b) =>
    TAB_NAMES[tag] || (tag !== null && tag !== undefined ? String(tag) : b.title || "option");

  function unionWidget(n, value, path, label) {
    const { parts } = unionParts(n);
    let active = 0;
    parts.forEach((b, i) => {
      const [k, tag] = tagOf(b);
      if (value && k && value[k] === tag) active = i;
    });
    const tabs = el("div", { class: "tabs", role: "tablist" });
    const panes = el("div", { class: "panes" });
    const used = new Set();
    const branches = parts.map((b, i) => {
      const [, tag] = tagOf(b);
      const w = objectWidget(b, i === active ? value : {}, path, b.title, true);
      const pane = el(
        "div",
        { class: "pane", "data-branch": tag ?? i },
        b.description ? el("p", { class: "help", text: b.description }) : null,
        w.el,
      );
      uniqueIds(pane, used, `~${tag ?? i}`);
      pane.hidden = i !== active;
      const btn = el("button", {
        type: "button",
        role: "tab",
        class: "tab",
        "data-tab": `${path}:${tag ?? i}`,
        text: tabLabel(tag, b),
      });
      btn.addEventListener("click", () => {
        active = i;
        [...tabs.children].forEach((t, j) => t.classList.toggle("active", j === i));
        [...panes.children].forEach((p, j) => {
          p.hidden = j !== i;
        });
      });
      if (i === active) btn.classList.add("active");
      tabs.appendChild(btn);
      panes.appendChild(pane);
      return w;
    });
    const node = el(
      "fieldset",
      { "data-path": path, class: "union" },
      el("legend", { text: label || n.title || path }),
      tabs,
      panes,
    );
    ctx.fieldEls[path] = node;
    return { el: node, get: () => branches[active].get() };
  }

  // A paper's short name from an algorithm's description: "OnTaPRA (Alg. 3): periodic SJF…" → "OnTaPRA (Alg. 3)".
  const shortName = (desc, fallback) => (desc ? desc.split(":")[0].trim() : fallback);

  // Composed names (`scheduler:per-job algorithm`, ep_jobs' 40 online ones) as a grid: a row per scheduler
  // (with DRC on or off, as its description says), a column per per-job algorithm, the paper's names on both;
  // plain names stay a list above it. Other registries (≤ a dozen names) keep the plain list.
  function composedGrid(names, boxes) {
    const composed = names.filter((v) => v.includes(":"));
    if (composed.length < 12) return null;
    const byName = new Map(boxes.map(([b, l]) => [b.value, l]));
    const rows = [...new Set(composed.map((v) => v.split(":")[0]))];
    const cols = [...new Set(composed.map((v) => v.split(":")[1]))];
    const rowLabel = (r) => {
      const desc = algorithms[composed.find((v) => v.split(":")[0] === r)] || "";
      const drc = /DRC off/.test(desc) ? "DRC off" : /DRC on/.test(desc) ? "DRC on" : "";
      return shortName(desc, r) + (drc ? ", " + drc : "");
    };
    const table = el(
      "table",
      { class: "grid algo-grid" },
      el("caption", {
        class: "help",
        text:
          "Online schedulers (rows) × the per-job algorithm each uses (columns). DRC: dynamic resource " +
          "configuration (Alg. 5), sharing a server's residual capacity among its tasks; off = NDRC. " +
          "Hover a box for the full description.",
      }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { text: "scheduler" }),
          ...cols.map((c) => el("th", { scope: "col", text: shortName(algorithms[c], c) })),
        ),
      ),
      el(
        "tbody",
        {},
        ...rows.map((r) =>
          el(
            "tr",
            {},
            el("th", { scope: "row", text: rowLabel(r) }),
            ...cols.map((c) => {
              const l = byName.get(`${r}:${c}`);
              return el("td", {}, l ? l.querySelector("input") : "—");
            }),
          ),
        ),
      ),
    );
    table.querySelectorAll("td input").forEach((b) => {
      const [r, c] = b.value.split(":");
      b.title = algorithms[b.value] || b.value;
      b.setAttribute("aria-label", `${rowLabel(r)} with ${shortName(algorithms[c], c)}`);
    });
    const plain = names.filter((v) => !v.includes(":")).map((v) => byName.get(v));
    return el("div", {}, el("div", { class: "checks" }, plain), table);
  }

  function checkboxWidget(n, value, path, label) {
    const items = resolve(n.items);
    const chosen = new Set(value || n.default || []);
    const boxes = items.enum.map((v) => {
      const id = `w-${path}-${v}`;
      const box = el("input", { type: "checkbox", id, value: v, name: path });
      box.checked = chosen.has(v);
      const desc = path === "algorithms" ? algorithms[v] : "";
      // long registries: composed names (a:b) as tooltips only
      const inline = desc && (items.enum.length <= 12 || !v.includes(":"));
      return [
        box,
        el(
          "label",
          { class: "check", for: id, title: desc || "" },
          box,
          " ",
          el("code", { text: v }),
          inline ? el("span", { class: "help", text: " " + desc }) : null,
        ),
      ];
    });
    const grid = path === "algorithms" ? composedGrid(items.enum, boxes) : null;
    const list =
      grid ||
      el(
        "div",
        { class: "checks" },
        boxes.map(([, l]) => l),
      );
    const box = field(path, n, label, list);
    box.classList.add("wide");
    return { el: box, get: () => boxes.filter(([b]) => b.checked).map(([b]) => b.value) };
  }

  return widget;
}
