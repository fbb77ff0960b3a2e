// Writing a metric's number by its kind and unit: the twin of cloudsched_web/results/formatting.py.
// The rules (units, display steps, digits) are not copied here: the page ships them as JSON
// ({% format_rules %} → #format-rules), so the table, chart ticks and tooltips agree.
let rules = null;
function R() {
  if (!rules) {
    const el = document.getElementById("format-rules");
    if (!el) throw new Error("format.js needs {% format_rules %} in the page");
    rules = JSON.parse(el.textContent);
  }
  return rules;
}
const DEFAULT_SPEC = { kind: "number", unit: "" };

function group(digits) {
  const sign = digits.startsWith("-") ? "-" : "";
  const [whole0, frac] = digits.replace(/^-/, "").split(".");
  let whole = whole0;
  const groups = [];
  while (whole.length > 3) {
    groups.unshift(whole.slice(-3));
    whole = whole.slice(0, -3);
  }
  groups.unshift(whole);
  return sign + groups.join(R().thousands) + (frac ? "." + frac : "");
}

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
function scientific(value, digits) {
  const [digitsPart, exponent] = Number(value)
    .toExponential(Math.max(0, digits - 1))
    .split("e");
  let mantissa = digitsPart;
  if (mantissa.includes(".")) mantissa = mantissa.replace(/0+$/, "").replace(/\.$/, "");
  const power = String(parseInt(exponent, 10))
    .split("")
    .map((c) => SUPERSCRIPT[c])
    .join("");
  return `${mantissa} × 10${power}`;
}

function fixed(value, decimals) {
  if (Number.isFinite(value) && Math.abs(value) >= R().huge) return scientific(value, 6);
  let text = Number(value).toFixed(Math.max(0, Math.min(12, decimals)));
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  if (text === "-0" || text === "") text = "0";
  return group(text);
}

function significant(value, digits) {
  if (value === 0 || !Number.isFinite(value)) return Number.isFinite(value) ? fixed(value, 0) : String(value);
  if (Math.abs(value) >= R().huge) return scientific(value, digits);
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  return fixed(value, digits - 1 - magnitude);
}

function step(kind, base) {
  const steps = R().scales[kind].steps;
  if (base === 0) return steps.find((s) => s[2] === 1);
  return steps.find((s) => Math.abs(base) >= s[0]) || steps[steps.length - 1];
}
const toBase = (kind, unit, value) => value * (R().scales[kind].to_base[unit] ?? 1);

function daysHours(base) {
  if (Math.abs(base) >= R().huge) return `${significant(base / 86400, R().significant.scaled)} d`;
  const sign = base < 0 ? "-" : "";
  const hours = Math.floor(Math.abs(base) / 3600 + 0.5);
  return `${sign}${group(String(Math.floor(hours / 24)))} d ${hours % 24} h`;
}

// The text of one value; `ref` (a chart axis's largest value) picks the display unit.
export function value(v, spec, ref) {
  if (v === null || v === undefined || (typeof v === "number" && !Number.isFinite(v))) return "—";
  spec = spec || DEFAULT_SPEC;
  const kind = spec.kind || "number";
  const unit = spec.unit || "";
  const sig = R().significant;
  if (spec.ref !== undefined && spec.ref !== null) ref = spec.ref; // one unit for the page (energy)
  if (kind === "count") return fixed(v, Number.isInteger(v) ? 0 : 1);
  if (kind === "flag") {
    const [yes, no] = R().flag;
    if (v === 0 || v === 1) return v === 1 ? yes : no;
    return `${yes} ${significant(v * 100, 2)} %`;
  }
  if (kind === "fraction" || kind === "percent")
    return significant(kind === "fraction" ? v * 100 : v, sig.scaled) + " %";
  if (R().scales[kind]) {
    const base = toBase(kind, unit, v);
    const s = step(kind, ref !== undefined && ref !== null ? toBase(kind, unit, ref) : base);
    if (s[1] === "d h") return daysHours(base);
    return `${significant(base / s[2], sig.scaled)} ${s[1]}`;
  }
  if (kind === "money") return `${fixed(v, sig.money)} ${unit}`;
  const text = significant(v, sig[kind] ?? sig.number);
  return unit ? `${text} ${unit}` : text;
}

// "± err" in the display unit of `v`.
export function spread(v, err, spec) {
  if (!err) return "";
  spec = spec || DEFAULT_SPEC;
  const kind = spec.kind || "number";
  const unit = spec.unit || "";
  const digits = R().significant.spread;
  if (kind === "fraction" || kind === "percent")
    return "± " + significant(kind === "fraction" ? err * 100 : err, digits) + " " + R().points;
  if (R().scales[kind]) {
    const s = step(kind, toBase(kind, unit, spec.ref !== undefined && spec.ref !== null ? spec.ref : v));
    const [factor, name] = s[1] === "d h" ? [3600, "h"] : [s[2], s[1]];
    return `± ${significant(toBase(kind, unit, err) / factor, digits)} ${name}`;
  }
  const text = significant(err, digits);
  return unit && !["count", "flag", "ratio"].includes(kind) ? `± ${text} ${unit}` : `± ${text}`;
}

// A swept setting's value as a person wrote it (the twin of formatting.setting_text): 157.2, not 157.20000000000002.
export function setting(v) {
  return typeof v === "number" && Number.isFinite(v) && !Number.isInteger(v)
    ? String(Number(v.toPrecision(12)))
    : String(v);
}

// A duration, or a time since the run's start, exact and readable: "1 d 21 h 25 min 23 s", "42.8 s" (the
// tooltips, the window status and the diff table; the twin of formatting.duration_text). The whole number is
// rounded once to 15 significant digits (all a float holds without noise; at most 12 decimals), then split
// into days, hours, minutes and seconds; parts that are zero are left out. Past HUGE, days by their magnitude.
// Default unit: seconds.
export function duration(v, spec) {
  if (v === null || v === undefined || (typeof v === "number" && !Number.isFinite(v))) return "—";
  const sec = toBase("duration", (spec && spec.unit) || "s", v);
  if (Math.abs(sec) >= R().huge) return `${scientific(sec / 86400, 15)} d`;
  const decimals = sec === 0 ? 0 : Math.max(0, Math.min(12, 14 - Math.floor(Math.log10(Math.abs(sec)))));
  let rest = Number(Math.abs(sec).toFixed(decimals));
  const parts = [];
  [
    ["d", 86400],
    ["h", 3600],
    ["min", 60],
  ].forEach(([name, size]) => {
    const n = Math.floor(rest / size);
    if (n) parts.push(`${group(String(n))} ${name}`);
    rest -= n * size;
  });
  if (rest > 0 || !parts.length) parts.push(`${fixed(rest, decimals)} s`);
  return (sec < 0 && parts.join("") !== "0 s" ? "-" : "") + parts.join(" ");
}

// A chart axis's display unit for values up to `ref`: how many stored units make one display unit.
export function unit(spec, ref) {
  spec = spec || DEFAULT_SPEC;
  const kind = spec.kind || "number";
  if (spec.ref !== undefined && spec.ref !== null) ref = spec.ref;
  if (R().scales[kind]) {
    const s = step(kind, toBase(kind, spec.unit || "", ref || 0));
    return (s[1] === "d h" ? 86400 : s[2]) / (R().scales[kind].to_base[spec.unit || ""] ?? 1);
  }
  return kind === "fraction" ? 0.01 : 1;
}

// A plain number (times on the time axis, shares): four significant digits by these rules where the page
// ships them, never an exponent (no "1.447e+5 s").
export function plain(v) {
  if (v === null || v === undefined) return "—";
  return document.getElementById("format-rules") ? value(v) : String(+v.toPrecision(5));
}

// The spec of a value known only by its unit ("s", "min", "J", "W" …: the kind whose scale has it; any
// other unit, or none, a plain number with that unit), so it is written like a metric of that kind.
export function specOfUnit(unit) {
  const scales = R().scales;
  const kind = Object.keys(scales).find((k) => unit && unit in scales[k].to_base);
  return { kind: kind || "number", unit: unit || "" };
}
