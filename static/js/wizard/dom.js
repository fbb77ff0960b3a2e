// Scenario wizard: building the form's elements.

export const $ = (id) => document.getElementById(id);
// The JSON a template ships with json_script, or null where the page has none.
export const readJson = (id) => ($(id) ? JSON.parse($(id).textContent) : null);
// An element with attributes ("class", "text" or any attribute; undefined and null left out) and children
// (nodes or text; nested lists flattened; null, undefined and false left out).
export const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  });
  kids.flat(Infinity).forEach((k) => {
    if (k !== null && k !== undefined && k !== false)
      e.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
  });
  return e;
};
// The JSON path of a field: "a.b", "a[2]".
export const joinPath = (base, key) => (typeof key === "number" ? `${base}[${key}]` : base ? `${base}.${key}` : key);
