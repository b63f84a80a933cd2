/**
 * Our own Claude SDKMessage schemas (schemas/upstream/claude-agent-sdk/<version>, written from field names because the
 * package is all-rights-reserved) checked against the installed devDependencies' typings — 0.2.62 as
 * `@anthropic-ai/claude-agent-sdk`, 0.3.337 (the tables' own pin) under the alias `claude-agent-sdk-0.3`, 0.3.333 from the
 * recorder's cache (or `$AGENTNORM_CLAUDE_SDK_0333`): every member of the SDKMessage
 * union, its `type`/`subtype` literals and its top-level fields must be in our schema of that version, and (0.3) every
 * control request subtype in our Control.json and every canUseTool option and PermissionResult field in our
 * Permission.json. Nothing of the package is copied; the test only reads it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
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

/**
 * The 0.3 line's checks, for one version: the SDKMessage members, the control subtypes, the request fields, canUseTool's
 * options and PermissionResult's fields, and (`literals`) string-literal unions whose values must all be in an enum
 * of ours.
 */
interface Shape { members: number; controls: number; extra: string[]; requestId: boolean }
const SHAPE_03: Shape = { members: 40, controls: 41, extra: ["SDKActiveGoalMessage"], requestId: true };
function describe03(version: string, dts: string | undefined, where: string, literals: [alias: string, enums: (schemas: (file: string) => any) => string[][]][] = [], shape: Shape = SHAPE_03) {
  describe.skipIf(!dts)(`our Claude schemas vs the @anthropic-ai/claude-agent-sdk@${version} typings (${where})`, () => {
    const r = reader(dts ?? "");
    const union = dts ? r.union("SDKMessage") : [];
    const none = new Set<string>();
    const mine = (file: string) => ours(version, file);

    it(`the package read is ${version}`, () => expect(dts).toMatch(new RegExp(`^// version ${version.replace(/\./g, "\\.")}\n`)));
    it(`the union has the ${shape.members} members we describe, all declared`, () => {
      expect(union).toHaveLength(shape.members);
      expect(union.filter((n) => !r.declaration(n))).toEqual([]);
    });
    // SDKActiveGoalMessage is declared beside the union (the SDK passes it on): our schema has it too
    checkMembers(mine("SDKMessage.json"), [...union, ...shape.extra].flatMap((n) => r.members(n, none)));

    it(`every control_request subtype (${shape.controls}) is in our Control.json, and no other`, () => {
      const inner = dts ? r.union("SDKControlRequestInner") : [];
      const subtypes = inner.flatMap((n) => r.members(n, none)).flatMap((m) => m.subtypes);
      expect(subtypes).toHaveLength(shape.controls);
      const request = mine("Control.json").oneOf.find((v: any) => v.properties.type.enum.includes("control_request"));
      expect([...request.properties.request.properties.subtype.enum].sort()).toEqual([...subtypes].sort());
    });

    it("the fields of the can_use_tool, elicitation and request_user_dialog requests are in our Control.json", () => {
      const request = mine("Control.json").oneOf.find((v: any) => v.properties.type.enum.includes("control_request"));
      const own = new Set(Object.keys(request.properties.request.properties));
      for (const n of ["SDKControlPermissionRequest", "SDKControlElicitationRequest", "SDKControlRequestUserDialogRequest"]) {
        const [m] = r.members(n, none);
        expect(m.fields.filter((f) => !own.has(f)), n).toEqual([]);
      }
    });

    it("canUseTool's options and PermissionResult's fields are in our Permission.json", () => {
      const perm = mine("Permission.json");
      const decl = /export declare type CanUseTool = \(toolName: string, input: Record<string, unknown>, options: \{([\s\S]*?)\n\}\) =>/.exec(dts!)![1];
      const options = [...decl.matchAll(/^ {4}([a-zA-Z]+)\??:/gm)].map((m) => m[1]).filter((f) => f !== "signal");
      if (shape.requestId) expect(options).toContain("requestId");
      else expect(options).not.toContain("requestId");
      const own = new Set(Object.keys(perm.definitions.PermissionRequest.properties.options.properties));
      expect(options.filter((f) => !own.has(f))).toEqual([]);
      const result = /export declare type PermissionResult = ([\s\S]*?\n\});/.exec(dts!)![1];
      const fields = [...new Set([...result.matchAll(/^ {4}([a-zA-Z]+)\??:/gm)].map((m) => m[1]))];
      expect(fields).toContain("decisionClassification");
      for (const v of perm.oneOf) for (const f of fields.filter((x) => x !== "behavior" && x !== "message" && x !== "interrupt" && x !== "updatedInput" && x !== "updatedPermissions")) expect(Object.keys(v.properties), `${v.title}: ${f}`).toContain(f);
    });

    for (const [alias, enums] of literals) {
      it(`every value of ${alias} is in our schema's enum${enums.length > 1 ? "s" : ""}`, () => {
        const decl = r.declaration(alias) ?? "";
        const values = [...decl.matchAll(/'([^']+)'/g)].map((m) => m[1]);
        expect(values.length, `${alias} is a union of string literals`).toBeGreaterThan(0);
        for (const e of enums(mine)) expect(values.filter((v) => !e.includes(v)), alias).toEqual([]);
      });
    }
  });
}

/** The enums of every `decisionClassification` property in a schema document. */
function decisionEnums(doc: unknown): string[][] {
  const out: string[][] = [];
  const walk = (v: any): void => {
    if (!v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach(walk);
    for (const [k, x] of Object.entries(v)) { if (k === "decisionClassification" && Array.isArray((x as any)?.enum)) out.push((x as any).enum); walk(x); }
  };
  walk(doc);
  return out;
}
const variant = (doc: any, type: string) => doc.oneOf.find((v: any) => (v.properties.type.enum ?? []).includes(type));


/**
 * 0.3.333 and 0.2.141 (the 0.2 line's last) are not devDependencies (the alias is the tables' own pin, 0.3.337: one
 * install for everyone): their typings are read from `$AGENTNORM_CLAUDE_SDK_0333` / `$AGENTNORM_CLAUDE_SDK_0141`
 * (the package folder) or from the recorder's cache (`npm run record -- --agent claude-sdk-333` / `claude-sdk-141`
 * installs them there); skipped with a notice when neither has it.
 */
function cachedTypings(version: string): string | undefined {
  const env = `AGENTNORM_CLAUDE_SDK_${version.split(".").slice(1).map((p) => p.padStart(2, "0")).join("")}`;
  const cache = process.env.AGENTNORM_RECORD_CACHE ?? join(homedir(), ".cache", "agentnorm-record");
  const candidates = [
    ...(process.env[env] ? [process.env[env]!] : []),
    ...(existsSync(cache) ? readdirSync(cache).filter((d) => d.includes(`@anthropic-ai_claude-agent-sdk@${version}`)).sort().map((d) => join(cache, d, "node_modules/@anthropic-ai/claude-agent-sdk")) : []),
  ];
  const dir = candidates.find((d) => existsSync(join(d, "sdk.d.ts")) && existsSync(join(d, "package.json")));
  if (!dir) {
    console.warn(`claude-schema-vs-sdk: @anthropic-ai/claude-agent-sdk@${version} not found (${env}, or the recorder's cache); skipped`);
    return undefined;
  }
  return `// version ${JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version}\n${readFileSync(join(dir, "sdk.d.ts"), "utf8")}`;
}

describe03("0.3.333", cachedTypings("0.3.333"), "the recorder's cache or AGENTNORM_CLAUDE_SDK_0333");

const dts0337 = typings("claude-agent-sdk-0.3");
describe03("0.3.337", dts0337, "the devDependency alias claude-agent-sdk-0.3", [
  ["SDKStartupFailureReason", (s) => [variant(s("SDKMessage.json"), "result").properties.startup_failure_reason.enum]],
  ["PermissionDecisionClassification", (s) => [...decisionEnums(s("Permission.json")), ...decisionEnums(s("Control.json"))]],
]);

describe("our 0.3.337 schemas: the fields 0.3.337 adds (names read from its typings and our 2.1.337 recordings)", () => {
  const sdk = ours("0.3.337", "SDKMessage.json");
  it("result: auto_mode_unchecked on a permission denial, the four new startup failure reasons", () => {
    expect(sdk.definitions.PermissionDenial.properties.auto_mode_unchecked.enum).toEqual(["no_check_in_session", "no_verdict"]);
    expect(variant(sdk, "result").properties.startup_failure_reason.enum).toEqual(expect.arrayContaining(["resume_target_not_found", "consumer_terms_review_in_terminal", "consumer_terms_accept_on_web", "org_signin_ended"]));
  });
  it.skipIf(!dts0337)("the Interrupt hook event: in the typings' HookEvent, and named by our hook_event", () => {
    expect(reader(dts0337 ?? "").declaration("HookEvent")).toContain("'Interrupt'");
    expect(variant(sdk, "system").properties.hook_event.description).toContain("Interrupt");
  });
  it("system/task_notification: duration_ms and task_type; decisionClassification config", () => {
    expect(Object.keys(variant(sdk, "system").properties)).toEqual(expect.arrayContaining(["duration_ms", "task_type", "reason"]));
    for (const e of [...decisionEnums(ours("0.3.337", "Permission.json")), ...decisionEnums(ours("0.3.337", "Control.json"))]) expect(e).toContain("config");
    for (const e of [...decisionEnums(ours("0.3.333", "Permission.json")), ...decisionEnums(ours("0.3.333", "Control.json"))]) expect(e).not.toContain("config");
  });
  it("transcript: the api-request-route line, turnPromptId and interruptedByCancel on user lines", () => {
    const tr = ours("0.3.337", "TranscriptLine.json");
    expect(Object.keys(variant(tr, "api-request-route").properties).sort()).toEqual(["credential", "provider", "sessionId", "timestamp", "type"]);
    expect(Object.keys(variant(tr, "user").properties)).toEqual(expect.arrayContaining(["turnPromptId", "interruptedByCancel", "toolLimits"]));
    expect(variant(ours("0.3.333", "TranscriptLine.json"), "api-request-route")).toBeUndefined();
  });
});

describe03("0.2.141", cachedTypings("0.2.141"), "the recorder's cache or AGENTNORM_CLAUDE_SDK_0141", [
  ["PermissionDecisionClassification", (s) => [...decisionEnums(s("Permission.json")), ...decisionEnums(s("Control.json"))]],
], { members: 30, controls: 30, extra: [], requestId: false });
