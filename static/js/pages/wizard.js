// The scenario wizard (templates/scenarios/edit.html): draws a form from the family's JSON schema
// (pydantic's), and writes the scenario back as JSON into the form's `config` field on submit. The
// widgets: wizard/widgets.js (tables: table.js, the trace picker: traces.js); the server's errors beside
// their fields: wizard/errors.js.
import { $, readJson } from "../wizard/dom.js";
import { showErrors } from "../wizard/errors.js";
import { schemaOf } from "../wizard/schema.js";
import { widgets } from "../wizard/widgets.js";

const schema = readJson("scenario-schema");
if (schema) wizard(schema);

function wizard(schema) {
  const ctx = {
    schema: schemaOf(schema.$defs || {}),
    algorithms: readJson("scenario-algorithms") || {},
    traces: readJson("scenario-traces"), // families that read SWF traces: the list to pick from
    uploadBox: $("trace-upload-box"), // the page's trace upload, moved beside that list
    fieldEls: {}, // path → the element showing its errors (filled as the form is drawn)
    traceOffer: null, // redraws the picked trace's machine-size offer (the size field changed)
    nameTyped: false, // the user typed a name: choosing a trace never renames the scenario then
  };
  const widget = widgets(ctx);
  const errors = readJson("scenario-errors") || [];
  const textarea = $("id_config");
  const form = $("scenario-form");
  const holder = $("wizard");
  let root = null;

  function draw(value) {
    ctx.fieldEls = {};
    holder.innerHTML = "";
    root = widget(schema, value, "");
    holder.appendChild(root.el);
  }
  const collect = () => root.get();

  // Tabs: the wizard or the raw JSON (advanced). The active one is what gets submitted.
  const wizardTab = $("tab-wizard");
  const jsonTab = $("tab-json");
  const wizardPane = $("pane-wizard");
  const jsonPane = $("pane-json");
  let mode = "wizard";
  function show(next) {
    mode = next;
    wizardPane.hidden = mode !== "wizard";
    jsonPane.hidden = mode !== "json";
    wizardTab.classList.toggle("active", mode === "wizard");
    jsonTab.classList.toggle("active", mode === "json");
  }
  function setTab(next) {
    if (next === mode) return;
    if (next === "json") textarea.value = JSON.stringify(collect(), null, 2);
    else {
      let parsed;
      try {
        parsed = JSON.parse(textarea.value);
      } catch (e) {
        alert("The JSON does not parse: " + e.message);
        return;
      }
      draw(parsed);
    }
    show(next);
  }
  document.addEventListener("input", (e) => {
    if (e.target && e.target.id === "w-name" && e.isTrusted) ctx.nameTyped = true;
  });
  holder.addEventListener("input", (e) => {
    const sizeField = ctx.traces && ctx.traces.size_field;
    if (ctx.traceOffer && sizeField && e.target.id === "w-" + sizeField) ctx.traceOffer();
  });
  wizardTab.addEventListener("click", () => setTab("wizard"));
  jsonTab.addEventListener("click", () => setTab("json"));
  form.addEventListener("submit", () => {
    if (mode === "wizard") textarea.value = JSON.stringify(collect(), null, 2);
  });

  let initial;
  try {
    initial = JSON.parse(textarea.value);
  } catch {
    initial = null;
  }
  $("wizard-tabs").hidden = false;
  if (initial === null && textarea.value.trim()) {
    // broken JSON came back: stay in the editor
    draw({});
    show("json");
  } else {
    draw(initial || {});
    showErrors(ctx, errors, holder);
    show("wizard");
  }
  const familySelect = $("id_family");
  familySelect.addEventListener("change", () => {
    const url = new URL(window.location.href);
    url.searchParams.set("family", familySelect.value);
    window.location.href = url.toString();
  });
}
