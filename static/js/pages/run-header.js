// Run page header: the status poll (progress, time left, stall warning), the share link's copy
// button, and printing (every chart redrawn at the printed size before the page is printed).
// The run and study pages call runHeader(); no inline script anywhere (the CSP forbids it).
import { Chart } from "../lib/chart-global.js";

export function runHeader() {
  const box = document.getElementById("run-status");
  const statusUrl = box && box.dataset.statusUrl;

  function show(id, text) {
    const el = document.getElementById(id);
    el.textContent = text || "";
    el.hidden = !text;
  }

  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => {
        document.getElementById("status-text").textContent = s.status;
        document.getElementById("progress").value = s.progress;
        document.getElementById("progress-message").textContent = s.message || "";
        show("progress-remaining", s.finished ? "" : s.remaining); // the server's estimate (Run.remaining_s)
        box.className = "status status-" + s.status;
        show("run-stalled", s.stalled ? s.stalled.text : "");
        if (s.error) show("run-error", s.error);
        if (s.finished) {
          if (s.status === "succeeded") window.location.reload();
        } else {
          setTimeout(poll, 1000);
        }
      })
      .catch(() => setTimeout(poll, 3000));
  }
  if (statusUrl && !/succeeded|failed|cancelled/.test(box.className)) setTimeout(poll, 500);

  // Share link: copy the read-only field with the clipboard API (selecting it as the fallback).
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    const field = document.getElementById(button.dataset.copy);
    const feedback = document.getElementById("copy-feedback");
    const say = (text) => {
      if (feedback) {
        feedback.textContent = text;
        setTimeout(() => {
          feedback.textContent = "";
        }, 4000);
      }
    };
    field.addEventListener("focus", () => field.select());
    button.addEventListener("click", () => {
      field.select();
      const copied =
        navigator.clipboard && window.isSecureContext
          ? navigator.clipboard.writeText(field.value)
          : Promise.reject(new Error("no clipboard"));
      copied.then(
        () => say("copied"),
        () => say("selected: press Ctrl+C to copy"),
      );
    });
  });

  // Printing / saving as PDF: charts drawn for the screen are resized to the printed width and
  // redrawn at once (Chart.js would redraw on its next animation frame, after the page is printed).
  function redrawAll() {
    Object.values(Chart.instances).forEach((chart) => {
      chart.resize();
      chart.update("none");
    });
  }
  window.addEventListener("beforeprint", redrawAll);
  window.addEventListener("afterprint", redrawAll);
  const printMedia = window.matchMedia && window.matchMedia("print");
  if (printMedia && printMedia.addEventListener) printMedia.addEventListener("change", redrawAll);
}
