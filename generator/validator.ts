/**
 * The canonical event validator, compiled from the published JSON Schema by the generator itself: plain typed
 * TypeScript, one function per definition, no schema library at run time or in a bundle.
 *
 * It implements the subset of draft-07 the canonical schema uses — type (a name or a list), const, enum, $ref to
 * #/definitions, allOf, oneOf with an OpenAPI `discriminator`, required, properties, additionalProperties (false or
 * a schema), items (one schema), pattern, format (the formats given), minimum, the empty schema — with ajv's
 * semantics under the options the validator was built with before (allErrors false, discriminator, strict
 * numbers, inlineRefs false, messages): the same verdict and the same first error, found in the same order, with
 * the same { instancePath, schemaPath, keyword, params, message } (a definition's errors keep their schemaPath
 * relative to it, "#/properties/x/type"; the instancePath is the whole way down). test/generator/validator-parity
 * compares the two on the fixtures' events and thousands of mutations of them.
 *
 * Any other keyword is refused (UnsupportedSchema; buildValidator reports it as E112), so a schema change cannot
 * add a rule the validator silently does not check.
 */

/** A keyword the compiler does not implement (or does not know), and where in the schema. */
export class UnsupportedSchema extends Error {
  constructor(readonly keyword: string, readonly path: (string | number)[], message: string) {
    super(message);
    this.name = "UnsupportedSchema";
  }
}

export interface ValidatorOptions {
  /** Format name → the RegExp a string of that format matches. */
  formats: Record<string, RegExp>;
  /** Name of the exported whole-schema validator. */
  rootExport: string;
  /** Per key (an event type): the definition its validator checks; exported as PAYLOAD_VALIDATORS. */
  payloads: [string, string][];
}

/** draft-07 keywords (and ajv's discriminator) this compiler does not implement: refused by name. */
const KNOWN_UNIMPLEMENTED = new Set([
  "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxLength", "minLength", "maxItems", "minItems",
  "uniqueItems", "contains", "additionalItems", "maxProperties", "minProperties", "patternProperties", "dependencies",
  "propertyNames", "anyOf", "not", "if", "then", "else", "contentMediaType", "contentEncoding", "nullable",
]);
/** Keywords that check nothing (ajv ignores them too). */
const IGNORED = new Set(["title", "description", "$comment", "examples", "default", "readOnly", "writeOnly"]);
const IMPLEMENTED = new Set([
  "$ref", "type", "const", "enum", "allOf", "oneOf", "discriminator", "required", "properties", "additionalProperties",
  "items", "pattern", "format", "minimum",
]);
const TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"] as const;
type JsonType = (typeof TYPES)[number];
/** ajv's keyword groups: keywords for one type of data run only on data of that type, after the untyped ones. */
const GROUPS: [JsonType, string[]][] = [
  ["number", ["minimum"]],
  ["string", ["pattern", "format"]],
  ["array", ["items"]],
  ["object", ["required", "additionalProperties", "properties", "discriminator"]],
];
/** Names the emitted module uses for itself: a definition named like one gets a suffix. */
const RESERVED = new Set([
  "SchemaError", "Validator", "Check", "Obj", "isObj", "isArr", "isNum", "isInt", "fail", "wrongType", "missing",
  "additional", "notAllowed", "notConst", "noMatch", "badFormat", "tooSmall", "badTag", "within", "esc", "validator",
  "PAYLOAD_VALIDATORS", "Set", "Map", "Array", "RegExp", "isNaN", "isFinite", "undefined", "e", "d", "k", "i",
]);

/** A JSON Pointer step (RFC 6901). */
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
/** A schemaPath step as ajv writes it (a URI fragment). */
const fragment = (s: string) => encodeURIComponent(pointer(s));
/** A JavaScript identifier (the module imports nothing of the generator's: ir.ts would close an import circle through canonical.ts). */
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Property access as ajv emits it (so `__proto__` and friends read the same thing). */
const prop = (x: string, name: string) => (IDENT.test(name) ? `${x}.${name}` : `${x}[${JSON.stringify(name)}]`);
const isSchema = (s: unknown): s is Record<string, unknown> => !!s && typeof s === "object" && !Array.isArray(s);
const alwaysValid = (s: unknown) => s === true || (isSchema(s) && Object.keys(s).every((k) => IGNORED.has(k)));

/** Where the value checked goes, in code compiled before its name is known. */
const HOLE = "\u0000";
const fill = (code: string, val: string) => code.split(HOLE).join(val);

/** An instance path under construction: static steps and run-time expressions. */
type Part = { s: string } | { x: string };
function pathCode(parts: Part[]): string {
  const out: string[] = [];
  let lit = "";
  for (const p of parts) {
    if ("s" in p) lit += p.s;
    else {
      if (lit) out.push(JSON.stringify(lit));
      lit = "";
      out.push(p.x);
    }
  }
  if (lit || !out.length) out.push(JSON.stringify(lit));
  return out.join(" + ");
}

/** One statement of a check: `if (cond) return ret;` (mergeable) or lines of their own. */
type Stmt = { cond: string; ret: string } | { lines: string[] };
const render = (st: Stmt[], indent: string): string[] =>
  st.flatMap((s) => ("cond" in s ? [`${indent}if (${s.cond}) return ${s.ret};`] : s.lines.map((l) => indent + l)));

interface FnCx {
  name: string;
  usesE: boolean;
  locals: number;
  /** schema path of the function's schema (for UnsupportedSchema). */
  at: (string | number)[];
}

export function compileValidator(schema: unknown, opts: ValidatorOptions): string {
  if (!isSchema(schema)) throw new UnsupportedSchema("", [], "the schema must be an object");
  const definitions = (schema.definitions ?? {}) as Record<string, unknown>;
  if (!isSchema(definitions)) throw new UnsupportedSchema("definitions", ["definitions"], "definitions must be a mapping");
  /** The module constants of the function being compiled (emitted before it). */
  const consts: string[] = [];
  const formatConsts = new Map<string, string>();
  const fnNames = new Map<string, string>();
  const used = new Set<string>(RESERVED);
  const ident = (base: string) => {
    let n = base.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(?=\d)/, "_");
    while (used.has(n)) n += "_";
    used.add(n);
    return n;
  };
  for (const name of Object.keys(definitions)) fnNames.set(name, ident(name));
  const rootName = ident(opts.rootExport === "validateCanonicalEvent" ? "CanonicalEvent" : `${opts.rootExport}Root`);
  const addConst = (base: string, code: string) => {
    const n = ident(base);
    consts.push(`const ${n} = ${code};`);
    return n;
  };
  /** A module constant's name from where it is used: the function, then the schema path without "properties". */
  const constBase = (cx: FnCx, sp: string) => cx.name + (sp === "#" ? "" : "_" + sp.slice(2).replace(/(^|\/)properties\//g, "$1").replace(/\//g, "_"));
  const reached = new Set<string>();
  const queue: string[] = [];
  const refFn = (ref: unknown, at: (string | number)[]): string => {
    const m = typeof ref === "string" ? /^#\/definitions\/([^/]+)$/.exec(ref) : null;
    const name = m ? decodeURIComponent(m[1]).replace(/~1/g, "/").replace(/~0/g, "~") : undefined;
    if (name === undefined || !(name in definitions)) throw new UnsupportedSchema("$ref", at, `$ref ${JSON.stringify(ref)}: only references to #/definitions/<name> of the schema are implemented`);
    if (!reached.has(name)) { reached.add(name); queue.push(name); }
    return fnNames.get(name)!;
  };

  /** The statements checking the value `val` (at instance path `ip`) against schema `s` (at schema path `sp`). */
  function node(s: unknown, sp: string, val: string, ip: Part[], cx: FnCx, at: (string | number)[], root = false): Stmt[] {
    if (alwaysValid(s)) return [];
    if (!isSchema(s)) throw new UnsupportedSchema("", at, `a boolean schema (${JSON.stringify(s)}) is not implemented here`);
    for (const k of Object.keys(s)) {
      if (IMPLEMENTED.has(k) || IGNORED.has(k)) continue;
      if (root && (k === "$schema" || k === "$id" || k === "definitions")) continue;
      throw new UnsupportedSchema(k, [...at, k], KNOWN_UNIMPLEMENTED.has(k) || k.startsWith("$") || k === "definitions"
        ? `keyword "${k}" is not implemented by the generated validator (generator/validator.ts)`
        : `unknown keyword: "${k}"`);
    }
    const ipc = pathCode(ip);
    const up = (e: string) => (ipc === '""' ? e : `within(${e}, ${ipc})`);
    const out: Stmt[] = [];
    if (s.$ref !== undefined) {
      const other = Object.keys(s).find((k) => k !== "$ref" && !IGNORED.has(k));
      if (other) throw new UnsupportedSchema(other, [...at, other], `"${other}" beside "$ref" is not implemented by the generated validator (generator/validator.ts)`);
      cx.usesE = true;
      return [{ cond: `(e = ${refFn(s.$ref, [...at, "$ref"])}(${val}))`, ret: up("e") }];
    }
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    for (const t of types) if (!TYPES.includes(t)) throw new UnsupportedSchema("type", [...at, "type"], `type ${JSON.stringify(t)} is not a JSON Schema type`);
    const typeParam = Array.isArray(s.type) ? addConst(`${constBase(cx, sp)}_types`, JSON.stringify(s.type)) : JSON.stringify(s.type);
    const wrongType = `wrongType(${ipc}, ${JSON.stringify(`${sp}/type`)}, ${typeParam})`;
    const has = (t: JsonType) => GROUPS.find(([g]) => g === t)?.[1].some((k) => s[k] !== undefined) ?? false;
    const deferred = types.length === 1 && has(types[0] as JsonType) ? (types[0] as JsonType) : undefined;
    if (types.length && !deferred) out.push({ cond: types.map((t) => notTest(t as JsonType, val)).join(" && "), ret: wrongType });
    // untyped keywords, in ajv's order: const, enum, oneOf (left to the discriminator), allOf
    if (s.const !== undefined) {
      if (s.const !== null && typeof s.const === "object") throw new UnsupportedSchema("const", [...at, "const"], `a non-primitive const is not implemented by the generated validator`);
      out.push({ cond: `${val} !== ${JSON.stringify(s.const)}`, ret: `notConst(${ipc}, ${JSON.stringify(`${sp}/const`)}, ${JSON.stringify(s.const)})` });
    }
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum) || s.enum.some((v) => v !== null && typeof v === "object")) throw new UnsupportedSchema("enum", [...at, "enum"], `enum must list primitive values for the generated validator`);
      const base = constBase(cx, sp);
      const list = addConst(`${base}_values`, JSON.stringify(s.enum));
      const set = addConst(`${base}_set`, `new Set<unknown>(${list})`);
      out.push({ cond: `!${set}.has(${val})`, ret: `notAllowed(${ipc}, ${JSON.stringify(`${sp}/enum`)}, ${list})` });
    }
    if (s.oneOf !== undefined && s.discriminator === undefined) throw new UnsupportedSchema("oneOf", [...at, "oneOf"], `oneOf without a discriminator is not implemented by the generated validator`);
    if (s.allOf !== undefined) {
      if (!Array.isArray(s.allOf)) throw new UnsupportedSchema("allOf", [...at, "allOf"], "allOf must be a list");
      s.allOf.forEach((x, i) => out.push(...node(x, `${sp}/allOf/${i}`, val, ip, cx, [...at, "allOf", i])));
    }
    for (const [group, keywords] of GROUPS) {
      if (!keywords.some((k) => s[k] !== undefined)) continue;
      const body: Stmt[] = [];
      const guard = test(group, val);
      // implied: the type check above already let only this type through
      const implied = types.length > 0 && types.every((t) => t === group || (group === "number" && t === "integer"));
      if (group === "number") {
        if (typeof s.minimum !== "number") throw new UnsupportedSchema("minimum", [...at, "minimum"], "minimum must be a number");
        body.push({ cond: `${val} < ${s.minimum}`, ret: `tooSmall(${ipc}, ${JSON.stringify(`${sp}/minimum`)}, ${s.minimum})` });
      } else if (group === "string") {
        if (s.pattern !== undefined) {
          if (typeof s.pattern !== "string") throw new UnsupportedSchema("pattern", [...at, "pattern"], "pattern must be a string");
          const re = addConst(`${constBase(cx, sp)}_pattern`, `new RegExp(${JSON.stringify(s.pattern)}, "u")`);
          body.push({ cond: `!${re}.test(${val})`, ret: `noMatch(${ipc}, ${JSON.stringify(`${sp}/pattern`)}, ${JSON.stringify(s.pattern)})` });
        }
        if (s.format !== undefined) {
          const f = typeof s.format === "string" ? opts.formats[s.format] : undefined;
          if (!f) throw new UnsupportedSchema("format", [...at, "format"], `format ${JSON.stringify(s.format)} is not one the generated validator knows (${Object.keys(opts.formats).join(", ")})`);
          let name = formatConsts.get(s.format as string);
          if (!name) formatConsts.set(s.format as string, (name = addConst(`FORMAT_${s.format}`, `/${f.source}/${f.flags}`)));
          body.push({ cond: `!${name}.test(${val})`, ret: `badFormat(${ipc}, ${JSON.stringify(`${sp}/format`)}, ${JSON.stringify(s.format)})` });
        }
      } else if (group === "array") {
        if (!isSchema(s.items) && s.items !== true) throw new UnsupportedSchema("items", [...at, "items"], "items as a list (tuples) is not implemented by the generated validator");
        const i = `i${cx.locals++}`;
        const v = `v${cx.locals++}`;
        const inner = node(s.items, `${sp}/items`, v, [...ip, { s: "/" }, { x: i }], cx, [...at, "items"]);
        if (inner.length) body.push({ lines: [`for (let ${i} = 0; ${i} < ${val}.length; ${i}++) {`, `  const ${v} = ${val}[${i}];`, ...render(inner, "  "), "}"] });
      } else {
        body.push(...objectKeywords(s, sp, val, ip, ipc, cx, at));
      }
      if (deferred === group) out.push({ cond: notTest(group, val), ret: wrongType }, ...body);
      else if (implied) out.push(...body);
      else if (body.length === 1 && "cond" in body[0]) out.push({ cond: `${guard} && ${body[0].cond}`, ret: body[0].ret });
      else if (body.length) out.push({ lines: [`if (${guard}) {`, ...render(body, "  "), "}"] });
    }
    return out;
  }

  function objectKeywords(s: Record<string, unknown>, sp: string, val: string, ip: Part[], ipc: string, cx: FnCx, at: (string | number)[]): Stmt[] {
    const out: Stmt[] = [];
    const props = s.properties ?? {};
    if (!isSchema(props)) throw new UnsupportedSchema("properties", [...at, "properties"], "properties must be a mapping");
    if (s.required !== undefined) {
      if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string")) throw new UnsupportedSchema("required", [...at, "required"], "required must list property names");
      for (const r of s.required as string[]) out.push({ cond: `${prop(val, r)} === undefined`, ret: `missing(${ipc}, ${JSON.stringify(`${sp}/required`)}, ${JSON.stringify(r)})` });
    }
    const names = Object.keys(props);
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    if (s.additionalProperties !== undefined && s.additionalProperties !== true && !alwaysValid(s.additionalProperties)) {
      const k = `k${cx.locals++}`;
      let known = "";
      if (names.length) {
        // a few names: compared in turn (faster than a lookup, as ajv does up to 8); more: a Set
        known = names.length <= 4 ? names.map((n) => `${k} !== ${JSON.stringify(n)}`).join(" && ") : `!${addConst(`${constBase(cx, sp)}_properties`, `new Set<string>(${JSON.stringify(names)})`)}.has(${k})`;
      }
      if (s.additionalProperties === false) {
        const ret = `additional(${ipc}, ${JSON.stringify(`${sp}/additionalProperties`)}, ${k})`;
        out.push({ lines: [`for (const ${k} in ${val}) ${known ? `if (${known}) ` : ""}return ${ret};`] });
      } else {
        const v = `v${cx.locals++}`;
        const inner = node(s.additionalProperties, `${sp}/additionalProperties`, v, [...ip, { s: "/" }, { x: `esc(${k})` }], cx, [...at, "additionalProperties"]);
        const body = [`const ${v} = ${val}[${k}];`, ...render(inner, "")];
        out.push({ lines: [`for (const ${k} in ${val}) {`, ...(known ? [`  if (${known}) {`, ...body.map((l) => "    " + l), "  }"] : body.map((l) => "  " + l)), "}"] });
      }
    }
    for (const name of names) {
      const p = props[name];
      if (alwaysValid(p)) continue;
      const acc = prop(val, name);
      const step = [...ip, { s: `/${pointer(name)}` }];
      const psp = `${sp}/properties/${fragment(name)}`;
      // compiled once on a placeholder: the property itself for one check, else a local (TypeScript narrows it)
      const inner = node(p, psp, HOLE, step, cx, [...at, "properties", name]);
      // a required property is there by now (the required check comes first)
      const present = required.has(name) ? "" : `${acc} !== undefined`;
      if (inner.length === 1 && "cond" in inner[0]) {
        out.push({ cond: [present, fill(inner[0].cond, acc)].filter(Boolean).join(" && "), ret: fill(inner[0].ret, acc) });
        continue;
      }
      const v = `v${cx.locals++}`;
      const body = [`const ${v} = ${acc};`, ...render(inner, "").map((l) => fill(l, v))];
      out.push({ lines: present ? [`if (${present}) {`, ...body.map((l) => "  " + l), "}"] : body });
    }
    if (s.discriminator !== undefined) out.push(...discriminator(s, sp, val, ipc, cx, at));
    return out;
  }

  /** ajv's discriminator: the branch is picked by the tag's value (each branch pins it with const or enum). */
  function discriminator(s: Record<string, unknown>, sp: string, val: string, ipc: string, cx: FnCx, at: (string | number)[]): Stmt[] {
    const d = s.discriminator;
    const where = [...at, "discriminator"];
    if (!isSchema(d) || typeof d.propertyName !== "string" || Object.keys(d).some((k) => k !== "propertyName")) throw new UnsupportedSchema("discriminator", where, `discriminator takes { propertyName } only`);
    if (!Array.isArray(s.oneOf)) throw new UnsupportedSchema("discriminator", where, "discriminator needs oneOf");
    const tag = d.propertyName;
    const hasTag = (x: unknown) => isSchema(x) && Array.isArray(x.required) && x.required.includes(tag);
    let tagRequired = true;
    const mapping = new Map<string, string>();
    s.oneOf.forEach((b, i) => {
      if (!isSchema(b) || typeof b.$ref !== "string" || Object.keys(b).some((k) => k !== "$ref" && !IGNORED.has(k))) throw new UnsupportedSchema("oneOf", [...at, "oneOf", i], "a discriminated oneOf branch must be a $ref (inline branches are not implemented)");
      const fn = refFn(b.$ref, [...at, "oneOf", i, "$ref"]);
      const target = definitions[decodeURIComponent(b.$ref.replace("#/definitions/", "")).replace(/~1/g, "/").replace(/~0/g, "~")];
      const ps = isSchema(target) && isSchema(target.properties) ? target.properties[tag] : undefined;
      if (!isSchema(ps)) throw new UnsupportedSchema("discriminator", where, `discriminator: oneOf subschemas (or referenced schemas) must have "properties/${tag}"`);
      tagRequired &&= hasTag(s) || hasTag(target);
      const values = ps.const !== undefined ? [ps.const] : Array.isArray(ps.enum) ? ps.enum : undefined;
      if (!values) throw new UnsupportedSchema("discriminator", where, `discriminator: "properties/${tag}" must have "const" or "enum"`);
      for (const v of values) {
        if (typeof v !== "string" || mapping.has(v)) throw new UnsupportedSchema("discriminator", where, `discriminator: "${tag}" values must be unique strings`);
        mapping.set(v, fn);
      }
    });
    if (!tagRequired) throw new UnsupportedSchema("discriminator", where, `discriminator: "${tag}" must be required`);
    const branches = addConst(`${constBase(cx, sp)}_${tag}_branches`, `new Map<string, Check>([\n${[...mapping].map(([v, fn]) => `  [${JSON.stringify(v)}, ${fn}],`).join("\n")}\n])`);
    const acc = prop(val, tag);
    const dsp = JSON.stringify(`${sp}/discriminator`);
    const b = `b${cx.locals++}`;
    cx.usesE = true;
    return [
      { cond: `typeof ${acc} != "string"`, ret: `badTag(${ipc}, ${dsp}, "tag", ${JSON.stringify(tag)}, ${acc})` },
      { lines: [`const ${b} = ${branches}.get(${acc});`] },
      { cond: `!${b}`, ret: `badTag(${ipc}, ${dsp}, "mapping", ${JSON.stringify(tag)}, ${acc})` },
      { cond: `(e = ${b}(${val}))`, ret: ipc === '""' ? "e" : `within(e, ${ipc})` },
    ];
  }

  function fn(name: string, s: unknown, at: (string | number)[], root = false): string {
    const cx: FnCx = { name, usesE: false, locals: 0, at };
    const st = node(s, "#", "d", [], cx, at, root);
    const own = consts.splice(0);
    // a definition that is a reference: that definition's check
    const alias = st.length === 1 && "cond" in st[0] && st[0].ret === "e" ? /^\(e = (\w+)\(d\)\)$/.exec(st[0].cond) : null;
    if (alias) return [...own, `function ${name}(d: unknown): SchemaError | undefined {`, `  return ${alias[1]}(d);`, "}"].join("\n");
    const lines = renumber(render(st, "  "));
    return [
      ...own,
      `function ${name}(d: unknown): SchemaError | undefined {`,
      ...(cx.usesE ? ["  let e: SchemaError | undefined;"] : []),
      ...lines,
      "  return undefined;",
      "}",
    ].join("\n");
  }

  const fns: string[] = [fn(rootName, schema, [], true)];
  const payloadFns = opts.payloads.map(([key, def]) => [key, refFn(`#/definitions/${def}`, ["definitions", def])] as const);
  for (let q = queue.shift(); q !== undefined; q = queue.shift()) fns.push(fn(fnNames.get(q)!, definitions[q], ["definitions", q]));
  // definitions nothing references are not emitted, but are held to the same subset
  for (const name of Object.keys(definitions).filter((n) => !reached.has(n))) fn("unused", definitions[name], ["definitions", name]);
  return [
    PRELUDE,
    fns.join("\n\n"),
    "",
    `/** Checks a value against the whole canonical event schema. */`,
    `export const ${opts.rootExport} = validator(${rootName});`,
    "",
    "/** Per event type: its payload's validator. */",
    "export const PAYLOAD_VALIDATORS = {",
    ...payloadFns.map(([key, f]) => `  ${JSON.stringify(key)}: validator(${f}),`),
    "};",
    "",
  ].join("\n");
}

/** The JavaScript test that a value is not of a JSON type. */
function notTest(t: JsonType, v: string): string {
  const yes = test(t, v);
  return yes.startsWith("typeof ") ? yes.replace(" == ", " != ") : yes.endsWith(" === null") ? `${v} !== null` : `!${yes}`;
}

/** The JavaScript test that a value is of a JSON type, as ajv's (strict numbers: NaN and ±Infinity are no numbers). */
function test(t: JsonType, v: string): string {
  switch (t) {
    case "string": return `typeof ${v} == "string"`;
    case "boolean": return `typeof ${v} == "boolean"`;
    case "null": return `${v} === null`;
    case "number": return `isNum(${v})`;
    case "integer": return `isInt(${v})`;
    case "object": return `isObj(${v})`;
    case "array": return `isArr(${v})`;
  }
}

const PRELUDE = `/** Why a value does not match the schema (the shape ajv reports; one error: the check stops at the first). */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}
/** A check: true when the value matches; otherwise false, with the first error in \`errors\` (null after true). */
export interface Validator {
  (data: unknown): boolean;
  errors: SchemaError[] | null;
}
type Check = (d: unknown) => SchemaError | undefined;
type Obj = Record<string, unknown>;

const isObj = (d: unknown): d is Obj => !!d && typeof d == "object" && !Array.isArray(d);
const isArr = (d: unknown): d is unknown[] => Array.isArray(d);
const isNum = (d: unknown): d is number => typeof d == "number" && isFinite(d);
const isInt = (d: unknown): d is number => typeof d == "number" && !(d % 1) && !isNaN(d) && isFinite(d);
const fail = (instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown>, message: string): SchemaError => ({ instancePath, schemaPath, keyword, params, message });
const wrongType = (i: string, s: string, type: string | readonly string[]) => fail(i, s, "type", { type }, \`must be \${type}\`);
const missing = (i: string, s: string, missingProperty: string) => fail(i, s, "required", { missingProperty }, \`must have required property '\${missingProperty}'\`);
const additional = (i: string, s: string, additionalProperty: string) => fail(i, s, "additionalProperties", { additionalProperty }, "must NOT have additional properties");
const notAllowed = (i: string, s: string, allowedValues: readonly unknown[]) => fail(i, s, "enum", { allowedValues }, "must be equal to one of the allowed values");
const notConst = (i: string, s: string, allowedValue: unknown) => fail(i, s, "const", { allowedValue }, "must be equal to constant");
const noMatch = (i: string, s: string, pattern: string) => fail(i, s, "pattern", { pattern }, \`must match pattern "\${pattern}"\`);
const badFormat = (i: string, s: string, format: string) => fail(i, s, "format", { format }, \`must match format "\${format}"\`);
const tooSmall = (i: string, s: string, limit: number) => fail(i, s, "minimum", { comparison: ">=", limit }, \`must be >= \${limit}\`);
const badTag = (i: string, s: string, error: "tag" | "mapping", tag: string, tagValue: unknown) => fail(i, s, "discriminator", { error, tag, tagValue }, error === "tag" ? \`tag "\${tag}" must be string\` : \`value of tag "\${tag}" must be in oneOf\`);
/** An error found in a nested value: its instancePath is under \`at\`. */
const within = (e: SchemaError, at: string): SchemaError => ((e.instancePath = at + e.instancePath), e);
/** A property name as a JSON Pointer step. */
const esc = (k: string) => k.replace(/~/g, "~0").replace(/\\//g, "~1");
/** A check with ajv's calling convention: a boolean, and the errors on the function. */
function validator(check: Check): Validator {
  const v: Validator = Object.assign((data: unknown) => {
    const e = check(data);
    v.errors = e ? [e] : null;
    return !e;
  }, { errors: null as SchemaError[] | null });
  return v;
}
`;

/**
 * A function's locals (k0, v1, i2, b3: one counter, numbered as the compiler made them, which is not always the order
 * they are read in) renumbered in order of first appearance, outside string literals.
 */
function renumber(lines: string[]): string[] {
  const names = new Map<string, string>();
  const local = (t: string) => t.replace(/\b([vikb])(\d+)\b/g, (m, p: string) => {
    let n = names.get(m);
    if (n === undefined) names.set(m, (n = `${p}${names.size}`));
    return n;
  });
  // string literals are JSON.stringify's: "…" with backslash escapes
  return lines.map((l) => l.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => (i % 2 ? part : local(part))).join(""));
}
