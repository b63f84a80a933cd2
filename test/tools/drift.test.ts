/**
 * The drift check (`npm run drift`, tools/drift/) against small hand-made "newer versions": fake package folders,
 * built here from the pinned schemas plus one extra method/type/field/subtype, read with `--from` (no registry, no
 * network). Each pinned rebuild must show no drift; each extra member must be reported, with exit code 1.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT, compareVersions, formatReport, recorderPins, runDrift, type Options, type Report } from "../../tools/drift/drift.ts";
import { facts } from "../../tools/drift/inventory.ts";
import { PACKAGES, specId } from "../../tools/drift/packages.ts";
import { fixedRegistry, lineOf, newestVersion, successorIn, type PackageMeta } from "../../tools/drift/registry.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const scratch = mkdtempSync(join(tmpdir(), "agentnorm-drift-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const quiet = () => {};
const readJson = (p: string) => JSON.parse(readFileSync(p, "utf8"));
let n = 0;

/** A folder with node_modules/<name>/ holding `files` (path → text) and a package.json of `version`. */
function fakeInstall(name: string, version: string, files: Record<string, string>): string {
  const dir = join(scratch, `install-${n++}`);
  const pkg = join(dir, "node_modules", name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name, version, type: "module" }));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(pkg, f)), { recursive: true });
    writeFileSync(join(pkg, f), text);
  }
  return dir;
}

/** The scratch cache (never the machine's), no recorder pins, and no baseline unless given. */
const hermetic = { cache: join(scratch, "no-cache"), pins: new Map<string, string[]>(), locate: () => undefined };
const check = (from: string, pkg: string, opts: Partial<Options> = {}) => runDrift({ root, from, packages: [pkg], log: quiet, ...hermetic, ...opts });
const surface = (rep: Report, name: string) => rep.packages[0].surfaces.find((s) => s.surface === name)!;
const kind = (rep: Report, s: string, k: string) => surface(rep, s).kinds.find((x) => x.kind === k)!;

describe("facts of a schema", () => {
  it("lists fields and enum/const values, through $ref, unions, items and additionalProperties, once per $ref on a path", () => {
    const doc = {
      definitions: { Node: { type: "object", properties: { kind: { enum: ["a", "b"] }, child: { $ref: "#/definitions/Node" } } } },
      properties: { params: { anyOf: [{ $ref: "#/definitions/Node" }, { properties: { list: { items: { const: "x" } }, map: { additionalProperties: { properties: { v: {} } } } } }] } },
    };
    const f = [...facts(doc, doc, 6)].sort();
    expect(f).toEqual([
      // params.child is a Node again: its $ref is not followed a second time on the same path
      "field params", "field params.child", "field params.kind", "field params.list", "field params.map", "field params.map.*.v",
      'value params.kind = "a"', 'value params.kind = "b"', 'value params.list[] = "x"',
    ]);
    // depth 1: top-level fields and the values of top-level fields only
    expect([...facts(doc, doc.properties.params.anyOf[0], 1)].sort()).toEqual(["field child", "field kind", 'value kind = "a"', 'value kind = "b"']);
  });

  it("orders versions numerically", () => {
    expect(["1.19.3", "1.2.0", "1.18.33", "0.3.333", "0.2.62"].sort(compareVersions)).toEqual(["0.2.62", "0.3.333", "1.2.0", "1.18.33", "1.19.3"]);
  });
});

describe("ACP (@agentclientprotocol/sdk): schema.json and the unions tools/sync derives from it", () => {
  const pinned = join(root, "schemas/upstream/acp/2.4.0");
  /** The package's method constants, as the sync script cross-checks them: every method of the derived unions. */
  const consts = (extra: string[]) => {
    const methods = ["AgentNotification.json", "AgentRequest.json", "ClientRequest.json", "ClientNotification.json"].flatMap((f) => readJson(join(pinned, f)).oneOf.map((o: any) => o.properties.method.enum[0]));
    const all = [...new Set([...methods, ...extra])];
    return `export const AGENT_METHODS = ${JSON.stringify(Object.fromEntries(all.map((m, i) => [`m${i}`, m])))};\nexport const CLIENT_METHODS = {};\nexport const PROTOCOL_METHODS = {};\n`;
  };
  const fake = (version: string, edit?: (schema: any) => void, extra: string[] = []) => {
    const schema = readJson(join(pinned, "schema.json"));
    edit?.(schema);
    return fakeInstall("@agentclientprotocol/sdk", version, { "schema/v1/schema.json": JSON.stringify(schema), "dist/v1/schema/index.js": consts(extra) });
  };

  it("the pinned 2.4.0 rebuilt: no drift, exit 0", async () => {
    const rep = await check(fake("2.4.0"), "@agentclientprotocol/sdk");
    expect(rep.packages[0].status).toBe("current");
    expect(surface(rep, "acp").kinds.map((k) => [k.kind, k.newMethods, k.newFacts, k.goneMethods])).toEqual(
      ["notification", "request", "clientRequest", "clientNotification"].map((k) => [k, [], [], []]),
    );
    expect(rep.exitCode).toBe(EXIT.ok);
  });

  it("a newer version with one more notification and one more field: both reported, exit 1", async () => {
    const dir = fake("2.5.0", (s) => {
      s.$defs.ZzPingNotification = { type: "object", "x-method": "session/zz_ping", "x-side": "client", properties: { sessionId: { type: "string" } } };
      s.$defs.AgentNotification.properties.params.anyOf.push({ $ref: "#/$defs/ZzPingNotification" });
      s.$defs.SessionNotification.properties.zzNewField = { type: "string" };
    }, ["session/zz_ping"]);
    const rep = await check(dir, "@agentclientprotocol/sdk");
    expect(rep.packages[0]).toMatchObject({ status: "drift", pinned: "2.4.0", checked: "2.5.0" });
    expect(kind(rep, "acp", "notification").newMethods).toEqual([{ method: "session/zz_ping", caughtBy: [] }]);
    expect(kind(rep, "acp", "notification").newFacts).toEqual([{ method: "session/update", facts: ["field params.zzNewField"] }]);
    expect(kind(rep, "acp", "request").newMethods).toEqual([]);
    expect(rep.exitCode).toBe(EXIT.drift);
    const text = formatReport(rep);
    expect(text).toContain("+ session/zz_ping");
    expect(text).toContain("session/update: params.zzNewField");
    expect(text).toMatch(/drift: yes\n$/);
  });
});

describe("Codex (@openai/codex): a fake binary answering generate-json-schema and the deserializer probe", () => {
  const app = join(root, "schemas/upstream/codex-app-server/0.171.0");
  const ev = join(root, "schemas/upstream/codex-eventmsg/0.171.0");
  const tagsOf = (file: string) => readJson(file).oneOf.map((o: any) => o.properties.type.enum?.[0] ?? o.properties.type.const);
  const canRun = spawnSync("sh", ["-c", "command -v node"]).status === 0;
  /**
   * node_modules/@openai/codex plus the platform package's vendor/<triple>/bin/codex: a node script that copies the
   * pinned schemas (plus `extraNotification`) for generate-json-schema, and answers the app-server's rollout probe
   * with the pinned tag lists (plus `extraTag`) the way serde's trace log does.
   */
  const fake = (version: string, extraNotification?: string, extraTag?: string) => {
    const dir = fakeInstall("@openai/codex", version, {});
    const bin = join(dir, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
    mkdirSync(dirname(bin), { recursive: true });
    const eventTags = [...tagsOf(join(ev, "EventMsg.json")), ...(extraTag ? [extraTag] : [])];
    const lineTags = tagsOf(join(ev, "RolloutLine.json"));
    writeFileSync(bin, `#!/usr/bin/env node
const fs = require("node:fs"), path = require("node:path");
const [cmd, sub, , out] = process.argv.slice(2);
if (cmd === "--version") { console.log("codex-cli ${version}"); process.exit(0); }
if (cmd === "app-server" && sub === "generate-json-schema") {
  const src = ${JSON.stringify(app)};
  fs.mkdirSync(out, { recursive: true });
  for (const f of fs.readdirSync(src, { recursive: true })) {
    const p = path.join(src, f);
    if (fs.statSync(p).isDirectory()) fs.mkdirSync(path.join(out, f), { recursive: true }); else fs.copyFileSync(p, path.join(out, f));
  }
  const extra = ${JSON.stringify(extraNotification ?? null)};
  if (extra) {
    const f = path.join(out, "ServerNotification.json"), d = JSON.parse(fs.readFileSync(f, "utf8"));
    d.oneOf.push({ type: "object", required: ["method", "params"], properties: { method: { enum: [extra], type: "string" }, params: { type: "object", properties: { threadId: { type: "string" } } } } });
    fs.writeFileSync(f, JSON.stringify(d));
  }
  process.exit(0);
}
if (cmd === "app-server") {
  const list = (xs) => xs.map((x) => "\`" + x + "\`").join(", ");
  const err = (e) => process.stderr.write("TRACE codex_core::rollout: failed to parse rollout line: " + e + "\\n");
  let buf = "";
  process.stdin.on("data", (d) => {
    buf += d;
    if (!buf.includes('"thread/read"')) return;
    err("unknown variant \`zz_unknown_probe\`, expected one of " + list(${JSON.stringify(eventTags)}));
    err("unknown variant \`zz_agentnorm_sentinel\`, expected one of " + list(${JSON.stringify(eventTags)}));
    err("unknown variant \`zz_unknown_line\`, expected one of " + list(${JSON.stringify(lineTags)}));
    err("unknown variant \`zz_agentnorm_sentinel\`, expected one of " + list(${JSON.stringify(eventTags)}));
    process.stdout.write(JSON.stringify({ id: 2, result: {} }) + "\\n");
    buf = "";
  });
  process.stdin.on("end", () => process.exit(0));
  return;
}
process.exit(2);
`);
    chmodSync(bin, 0o755);
    return dir;
  };

  it.skipIf(!canRun)("the pinned 0.171.0 regenerated: no drift on codex-app-server, codex-eventmsg and codex-rollout", async () => {
    const rep = await check(fake("0.171.0"), "@openai/codex");
    expect(rep.packages[0].reason).toBeUndefined();
    expect(rep.packages[0].surfaces.map((s) => [s.surface, s.drift, s.kinds.map((k) => k.kind)])).toEqual([
      ["codex-app-server", false, ["notification", "request", "clientRequest", "clientNotification"]],
      ["codex-eventmsg", false, ["event"]],
      ["codex-rollout", false, ["line"]],
    ]);
    expect(rep.exitCode).toBe(EXIT.ok);
  });

  it.skipIf(!canRun)("a newer version with one more app-server notification and one more EventMsg tag: both reported", async () => {
    const rep = await check(fake("0.172.0", "thread/zzPaused", "zz_paused"), "@openai/codex");
    expect(rep.packages[0]).toMatchObject({ status: "drift", checked: "0.172.0" });
    expect(kind(rep, "codex-app-server", "notification").newMethods).toEqual([{ method: "thread/zzPaused", caughtBy: [] }]);
    expect(kind(rep, "codex-app-server", "notification").newFacts).toEqual([]);
    expect(kind(rep, "codex-eventmsg", "event").newMethods).toEqual([{ method: "zz_paused", caughtBy: [] }]);
    expect(surface(rep, "codex-rollout").drift).toBe(false);
    expect(rep.exitCode).toBe(EXIT.drift);
  });
});

describe("Codex SDK (@openai/codex-sdk): ThreadEvent from the typings", () => {
  const dts = (extra: boolean) => `type Usage = { input_tokens: number; output_tokens: number };
type ThreadStartedEvent = { type: "thread.started"; thread_id: string;${extra ? " zz_resumed?: boolean;" : ""} };
type TurnCompletedEvent = { type: "turn.completed"; usage: Usage };
${extra ? 'type TurnPausedEvent = { type: "turn.zz_paused"; reason: "user" | "limit" };\n' : ""}type ThreadEvent = ThreadStartedEvent | TurnCompletedEvent${extra ? " | TurnPausedEvent" : ""};
export { type ThreadEvent };
`;

  it("an extra event type and an extra field are reported; members the fake leaves out are listed as not in the checked version", async () => {
    const rep = await check(fakeInstall("@openai/codex-sdk", "0.164.0", { "dist/index.d.ts": dts(true) }), "@openai/codex-sdk");
    const k = kind(rep, "codex-exec", "event");
    expect(k.newMethods).toEqual([{ method: "turn.zz_paused", caughtBy: [] }]);
    expect(k.newFacts).toEqual([{ method: "thread.started", facts: ["field zz_resumed"] }]);
    expect(k.goneMethods).toEqual(["error", "item.completed", "item.started", "item.updated", "turn.failed", "turn.started"]);
    expect(rep.exitCode).toBe(EXIT.drift);
  });

  it("a subset of the pinned typings: no drift (exit 0) though members are missing", async () => {
    const rep = await check(fakeInstall("@openai/codex-sdk", "0.163.0", { "dist/index.d.ts": dts(false) }), "@openai/codex-sdk");
    expect(surface(rep, "codex-exec").drift).toBe(false);
    expect(rep.exitCode).toBe(EXIT.ok);
  });
});

describe("opencode (@opencode-ai/sdk): Event / MessageEntry / RunEvent derived by tools/sync", () => {
  const types = (extra: boolean) => `export type TextPart = { id: string; type: "text"; text: string };
export type ReasoningPart = { id: string; type: "reasoning"; text: string };
export type StepStartPart = { id: string; type: "step-start" };
export type StepFinishPart = { id: string; type: "step-finish" };
export type ToolPart = { id: string; type: "tool"; tool: string };
export type Part = TextPart | ReasoningPart | StepStartPart | StepFinishPart | ToolPart;
export type Message = { id: string; sessionID: string };
export type EventSessionError = { type: "session.error"; properties: { sessionID?: string; error?: { name: "UnknownError"; data: { message: string } } } };
export type EventSessionIdle = { type: "session.idle"; properties: { sessionID: string${extra ? "; zzReason?: string" : ""} } };
${extra ? 'export type EventSessionZzPaused = { type: "session.zz_paused"; properties: { sessionID: string } };\n' : ""}export type Event = EventSessionError | EventSessionIdle${extra ? " | EventSessionZzPaused" : ""};
export type SessionMessagesResponses = { 200: Array<{ info: Message; parts: Array<Part> }> };
`;

  it("an extra event type and an extra field of session.idle are reported on the opencode surface", async () => {
    const t = types(true);
    const rep = await check(fakeInstall("@opencode-ai/sdk", "1.20.0", { "dist/v2/gen/types.gen.d.ts": t, "dist/gen/types.gen.d.ts": t }), "@opencode-ai/sdk");
    expect(rep.packages[0].reason).toBeUndefined();
    const k = kind(rep, "opencode", "event");
    expect(k.newMethods).toEqual([{ method: "session.zz_paused", caughtBy: [] }]);
    expect(k.newFacts).toEqual([{ method: "session.idle", facts: ["field properties.zzReason"] }]);
    expect(rep.packages[0].surfaces.map((s) => s.surface)).toEqual(["opencode", "opencode-history", "opencode-run"]);
    expect(rep.exitCode).toBe(EXIT.drift);
  });
});

describe("Claude (@anthropic-ai/claude-agent-sdk): SDKMessage and control subtypes from the typings (names only)", () => {
  /** Typings in the form of sdk.d.ts: `system` members per subtype; `extra` adds a type, a subtype, fields and a control subtype. */
  const dts = (extra: boolean) => `export declare type SDKMessage = SDKAssistantMessage | SDKSystemMessage | SDKTaskProgressMessage | SDKTaskNotificationMessage${extra ? " | SDKZzSystemMessage | SDKZzMessage" : ""};

export declare type SDKAssistantMessage = {
    type: 'assistant';
    message: unknown;
    session_id: string;
};

export declare type SDKSystemMessage = {
    type: 'system';
    subtype: 'init';
    session_id: string;
};

declare type SDKTaskProgressMessage = {
    type: 'system';
    subtype: 'task_progress';
    task_id: string;
    duration_ms: number;
};

declare type SDKTaskNotificationMessage = {
    type: 'system';
    subtype: 'task_notification';
    task_id: string;${extra ? "\n    duration_ms?: number;\n    status: 'completed' | 'failed';" : ""}
};
${extra ? `
declare type SDKZzSystemMessage = {
    type: 'system';
    subtype: 'zz_nudge';
    zz_level: number;
};

export declare type SDKZzMessage = {
    type: 'zz_reset';
    session_id: string;
};
` : ""}
export declare type SDKControlRequest = {
    type: 'control_request';
    request_id: string;
    request: SDKControlRequestInner;
};

declare type SDKControlRequestInner = SDKControlInterruptRequest${extra ? " | SDKControlZzRequest" : ""};

declare type SDKControlInterruptRequest = {
    subtype: 'interrupt';
};
${extra ? `
declare type SDKControlZzRequest = {
    subtype: 'zz_poke';
};
` : ""}`;
  const SDK = "@anthropic-ai/claude-agent-sdk";
  // the tables pin 0.3.337: a fake of it, and a fake 0.3.338 with one more type, subtype and field
  const pinned = fakeInstall(SDK, "0.3.337", { "sdk.d.ts": dts(false) });
  const baseline = { locate: (name: string, version: string) => (name === SDK && version === "0.3.337" ? { pkgDir: join(pinned, "node_modules", SDK), installDir: pinned } : undefined) };
  const message = (rep: Report) => rep.packages[0].surfaces.filter((s) => s.surface === "claude-sdk").flatMap((s) => s.kinds).find((k) => k.kind === "message")!;

  it("a new type, a new subtype and a field new on one subtype (though another subtype has it) are reported, each field with its subtype", async () => {
    const rep = await check(fakeInstall(SDK, "0.3.338", { "sdk.d.ts": dts(true) }), SDK, baseline);
    expect(rep.packages[0]).toMatchObject({ id: SDK, pinned: "0.3.337", checked: "0.3.338", status: "drift" });
    const sdk = rep.packages[0].surfaces.filter((s) => s.surface === "claude-sdk");
    expect(sdk.map((s) => s.against)).toEqual(["pinned derivation", "pinned derivation"]);
    expect(message(rep).newMethods).toEqual([{ method: "zz_reset", caughtBy: [] }]);
    // duration_ms: task_progress has it in the pinned version; on task_notification it is new
    expect(message(rep).newFacts).toEqual([{ method: "system", facts: ['value subtype = "zz_nudge"', 'field duration_ms @ subtype = "task_notification"', 'field status @ subtype = "task_notification"', 'field zz_level @ subtype = "zz_nudge"'] }]);
    const wire = sdk.flatMap((s) => s.kinds).find((k) => k.kind === "wire")!;
    expect(wire.newFacts).toEqual([{ method: "control_request", facts: ['value request.subtype = "zz_poke"'] }]);
    const text = formatReport(rep);
    expect(text).toContain("      system: subtype = zz_nudge\n");
    expect(text).toContain("      system (subtype task_notification): duration_ms, status\n");
    expect(text).toContain("      system (subtype zz_nudge): zz_level\n");
    expect(rep.exitCode).toBe(EXIT.drift);
  });

  it("without the pinned version installed, the hand-written folder is the baseline: a field it declares on any subtype counts as known (said in the note)", async () => {
    const rep = await check(fakeInstall(SDK, "0.3.338", { "sdk.d.ts": dts(true) }), SDK);
    const sdk = rep.packages[0].surfaces.find((s) => s.surface === "claude-sdk")!;
    expect(sdk.against).toBe("pinned schema");
    expect(sdk.note).toContain("is not installed here");
    const found = message(rep).newFacts.flatMap((f) => f.facts);
    // the pinned 0.3.337 folder merges the system members: `status` and `duration_ms` are declared there (on other
    // subtypes, and duration_ms on task_notification itself since 0.3.337), so neither is seen as new; zz_level is on
    // no system member of the folder
    expect(found).not.toContain('field status @ subtype = "task_notification"');
    expect(found).not.toContain('field duration_ms @ subtype = "task_notification"');
    expect(found).toEqual(expect.arrayContaining(['field zz_level @ subtype = "zz_nudge"']));
  });

  it("the pinned version against itself gives no signal: nothing new, nothing \"not listed\"", async () => {
    const rep = await check(pinned, SDK, baseline);
    expect(rep.packages[0]).toMatchObject({ status: "current", pinned: "0.3.337", checked: "0.3.337" });
    for (const s of rep.packages[0].surfaces) for (const k of s.kinds) expect([s.surface, k.kind, k.newMethods, k.newFacts, k.goneMethods]).toEqual([s.surface, k.kind, [], [], []]);
    expect(formatReport(rep)).not.toMatch(/does not list|new field|new method/);
    expect(rep.exitCode).toBe(EXIT.ok);
  });

  // the real typings of each line's pin (no network): 0.2.141 and 0.3.337 are in the recorder's cache when
  // `npm run record` installed them (not devDependencies), each checked against itself — the hand-written folder as
  // the baseline too (no pinned derivation): our folders must declare everything the typings have
  const cacheRoot = process.env.AGENTNORM_RECORD_CACHE ?? join(homedir(), ".cache", "agentnorm-record");
  const cached = (version: string) => (existsSync(cacheRoot) ? readdirSync(cacheRoot).filter((d) => d.includes(`@anthropic-ai_claude-agent-sdk@${version}`)).map((d) => join(cacheRoot, d)).find((d) => existsSync(join(d, "node_modules", SDK, "sdk.d.ts"))) : undefined);
  const c0141 = cached("0.2.141");
  const c0337 = cached("0.3.337");
  it.skipIf(!c0141)("the 0.2 line's pin (0.2.141, from the recorder's cache) against itself: no drift, nothing new", async () => {
    const rep = await check(c0141!, `${SDK}@0.2`);
    expect(rep.packages[0]).toMatchObject({ id: `${SDK}@0.2`, line: "0.2", status: "current", pinned: "0.2.141", checked: "0.2.141" });
    expect(rep.packages[0].surfaces.flatMap((s) => s.kinds.flatMap((k) => [...k.newFacts.map((f) => f.method), ...k.newMethods.map((m) => m.method)]))).toEqual([]);
    expect(rep.exitCode).toBe(EXIT.ok);
  });
  it.skipIf(!c0337)("the newest line's pin (0.3.337, from the recorder's cache) against itself: no drift, nothing new", async () => {
    const rep = await check(c0337!, SDK);
    expect(rep.packages[0]).toMatchObject({ id: SDK, status: "current", pinned: "0.3.337", checked: "0.3.337" });
    expect(rep.packages[0].surfaces.flatMap((s) => s.kinds.flatMap((k) => [...k.newFacts.map((f) => f.method), ...k.newMethods.map((m) => m.method)]))).toEqual([]);
    expect(rep.exitCode).toBe(EXIT.ok);
  });

  it("--from a folder of one line: the spec of the other line says so and is not a failure", async () => {
    const rep = await runDrift({ root, from: fakeInstall(SDK, "0.2.70", { "sdk.d.ts": dts(false) }), packages: [SDK], log: quiet, ...hermetic });
    expect(rep.packages.map((p) => [p.id, p.absent ?? false, p.checked])).toEqual([[SDK, true, undefined], [`${SDK}@0.2`, false, "0.2.70"]]);
    expect(rep.packages[0].reason).toContain("of another line");
  });
});

describe("versions, lines and renames from the registry (a fixed registry: no network)", () => {
  const meta = (name: string, versions: string[], latest: string, extra: Partial<PackageMeta> = {}): PackageMeta => ({ name, versions, distTags: { latest }, ...extra });
  const claude = meta("@anthropic-ai/claude-agent-sdk", ["0.2.62", "0.2.140", "0.2.141", "0.3.0", "0.3.333", "0.3.337", "0.3.338-beta.1"], "0.3.337", { claudeCodeVersion: "2.1.337", time: { "0.3.337": "2026-12-04T00:00:00.000Z" } });

  it("the newest version of a line: 0.2 → 0.2.141 though latest is 0.3.337; without a line: latest; prereleases never", () => {
    expect(newestVersion(claude, "0.2")).toBe("0.2.141");
    expect(newestVersion(claude, "0.3")).toBe("0.3.337");
    expect(newestVersion(claude)).toBe("0.3.337");
    expect(newestVersion(meta("x", ["1.0.0", "1.1.0"], undefined as any))).toBe("1.1.0");
    expect(lineOf("0.2.62")).toBe("0.2");
    expect(lineOf("1.18.33")).toBe("1");
  });

  it("each Claude line is checked against its own pin, the newest the tables pin of it: 0.2.141, 0.3.337 (version-only specs)", async () => {
    const specs = [{ name: claude.name, surfaces: ["claude-sdk"] }, { name: claude.name, line: "0.2", surfaces: ["claude-sdk"] }];
    const rep = await runDrift({ root, registry: fixedRegistry([claude]), specs, log: quiet, ...hermetic });
    expect(rep.packages.map((p) => [p.id, p.pinned, p.pinnedBy, p.checked, p.status])).toEqual([
      [claude.name, "0.3.337", "tables", "0.3.337", "current"],
      [`${claude.name}@0.2`, "0.2.141", "tables", "0.2.141", "current"],
    ]);
    expect(rep.packages[0]).toMatchObject({ claudeCode: "2.1.337", released: "2026-12-04T00:00:00.000Z" });
    expect(rep.packages[1].claudeCode).toBeUndefined(); // the newest version's field, not the 0.2 line's
  });

  const oldAcp = "@zed-industries/claude-code-acp";
  const newAcp = "@zed-industries/claude-agent-acp";
  const adapters = (notice?: string, successors?: string[]) => ({
    specs: [{ name: oldAcp, surfaces: ["acp"], pinned: "recorders", ...(successors ? { successors } : {}), dependencies: ["@agentclientprotocol/sdk"] }, { name: newAcp, surfaces: ["acp"], pinned: "recorders" }],
    registry: fixedRegistry([meta(oldAcp, ["0.16.2"], "0.16.2", { ...(notice ? { deprecated: notice } : {}), dependencies: { "@agentclientprotocol/sdk": "0.14.1", zod: "^3" } }), meta(newAcp, ["0.23.0", "0.23.1"], "0.23.1")]),
  });

  it("a rename from npm's deprecation notice: the successor and whether anything pins it; unpinned → drift", async () => {
    const a = adapters("Renamed to @zed-industries/claude-agent-acp; this package is no longer maintained.");
    const rep = await runDrift({ root, log: quiet, ...hermetic, ...a, pins: new Map([[oldAcp, ["0.16.2"]]]) });
    expect(rep.packages[0]).toMatchObject({ pinned: "0.16.2", pinnedBy: "recorders", checked: "0.16.2", status: "current", deprecated: a.registry.meta(oldAcp).deprecated });
    expect(rep.packages[0].renamed).toEqual({ successor: newAcp, how: "deprecation notice", newest: "0.23.1", followed: false });
    expect(rep.packages[0].dependencies).toEqual({ "@agentclientprotocol/sdk": "0.14.1" });
    expect(rep.packages[1]).toMatchObject({ pinned: "none", status: "version-only", reason: "nothing pins this package (no table, no recorder)" });
    expect(formatReport(rep)).toContain(`renamed: ${newAcp} 0.23.1 replaces it (deprecation notice) — NOT followed`);
    expect(rep.exitCode).toBe(EXIT.drift);
    // a recorder pins the successor: followed, no drift
    const ok = await runDrift({ root, log: quiet, ...hermetic, ...a, pins: new Map([[oldAcp, ["0.16.2"]], [newAcp, ["0.23.1"]]]) });
    expect(ok.packages[0].renamed?.followed).toBe(true);
    expect(ok.exitCode).toBe(EXIT.ok);
  });

  it("a known successor where npm has no notice (claude-code-acp today); no notice and no successor: nothing", async () => {
    const known = await runDrift({ root, log: quiet, ...hermetic, ...adapters(undefined, [newAcp]), pins: new Map([[oldAcp, ["0.16.2"]]]) });
    expect(known.packages[0].renamed).toEqual({ successor: newAcp, how: "known successor", newest: "0.23.1", followed: false });
    expect(known.exitCode).toBe(EXIT.drift);
    const none = await runDrift({ root, log: quiet, ...hermetic, ...adapters(), pins: new Map([[oldAcp, ["0.16.2"]]]) });
    expect(none.packages[0].renamed).toBeUndefined();
    expect(successorIn("Please use foo-bar instead", "x")).toBe("foo-bar");
    expect(successorIn("no longer maintained", "x")).toBeUndefined();
  });

  it("the followed packages: every package a table pins or a recorder drives, the Claude SDK once per line", async () => {
    const pins = await recorderPins();
    const followed = new Set(PACKAGES.map((s) => s.name));
    for (const name of pins.keys()) if (!["zod", "@modelcontextprotocol/sdk"].includes(name)) expect(followed.has(name), name).toBe(true);
    expect(PACKAGES.map(specId)).toEqual(expect.arrayContaining(["@anthropic-ai/claude-agent-sdk", "@anthropic-ai/claude-agent-sdk@0.2", "@google/gemini-cli", "@zed-industries/claude-code-acp", "@zed-industries/claude-agent-acp", "opencode-ai", "@zed-industries/codex-acp", "@cursor/sdk"]));
  });
});

describe("Cursor (@cursor/sdk): interaction updates and conversations from the exported zod schemas", () => {
  // A fake package: its dist/esm/index.js exports zod-3-shaped schemas (only `_def` is read) built from the pinned
  // schemas' type names, plus one new update type and one new tool variant.
  const pinned = (f: string) => readJson(join(root, "schemas/upstream/cursor-sdk/1.0.32", f));
  const tags = (f: string) => pinned(f).oneOf.map((m: any) => m.properties.type.enum[0]);
  const tools = pinned("InteractionUpdate.json").definitions.ToolCall.oneOf.map((m: any) => m.properties.type.enum[0]);
  const moduleText = (updates: string[], variants: string[]) => `
const def = (d) => ({ _def: d, isOptional: () => false });
const lit = (v) => def({ typeName: "ZodLiteral", value: v });
const obj = (shape) => def({ typeName: "ZodObject", shape: () => shape });
const union = (xs) => def({ typeName: "ZodDiscriminatedUnion", options: new Map(xs.map((x, i) => [i, x])) });
const str = def({ typeName: "ZodString" });
const toolCall = union(${JSON.stringify(variants)}.map((t) => obj({ type: lit(t), args: obj({}) })));
const update = (t) => ["tool-call-started", "partial-tool-call", "tool-call-completed"].includes(t) ? obj({ type: lit(t), callId: str, modelCallId: str, toolCall }) : obj({ type: lit(t) });
export const InteractionUpdateSchema = union(${JSON.stringify(updates)}.map(update));
export const ConversationTurnSchema = union(${JSON.stringify(tags("ConversationTurn.json"))}.map((t) => obj({ type: lit(t), turn: obj({}) })));
export const ConversationStepSchema = union(${JSON.stringify(tags("ConversationStep.json"))}.map((t) => obj({ type: lit(t), message: obj({}) })));
`;
  const install = (updates: string[], variants: string[]) => fakeInstall("@cursor/sdk", "1.1.0", { "dist/esm/index.js": moduleText(updates, variants) });

  it("the pinned types and variants rebuilt: no drift", async () => {
    const rep = await check(install(tags("InteractionUpdate.json"), tools), "@cursor/sdk");
    expect(rep.packages[0].reason).toBeUndefined();
    expect(surface(rep, "cursor-sdk").kinds.map((k) => k.kind)).toEqual(["update", "conversation", "conversationStep"]);
    expect(rep.exitCode).toBe(EXIT.ok);
  });

  it("a new update type and a new tool variant are reported", async () => {
    const rep = await check(install([...tags("InteractionUpdate.json"), "hologram-delta"], [...tools, "teleport"]), "@cursor/sdk");
    const update = kind(rep, "cursor-sdk", "update");
    expect(update.newMethods).toEqual([{ method: "hologram-delta", caughtBy: [] }]);
    expect(update.newFacts.map((f) => f.method).sort()).toEqual(["partial-tool-call", "tool-call-completed", "tool-call-started"]);
    expect(update.newFacts[0].facts).toEqual(['value toolCall.type = "teleport"']);
    expect(rep.exitCode).toBe(EXIT.drift);
  });
});

describe("npm run drift (the CLI)", () => {
  const cli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(root, "tools/drift/drift.ts"), ...args], { cwd: root, encoding: "utf8" });

  it("--json prints the report on stdout, progress on stderr, and exits 1 on drift", () => {
    const t = `type A = { type: "thread.started"; thread_id: string };\ntype B = { type: "zz.new" };\ntype ThreadEvent = A | B;\nexport { type ThreadEvent };\n`;
    const dir = fakeInstall("@openai/codex-sdk", "0.200.0", { "dist/index.d.ts": t });
    const r = cli(["--from", dir, "--json"]);
    expect(r.status).toBe(EXIT.drift);
    const rep = JSON.parse(r.stdout);
    expect(rep.packages.find((p: any) => p.package === "@openai/codex-sdk").surfaces[0].kinds[0].newMethods).toEqual([{ method: "zz.new", caughtBy: [] }]);
    expect(r.stderr).toContain("@openai/codex-sdk: pinned 0.163.0, checking 0.200.0");
  });

  it("a folder holding none of the packages: could not check (exit 3); a missing folder or unknown option: usage (exit 2)", () => {
    const empty = join(scratch, "empty");
    mkdirSync(empty, { recursive: true });
    const r = cli(["--from", empty]);
    expect(r.status).toBe(EXIT.unchecked);
    expect(r.stdout).toContain("drift: none found, but not everything could be checked");
    expect(cli(["--from", join(scratch, "nope")]).status).toBe(EXIT.usage);
    const bad = cli(["--bogus"]);
    expect(bad.status).toBe(EXIT.usage);
    expect(bad.stderr).toContain("unknown option --bogus");
  });

  it("--offline checks a version-only package from the registry's last answers (the cache's registry.json)", () => {
    const cache = join(scratch, "cache-with-registry");
    mkdirSync(cache, { recursive: true });
    const meta = { name: "@google/gemini-cli", versions: ["0.61.0", "0.62.0"], distTags: { latest: "0.62.0" }, time: { "0.62.0": "2026-11-30T10:00:00.000Z" }, dependencies: { "@agentclientprotocol/sdk": "^2.5.0" }, fetchedAt: "2026-12-01T08:00:00.000Z" };
    writeFileSync(join(cache, "registry.json"), JSON.stringify({ [meta.name]: meta }));
    const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "tools/drift/drift.ts"), "--offline", "--package", "@google/gemini-cli"], { cwd: root, encoding: "utf8", env: { ...process.env, AGENTNORM_DRIFT_CACHE: cache } });
    expect(r.status).toBe(EXIT.ok);
    expect(r.stdout).toContain(`versions from the registry as fetched 2026-12-01 (${join(cache, "registry.json")})`);
    expect(r.stdout).toContain("@google/gemini-cli: pinned 0.61.0 (recorders), newest 0.62.0 (2026-11-30) — newer version (version-only check)");
    expect(r.stdout).toContain("0.62.0 depends on @agentclientprotocol/sdk ^2.5.0");
  });

  it("--offline with an empty cache: could not check (exit 3), without touching the registry", () => {
    const cache = join(scratch, "cache");
    const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "tools/drift/drift.ts"), "--offline", "--package", "@openai/codex-sdk"], { cwd: root, encoding: "utf8", env: { ...process.env, AGENTNORM_DRIFT_CACHE: cache } });
    expect(r.status).toBe(EXIT.unchecked);
    expect(r.stdout).toContain(`--offline: no version of @openai/codex-sdk in ${cache}`);
  });
});
