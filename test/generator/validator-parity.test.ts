/**
 * The generated validator (generator/validator.ts → generated/validators/canonical-event.gen.ts) against ajv, the
 * library it replaced: the same schema (the generator's own validatorInput of the canonical model) compiled by
 * ajv with the options buildValidator gave it (referenceAjv), on every event the bundled fixtures normalize to and
 * on thousands of seeded mutations of them. Every case must get the same verdict and the same `.errors`
 * (deep-equal, and the same JSON text: the runtime writes them into runtime.error events), for whole events and
 * for each payload validator. Also: a keyword the compiler does not implement is a diagnostic, not a silent pass.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import type { ValidateFunction } from "ajv";
import { buildJsonSchema, buildValidator, loadCanonical, payloadDefinitions, referenceAjv, validatorInput, type CanonicalModel } from "../../generator/canonical.ts";
import { DiagnosticError } from "../../generator/diagnostics.ts";
import { compileValidator, UnsupportedSchema } from "../../generator/validator.ts";
import { PAYLOAD_VALIDATORS, validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.ts";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.ts";
import { createNormalizer } from "../../src/normalize/normalizer.ts";
import { counterIds, steppingClock } from "../../src/normalize/ids.ts";
import { rng } from "../support/secret-classes.ts";
import { transformSync } from "esbuild";
import { ROOT } from "./gen.ts";

const CANONICAL = "schemas/canonical/canonical.yaml";
type Check = ((d: unknown) => boolean) & { errors?: unknown };

let model: CanonicalModel;
let ajvEvent: ValidateFunction;
const ajvPayload = new Map<string, ValidateFunction>();
const ours = PAYLOAD_VALIDATORS as Record<string, Check>;

beforeAll(() => {
  const c = loadCanonical(CANONICAL, readFileSync(join(ROOT, CANONICAL), "utf8"));
  expect(c.diagnostics).toEqual([]);
  model = c.model!;
  const published = validatorInput(buildJsonSchema(model));
  const ajv = referenceAjv();
  ajv.addSchema(published, "event");
  ajvEvent = ajv.getSchema("event")!;
  for (const [type, def] of payloadDefinitions(published)) ajvPayload.set(type, ajv.getSchema(`event#/definitions/${def}`)!);
  expect([...ajvPayload.keys()].sort()).toEqual(Object.keys(ours).sort());
});

/** Both validators on one value: the verdict and the errors must be the same (and the same JSON). */
function same(theirs: ValidateFunction, mine: Check, value: unknown, what: string): boolean {
  const a = theirs(value);
  const b = mine(value);
  const ea = theirs.errors ?? null;
  const eb = mine.errors ?? null;
  // (expect only on a difference: hundreds of thousands of calls)
  if (a !== b || JSON.stringify(ea) !== JSON.stringify(eb) || !isDeepStrictEqual(ea, eb)) {
    expect({ what, value, errors: eb, valid: b }).toStrictEqual({ what, value, errors: ea, valid: a });
  }
  return a;
}

const INPUT = /\.(ndjson|jsonl|json|txt)$/;
function walk(dir: string, acc: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) {
      if (name !== "node_modules") walk(p, acc);
    } else if (INPUT.test(name) && s.size > 0) acc.push(p);
  }
  return acc;
}

/** Every event the bundled fixtures normalize to: each file by every surface, as bench/output-hash.ts does. */
function fixtureEvents(): unknown[] {
  const out: unknown[] = [];
  for (const file of walk(join(ROOT, "fixtures"), [])) {
    const lines = readFileSync(file, "utf8").split("\n");
    for (const surface of SURFACE_NAMES) {
      const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
      for (let i = 0; i < lines.length; i++) out.push(...n.pushLine(lines[i], { lineNumber: i + 1 }));
      out.push(...n.end());
    }
  }
  return out;
}

/** One event per distinct shape (strings other than the model's names blanked, numbers zeroed): what to mutate. */
function distinctShapes(events: unknown[]): unknown[] {
  const names = new Set<string>([...Object.values(model.enums).flat(), ...model.eventTypes]);
  const seen = new Set<string>();
  return events.filter((e) => {
    const shape = JSON.stringify(e, (_, v) => (typeof v === "string" ? (names.has(v) ? v : "") : typeof v === "number" ? 0 : v));
    return !seen.has(shape) && !!seen.add(shape);
  }).map((e) => JSON.parse(JSON.stringify(e)));
}

type Path = (string | number)[];
/** Every path into a value (objects' keys and arrays' indices), the value itself first. */
function paths(v: unknown, at: Path = [], acc: Path[] = []): Path[] {
  acc.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], acc));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) paths(x, [...at, k], acc);
  return acc;
}
const get = (v: any, p: Path) => p.reduce((x, k) => x?.[k], v);

/** Seeded random mutations of an event: wrong types, missing and unknown keys, bad values, deep inside too. */
function mutator(seed: number) {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const one = <T,>(xs: readonly T[]): T => xs[int(xs.length)];
  const enumValues = Object.values(model.enums).flat();
  const word = () => one(["", "x", "a/b", "t~1", "evt_", "itm_", "itm_ok", "itm_ bad", "thr_1", "ses_é", "req_1", "evt_1.2:3-4"]);
  const strings = () => [
    word(), one(enumValues), one(enumValues) + "x", one(enumValues).toUpperCase(), one(model.eventTypes), one(model.eventTypes) + ".x",
    one(["2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123+02:00", "2026-13-02T03:04:05Z", "2026-01-32T00:00:00Z", "2026-01-02 03:04:05Z", "2026-01-02T24:00:00Z", "2026-01-02T03:04:60Z", "2026-01-02T03:04:05", "2026-01-02t03:04:05z", "yesterday"]),
  ];
  const values = (): unknown[] => [
    ...strings(), 0, 1, -1, 2, 1.5, 1e21, -0, NaN, Infinity, -Infinity, null, true, false, [], ["x"], [1, "a", null], {}, { a: 1 }, { itemType: one(enumValues) },
  ];
  const keys = ["zzz", "a/b", "~x", "constructor", "toString", "__proto__", "payload", "type", "raw", "itemType", "id"];
  return (event: unknown): unknown => {
    if (r() < 0.03) return one([null, undefined, "event", 42, [], [event], true]);
    const e = structuredClone(event) as any;
    const n = 1 + int(3);
    for (let m = 0; m < n; m++) {
      const all = paths(e);
      // mostly inside the payload (where the variants and nested lists are), sometimes the envelope
      const inPayload = all.filter((p) => p[0] === "payload" && p.length > 1);
      const p = inPayload.length && r() < 0.7 ? one(inPayload) : one(all);
      if (!p.length) continue;
      const parent = get(e, p.slice(0, -1));
      const key = p[p.length - 1];
      const here = get(e, p);
      const kind = int(10);
      if (kind === 0 && !Array.isArray(parent)) delete parent[key];
      else if (kind === 1 && here && typeof here === "object" && !Array.isArray(here)) Object.defineProperty(here, one(keys), { value: one(values()), enumerable: true, configurable: true, writable: true });
      else if (kind === 2 && typeof here === "string") parent[key] = one(strings());
      else if (kind === 3 && typeof here === "number") parent[key] = one([0, -1, 1.5, NaN, Infinity, String(here), null]);
      else if (kind === 4 && Array.isArray(here)) here.push(one(values()), ...(r() < 0.5 && here.length ? [structuredClone(here[0])] : []));
      else if (kind === 5) parent[key] = undefined;
      else if (kind === 6 && p[0] !== "payload") e.type = one([...model.eventTypes, "nope", 3, null]);
      else if (kind === 7) e.sequence = one([0, -1, 1.5, "1", 1, 2 ** 53]);
      else parent[key] = one(values());
    }
    return e;
  };
}

describe("the generated validator against ajv (same schema, the options it was built with)", () => {
  let events: unknown[];
  let shapes: unknown[];
  beforeAll(() => {
    events = fixtureEvents();
    shapes = distinctShapes(events);
  }, 240_000);

  it("every event the fixtures normalize to: valid, with errors null, in both", () => {
    expect(events.length).toBeGreaterThan(100_000);
    expect(shapes.length).toBeGreaterThan(1000);
    const types = new Set<string>();
    let invalid = 0;
    for (const e of events) {
      const ev = e as { type: string; payload: unknown };
      if (!same(ajvEvent, validateCanonicalEvent as Check, ev, "event")) invalid++;
      if (!same(ajvPayload.get(ev.type)!, ours[ev.type], ev.payload, `payload of ${ev.type}`)) invalid++;
      types.add(ev.type);
    }
    expect(invalid).toBe(0);
    expect(types.size).toBeGreaterThan(25);
  });

  it("50,000 seeded mutations of them (of each distinct shape in turn): the same verdicts and the same errors, for events and payloads", () => {
    const mutate = mutator(20260518);
    const r = rng(7);
    const types = Object.keys(ours);
    const verdicts = { valid: 0, invalid: 0 };
    const keywords = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      const base = shapes[i % shapes.length] as { type: string };
      const m = mutate(base) as any;
      const ok = same(ajvEvent, validateCanonicalEvent as Check, m, `mutation ${i} of a ${base.type} event`);
      verdicts[ok ? "valid" : "invalid"]++;
      if (!ok) for (const x of ajvEvent.errors ?? []) keywords.set(x.keyword, (keywords.get(x.keyword) ?? 0) + 1);
      // the payload by its own type's validator, and by another type's
      if (m && typeof m === "object" && "payload" in m) {
        const own = typeof m.type === "string" && ajvPayload.has(m.type) ? m.type : base.type;
        same(ajvPayload.get(own)!, ours[own], m.payload, `payload of mutation ${i} (${own})`);
        const other = types[Math.floor(r() * types.length)];
        same(ajvPayload.get(other)!, ours[other], m.payload, `payload of mutation ${i} as ${other}`);
      }
    }
    // the mutations reach every kind of check the schema has, and leave some events valid
    expect(verdicts.valid).toBeGreaterThan(1000);
    expect(verdicts.invalid).toBeGreaterThan(30_000);
    // (no discriminator error: the tags' enums are checked first, see the synthetic schema below)
    expect([...keywords.keys()].sort()).toEqual(["additionalProperties", "const", "enum", "format", "minimum", "pattern", "required", "type"]);
  });
});

/**
 * A small schema using every keyword the compiler implements in the combinations the canonical schema does not
 * (untyped keywords beside typed ones, a type list with a typed keyword, a discriminator whose tag is not
 * checked first, additionalProperties as a schema beside properties, nested items), compiled by both.
 */
const SYNTHETIC = {
  $id: "synthetic",
  type: "object",
  required: ["u"],
  properties: {
    u: { $ref: "#/definitions/U" },
    list: { type: "array", items: { $ref: "#/definitions/U" } },
    loose: { $ref: "#/definitions/Loose" },
    c: { const: 5 },
    n: { enum: [1, "1", null, true] },
    any: {},
    grid: { type: "array", items: { type: "array", items: { type: "integer", minimum: -2 } } },
  },
  allOf: [{ required: ["c"] }, { $ref: "#/definitions/Kinded" }],
  definitions: {
    Id: { type: "string", pattern: "^id_[a-z]+$" },
    Kinded: { properties: { kind: { type: "string", enum: ["a", "b"] } } },
    A: { type: "object", additionalProperties: false, required: ["kind"], properties: { kind: { const: "a" }, n: { type: "integer", minimum: 0 }, ids: { type: "array", items: { $ref: "#/definitions/Id" } } } },
    B: {
      type: "object", required: ["kind", "when"],
      properties: {
        kind: { enum: ["b", "c"] }, when: { type: "string", format: "date-time" }, x: { type: ["number", "null"], minimum: 2 },
        m: { type: "object", properties: { fixed: { type: "boolean" } }, additionalProperties: { type: "array", items: { type: "string" } } },
      },
    },
    U: { type: "object", required: ["kind"], discriminator: { propertyName: "kind" }, oneOf: [{ $ref: "#/definitions/A" }, { $ref: "#/definitions/B" }] },
    Loose: { required: ["z"], minimum: 3, pattern: "^q", enum: ["q", "qq", 2, 4, { z: 1 }].slice(0, 4), properties: { z: { type: "integer" } } },
  },
};

describe("the generated validator against ajv on a synthetic schema", () => {
  it("20,000 random values: the same verdicts and errors", () => {
    const ajv = referenceAjv({ strictTypes: false, strictRequired: false, allowUnionTypes: true });
    const theirs = ajv.compile(SYNTHETIC);
    const code = compileValidator(SYNTHETIC, { formats: { "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ }, rootExport: "validateSynthetic", payloads: [["u", "U"]] });
    const js = transformSync(code, { loader: "ts", format: "cjs" }).code;
    const mod: { exports: Record<string, any> } = { exports: {} };
    new Function("module", "exports", js)(mod, mod.exports);
    const mine = mod.exports.validateSynthetic as Check;
    const ajvU = ajv.getSchema("synthetic#/definitions/U")!;
    const r = rng(99);
    const int = (n: number) => Math.floor(r() * n);
    const one = <T,>(xs: readonly T[]): T => xs[int(xs.length)];
    const leaf = () => one<unknown>(["a", "b", "c", "q", "qq", "x", "id_ab", "id_1", "2026-01-02T03:04:05Z", "2026-01-02", 0, 1, 2, 3, 4, 5, -1, -3, 1.5, NaN, Infinity, null, true, false, "1", [], {}]);
    const value = (depth: number): unknown => {
      if (depth > 3 || r() < 0.3) return leaf();
      if (r() < 0.3) return Array.from({ length: int(4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let k = int(5); k > 0; k--) o[one(["u", "list", "loose", "c", "n", "any", "grid", "kind", "n", "ids", "when", "x", "m", "z", "fixed", "extra", "a/b~"])] = value(depth + 1);
      if (r() < 0.5) o.kind = one(["a", "b", "c", "d", 1, null]);
      return o;
    };
    // mostly well-formed branches, then one random change in a third of them
    const u = (): Record<string, unknown> => {
      const kind = one(["a", "a", "b", "c", "d", 3]);
      const o: Record<string, unknown> = kind === "a"
        ? { kind, ...(r() < 0.5 ? { n: one([0, 1, 7]) } : {}), ...(r() < 0.5 ? { ids: one([["id_a"], ["id_a", "id_b"], []]) } : {}) }
        : { kind, when: "2026-01-02T03:04:05Z", ...(r() < 0.5 ? { x: one([null, 2, 3.5]) } : {}), ...(r() < 0.5 ? { m: one([{}, { fixed: true, k: ["s"] }, { "a/b~": [] }]) } : {}) };
      if (r() < 0.35) o[one(["kind", "n", "ids", "when", "x", "m", "extra"])] = one([value(2), "id_", ["id_a", "id_"], [1], 1.5, -1, 1, "x", null, { fixed: 1 }, { k: ["s", 1] }, { "a/b~": [2] }, "2026-01-02"]);
      return o;
    };
    const seen = new Set<string>();
    let valid = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = r() < 0.7 ? { u: u(), c: one([5, 5, 5, 5, 4, "5"]), ...(r() < 0.5 ? { kind: one(["a", "b", "z"]) } : {}), ...(r() < 0.3 ? { list: [u(), u()] } : {}), ...(r() < 0.3 ? { loose: value(1) } : {}), ...(r() < 0.3 ? { n: leaf() } : {}), ...(r() < 0.3 ? { grid: one([[[1, -2]], [[-3]], [1], [[1.5]], [["1"]]]) } : {}), ...(r() < 0.2 ? { any: value(1) } : {}) } : value(0);
      if (same(theirs, mine, v, `synthetic value ${i}`)) valid++;
      for (const x of theirs.errors ?? []) seen.add(`${x.keyword}${x.keyword === "discriminator" ? `:${(x.params as { error: string }).error}` : ""}`);
      if (v && typeof v === "object" && "u" in v) same(ajvU, mod.exports.PAYLOAD_VALIDATORS.u, v.u, `synthetic u ${i}`);
    }
    expect(valid).toBeGreaterThan(1000);
    expect([...seen].sort()).toEqual(["additionalProperties", "const", "discriminator:mapping", "discriminator:tag", "enum", "format", "minimum", "pattern", "required", "type"]);
  });
});

describe("the compiler refuses what it does not implement", () => {
  const schema = () => validatorInput(buildJsonSchema(model));
  const opts = { formats: { "date-time": /^x$/ }, rootExport: "validateCanonicalEvent", payloads: [] as [string, string][] };

  it("compiles the canonical schema (and the committed module is what it compiles to)", () => {
    const code = compileValidator(schema(), { ...opts, payloads: payloadDefinitions(schema()) });
    expect(code).toContain("export const validateCanonicalEvent = validator(CanonicalEvent);");
    expect(readFileSync(join(ROOT, "generated/validators/canonical-event.gen.ts"), "utf8")).toContain(buildValidator(buildJsonSchema(model), model));
  });

  it.each([
    ["maxLength", { type: "string", maxLength: 3 }, 'keyword "maxLength" is not implemented'],
    ["anyOf", { anyOf: [{ type: "string" }, { type: "number" }] }, 'keyword "anyOf" is not implemented'],
    ["oneOf", { oneOf: [{ type: "string" }, { type: "number" }] }, "oneOf without a discriminator"],
    ["format", { type: "string", format: "email" }, 'format "email" is not one the generated validator knows'],
    ["items", { type: "array", items: [{ type: "string" }] }, "items as a list"],
    ["const", { const: { a: 1 } }, "a non-primitive const"],
    ["$ref", { $ref: "#/definitions/EventId", type: "string" }, '"type" beside "$ref"'],
    ["speling", { type: "string", speling: 1 }, 'unknown keyword: "speling"'],
  ])("%s → UnsupportedSchema at that keyword", (keyword, sub, message) => {
    const s = schema();
    s.definitions.ThreadStartedPayload.properties.providerThreadId = sub;
    let thrown: unknown;
    try {
      compileValidator(s, opts);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UnsupportedSchema);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as UnsupportedSchema).path.slice(0, 4)).toEqual(["definitions", "ThreadStartedPayload", "properties", "providerThreadId"]);
  });

  it("a definition nothing references is held to the same subset", () => {
    const s = schema();
    s.definitions.Unused = { type: "string", minLength: 1 };
    expect(() => compileValidator(s, opts)).toThrow(/"minLength" is not implemented/);
  });

  it("buildValidator reports it as E112 at the keyword in canonical.yaml", () => {
    const text = readFileSync(join(ROOT, CANONICAL), "utf8");
    const line = "    properties: { providerThreadId: { type: string } }";
    expect(text).toContain(`  thread.started:\n${line}\n`);
    const broken = text.replace(`  thread.started:\n${line}\n`, `  thread.started:\n${line.replace("type: string", "type: string, maxLength: 3")}\n`);
    const m = loadCanonical(CANONICAL, broken).model!;
    let thrown: unknown;
    try {
      buildValidator(buildJsonSchema(m), m);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DiagnosticError);
    const [d] = (thrown as DiagnosticError).diagnostics;
    expect(d.code).toBe("E112");
    expect(d.file).toBe(CANONICAL);
    expect(d.line).toBe(broken.split("\n").findIndex((l) => l.includes("maxLength: 3")) + 1);
    expect(d.message).toContain('keyword "maxLength" is not implemented by the generated validator');
  });
});
