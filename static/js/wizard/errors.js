// Scenario wizard: the server's errors, each shown beside the field it names (or the nearest
// enclosing one that is drawn).
import { $, el } from "./dom.js";

export function showErrors(ctx, errors, holder) {
  errors.forEach((e) => {
    if (e.field === "trace_file" && $("trace-file-errors")) return; // shown in the upload box, beside the list
    let p = e.path || e.field;
    while (p && !ctx.fieldEls[p]) {
      const up = p.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
      p = up === p ? "" : up;
    }
    const target = ctx.fieldEls[p] || holder;
    target.classList.add("has-error");
    const where = p === e.field || p === e.path ? "" : `${e.field}: `;
    const msg = el("div", {
      class: "field-error",
      "data-error-path": e.path || e.field,
      text: where + e.message + (e.allowed ? ` (allowed: ${e.allowed})` : ""),
    });
    if (target.tagName === "TD" || target.tagName === "TR") {
      target.title = msg.textContent;
      (target.tagName === "TD" ? target : target.firstChild).appendChild(msg);
    } else if (target.tagName === "FIELDSET") target.insertBefore(msg, target.children[1] || null);
    else target.appendChild(msg);
  });
}
