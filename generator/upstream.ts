/**
 * Upstream stage: the pinned provider schemas (JSON Schema, draft-07) of a surface.
 * Gives the method set of each message kind and resolves field paths (`params.item.id`) against
 * the schema of a message, following $ref / oneOf / anyOf / allOf.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DiagnosticError, jsonOffset, jsonParseDiagnostic, lineCol, type Diagnostic } from "./diagnostics.ts";

/** JSON-RPC kinds are fixed; a `tagged` protocol names its own kinds (event, line, …). */
export type Kind = string;
export const JSONRPC_KINDS: Kind[] = ["notification", "request", "response", "clientRequest", "clientNotification", "clientResponse"];
/** Which request kind a response kind answers. */
export const ANSWERS: Record<string, Kind | undefined> = { response: "request", clientResponse: "clientRequest" };

export interface SchemaRef { file: string; doc: any; node: any }
/** `up`: the schema folder the method's file is in (a surface may take extra method files from another folder). */
export interface UpstreamMethod { method: string; message: SchemaRef; paramsRefName?: string; up?: UpstreamSchemas }

/** A parsed schema file: its text (for positions), document and sha256 (of the bytes read). */
export interface SchemaFile { where: string; text: string; doc: any; sha256: string }
/** Parsed files by absolute path, shared by the UpstreamSchemas of one codegen run (each file is read once). */
export type SchemaCache = Map<string, SchemaFile>;

/** Every document read, to its file (for the position of a problem found later, e.g. a bad $ref). */
const FILE_OF = new WeakMap<object, SchemaFile>();

/** A problem in an upstream schema file, at a position in it. */
function schemaError(f: SchemaFile | undefined, code: string, message: string, at?: number | readonly (string | number)[]): DiagnosticError {
  const p = f && at !== undefined ? lineCol(f.text, typeof at === "number" ? at : jsonOffset(f.text, at)) : { line: 1, col: 1 };
  return new DiagnosticError([{ file: f?.where ?? "(upstream)", line: p.line, col: p.col, code, message }]);
}

export class UpstreamSchemas {
  /** Files (relative to dir) this instance has read: what the output built from it was generated from. */
  readonly read = new Set<string>();
  /**
   * `dir`: the folder (absolute, or relative to the working directory); `label`: how diagnostics name it (the
   * path relative to the project root); `cache`: parsed files shared with other instances.
   */
  constructor(readonly dir: string, readonly label: string = dir, private readonly cache: SchemaCache = new Map()) {}

  /** The parsed file; a missing or unreadable file, invalid JSON or a non-object throws a DiagnosticError (E500–E502). */
  file(file: string): SchemaFile {
    const abs = join(this.dir, file);
    let f = this.cache.get(abs);
    if (!f) {
      const where = `${this.label}/${file}`;
      let bytes: Buffer;
      try {
        bytes = readFileSync(abs);
      } catch (e) {
        throw new DiagnosticError([{ file: where, line: 1, col: 1, code: "E500", message: `cannot read upstream schema file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
      }
      const text = bytes.toString("utf8");
      let doc: any;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        const d: Diagnostic = jsonParseDiagnostic(where, text, e, "E501");
        throw new DiagnosticError([{ ...d, message: `upstream schema file is ${d.message}` }]);
      }
      f = { where, text, doc, sha256: createHash("sha256").update(bytes).digest("hex") };
      if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw schemaError(f, "E502", `an upstream schema file must hold a JSON Schema object, not ${Array.isArray(doc) ? "an array" : doc === null ? "null" : typeof doc}`, 0);
      FILE_OF.set(doc, f);
      this.cache.set(abs, f);
    }
    this.read.add(file);
    return f;
  }

  doc(file: string): any {
    return this.file(file).doc;
  }
  exists(file: string): boolean {
    return existsSync(join(this.dir, file));
  }

  /**
   * Members of a union file by their tag: oneOf[].properties[tag].enum[0] (or const); `method` for JSON-RPC.
   * A file without a oneOf (E503) or a member without a string tag (E504) throws a DiagnosticError.
   */
  methods(file: string, tag = "method"): Map<string, UpstreamMethod> {
    const doc = this.doc(file);
    const f = FILE_OF.get(doc);
    if (!Array.isArray(doc.oneOf)) throw schemaError(f, "E503", `a message file must be a "oneOf" union of the messages (each tagged by properties.${tag}); this one has no oneOf`, 0);
    const out = new Map<string, UpstreamMethod>();
    doc.oneOf.forEach((variant: any, i: number) => {
      const t = variant?.properties?.[tag];
      const m = t?.enum?.[0] ?? t?.const;
      if (typeof m !== "string") throw schemaError(f, "E504", `oneOf member ${i} has no string "${tag}" (properties.${tag}.enum[0] or .const names the message)`, ["oneOf", i]);
      const pref: string | undefined = variant.properties?.params?.$ref;
      // Properties beside the union (e.g. a timestamp every notification carries) belong to every member.
      const node = doc.properties && typeof doc.properties === "object" ? { ...variant, properties: { ...doc.properties, ...variant.properties } } : variant;
      out.set(m, { method: m, message: { file, doc, node }, paramsRefName: pref?.split("/").pop(), up: this });
    });
    return out;
  }

  /** The schema of the result of a request whose params are `<X>Params`: the `<X>Response` file. */
  responseSchema(paramsRefName: string | undefined): SchemaRef | undefined {
    if (!paramsRefName) return undefined;
    const name = paramsRefName.replace(/Params$/, "Response");
    for (const f of [`${name}.json`, `v2/${name}.json`, `v1/${name}.json`]) {
      if (this.exists(f)) {
        const doc = this.doc(f);
        return { file: f, doc, node: doc };
      }
    }
    return undefined;
  }
}

/** A schema that accepts anything (used where the upstream schema says nothing). */
export const ANY: SchemaRef = { file: "(any)", doc: {}, node: {} };

/**
 * A method pattern: a name ending in `*` matches every method that starts with what comes before it (`cursor/*`,
 * `_*`; `*` alone matches any). Pattern rows run for methods no exact row or ignore entry names.
 */
export function isMethodPattern(m: string): boolean {
  return m.endsWith("*");
}

/** What is wrong with a `match` that holds a `*` (E213, of a row or an ignore entry alike): nothing, or the messages. */
export function methodPatternProblems(m: string, tagged: boolean): string[] {
  const problems: string[] = [];
  if (!isMethodPattern(m) || m.indexOf("*") !== m.length - 1) problems.push(`"${m}": a method pattern is a prefix followed by one "*" at the end (e.g. "cursor/*", "_*", "*")`);
  if (tagged) problems.push(`method patterns are for JSON-RPC tables`);
  return problems;
}

export interface PathResult {
  ok: boolean;
  /** Every segment is required in every variant that has it (the value is always present in valid input). */
  required: boolean;
  /** The schemas the path lands on (several when it crosses a union). */
  targets: SchemaRef[];
  /** On failure: the segment index that failed and the names that exist there. */
  failedAt?: number;
  known?: string[];
}

function deref(s: SchemaRef): SchemaRef {
  let node = s.node;
  let doc = s.doc;
  for (let i = 0; node && typeof node === "object" && typeof node.$ref === "string" && i < 50; i++) {
    const ref: string = node.$ref;
    if (!ref.startsWith("#/")) throw refError(doc, s.file, ref, "E505", `$ref "${ref}" points outside its file; only local references ("#/…") are supported`);
    node = ref.slice(2).split("/").reduce((n: any, k) => n?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], doc);
    if (node === undefined) throw refError(doc, s.file, ref, "E506", `$ref "${ref}" does not resolve in its file`);
  }
  return { file: s.file, doc, node };
}

/** A bad $ref, at its first occurrence in the file. */
function refError(doc: any, file: string, ref: string, code: string, message: string): DiagnosticError {
  const f = FILE_OF.get(doc);
  if (!f) return new DiagnosticError([{ file, line: 1, col: 1, code, message }]);
  const m = new RegExp(`"\\$ref"\\s*:\\s*${JSON.stringify(ref).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`).exec(f.text);
  return schemaError(f, code, message, m ? m.index : 0);
}

/** Expand a schema into its alternatives (oneOf/anyOf members; allOf members are all applied). */
export function variants(s: SchemaRef, seen = 0): SchemaRef[] {
  const d = deref(s);
  const n = d.node;
  if (seen > 20 || !n || typeof n !== "object") return [d];
  const alts = n.oneOf ?? n.anyOf;
  if (Array.isArray(alts)) {
    // Properties declared beside the union apply to every alternative.
    const own = n.properties ? { properties: n.properties, required: n.required ?? [] } : undefined;
    return alts.flatMap((a: any) => variants({ ...d, node: a }, seen + 1)).map((v) =>
      own && v.node && typeof v.node === "object" && !Array.isArray(v.node)
        ? { ...v, node: { ...v.node, properties: { ...own.properties, ...(v.node.properties ?? {}) }, required: [...own.required, ...(v.node.required ?? [])] } }
        : v,
    );
  }
  return [d];
}

/**
 * The parts an object schema is made of: itself, or — with `allOf` — its own properties (declared beside the
 * allOf) plus every allOf member's alternatives, recursively (nested allOf included).
 */
function allOfParts(v: SchemaRef, depth = 0): SchemaRef[] {
  const n = v.node;
  if (!n || typeof n !== "object" || !Array.isArray(n.allOf) || depth > 20) return [v];
  const { allOf, ...own } = n;
  const parts: SchemaRef[] = own.properties || own.additionalProperties !== undefined ? [{ ...v, node: own }] : [];
  for (const member of allOf) for (const alt of variants({ ...v, node: member })) parts.push(...allOfParts(alt, depth + 1));
  return parts;
}

function isAny(n: any): boolean {
  if (n === true) return true;
  if (!n || typeof n !== "object") return false;
  return !n.type && !n.properties && !n.oneOf && !n.anyOf && !n.allOf && !n.$ref && !n.items && !n.enum && n.const === undefined;
}

/** Resolve `segments` inside `root`. Numeric segments index arrays; any key is allowed in a map or an any-schema. */
export function resolvePath(root: SchemaRef, segments: string[]): PathResult {
  let current: SchemaRef[] = [root];
  let required = true;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const next: SchemaRef[] = [];
    const known = new Set<string>();
    let segRequired = true;
    let anyHit = false;
    for (const c of current) {
      for (const v of variants(c)) {
        const parts = allOfParts(v);
        for (const p of parts) {
          const n = p.node;
          if (isAny(n)) { next.push({ ...p, node: {} }); anyHit = true; segRequired = false; continue; }
          if (n === false || n?.type === "null") { segRequired = false; continue; } // the parent may be null
          if (Array.isArray(n?.type) && n.type.includes("null")) segRequired = false;
          if (/^\d+$/.test(seg) && n.items) { next.push({ ...p, node: n.items }); anyHit = true; segRequired = false; continue; }
          if (n.properties && Object.hasOwn(n.properties, seg)) {
            next.push({ ...p, node: n.properties[seg] });
            anyHit = true;
            if (!(n.required ?? []).includes(seg)) segRequired = false;
            continue;
          }
          if (n.additionalProperties && typeof n.additionalProperties === "object") {
            next.push({ ...p, node: n.additionalProperties }); anyHit = true; segRequired = false; continue;
          }
          if (n.additionalProperties === true) { next.push({ ...p, node: {} }); anyHit = true; segRequired = false; continue; }
          segRequired = false; // this variant lacks the key: the value may be absent
          for (const k of Object.keys(n.properties ?? {})) known.add(k);
        }
      }
    }
    if (!anyHit) return { ok: false, required: false, targets: [], failedAt: i, known: [...known].sort() };
    required = required && segRequired;
    current = next;
  }
  return { ok: true, required, targets: current };
}

/** All string values the targets can take, when they are all enums/consts; undefined if open-ended. */
export function enumValues(targets: SchemaRef[]): string[] | undefined {
  const out = new Set<string>();
  for (const t of targets) {
    for (const v of variants(t)) {
      const n = v.node;
      if (n?.type === "null") continue;
      if (Array.isArray(n?.enum)) n.enum.forEach((x: unknown) => typeof x === "string" && out.add(x));
      else if (typeof n?.const === "string") out.add(n.const);
      else return undefined;
    }
  }
  return [...out];
}
