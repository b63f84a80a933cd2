/**
 * Message shapes against a pinned schema (the record mode of the drift check, tools/drift/record.ts): walk a recorded
 * message and the schema of its kind's member side by side and report what the schema does not declare — a field
 * (`duration_ms`), or a string value where the schema lists the allowed ones (`reason = "unfinished_at_resume"`).
 *
 * The walk follows $ref, oneOf / anyOf (the variants whose string literals agree with the message: its subtype's
 * variant, where the schema has one per subtype), allOf (merged), items and additionalProperties schemas. It stops
 * where the schema is open: a node that declares no properties (`{}`, `unknown`), or a variant that accepts any
 * object. `additionalProperties: true` alone does not make a node open (the pinned schemas set it for forward
 * compatibility while declaring every field they know).
 *
 * Every finding names where it is: the discriminating values on the way to it (`subtype = task_notification`,
 * `params.update.sessionUpdate = tool_call`): fields that hold a string literal in the matching variant, or a
 * string named type, subtype, kind or sessionUpdate that the schema constrains.
 */

export interface ShapeFinding {
  what: "field" | "value";
  /** Dotted path from the message root (`[]` for array items, `*` for map entries). */
  path: string;
  /** For "value": the string the schema does not list. */
  value?: string;
  /** The discriminating values on the way (`subtype = "task_notification"`), outermost first. */
  where: string[];
}

const TAG_NAMES = new Set(["type", "subtype", "kind", "sessionUpdate"]);

function deref(doc: any, n: any, seen: Set<string>): any {
  let cur = n;
  while (cur && typeof cur === "object" && typeof cur.$ref === "string") {
    const ref: string = cur.$ref;
    if (seen.has(ref) || !ref.startsWith("#/")) return {};
    seen = new Set([...seen, ref]);
    const target = ref.slice(2).split("/").reduce((x: any, k) => x?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], doc);
    // a $ref beside other keywords: both apply
    const { $ref: _r, ...rest } = cur;
    cur = Object.keys(rest).length ? { allOf: [target, rest] } : target;
  }
  return cur;
}

function merge(a: any, b: any): any {
  const out = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...(a.properties ?? {}), ...(b.properties ?? {}) };
  return out;
}

/** A schema node as its alternatives: plain nodes without oneOf / anyOf / allOf / $ref. `true` / missing → open `{}`. */
export function variants(doc: any, node: any, seen: Set<string> = new Set(), depth = 0): any[] {
  if (depth > 32) return [{}];
  const n = deref(doc, node, seen);
  if (n === true || n === undefined || n === null) return [{}];
  if (n === false || typeof n !== "object") return [];
  const { oneOf, anyOf, allOf, ...base } = n;
  let out: any[] = [base];
  if (Array.isArray(allOf)) for (const part of allOf) out = out.flatMap((o) => variants(doc, part, seen, depth + 1).map((v) => merge(o, v)));
  for (const alts of [oneOf, anyOf]) if (Array.isArray(alts)) out = out.flatMap((o) => alts.flatMap((a: any) => variants(doc, a, seen, depth + 1)).map((v: any) => merge(o, v)));
  return out;
}

const jsonType = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);

function typeFits(s: any, v: unknown): boolean {
  const t = s.type;
  if (t === undefined) return true;
  const ts: string[] = Array.isArray(t) ? t : [t];
  const jt = jsonType(v);
  return ts.includes(jt) || (jt === "integer" && ts.includes("number"));
}

/** The string values a node allows, or undefined when it allows any (no enum / const of strings). */
function literals(doc: any, node: any): string[] | undefined {
  const vs = variants(doc, node);
  const out: string[] = [];
  for (const v of vs) {
    if (typeof v.const === "string") out.push(v.const);
    else if (Array.isArray(v.enum)) out.push(...v.enum.filter((x: unknown) => typeof x === "string"));
    else if (v.type === undefined || v.type === "string" || (Array.isArray(v.type) && v.type.includes("string"))) return undefined;
  }
  return out;
}

/** A node that says nothing about an object's keys: anything goes below it. */
function open(v: any): boolean {
  return !v.properties && !(v.additionalProperties && typeof v.additionalProperties === "object") && !v.patternProperties && (v.type === undefined || v.type === "object" || (Array.isArray(v.type) && v.type.includes("object")));
}

export function checkShape(doc: any, node: any, message: unknown, opts: { maxFindings?: number } = {}): ShapeFinding[] {
  const out: ShapeFinding[] = [];
  const seen = new Set<string>();
  const max = opts.maxFindings ?? 200;
  const add = (f: ShapeFinding) => {
    const key = `${f.what} ${f.path} ${f.value ?? ""} ${f.where.join(",")}`;
    if (seen.has(key) || out.length >= max) return;
    seen.add(key);
    out.push(f);
  };
  const walk = (nodes: any[], value: unknown, path: string, where: string[], depth: number): void => {
    if (depth > 40) return;
    let vs = nodes.flatMap((n) => variants(doc, n)).filter((v) => typeFits(v, value));
    if (!vs.length) return; // the schema does not expect this type here: not a question of fields (validation's job)
    if (typeof value === "string") {
      const allowed: string[] = [];
      for (const v of vs) {
        if (typeof v.const === "string") allowed.push(v.const);
        else if (Array.isArray(v.enum)) allowed.push(...v.enum.filter((x: unknown) => typeof x === "string"));
        else return; // a string without a list of values
      }
      if (!allowed.includes(value)) add({ what: "value", path: path || "(root)", value, where });
      return;
    }
    if (Array.isArray(value)) {
      const items = vs.map((v) => v.items).filter((i) => i && typeof i === "object" && !Array.isArray(i));
      if (!items.length) return;
      for (const x of value) walk(items, x, `${path}[]`, where, depth + 1);
      return;
    }
    if (!value || typeof value !== "object") return;
    const obj = value as Record<string, unknown>;
    // the variants whose string literals agree with the message (its subtype's variant)
    const agree = vs.filter((v) => Object.entries<any>(v.properties ?? {}).every(([k, s]) => {
      if (typeof obj[k] !== "string") return true;
      const lit = literals(doc, s);
      return lit === undefined || lit.includes(obj[k] as string);
    }));
    if (agree.length) vs = agree;
    if (vs.some(open)) return;
    const here = [...where];
    for (const [k, x] of Object.entries(obj)) {
      if (typeof x !== "string") continue;
      const ls = vs.map((v) => (v.properties?.[k] ? literals(doc, v.properties[k]) : undefined));
      const single = ls.every((l) => l !== undefined && l.length === 1);
      const named = TAG_NAMES.has(k) && ls.some((l) => l !== undefined);
      if (single || named) here.push(`${path ? `${path}.` : ""}${k} = ${JSON.stringify(x)}`);
    }
    for (const [k, x] of Object.entries(obj)) {
      const p = path ? `${path}.${k}` : k;
      const props = vs.map((v) => v.properties?.[k]).filter((s) => s !== undefined);
      if (props.length) {
        walk(props, x, p, here, depth + 1);
        continue;
      }
      const extra = vs.flatMap((v) => [
        ...(v.additionalProperties && typeof v.additionalProperties === "object" ? [v.additionalProperties] : []),
        ...Object.entries<any>(v.patternProperties ?? {}).filter(([re]) => { try { return new RegExp(re).test(k); } catch { return false; } }).map(([, s]) => s),
      ]);
      if (extra.length) walk(extra, x, path ? `${path}.*` : "*", here, depth + 1);
      else add({ what: "field", path: p, where: here });
    }
  };
  walk([node], message, "", [], 0);
  return out;
}
