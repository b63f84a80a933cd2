/**
 * Our own Claude SDKMessage schemas (schemas/upstream/claude-agent-sdk/<version>, written from field names because the
 * package is all-rights-reserved) checked against the installed devDependencies' typings — 0.2.62 as
 * `@anthropic-ai/claude-agent-sdk`, 0.3.333 under the alias `claude-agent-sdk-0.3`: every member of the SDKMessage
 * union, its `type`/`subtype` literals and its top-level fields must be in our schema of that version, and (0.3) every
 * control request subtype in our Control.json and every canUseTool option and PermissionResult field in our
 * Permission.json. Nothing of the package is copied; the test only reads it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const ours = (version: string, file: string) => JSON.parse(readFileSync(new URL(`../schemas/upstream/claude-agent-sdk/${version}/${file}`, import.meta.url), "utf8"));

function typings(pkg: string): string | undefined {
  // the package folder on the resolution path (0.3's exports do not list package.json)
  const dir = (require.resolve.paths(pkg) ?? []).map((p) => join(p, pkg)).find((d) => existsSync(join(d, "package.json")));
  if (dir && existsSync(join(dir, "sdk.d.ts"))) {
    const version = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
    return `// version ${version}\n${readFileSync(join(dir, "sdk.d.ts"), "utf8")}`;
  }
  console.warn(`claude-schema-vs-sdk: ${pkg} is not installed (devDependency); skipped`);
  return undefined;
}

interface Member { name: string; types: string[]; subtypes: string[]; fields: string[] }

/** The declarations of one typings file. */
function reader(dts: string) {
  const declaration = (name: string): string | undefined => {
    const m = new RegExp(`(?:export )?declare type ${name} = `).exec(dts);
    if (!m) return undefined;
    const rest = dts.slice(m.index);
    const end = rest.search(/\n(export |declare |\/\*\*)/);
    return rest.slice(0, end < 0 ? undefined : end);
  };
  const members = (name: string, undeclared: Set<string>, seen = new Set<string>()): Member[] => {
    if (seen.has(name)) return [];
    seen.add(name);
    const decl = declaration(name);
    if (!decl) return undeclared.has(name) ? [] : [{ name, types: [], subtypes: [], fields: [] }];
    const body = decl.slice(decl.indexOf("=") + 1).trim();
    if (!body.startsWith("{")) {
      // an alias or union of other named types
      return body.replace(/;$/, "").split("|").map((s) => s.trim()).filter((s) => /^[A-Z][A-Za-z]*$/.test(s)).flatMap((n) => members(n, undeclared, seen));
    }
    const fields = [...body.matchAll(/^ {4}([a-z_A-Z]+)\??:/gm)].map((m) => m[1]);
    const lit = (key: string) => {
      const m = new RegExp(`^ {4}${key}\\??: ([^;]+);`, "m").exec(body);
      return m ? [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]) : [];
    };
    return [{ name, types: lit("type"), subtypes: lit("subtype"), fields }];
  };
  const union = (name: string) => new RegExp(`declare type ${name} = ([^;]+);`).exec(dts)![1].split("|").map((s) => s.trim());
  return { declaration, members, union };
}

function checkMembers(schema: any, all: Member[]) {
  for (const m of all) {
    it(`${m.name}: type ${m.types.join("|")}${m.subtypes.length ? ` subtype ${m.subtypes.join("|")}` : ""} and its fields are in our schema`, () => {
      expect(m.types.length, `${m.name} declares a type literal`).toBeGreaterThan(0);
      for (const t of m.types) {
        const variant = schema.oneOf.find((v: any) => (v.properties.type.enum ?? [v.properties.type.const]).includes(t));
        expect(variant, `type "${t}" has a variant`).toBeDefined();
        const subtypeEnum: string[] = variant.properties.subtype?.enum ?? [];
        for (const st of m.subtypes) expect(subtypeEnum, `subtype "${st}" of "${t}"`).toContain(st);
        const own = new Set(Object.keys(variant.properties));
        expect(m.fields.filter((f) => !own.has(f)), `fields of ${m.name} missing from our "${t}" variant`).toEqual([]);
      }
    });
  }
}

const dts62 = typings("@anthropic-ai/claude-agent-sdk");
describe.skipIf(!dts62)("our Claude SDKMessage schema vs the installed @anthropic-ai/claude-agent-sdk@0.2.62 typings", () => {
  /** Two members the 0.2.62 typings name in the union but never declare (the CLI's runtime validator declares them). */
  const UNDECLARED = new Set(["SDKRateLimitEvent", "SDKPromptSuggestionMessage"]);
  const r = reader(dts62 ?? "");
  const union = dts62 ? r.union("SDKMessage") : [];

  it("the installed package is 0.2.62", () => expect(dts62).toMatch(/^\/\/ version 0\.2\.62\n/));
  it("the union still has the 20 members we describe (2 of them undeclared in 0.2.62)", () => {
    expect(union).toHaveLength(20);
    expect(union.filter((n) => !r.declaration(n)).sort()).toEqual([...UNDECLARED].sort());
  });
  checkMembers(ours("0.2.62", "SDKMessage.json"), union.flatMap((n) => r.members(n, UNDECLARED)));
});

const dts03 = typings("claude-agent-sdk-0.3");
describe.skipIf(!dts03)("our Claude schemas vs the installed @anthropic-ai/claude-agent-sdk@0.3.333 typings (alias claude-agent-sdk-0.3)", () => {
  const r = reader(dts03 ?? "");
  const union = dts03 ? r.union("SDKMessage") : [];
  const none = new Set<string>();

  it("the installed package is 0.3.333", () => expect(dts03).toMatch(/^\/\/ version 0\.3\.333\n/));
  it("the union has the 40 members we describe, all declared", () => {
    expect(union).toHaveLength(40);
    expect(union.filter((n) => !r.declaration(n))).toEqual([]);
  });
  // SDKActiveGoalMessage is declared beside the union (the SDK passes it on): our schema has it too
  checkMembers(ours("0.3.333", "SDKMessage.json"), [...union, "SDKActiveGoalMessage"].flatMap((n) => r.members(n, none)));

  it("every control_request subtype (41) is in our Control.json, and no other", () => {
    const inner = dts03 ? r.union("SDKControlRequestInner") : [];
    const subtypes = inner.flatMap((n) => r.members(n, none)).flatMap((m) => m.subtypes);
    expect(subtypes).toHaveLength(41);
    const request = ours("0.3.333", "Control.json").oneOf.find((v: any) => v.properties.type.enum.includes("control_request"));
    expect([...request.properties.request.properties.subtype.enum].sort()).toEqual([...subtypes].sort());
  });

  it("the fields of the can_use_tool, elicitation and request_user_dialog requests are in our Control.json", () => {
    const request = ours("0.3.333", "Control.json").oneOf.find((v: any) => v.properties.type.enum.includes("control_request"));
    const own = new Set(Object.keys(request.properties.request.properties));
    for (const n of ["SDKControlPermissionRequest", "SDKControlElicitationRequest", "SDKControlRequestUserDialogRequest"]) {
      const [m] = r.members(n, none);
      expect(m.fields.filter((f) => !own.has(f)), n).toEqual([]);
    }
  });

  it("canUseTool's options and PermissionResult's fields are in our Permission.json", () => {
    const perm = ours("0.3.333", "Permission.json");
    const decl = /export declare type CanUseTool = \(toolName: string, input: Record<string, unknown>, options: \{([\s\S]*?)\n\}\) =>/.exec(dts03!)![1];
    const options = [...decl.matchAll(/^ {4}([a-zA-Z]+)\??:/gm)].map((m) => m[1]).filter((f) => f !== "signal");
    expect(options).toContain("requestId");
    const own = new Set(Object.keys(perm.definitions.PermissionRequest.properties.options.properties));
    expect(options.filter((f) => !own.has(f))).toEqual([]);
    const result = /export declare type PermissionResult = ([\s\S]*?\n\});/.exec(dts03!)![1];
    const fields = [...new Set([...result.matchAll(/^ {4}([a-zA-Z]+)\??:/gm)].map((m) => m[1]))];
    expect(fields).toContain("decisionClassification");
    for (const v of perm.oneOf) for (const f of fields.filter((x) => x !== "behavior" && x !== "message" && x !== "interrupt" && x !== "updatedInput" && x !== "updatedPermissions")) expect(Object.keys(v.properties), `${v.title}: ${f}`).toContain(f);
  });
});
