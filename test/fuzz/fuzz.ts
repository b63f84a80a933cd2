/**
 * Fuzzing the normalizers, shared by test/fuzz.test.ts (fixed seed, bounded) and `npm run fuzz`
 * (test/fuzz/cli.ts, long). For every surface of SURFACE_NAMES:
 *
 * - generated messages: fast-check arbitraries built from the upstream schemas of the surface's table (the
 *   per-kind union files named in its mappings/*.yaml `upstream.kinds`), JSON-RPC ids and responses added;
 * - corpus messages: every `given`/`in` of the table's examples, and the lines of fixtures/recorded/<surface>/;
 * - mutations of corpus messages: dropped fields, wrong types, huge strings, deep nesting, unknown methods/types,
 *   `__proto__`/`constructor`/`prototype` keys;
 * - sequences of those, shuffled and with duplicates, pushed as objects (random direction) or as lines.
 *
 * Checked per input: no exception escapes push/pushLine/end; every event validates against the canonical schema;
 * every input is accounted for (it produced events, or stats() counts it as ignored by a named entry or as
 * handled silently by a named row). The stream verifier's violations on the output are counted too.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { parse as parseYaml } from "yaml";
import { SURFACES } from "../../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";
import { createNormalizer, type CanonicalEvent, type Direction, type NormalizerStats } from "../../src/normalize/normalizer.js";
import { verifyEvents, formatFinding } from "../../src/verify/verify.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface FuzzOptions {
  /** Number of sequences (fast-check runs). */
  runs: number;
  seed: number;
  /** Messages per sequence (max). */
  maxLength?: number;
  /** Size of the "huge string" mutation. */
  hugeString?: number;
  /** Depth of the "deep nesting" mutation. */
  deepNesting?: number;
}

export interface FuzzReport {
  surface: string;
  /** Sequences run and messages pushed. */
  runs: number;
  inputs: number;
  events: number;
  /** Exceptions that escaped push/pushLine/end (should be 0). */
  escapes: string[];
  /** Events that fail the canonical schema (should be 0). */
  invalid: string[];
  /** Inputs with no event, no ignore count and no silent row (should be 0). */
  unaccounted: string[];
  /** Stream verifier violations on the output (the normalizer must keep the grammar whatever comes in). */
  violations: string[];
  /** Inputs by origin. */
  origins: Record<string, number>;
}

// ───────────────────────────── JSON Schema → fast-check ─────────────────────────────

type Schema = any;
const MAX_DEPTH = 5;

function schemaArbitrary(root: Schema): fc.Arbitrary<unknown> {
  const memo = new Map<string, fc.Arbitrary<unknown>>();
  const defs = root.definitions ?? root.$defs ?? {};
  const resolve = (ref: string): Schema => {
    const name = ref.replace(/^#\/(definitions|\$defs)\//, "");
    return defs[name] ?? {};
  };
  const leaf = fc.oneof(fc.constant(null), fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  const build = (s: Schema, depth: number): fc.Arbitrary<unknown> => {
    if (s === true || s === undefined || s === null) return leaf;
    if (s === false) return fc.constant(null);
    if (s.$ref) {
      if (depth >= MAX_DEPTH) return leaf;
      const key = `${s.$ref}@${depth}`;
      let a = memo.get(key);
      if (!a) {
        // placeholder breaks cycles at construction time (depth also bounds them)
        memo.set(key, leaf);
        a = build(resolve(s.$ref), depth + 1);
        memo.set(key, a);
      }
      return a;
    }
    if ("const" in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return s.enum.length ? fc.constantFrom(...s.enum) : leaf;
    const alts = s.oneOf ?? s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      const base = { ...s, oneOf: undefined, anyOf: undefined };
      const hasBase = base.type !== undefined || base.properties !== undefined;
      return fc.oneof(...alts.map((a: Schema) => (hasBase ? merged([base, a], depth) : build(a, depth))));
    }
    if (Array.isArray(s.allOf) && s.allOf.length) return merged([{ ...s, allOf: undefined }, ...s.allOf], depth);
    const type = Array.isArray(s.type) ? s.type : s.type !== undefined ? [s.type] : s.properties ? ["object"] : s.items ? ["array"] : undefined;
    if (!type) return depth >= MAX_DEPTH ? leaf : fc.jsonValue({ maxDepth: 2 });
    if (type.length > 1) return fc.oneof(...type.map((t: string) => build({ ...s, type: t }, depth)));
    switch (type[0]) {
      case "null": return fc.constant(null);
      case "boolean": return fc.boolean();
      case "integer": return fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer());
      case "number": return fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
      case "string": return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "a", "t1", "u1", "0", "x".repeat(40)));
      case "array": {
        if (depth >= MAX_DEPTH) return fc.constant([]);
        return fc.array(build(Array.isArray(s.items) ? s.items[0] : s.items, depth + 1), { maxLength: 3 });
      }
      case "object": {
        if (depth >= MAX_DEPTH) return fc.constant({});
        const props: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries(s.properties ?? {})) props[k] = build(v, depth + 1);
        const required = (s.required ?? []).filter((k: string) => k in props);
        return fc.record(props, { requiredKeys: required });
      }
      default: return leaf;
    }
  };
  const merged = (parts: Schema[], depth: number): fc.Arbitrary<unknown> =>
    fc.tuple(...parts.map((p) => build(p, depth))).map((vs) => {
      const o: Record<string, unknown> = {};
      for (const v of vs) if (v && typeof v === "object" && !Array.isArray(v)) Object.assign(o, v);
      return vs.some((v) => v && typeof v === "object" && !Array.isArray(v)) ? o : vs[vs.length - 1];
    });
  return build(root, 0);
}

// ───────────────────────────── per-surface inputs ─────────────────────────────

interface Input { message: unknown; direction?: Direction; asLine: boolean; origin: string }

interface SurfaceMaterial { corpus: unknown[]; generated: { kind: string; arb: fc.Arbitrary<unknown> }[]; jsonrpc: boolean }

const materialCache = new Map<string, SurfaceMaterial>();

/** The table file, its examples and upstream union schemas, and the surface's recorded fixtures. */
export function material(surface: string): SurfaceMaterial {
  const hit = materialCache.get(surface);
  if (hit) return hit;
  const table = SURFACES[surface];
  const doc = parseYaml(readFileSync(join(ROOT, table.file), "utf8"));
  const corpus: unknown[] = [];
  for (const row of doc.rows ?? []) {
    for (const ex of row.examples ?? []) {
      for (const g of ex.given ?? []) corpus.push(g);
      if (ex.in !== undefined) corpus.push(ex.in);
    }
  }
  const recDir = join(ROOT, "fixtures/recorded", surface);
  if (existsSync(recDir)) {
    for (const f of readdirSync(recDir).filter((x) => x.endsWith(".ndjson") && !x.includes(".expected.")).sort()) {
      for (const l of readFileSync(join(recDir, f), "utf8").split("\n")) if (l.trim()) corpus.push(JSON.parse(l));
    }
  }
  const generated: SurfaceMaterial["generated"] = [];
  const up = doc.upstream ?? {};
  for (const [kind, k] of Object.entries<any>(up.kinds ?? {})) {
    if (!k?.file || !up.dir) continue;
    const file = join(ROOT, up.dir, k.file);
    if (!existsSync(file)) continue;
    generated.push({ kind, arb: schemaArbitrary(JSON.parse(readFileSync(file, "utf8"))) });
  }
  const m = { corpus, generated, jsonrpc: table.protocol === "jsonrpc" };
  materialCache.set(surface, m);
  return m;
}

// ───────────────────────────── mutations ─────────────────────────────

const MUTATIONS = ["drop", "wrongType", "huge", "deep", "unknownTag", "protoKeys", "nullify", "swapArray"] as const;
type Mutation = (typeof MUTATIONS)[number];

function clone(x: unknown): any {
  return x === undefined ? undefined : JSON.parse(JSON.stringify(x));
}

/** Every [parent, key] of a JSON value (bounded). */
function slots(x: any, out: [any, string | number][] = [], depth = 0): [any, string | number][] {
  if (depth > 12 || out.length > 400 || x === null || typeof x !== "object") return out;
  for (const k of Object.keys(x)) {
    out.push([x, Array.isArray(x) ? Number(k) : k]);
    slots(x[k], out, depth + 1);
  }
  return out;
}

function nest(depth: number, leaf: unknown, arrays: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { n: v };
  return v;
}

export function mutate(base: unknown, ops: [Mutation, number, number][], opts: Required<Pick<FuzzOptions, "hugeString" | "deepNesting">>): unknown {
  let m = clone(base);
  for (const [op, pick, arg] of ops) {
    const all = slots(m);
    const slot = all.length ? all[pick % all.length] : undefined;
    switch (op) {
      case "drop":
        if (slot) { if (Array.isArray(slot[0])) slot[0].splice(slot[1] as number, 1); else delete slot[0][slot[1]]; }
        break;
      case "wrongType": {
        const v = [0, -1, 1.5, "", "x", true, false, null, [], {}, [1, "a"], { a: 1 }][arg % 12];
        if (slot) slot[0][slot[1]] = v; else m = v;
        break;
      }
      case "huge":
        if (slot) slot[0][slot[1]] = "x".repeat(opts.hugeString); else m = "x".repeat(opts.hugeString);
        break;
      case "deep":
        if (slot) slot[0][slot[1]] = nest(opts.deepNesting, "leaf", arg % 2 === 0);
        break;
      case "unknownTag":
        if (m && typeof m === "object" && !Array.isArray(m)) {
          const tagKeys = ["method", "type", "subtype", "sessionUpdate", "kind"];
          for (const t of all) if (tagKeys.includes(String(t[1])) && typeof t[0][t[1]] === "string") { t[0][t[1]] = ["x/unknown", "constructor", "__proto__", "toString", "hasOwnProperty", ""][arg % 6]; break; }
        }
        break;
      case "protoKeys": {
        const target = slot && slot[0][slot[1]] && typeof slot[0][slot[1]] === "object" ? slot[0][slot[1]] : m;
        if (target && typeof target === "object") {
          // own properties named like the prototype chain (JSON.parse makes them own, as a hostile line would)
          const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}}');
          for (const k of Object.keys(hostile)) Object.defineProperty(target, k, { value: hostile[k], enumerable: true, writable: true, configurable: true });
        }
        break;
      }
      case "nullify":
        if (slot) slot[0][slot[1]] = null; else m = null;
        break;
      case "swapArray":
        if (slot && Array.isArray(slot[0][slot[1]])) slot[0][slot[1]].reverse();
        else if (slot) slot[0][slot[1]] = [slot[0][slot[1]]];
        break;
    }
  }
  return m;
}

// ───────────────────────────── the property ─────────────────────────────

function inputArbitrary(surface: string, opts: Required<Pick<FuzzOptions, "hugeString" | "deepNesting">>): fc.Arbitrary<Input> {
  const mat = material(surface);
  const dir = fc.constantFrom<Direction | undefined>(undefined, "in", "out");
  const parts: fc.Arbitrary<Input>[] = [];
  if (mat.corpus.length) {
    const base = fc.constantFrom(...mat.corpus);
    parts.push(fc.record({ message: base, direction: dir, asLine: fc.boolean() }).map((x) => ({ ...x, origin: "corpus" })));
    const ops = fc.array(fc.tuple(fc.constantFrom(...MUTATIONS), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 });
    parts.push(fc.record({ message: fc.tuple(base, ops).map(([b, o]) => mutate(b, o, opts)), direction: dir, asLine: fc.boolean() }).map((x) => ({ ...x, origin: "mutated" })));
  }
  for (const g of mat.generated) {
    const msg = mat.jsonrpc && /request$/i.test(g.kind)
      ? fc.tuple(g.arb, fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom("a", "0"))).map(([m, id]) => (m && typeof m === "object" ? { ...(m as object), id } : m))
      : g.arb;
    parts.push(fc.record({ message: msg, direction: dir, asLine: fc.boolean() }).map((x) => ({ ...x, origin: `schema:${g.kind}` })));
  }
  if (mat.jsonrpc) {
    // responses to whatever ids are pending: results and errors of any shape
    const resp = fc.record({ id: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom("a", "0")), body: fc.oneof(fc.record({ result: fc.jsonValue({ maxDepth: 3 }) }), fc.record({ error: fc.record({ code: fc.integer(), message: fc.string() }, { requiredKeys: [] }) })) })
      .map(({ id, body }) => ({ id, ...body }));
    parts.push(fc.record({ message: resp, direction: dir, asLine: fc.boolean() }).map((x) => ({ ...x, origin: "response" })));
  }
  // anything at all
  parts.push(fc.record({ message: fc.jsonValue({ maxDepth: 3 }), direction: dir, asLine: fc.boolean() }).map((x) => ({ ...x, origin: "json" })));
  return fc.oneof(...parts);
}

/** A sequence: drawn inputs, then some duplicated and the order shuffled. */
function sequenceArbitrary(surface: string, opts: Required<Pick<FuzzOptions, "hugeString" | "deepNesting">> & { maxLength: number }): fc.Arbitrary<Input[]> {
  return fc.tuple(fc.array(inputArbitrary(surface, opts), { minLength: 1, maxLength: opts.maxLength }), fc.array(fc.nat(), { maxLength: 4 }), fc.boolean())
    .chain(([xs, dups, shuffle]) => {
      const withDups = [...xs];
      for (const d of dups) withDups.splice(d % (withDups.length + 1), 0, xs[d % xs.length]);
      return shuffle ? fc.shuffledSubarray(withDups, { minLength: withDups.length, maxLength: withDups.length }) : fc.constant(withDups);
    });
}

const sum = (r: Record<string, number>) => { let s = 0; for (const k in r) s += r[k]; return s; };

function stringifyLine(m: unknown): string {
  try {
    return JSON.stringify(m) ?? "null";
  } catch {
    return "{\"unserializable\":true}";
  }
}

/** Run one sequence through a fresh normalizer; record what goes wrong into the report. */
export function runSequence(surface: string, seq: Input[], report: FuzzReport): void {
  const n = createNormalizer({ surface, ids: undefined, clock: () => 0 });
  const all: CanonicalEvent[] = [];
  let prev: NormalizerStats = n.stats();
  const note = (list: string[], s: string) => { if (list.length < 20) list.push(s); };
  for (let i = 0; i < seq.length; i++) {
    const x = seq[i];
    report.inputs++;
    report.origins[x.origin] = (report.origins[x.origin] ?? 0) + 1;
    let out: CanonicalEvent[];
    try {
      out = x.asLine ? n.pushLine(stringifyLine(x.message), { lineNumber: i + 1, direction: x.direction }) : n.push(x.message, { direction: x.direction });
    } catch (err) {
      note(report.escapes, `${x.origin} #${i}: ${(err as Error)?.stack?.split("\n").slice(0, 3).join(" | ") ?? err} :: ${stringifyLine(x.message).slice(0, 300)}`);
      continue;
    }
    const now = n.stats();
    const blankLine = x.asLine && stringifyLine(x.message).trim() === "";
    if (!blankLine && out.length === 0 && sum(now.ignored) === sum(prev.ignored) && sum(now.silent) === sum(prev.silent)) {
      note(report.unaccounted, `${x.origin} #${i}: no event, not ignored, no silent row :: ${stringifyLine(x.message).slice(0, 300)}`);
    }
    prev = now;
    for (const e of out) if (!validateCanonicalEvent(e)) note(report.invalid, `${x.origin} #${i}: ${e.type} ${JSON.stringify((validateCanonicalEvent as any).errors?.slice(0, 2))}`);
    report.events += out.length;
    all.push(...out);
  }
  let end: CanonicalEvent[] = [];
  try {
    end = n.end();
  } catch (err) {
    note(report.escapes, `end(): ${(err as Error)?.message ?? err}`);
  }
  for (const e of end) if (!validateCanonicalEvent(e)) note(report.invalid, `end: ${e.type}`);
  report.events += end.length;
  all.push(...end);
  for (const v of verifyEvents(all).violations) {
    const e = all.find((x) => x.sequence === v.sequence);
    note(report.violations, `${formatFinding(v)} (rule ${e?.raw?.rule})`);
  }
  report.runs++;
}

export function fuzzSurface(surface: string, options: FuzzOptions): FuzzReport {
  const opts = { hugeString: options.hugeString ?? 100_000, deepNesting: options.deepNesting ?? 2_000, maxLength: options.maxLength ?? 12 };
  const report: FuzzReport = { surface, runs: 0, inputs: 0, events: 0, escapes: [], invalid: [], unaccounted: [], violations: [], origins: {} };
  fc.assert(fc.property(sequenceArbitrary(surface, opts), (seq) => { runSequence(surface, seq, report); }), { seed: options.seed, numRuns: options.runs });
  return report;
}
