// Scenario wizard: reading the family's JSON schema (pydantic's): references, unions, and the
// kind of widget a node becomes.

// The words for a node's bounds: "≥ 1, ≤ 45", "1 to 45 items".
export function rangeText(n) {
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

// The readers of one schema: `resolve` follows $ref into `defs`.
export function schemaOf(defs) {
  const resolve = (n) => {
    while (n && n.$ref) n = defs[n.$ref.split("/").pop()] || {};
    return n || {};
  };

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
  return { resolve, unionParts, kindOf };
}
