// Scenario wizard: the trace picker of families that read SWF traces.
import { $, el, joinPath } from "./dom.js";
import { value as formatValue } from "../format.js";

const bytesText = (b) =>
  b >= 1048576 ? (b / 1048576).toFixed(1) + " MB" : b >= 1024 ? (b / 1024).toFixed(1) + " kB" : b + " bytes";
const spanText = (s) => formatValue(s, { kind: "duration", unit: "s" }); // the one formatter: "11.1 h", "2 d 5 h"
// Where a trace's machine size comes from: its largest job (`largest`), a header field, or as stored (`stored`).
const machineFrom = (t, largest, stored) =>
  t.processors_from === "largest job" ? largest : t.processors_from ? "header " + t.processors_from : stored;
const machineText = (t) => {
  const from = machineFrom(t, "its largest job: the header names no MaxProcs or MaxNodes", "as stored");
  return `${t.processors.toLocaleString("en")} processors (${from})`;
};

// The trace list: every trace the user may use, searchable, one chosen by a radio button; the page's
// upload field sits beside it (a file chosen there becomes the trace when the form is saved). Choosing a
// trace offers its own machine size for the family's size field, if it has one.
export function tracePicker(ctx, value, path, sources) {
  const { traces, uploadBox } = ctx;
  const rows = traces.rows;
  let chosen = typeof value.trace === "string" ? value.trace : "";
  const others = sources.filter((k) => k !== "trace" && value[k] !== undefined && value[k] !== null && value[k] !== "");
  const search = el("input", {
    type: "search",
    id: "w-trace-search",
    placeholder: "name, size or from",
    "aria-describedby": "w-trace-count",
  });
  const count = el("p", { class: "help", id: "w-trace-count", "aria-live": "polite" });
  const body = el("tbody");
  const radios = rows.map((t, i) => {
    const radio = el("input", { type: "radio", name: "w-trace-choice", id: `w-trace-${i}`, value: t.ref });
    radio.checked = t.ref === chosen;
    radio.addEventListener("change", () => {
      chosen = t.ref;
      if (upload) upload.value = "";
      offer();
      renameAfter(t);
    });
    const tr = el(
      "tr",
      { "data-ref": t.ref },
      el("td", {}, radio),
      el("td", {}, el("label", { for: `w-trace-${i}`, text: t.name })),
      el("td", {
        class: "num",
        text:
          t.jobs.toLocaleString("en") +
          (t.usable_jobs !== t.jobs ? ` (${t.usable_jobs.toLocaleString("en")} usable)` : ""),
      }),
      el("td", {
        class: "num",
        title: machineText(t),
        text: `${t.processors.toLocaleString("en")} (${machineFrom(t, "largest job", "stored")})`,
      }),
      el("td", { class: "num", text: t.largest_job === null ? "—" : t.largest_job.toLocaleString("en") }),
      el("td", { class: "num", text: spanText(t.span_s) }),
      el("td", { class: "num", text: bytesText(t.text_bytes) }),
      el("td", { text: t.from }),
    );
    body.appendChild(tr);
    return [radio, tr, [t.name, t.from, t.processors, t.jobs].join(" ").toLowerCase()];
  });
  function filter() {
    const q = search.value.trim().toLowerCase();
    let shown = 0;
    let kept = false; // the chosen trace stays listed when it does not match
    radios.forEach(([radio, tr, text]) => {
      const match = q === "" || text.includes(q);
      tr.hidden = !match && !radio.checked;
      if (match) shown++;
      else if (radio.checked) kept = true;
    });
    count.textContent =
      rows.length === 0
        ? "No stored traces yet: upload one beside the list."
        : q === ""
          ? `All ${rows.length} trace${rows.length === 1 ? "" : "s"} you may use (your uploads and the imported logs).`
          : `${shown} of ${rows.length} traces match “${search.value.trim()}”` +
            (kept ? "; the chosen one stays listed." : ".");
  }
  search.addEventListener("input", filter);
  if (!rows.length) search.disabled = true;
  const table = el(
    "table",
    { class: "grid trace-list" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["Choose", "Name", "Jobs", "Machine (processors)", "Largest job", "Time span", "Size", "From"].map((h, i) =>
          // the radio buttons' column is named for screen readers only
          i
            ? el("th", { scope: "col", text: h })
            : el("th", { scope: "col" }, el("span", { class: "visually-hidden", text: h })),
        ),
      ),
    ),
    body,
  );
  const machine = el("div", { class: "trace-machine", id: "w-trace-machine", "aria-live": "polite" });
  function offer() {
    machine.innerHTML = "";
    const t = rows.find((r) => r.ref === chosen);
    const file = !t && upload && upload.files.length ? upload.files[0].name : "";
    if (file)
      machine.appendChild(
        el("p", {
          id: "w-trace-upload-note",
          text:
            `“${file}” is stored among your traces when you save, and the scenario reads it; ` +
            "its machine and largest job show on the scenario's page.",
        }),
      );
    if (!t) return;
    machine.appendChild(
      el(
        "p",
        {},
        `“${t.name}” was logged on ${machineText(t)}` +
          (t.largest_job !== null ? `; its largest job needs ${t.largest_job.toLocaleString("en")}.` : "."),
      ),
    );
    const target = traces.size_field && document.getElementById("w-" + traces.size_field);
    if (!target) return;
    const use = el("button", {
      type: "button",
      class: "small",
      id: "w-trace-use-size",
      text: `Use ${t.processors.toLocaleString("en")} processors as the data centre size`,
    });
    use.addEventListener("click", () => {
      target.value = t.processors;
      target.dispatchEvent(new Event("input"));
      offer();
    });
    machine.appendChild(use);
    const n = Number(target.value);
    // The wider jobs' choice, read when drawn and followed when changed: once "drop" is chosen the warning
    // becomes a note (the run says how many it left out).
    const wider = document.getElementById("w-workload.wider_jobs");
    if (wider && !wider.dataset.offers) {
      wider.dataset.offers = "1";
      wider.addEventListener("change", offer);
    }
    const dropping = wider && wider.value === JSON.stringify("drop");
    if (t.largest_job !== null && Number.isFinite(n) && n > 0 && t.largest_job > n) {
      const over =
        `The data centre size below is ${n.toLocaleString("en")}: jobs of up to ` +
        `${t.largest_job.toLocaleString("en")} processors are wider. `;
      machine.appendChild(
        el("p", {
          class: dropping ? "help" : "field-error",
          id: "w-trace-wider",
          text: dropping
            ? over + "They are dropped (“Jobs wider than the machine”); the run says how many it left out."
            : over +
              "The scenario is refused unless you set “Jobs wider than the machine” to drop (the run then " +
              "says how many it left out).",
        }),
      );
    }
  }
  // A new scenario still named as the family's example (which names its generated workload) is named
  // after the chosen trace instead; a name the user typed is never touched.
  function renameAfter(t) {
    const name = document.getElementById("w-name");
    const root = document.getElementById("wizard");
    if (!name || !root || !root.hasAttribute("data-new") || ctx.nameTyped) return;
    name.value = `${t.name}: ${t.jobs.toLocaleString("en")} jobs from the trace`;
  }
  const upload = $("id_trace_file");
  if (upload)
    upload.addEventListener("change", () => {
      if (!upload.files.length) return;
      chosen = "";
      radios.forEach(([r]) => {
        r.checked = false;
      });
      offer();
    });
  const kept = others.length
    ? el("p", {
        class: "help",
        id: "w-trace-kept",
        text: `This scenario reads ${others
          .map((k) => (k === "path" ? `the server file ${value[k]}` : "SWF text given inline"))
          .join(" and ")}; choosing a trace here replaces it.`,
      })
    : null;
  const box = el(
    "fieldset",
    { class: "trace-picker wide", "data-path": joinPath(path, "trace") },
    el("legend", { text: "Trace" }),
    el("p", { class: "help", text: "Choose one of the SWF traces you may use, or upload a new one beside the list." }),
    kept,
    el(
      "div",
      { class: "picker-row" },
      el(
        "div",
        { class: "picker-list" },
        el("label", { for: "w-trace-search", text: "Search the traces" }),
        search,
        count,
        rows.length
          ? el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Stored traces" }, table)
          : null,
      ),
      uploadBox,
    ),
    machine,
  );
  if (uploadBox) uploadBox.hidden = false;
  sources.forEach((k) => {
    ctx.fieldEls[joinPath(path, k)] = box;
  });
  ctx.fieldEls.trace_file = box;
  filter();
  ctx.traceOffer = offer;
  queueMicrotask(offer); // once the whole form (and its size field) is drawn
  const wrapped = el("div", { class: "field wide" }, box); // laid out with the other wide fields
  return {
    el: wrapped,
    get: () => {
      if (chosen) return { trace: chosen };
      if (upload && upload.files.length) return {}; // the server stores the file and names it here
      const out = {};
      others.forEach((k) => {
        out[k] = value[k];
      });
      return out;
    },
  };
}
