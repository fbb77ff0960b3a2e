// Screen readers: every chart's canvas is an image named by its title or the heading above it,
// described by its datasets and its axes' ranges, and focusable; the numbers themselves are in the
// page's tables (metrics, per-job table, diff table) that the description points to.
import { plain } from "../format.js";
import { timeText } from "./time.js";

function headingBefore(el) {
  for (let node = el; node && node !== document.body; node = node.parentElement) {
    for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
      const h = /^H[1-4]$/.test(sib.tagName)
        ? sib
        : sib.querySelector && [...sib.querySelectorAll("h1, h2, h3, h4")].pop();
      if (h && h.textContent.trim()) return h.textContent.trim();
    }
  }
  return "";
}

function axisRange(scale) {
  if (!scale || scale.type === "category") return "";
  const title = scale.options.title && scale.options.title.text;
  const isTime = scale.axis === "x" && /time/i.test(Array.isArray(title) ? title.join(" ") : title || "");
  const text = (v) => (isTime ? timeText(v, scale.chart.$per || 1) : plain(v)); // time exact, in d h min s
  return `${scale.axis} from ${text(scale.min)} to ${text(scale.max)}`;
}

export const accessible = {
  id: "csAccessible",
  afterUpdate(chart) {
    const canvas = chart.canvas;
    if (!canvas || !canvas.isConnected) return;
    const t = chart.options.plugins && chart.options.plugins.title;
    const title = t && t.display ? t.text : "";
    const name = (Array.isArray(title) ? title.join(" ") : title) || headingBefore(canvas) || "chart";
    const lines = chart.data.datasets.map((d) => d.label).filter(Boolean);
    const axes = ["x", "y"].map((k) => axisRange(chart.scales[k])).filter(Boolean);
    const label = [
      `Chart: ${name}`,
      lines.length ? `shows ${lines.join(", ")}` : "",
      axes.join("; "),
      "its numbers are in the tables of this page",
    ];
    canvas.setAttribute("role", "img");
    canvas.setAttribute("tabindex", "0");
    canvas.setAttribute("aria-label", label.filter(Boolean).join(". "));
  },
};
