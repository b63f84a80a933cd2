/**
 * Our own Claude SDKMessage schema (schemas/upstream/claude-agent-sdk/0.2.62, written from field names because the
 * package is all-rights-reserved) checked against the installed devDependency's typings: every member of the
 * SDKMessage union, its `type`/`subtype` literals and its top-level fields must be in our schema. Nothing of the
 * package is copied; the test only reads it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const schema = JSON.parse(readFileSync(new URL("../schemas/upstream/claude-agent-sdk/0.2.62/SDKMessage.json", import.meta.url), "utf8"));
let dts: string | undefined;
try {
  const require = createRequire(import.meta.url);
  const file = join(dirname(require.resolve("@anthropic-ai/claude-agent-sdk/package.json")), "sdk.d.ts");
  if (existsSync(file)) dts = readFileSync(file, "utf8");
} catch { /* not installed */ }
if (!dts) console.warn("claude-schema-vs-sdk: @anthropic-ai/claude-agent-sdk is not installed (devDependency); skipped");

/** Two members the 0.2.62 typings name in the union but never declare (the CLI's runtime validator declares them). */
const UNDECLARED = new Set(["SDKRateLimitEvent", "SDKPromptSuggestionMessage"]);

interface Member { name: string; types: string[]; subtypes: string[]; fields: string[] }

function declaration(name: string): string | undefined {
  const start = dts!.indexOf(`export declare type ${name} = `);
  if (start < 0) return undefined;
  const rest = dts!.slice(start);
  const end = rest.search(/\n(export |declare |\/\*\*)/);
  return rest.slice(0, end < 0 ? undefined : end);
}

function members(name: string, seen = new Set<string>()): Member[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const decl = declaration(name);
  if (!decl) return UNDECLARED.has(name) ? [] : [{ name, types: [], subtypes: [], fields: [] }];
  const body = decl.slice(decl.indexOf("=") + 1).trim();
  if (!body.startsWith("{")) {
    // an alias or union of other named types
    return body.replace(/;$/, "").split("|").map((s) => s.trim()).filter((s) => /^[A-Z][A-Za-z]*$/.test(s)).flatMap((n) => members(n, seen));
  }
  const fields = [...body.matchAll(/^ {4}([a-z_A-Z]+)\??:/gm)].map((m) => m[1]);
  const lit = (key: string) => {
    const m = new RegExp(`^ {4}${key}\\??: ([^;]+);`, "m").exec(body);
    return m ? [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]) : [];
  };
  return [{ name, types: lit("type"), subtypes: lit("subtype"), fields }];
}

describe.skipIf(!dts)("our Claude SDKMessage schema vs the installed @anthropic-ai/claude-agent-sdk@0.2.62 typings", () => {
  const union = dts ? /export declare type SDKMessage = ([^;]+);/.exec(dts)![1].split("|").map((s) => s.trim()) : [];
  const all = union.flatMap((n) => members(n));

  it("the union still has the 20 members we describe (2 of them undeclared in 0.2.62)", () => {
    expect(union).toHaveLength(20);
    expect(union.filter((n) => !declaration(n)).sort()).toEqual([...UNDECLARED].sort());
  });

  for (const m of all) {
    it(`${m.name}: type ${m.types.join("|")}${m.subtypes.length ? ` subtype ${m.subtypes.join("|")}` : ""} and its fields are in our schema`, () => {
      expect(m.types.length, `${m.name} declares a type literal`).toBeGreaterThan(0);
      for (const t of m.types) {
        const variant = schema.oneOf.find((v: any) => (v.properties.type.enum ?? [v.properties.type.const]).includes(t));
        expect(variant, `type "${t}" has a variant`).toBeDefined();
        const subtypeEnum: string[] = variant.properties.subtype?.enum ?? [];
        for (const st of m.subtypes) expect(subtypeEnum, `subtype "${st}" of "${t}"`).toContain(st);
        const ours = new Set(Object.keys(variant.properties));
        expect(m.fields.filter((f) => !ours.has(f)), `fields of ${m.name} missing from our "${t}" variant`).toEqual([]);
      }
    });
  }
});
