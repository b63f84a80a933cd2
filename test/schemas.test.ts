/**
 * Every JSON Schema the package ships (package.json "files" and "exports") compiles in ajv's strict mode with
 * ajv-formats and no other option (docs/versioning.md), and the published canonical schema — which leaves out the
 * OpenAPI `discriminator` keyword the precompiled validator is built with — gives the same verdict as that validator
 * on recorded events and on random mutations of them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const AjvCtor = require("ajv").default;
const addFormats = require("ajv-formats").default;
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The files a package.json pattern names (only `dir/*.json` globs and plain paths are used for JSON). */
function expand(pattern: string): string[] {
  if (!pattern.endsWith(".json")) return [];
  const star = pattern.lastIndexOf("*");
  if (star < 0) return [pattern];
  const dir = pattern.slice(0, pattern.lastIndexOf("/", star));
  if (dir.includes("*")) return []; // schemas/upstream/** holds only LICENSE / PROVENANCE files in "files"
  const suffix = pattern.slice(star + 1);
  return readdirSync(join(ROOT, dir)).filter((f) => f.endsWith(suffix)).map((f) => `${dir}/${f}`);
}

const shipped = [...new Set([
  ...(pkg.files as string[]).flatMap(expand),
  ...Object.values(pkg.exports as Record<string, unknown>).filter((v): v is string => typeof v === "string").map((v) => v.replace(/^\.\//, "")).filter((v) => v.endsWith(".json")),
])].filter((f) => "$schema" in JSON.parse(readFileSync(join(ROOT, f), "utf8"))).sort();

const strictAjv = () => {
  const ajv = new AjvCtor({ strict: true });
  addFormats(ajv);
  return ajv;
};
const load = (f: string) => JSON.parse(readFileSync(join(ROOT, f), "utf8"));

describe("every shipped schema compiles in ajv strict mode with ajv-formats", () => {
  it("the list is the package's schemas", () => {
    expect(shipped).toEqual(["generated/canonical.schema.json", "schemas/bridge.schema.json", "schemas/capture/capture-envelope.schema.json", "schemas/chat-event.schema.json"]);
  });

  for (const f of shipped) {
    it(`${f}: new Ajv({ strict: true }) + ajv-formats`, () => {
      expect(() => strictAjv().compile(load(f))).not.toThrow();
    });
  }

  it("strict mode still refuses what the fixes removed (the test would catch them coming back)", () => {
    const ajv = strictAjv();
    expect(() => ajv.compile({ type: "object", properties: { a: {} }, discriminator: { propertyName: "a" }, oneOf: [{ properties: { a: { const: 1 } } }] })).toThrow(/discriminator/);
    expect(() => strictAjv().compile({ type: "object", properties: { a: {} }, if: { properties: { a: { const: 1 } } }, then: { required: ["b"] } })).toThrow(/strictRequired/);
    expect(() => strictAjv().compile({ oneOf: [{ type: "object" }], required: ["a"] })).toThrow(/strictTypes/);
    // and the canonical schema needs its date-time format: no format plugin, no compile
    expect(() => new AjvCtor({ strict: true }).compile(load("generated/canonical.schema.json"))).toThrow(/date-time/);
  });
});

describe("the published canonical schema and the precompiled validator agree", () => {
  const validate = strictAjv().compile(load("generated/canonical.schema.json"));
  const REC = join(ROOT, "fixtures/recorded");
  const events: any[] = readdirSync(REC, { withFileTypes: true }).filter((d) => d.isDirectory()).flatMap((d) =>
    readdirSync(join(REC, d.name)).filter((f) => f.endsWith(".expected.ndjson")).flatMap((f) =>
      readFileSync(join(REC, d.name, f), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))));
  const types = [...new Set(events.map((e) => e.type))];
  const itemTypes = [...new Set(events.map((e) => e.payload?.itemType).filter((x) => typeof x === "string"))];

  it("on every recorded event (all valid)", () => {
    expect(events.length).toBeGreaterThan(500);
    for (const e of events) {
      expect(validateCanonicalEvent(e), `${e.type} #${e.sequence}`).toBe(true);
      expect(validate(e), `${e.type} #${e.sequence}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it("on random mutations: another type, another itemType, a payload field dropped, changed or added", () => {
    // createdAt is left alone: ajv-formats checks calendar dates (no 30 February), the validator's regex only the shape.
    const json = fc.jsonValue({ maxDepth: 2 });
    const mutation = fc.oneof(
      fc.record({ k: fc.constant("type"), t: fc.constantFrom(...types) }),
      fc.record({ k: fc.constant("itemType"), t: fc.constantFrom(...itemTypes, "no_such_item") }),
      fc.record({ k: fc.constant("drop"), i: fc.nat() }),
      fc.record({ k: fc.constant("set"), i: fc.nat(), v: json }),
      fc.record({ k: fc.constant("add"), name: fc.string({ minLength: 1, maxLength: 8 }), v: json }),
      fc.record({ k: fc.constant("payload"), v: json }),
    );
    let rejected = 0;
    fc.assert(fc.property(fc.nat({ max: events.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (i, ms) => {
      const e = structuredClone(events[i]);
      for (const m of ms as any[]) {
        const p = e.payload && typeof e.payload === "object" && !Array.isArray(e.payload) ? e.payload : undefined;
        const keys = p ? Object.keys(p) : [];
        if (m.k === "type") e.type = m.t;
        else if (m.k === "itemType" && p) p.itemType = m.t;
        else if (m.k === "drop" && keys.length) delete p![keys[m.i % keys.length]];
        else if (m.k === "set" && keys.length) p![keys[m.i % keys.length]] = m.v;
        else if (m.k === "add" && p) Object.defineProperty(p, m.name, { value: m.v, enumerable: true, writable: true, configurable: true });
        else if (m.k === "payload") e.payload = m.v;
      }
      const a = validateCanonicalEvent(e) === true;
      const b = validate(e) === true;
      if (!a) rejected++;
      expect(b, `${e.type}: validator ${a}, published schema ${b}`).toBe(a);
    }), { seed: 20261206, numRuns: 400 });
    expect(rejected).toBeGreaterThan(100); // the mutations do produce invalid events
  });
});
