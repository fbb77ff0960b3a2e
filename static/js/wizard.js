// Scenario wizard: draws a form from the family's JSON schema (pydantic's), and writes
// the scenario back as JSON into the form's `config` field on submit. Nothing here knows
// a family: nested objects become fieldsets, enums selects, unions tabs, lists of
// objects editable tables (with a CSV view), the algorithm list checkboxes.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const readJson = (id) => ($(id) ? JSON.parse($(id).textContent) : null);
  const schema = readJson("scenario-schema");
  if (!schema) return;
  const defs = schema.$defs || {};
  const algorithms = readJson("scenario-algorithms") || {};
  const errors = readJson("scenario-errors") || [];
  const traces = readJson("scenario-traces"); // families that read SWF traces: the list to pick from
  const uploadBox = $("trace-upload-box"); // the page's trace upload, moved beside that list
  let traceOffer = null; // redraws the picked trace's machine-size offer (the size field changed)
  const textarea = $("id_config");
  const form = $("scenario-form");
  const holder = $("wizard");
  const TABLE_MAX_ROWS = 200;
  let fieldEls = {};
  let root = null;

  const resolve = (n) => { while (n && n.$ref) n = defs[n.$ref.split("/").pop()] || {}; return n || {}; };
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else if (v !== undefined && v !== null) e.setAttribute(k, v);
    });
    kids.flat(Infinity).forEach((k) => { if (k !== null && k !== undefined && k !== false) e.appendChild(k instanceof Node ? k : document.createTextNode(String(k))); });
    return e;
  };
  const joinPath = (base, key) => (typeof key === "number" ? `${base}[${key}]` : base ? `${base}.${key}` : key);

  function rangeText(n) {
    const p = [];
    if (n.minimum !== undefined) p.push("≥ " + n.minimum);
    if (n.exclusiveMinimum !== undefined) p.push("> " + n.exclusiveMinimum);
    if (n.maximum !== undefined) p.push("≤ " + n.maximum);
    if (n.exclusiveMaximum !== undefined) p.push("< " + n.exclusiveMaximum);
    // Counts as the server's messages say them (schedulers/core/validation.py): "1 to 45 items", "at least 1 item".
    const count = (lo, hi, unit) => {
      const u = (k) => (k === 1 ? unit.slice(0, -1) : unit);
      if (lo && hi !== undefined) return `${lo} to ${hi} ${u(hi)}`;
      return hi !== undefined ? `at most ${hi} ${u(hi)}` : `at least ${lo} ${u(lo)}`;
    };
    if (n.minItems || n.maxItems !== undefined) p.push(count(n.minItems, n.maxItems, "items"));
    if (n.maxLength !== undefined && n.maxLength < 1000) p.push(count(n.minLength, n.maxLength, "characters"));
    return p.join(", ");
  }

  // A nullable scalar (anyOf [X, null]) is drawn as X; an empty input then means null.
  function unionParts(n) {
    const parts = (n.oneOf || n.anyOf || []).map(resolve);
    const nonNull = parts.filter((p) => p.type !== "null");
    return { parts: nonNull, nullable: nonNull.length < parts.length };
  }
  function kindOf(n) {
    if (n.const !== undefined) return "const";
    if (n.enum) return "enum";
    if (n.oneOf || n.anyOf) {
      const { parts } = unionParts(n);
      if (parts.length === 1) return "nullable";
      return parts.every((p) => p.type === "object") ? "union" : "json";
    }
    if (n.type === "object" && n.properties) return "object";
    if (n.type === "array") {
      const items = resolve(n.items);
      if (items.enum) return "checkboxes";
      if (items.type === "object" && items.properties) return "table";
      if (["number", "integer", "string"].includes(items.type)) return "list";
      return "json";
    }
    if (["number", "integer", "string", "boolean"].includes(n.type)) return n.type;
    return "json";
  }

  function field(path, n, label, input, extra) {
    const help = [n.description, rangeText(n) && `allowed: ${rangeText(n)}`].filter(Boolean).join(" — ");
    // The JSON key beside the label is for the eye (errors and the API name fields by it), hidden from screen
    // readers ("Seed seed"); the help is tied to its input, so it is read with the field.
    const helpId = "w-" + path + "-help";
    if (help && input && /^(INPUT|SELECT|TEXTAREA)$/.test(input.tagName)) input.setAttribute("aria-describedby", helpId);
    const box = el("div", { class: "field", "data-path": path },
      el("label", { for: "w-" + path }, label || n.title || path, " ", el("code", { class: "key", "aria-hidden": "true", text: path.split(".").pop() })),
      input, extra, help ? el("p", { class: "help", id: helpId, text: help }) : null);
    fieldEls[path] = box;
    return box;
  }

  // Each widget returns {el, get}; get() gives the value or undefined (= leave the default).
  function widget(n, value, path, label, opts) {
    // A nested model's property carries its title beside the $ref ("Feitelson model"): that, not the class name.
    label = label || (n.$ref ? n.title : undefined);
    n = resolve(n);
    const nullable = opts && opts.nullable;
    switch (kindOf(n)) {
      case "const": return { el: null, get: () => n.const };
      case "nullable": return widget(unionParts(n).parts[0], value, path, label || n.title, { nullable: true, title: n.title, description: n.description });
      case "object": return objectWidget(n, value, path, label);
      case "union": return unionWidget(n, value, path, label);
      case "checkboxes": return checkboxWidget(n, value, path, label);
      case "table": return tableWidget(n, value, path, label);
      case "enum": {
        const sel = el("select", { id: "w-" + path, name: "w-" + path });
        n.enum.forEach((v) => sel.add(new Option(String(v), JSON.stringify(v))));
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined) sel.value = JSON.stringify(cur);
        return { el: field(path, n, label, sel), get: () => JSON.parse(sel.value) };
      }
      case "boolean": {
        const box = el("input", { type: "checkbox", id: "w-" + path });
        box.checked = value !== undefined ? !!value : !!n.default;
        return { el: field(path, n, label, box), get: () => box.checked };
      }
      case "integer": case "number": {
        const input = el("input", { type: "number", id: "w-" + path, step: n.type === "integer" ? "1" : "any",
          min: n.minimum ?? n.exclusiveMinimum, max: n.maximum ?? n.exclusiveMaximum,
          placeholder: nullable ? "empty = none" : "" });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = cur;
        const desc = opts && opts.description ? { ...n, description: opts.description } : n;
        input.addEventListener("input", () => { // a hint while typing; the server's check is the one that counts
          const v = Number(input.value);
          const bad = input.value.trim() !== "" && (!Number.isFinite(v) || (n.type === "integer" && !Number.isInteger(v)) ||
            (n.minimum !== undefined && v < n.minimum) || (n.exclusiveMinimum !== undefined && v <= n.exclusiveMinimum) ||
            (n.maximum !== undefined && v > n.maximum) || (n.exclusiveMaximum !== undefined && v >= n.exclusiveMaximum));
          input.classList.toggle("out-of-range", bad);
          input.title = bad ? "allowed: " + rangeText(n) : "";
        });
        return { el: field(path, desc, label, input), get: () => {
          const raw = input.value.trim();
          if (raw === "") return nullable ? null : undefined;
          const num = Number(raw);
          return Number.isFinite(num) ? num : raw; // the server names the field if it is not a number
        } };
      }
      case "string": {
        const long = (n.maxLength || 0) > 2000;
        const input = long ? el("textarea", { id: "w-" + path, rows: 6, class: "mono", spellcheck: "false" })
          : el("input", { type: "text", id: "w-" + path, maxlength: n.maxLength });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = cur;
        let extra = null;
        if (long) { // a trace or other text file: upload it into the field
          const file = el("input", { type: "file", id: "w-" + path + "-file", accept: ".swf,.txt,.csv,.gz" });
          file.addEventListener("change", () => {
            const f = file.files[0];
            if (!f) return;
            const stored = document.getElementById("id_trace_file");
            if (stored) { // the page's upload field: the server stores the file as a trace (never as text here)
              stored.files = file.files;
              input.value = "";
              note.textContent = f.name + " will be stored as a trace when you save (the scenario refers to it by its SHA-256).";
              return;
            }
            const text = /\.gz$/i.test(f.name) && window.DecompressionStream // gzipped traces unpack in the browser
              ? new Response(f.stream().pipeThrough(new DecompressionStream("gzip"))).text()
              : f.text();
            text.then((t) => { input.value = t; }).catch((e) => alert("Could not read " + f.name + ": " + e.message));
          });
          const note = el("span", { class: "help", id: "w-" + path + "-note" });
          extra = el("div", { class: "upload" }, "or upload a file: ", file, note);
        }
        const box = field(path, n, label, input, extra);
        if (long) box.classList.add("wide");
        // An emptied required text (a name: minLength ≥ 1) is sent as "", so the server names it instead of
        // silently taking the default ("scenario"); an emptied optional one falls back to none / the default.
        return { el: box, get: () => (input.value === "" ? (nullable ? null : (n.minLength >= 1 ? "" : undefined)) : input.value) };
      }
      case "list": {
        const items = resolve(n.items);
        const input = el("input", { type: "text", id: "w-" + path, placeholder: nullable ? "empty = none; else comma-separated" : "comma-separated" });
        const cur = value !== undefined ? value : n.default;
        if (Array.isArray(cur)) input.value = cur.join(", ");
        return { el: field(path, n, label, input), get: () => {
          const raw = input.value.trim();
          if (raw === "") return nullable ? null : (n.default !== undefined ? undefined : []);
          return raw.split(/[,\s]+/).filter(Boolean).map((x) => (items.type === "string" ? x : Number.isFinite(Number(x)) ? Number(x) : x));
        } };
      }
      default: { // anything else (matrices, free-form): JSON text
        const input = el("textarea", { id: "w-" + path, rows: 4, class: "mono", spellcheck: "false", placeholder: "JSON" + (nullable ? "; empty = none" : "") });
        const cur = value !== undefined ? value : n.default;
        if (cur !== undefined && cur !== null) input.value = JSON.stringify(cur);
        return { el: field(path, n, label, input), get: () => {
          const raw = input.value.trim();
          if (raw === "") return nullable ? null : undefined;
          try { return JSON.parse(raw); } catch (e) { return raw; }
        } };
      }
    }
  }

  function objectWidget(n, value, path, label, bare) {
    value = value && typeof value === "object" ? value : {};
    // A trace workload names its trace through one picker (the list of stored traces, upload beside it),
    // never a hand-typed "sha256:" reference, pasted text or a server path.
    const picked = traces && n.properties.trace && resolve(n.properties.kind || {}).const === "trace";
    const sources = picked ? traces.source_fields.filter((k) => k in n.properties) : [];
    const children = Object.entries(n.properties).filter(([k]) => !sources.includes(k))
      .map(([k, sub]) => [k, widget(sub, value[k], joinPath(path, k))]);
    if (picked) children.unshift(["", tracePicker(value, path, sources)]);
    const isSimple = (w) => w.el.classList.contains("field") && !w.el.classList.contains("wide");
    const simple = children.filter(([k, w]) => w.el && k !== "" && isSimple(w));
    const complex = children.filter(([k, w]) => w.el && k !== "" && !isSimple(w));
    const body = [picked ? children[0][1].el : null, // the trace first, then its settings
      el("div", { class: "grid-fields" }, simple.map(([, w]) => w.el)), complex.map(([, w]) => w.el)];
    showChosenGroup(n, children);
    let node;
    if (path === "" || bare) node = el("div", { class: path === "" ? "wizard-root" : "branch" }, body);
    else {
      node = el("fieldset", { "data-path": path }, el("legend", { text: label || n.title || path }),
        n.description ? el("p", { class: "help", text: n.description }) : null, body);
      fieldEls[path] = node;
    }
    return { el: node, get: () => {
      const out = {};
      children.forEach(([k, w]) => { const v = w.get(); if (v === undefined) return; if (k === "") Object.assign(out, v); else out[k] = v; });
      return out;
    } };
  }

  let nameTyped = false; // the user typed a name: choosing a trace never renames the scenario then
  document.addEventListener("input", (e) => { if (e.target && e.target.id === "w-name" && e.isTrusted) nameTyped = true; });
  const bytesText = (b) => (b >= 1048576 ? (b / 1048576).toFixed(1) + " MB" : b >= 1024 ? (b / 1024).toFixed(1) + " kB" : b + " bytes");
  const spanText = (s) => (s >= 86400 ? (s / 86400).toFixed(1) + " days" : s >= 3600 ? (s / 3600).toFixed(1) + " h" : Math.round(s) + " s");
  const machineText = (t) => `${t.processors.toLocaleString("en")} processors (${t.processors_from === "largest job" ? "its largest job: the header names no MaxProcs or MaxNodes" : t.processors_from ? "header " + t.processors_from : "as stored"})`;

  // The trace list: every trace the user may use, searchable, one chosen by a radio button; the page's
  // upload field sits beside it (a file chosen there becomes the trace when the form is saved). Choosing a
  // trace offers its own machine size for the family's size field, if it has one.
  function tracePicker(value, path, sources) {
    const rows = traces.rows;
    let chosen = typeof value.trace === "string" ? value.trace : "";
    const others = sources.filter((k) => k !== "trace" && value[k] !== undefined && value[k] !== null && value[k] !== "");
    const search = el("input", { type: "search", id: "w-trace-search", placeholder: "name, size or from", "aria-describedby": "w-trace-count" });
    const count = el("p", { class: "help", id: "w-trace-count", "aria-live": "polite" });
    const body = el("tbody");
    const radios = rows.map((t, i) => {
      const radio = el("input", { type: "radio", name: "w-trace-choice", id: `w-trace-${i}`, value: t.ref });
      radio.checked = t.ref === chosen;
      radio.addEventListener("change", () => { chosen = t.ref; if (upload) upload.value = ""; offer(); renameAfter(t); });
      const tr = el("tr", { "data-ref": t.ref },
        el("td", {}, radio), el("td", {}, el("label", { for: `w-trace-${i}`, text: t.name })),
        el("td", { class: "num", text: t.jobs.toLocaleString("en") + (t.usable_jobs !== t.jobs ? ` (${t.usable_jobs.toLocaleString("en")} usable)` : "") }),
        el("td", { class: "num", title: machineText(t), text: `${t.processors.toLocaleString("en")} (${t.processors_from === "largest job" ? "largest job" : t.processors_from ? "header " + t.processors_from : "stored"})` }),
        el("td", { class: "num", text: t.largest_job === null ? "—" : t.largest_job.toLocaleString("en") }),
        el("td", { class: "num", text: spanText(t.span_s) }),
        el("td", { class: "num", text: bytesText(t.text_bytes) }), el("td", { text: t.from }));
      body.appendChild(tr);
      return [radio, tr, [t.name, t.from, t.processors, t.jobs].join(" ").toLowerCase()];
    });
    function filter() {
      const q = search.value.trim().toLowerCase();
      let shown = 0, kept = false; // the chosen trace stays listed when it does not match
      radios.forEach(([radio, tr, text]) => {
        const match = q === "" || text.includes(q);
        tr.hidden = !match && !radio.checked;
        if (match) shown++; else if (radio.checked) kept = true;
      });
      count.textContent = rows.length === 0 ? "No stored traces yet: upload one beside the list."
        : q === "" ? `All ${rows.length} trace${rows.length === 1 ? "" : "s"} you may use (your uploads and the imported logs).`
          : `${shown} of ${rows.length} traces match “${search.value.trim()}”` + (kept ? "; the chosen one stays listed." : ".");
    }
    search.addEventListener("input", filter);
    if (!rows.length) search.disabled = true;
    const table = el("table", { class: "grid trace-list" },
      el("thead", {}, el("tr", {}, ["", "Name", "Jobs", "Machine (processors)", "Largest job", "Time span", "Size", "From"].map((h) => el("th", { scope: "col", text: h })))), body);
    const machine = el("div", { class: "trace-machine", id: "w-trace-machine", "aria-live": "polite" });
    function offer() {
      machine.innerHTML = "";
      const t = rows.find((r) => r.ref === chosen);
      const file = !t && upload && upload.files.length ? upload.files[0].name : "";
      if (file) machine.appendChild(el("p", { id: "w-trace-upload-note", text: `“${file}” is stored among your traces when you save, and the scenario reads it; its machine and largest job show on the scenario's page.` }));
      if (!t) return;
      machine.appendChild(el("p", {}, `“${t.name}” was logged on ${machineText(t)}` + (t.largest_job !== null ? `; its largest job needs ${t.largest_job.toLocaleString("en")}.` : ".")));
      const target = traces.size_field && document.getElementById("w-" + traces.size_field);
      if (!target) return;
      const use = el("button", { type: "button", class: "small", id: "w-trace-use-size", text: `Use ${t.processors.toLocaleString("en")} processors as the data centre size` });
      use.addEventListener("click", () => { target.value = t.processors; target.dispatchEvent(new Event("input")); offer(); });
      machine.appendChild(use);
      const n = Number(target.value);
      if (t.largest_job !== null && Number.isFinite(n) && n > 0 && t.largest_job > n) {
        machine.appendChild(el("p", { class: "field-error", text: `The data centre size below is ${n.toLocaleString("en")}: jobs of up to ${t.largest_job.toLocaleString("en")} processors are wider. The scenario is refused unless you set “Jobs wider than the machine” to drop (the run then says how many it left out).` }));
      }
    }
    // A new scenario still named as the family's example (which names its generated workload) is named
    // after the chosen trace instead; a name the user typed is never touched.
    function renameAfter(t) {
      const name = document.getElementById("w-name"), root = document.getElementById("wizard");
      if (!name || !root || !root.hasAttribute("data-new") || nameTyped) return;
      name.value = `${t.name}: ${t.jobs.toLocaleString("en")} jobs from the trace`;
    }
    const upload = $("id_trace_file");
    if (upload) upload.addEventListener("change", () => {
      if (!upload.files.length) return;
      chosen = "";
      radios.forEach(([r]) => { r.checked = false; });
      offer();
    });
    const kept = others.length ? el("p", { class: "help", id: "w-trace-kept", text: `This scenario reads ${others.map((k) => (k === "path" ? `the server file ${value[k]}` : "SWF text given inline")).join(" and ")}; choosing a trace here replaces it.` }) : null;
    const box = el("fieldset", { class: "trace-picker wide", "data-path": joinPath(path, "trace") },
      el("legend", { text: "Trace" }),
      el("p", { class: "help", text: "Choose one of the SWF traces you may use, or upload a new one beside the list." }),
      kept,
      el("div", { class: "picker-row" },
        el("div", { class: "picker-list" },
          el("label", { for: "w-trace-search", text: "Search the traces" }), search, count,
          rows.length ? el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Stored traces" }, table) : null),
        uploadBox),
      machine);
    if (uploadBox) uploadBox.hidden = false;
    sources.forEach((k) => { fieldEls[joinPath(path, k)] = box; });
    fieldEls.trace_file = box;
    filter();
    traceOffer = offer;
    queueMicrotask(offer); // once the whole form (and its size field) is drawn
    const wrapped = el("div", { class: "field wide" }, box); // laid out with the other wide fields
    return { el: wrapped, get: () => {
      if (chosen) return { trace: chosen };
      if (upload && upload.files.length) return {}; // the server stores the file and names it here
      const out = {};
      others.forEach((k) => { out[k] = value[k]; });
      return out;
    } };
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
      const sync = () => options.forEach((v) => { byKey[v].el.hidden = JSON.stringify(v) !== select.value; });
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
  const TAB_NAMES = { generator: "Generator", jobs: "Job list / pasted CSV", trace: "SWF trace", job: "One job (task table)",
    online_generator: "Online generator", online_jobs: "Online job list", fattree: "FatTree", servers: "Server table" };
  const tabLabel = (tag, b) => TAB_NAMES[tag] || (tag !== null && tag !== undefined ? String(tag) : b.title || "option");

  function unionWidget(n, value, path, label) {
    const { parts } = unionParts(n);
    let active = 0;
    parts.forEach((b, i) => {
      const [k, tag] = tagOf(b);
      if (value && k && value[k] === tag) active = i;
    });
    const tabs = el("div", { class: "tabs", role: "tablist" });
    const panes = el("div", { class: "panes" });
    const branches = parts.map((b, i) => {
      const [, tag] = tagOf(b);
      const w = objectWidget(b, i === active ? value : {}, path, b.title, true);
      const pane = el("div", { class: "pane", "data-branch": tag ?? i }, b.description ? el("p", { class: "help", text: b.description }) : null, w.el);
      pane.hidden = i !== active;
      const btn = el("button", { type: "button", role: "tab", class: "tab", "data-tab": `${path}:${tag ?? i}`, text: tabLabel(tag, b) });
      btn.addEventListener("click", () => {
        active = i;
        [...tabs.children].forEach((t, j) => t.classList.toggle("active", j === i));
        [...panes.children].forEach((p, j) => { p.hidden = j !== i; });
      });
      if (i === active) btn.classList.add("active");
      tabs.appendChild(btn);
      panes.appendChild(pane);
      return w;
    });
    const node = el("fieldset", { "data-path": path, class: "union" }, el("legend", { text: label || n.title || path }), tabs, panes);
    fieldEls[path] = node;
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
    const table = el("table", { class: "grid algo-grid" },
      el("caption", { class: "help", text: "Online schedulers (rows) × the per-job algorithm each uses (columns). DRC: dynamic resource configuration (Alg. 5), sharing a server's residual capacity among its tasks; off = NDRC. Hover a box for the full description." }),
      el("thead", {}, el("tr", {}, el("th", { text: "scheduler" }), ...cols.map((c) => el("th", { scope: "col", text: shortName(algorithms[c], c) })))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, el("th", { scope: "row", text: rowLabel(r) }),
        ...cols.map((c) => { const l = byName.get(`${r}:${c}`); return el("td", {}, l ? l.querySelector("input") : "—"); })))));
    table.querySelectorAll("td input").forEach((b) => { b.title = algorithms[b.value] || b.value; b.setAttribute("aria-label", `${rowLabel(b.value.split(":")[0])} with ${shortName(algorithms[b.value.split(":")[1]], b.value.split(":")[1])}`); });
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
      const inline = desc && (items.enum.length <= 12 || !v.includes(":")); // long registries: composed names (a:b) as tooltips only
      return [box, el("label", { class: "check", for: id, title: desc || "" }, box, " ", el("code", { text: v }), inline ? el("span", { class: "help", text: " " + desc }) : null)];
    });
    const grid = path === "algorithms" ? composedGrid(items.enum, boxes) : null;
    const list = grid || el("div", { class: "checks" }, boxes.map(([, l]) => l));
    const box = field(path, n, label, list);
    box.classList.add("wide");
    return { el: box, get: () => boxes.filter(([b]) => b.checked).map(([b]) => b.value) };
  }

  // Lists of objects (hosts, PM types, clouds, jobs): a table, or CSV text for long lists / pasting.
  function tableWidget(n, value, path, label) {
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
      if (k === "integer" || k === "number" || (k === "nullable" && ["integer", "number"].includes(unionParts(p).parts[0].type))) {
        return Number.isFinite(Number(raw)) ? Number(raw) : raw;
      }
      if (k === "boolean") return /^(1|true|yes|on)$/i.test(raw);
      if (k === "string" || k === "enum") return raw;
      try { return JSON.parse(raw); } catch (e) { return raw; }
    }
    function rowValue(texts) {
      const out = {};
      consts.forEach(([k, p]) => { out[k] = resolve(p).const; });
      cols.forEach(([k, p], j) => { const v = parseCell(p, texts[j] ?? ""); if (v !== undefined) out[k] = v; });
      return out;
    }
    function drawTable() {
      table.innerHTML = "";
      table.appendChild(el("thead", {}, el("tr", {}, cols.map(([k, p]) => el("th", { title: [resolve(p).description, rangeText(resolve(p))].filter(Boolean).join(" — ") }, resolve(p).title || k, el("br"), el("code", { class: "key", text: k }))), el("th"))));
      const body = el("tbody");
      cells = rows.map((r, i) => {
        const inputs = cols.map(([k]) => {
          const input = el("input", { type: "text", value: cellText(r[k]), placeholder: cellText(resolve(item.properties[k]).default), "aria-label": `${path}[${i}].${k}` });
          const td = el("td", { "data-path": `${path}[${i}].${k}` }, input);
          fieldEls[`${path}[${i}].${k}`] = td;
          return [input, td];
        });
        const del = el("button", { type: "button", class: "small", text: "✕", title: "remove row" });
        del.addEventListener("click", () => { rows = collectRows(); rows.splice(i, 1); drawTable(); });
        const tr = el("tr", { "data-path": `${path}[${i}]` }, inputs.map(([, td]) => td), el("td", {}, del));
        fieldEls[`${path}[${i}]`] = tr;
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
      return data.filter((l) => l.some((c) => c.trim() !== "")).map((l) => {
        const texts = cols.map(([k]) => { const j = head.indexOf(k); return j >= 0 ? l[j] ?? "" : ""; });
        return rowValue(texts);
      });
    }
    function collectRows() { return csvMode ? fromCsv(csv.value) : cells.map((inputs) => rowValue(inputs.map((x) => x.value))); }
    function setMode(toCsvMode) {
      if (toCsvMode !== csvMode) rows = collectRows();
      csvMode = toCsvMode;
      if (csvMode) csv.value = toCsv(rows); else drawTable();
      table.hidden = csvMode;
      addBtn.hidden = csvMode;
      csv.hidden = !csvMode;
      toggle.textContent = csvMode ? "Edit as table" : "Edit / paste as CSV";
    }
    toggle.addEventListener("click", () => setMode(!csvMode));
    addBtn.addEventListener("click", () => { rows = collectRows(); rows.push({}); drawTable(); });
    if (!csvMode) drawTable();
    setMode(csvMode);
    const help = `${item.description || ""} CSV header: ${header()}`;
    const node = el("fieldset", { "data-path": path, class: "table-field" }, el("legend", { text: label || n.title || path }),
      el("p", { class: "help", text: [n.description, rangeText(n) && "allowed: " + rangeText(n), help].filter(Boolean).join(" — ") }),
      el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": (label || n.title || path) + " table" }, table), csv, el("div", { class: "row-actions" }, addBtn, toggle));
    fieldEls[path] = node;
    return { el: node, get: () => { const r = collectRows(); return r.length || !("default" in n) ? r : undefined; } };
  }

  function parseCsv(text) {
    const out = [];
    let row = [], cell = "", quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
      } else if (c === '"') quoted = true;
      else if (c === "," || c === "\t" || c === ";") { row.push(cell); cell = ""; }
      else if (c === "\n" || c === "\r") { if (c === "\r" && text[i + 1] === "\n") i++; row.push(cell); out.push(row); row = []; cell = ""; }
      else cell += c;
    }
    row.push(cell);
    out.push(row);
    return out;
  }

  function showErrors() {
    errors.forEach((e) => {
      if (e.field === "trace_file" && $("trace-file-errors")) return; // shown in the upload box, beside the list
      let p = e.path || e.field;
      while (p && !fieldEls[p]) {
        const up = p.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
        p = up === p ? "" : up;
      }
      const target = fieldEls[p] || holder;
      target.classList.add("has-error");
      const where = p === e.field || p === e.path ? "" : `${e.field}: `;
      const msg = el("div", { class: "field-error", "data-error-path": e.path || e.field, text: where + e.message + (e.allowed ? ` (allowed: ${e.allowed})` : "") });
      if (target.tagName === "TD" || target.tagName === "TR") { target.title = msg.textContent; (target.tagName === "TD" ? target : target.firstChild).appendChild(msg); }
      else if (target.tagName === "FIELDSET") target.insertBefore(msg, target.children[1] || null);
      else target.appendChild(msg);
    });
  }

  function draw(value) {
    fieldEls = {};
    holder.innerHTML = "";
    root = widget(schema, value, "");
    holder.appendChild(root.el);
  }
  const collect = () => root.get();

  // Tabs: the wizard or the raw JSON (advanced). The active one is what gets submitted.
  const wizardTab = $("tab-wizard"), jsonTab = $("tab-json");
  const wizardPane = $("pane-wizard"), jsonPane = $("pane-json");
  let mode = "wizard";
  function setTab(next) {
    if (next === mode) return;
    if (next === "json") textarea.value = JSON.stringify(collect(), null, 2);
    else {
      let parsed;
      try { parsed = JSON.parse(textarea.value); } catch (e) { alert("The JSON does not parse: " + e.message); return; }
      draw(parsed);
    }
    mode = next;
    wizardPane.hidden = mode !== "wizard";
    jsonPane.hidden = mode !== "json";
    wizardTab.classList.toggle("active", mode === "wizard");
    jsonTab.classList.toggle("active", mode === "json");
  }
  holder.addEventListener("input", (e) => { if (traceOffer && traces.size_field && e.target.id === "w-" + traces.size_field) traceOffer(); });
  wizardTab.addEventListener("click", () => setTab("wizard"));
  jsonTab.addEventListener("click", () => setTab("json"));
  form.addEventListener("submit", () => { if (mode === "wizard") textarea.value = JSON.stringify(collect(), null, 2); });

  let initial;
  try { initial = JSON.parse(textarea.value); } catch (e) { initial = null; }
  $("wizard-tabs").hidden = false;
  if (initial === null && textarea.value.trim()) { // broken JSON came back: stay in the editor
    draw({});
    mode = "json";
    wizardPane.hidden = true;
    jsonPane.hidden = false;
    wizardTab.classList.remove("active");
    jsonTab.classList.add("active");
  } else {
    draw(initial || {});
    showErrors();
    wizardPane.hidden = false;
    jsonPane.hidden = true;
  }
  const familySelect = $("id_family");
  familySelect.addEventListener("change", () => {
    const url = new URL(window.location.href);
    url.searchParams.set("family", familySelect.value);
    window.location.href = url.toString();
  });
})();
