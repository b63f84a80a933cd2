/**
 * The record mode of the drift check (`npm run drift -- --record`, tools/drift/record.ts) without the network or the
 * agents: a fixed registry, recorders described by their pins, and a fake recorder run that writes a copy of a
 * committed recording (fixtures/recorded/claude-sdk/2.1.333/plain.*), edited the way Claude Code 2.1.337 changed it — a
 * transcript line of a new type, a new field on transcript user lines and a new field on one system subtype of the SDK
 * stream. (2.1.337's own `api-request-route` and `turnPromptId` are accounted for since the tables pin 0.3.337:
 * made-up names of the same shapes, `api-request-zz` and `turnZzId`, stand in for them.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { withVersions, versionOverrides } from "../../fixtures/record/load-recorders.ts";
import type { Recorder } from "../../fixtures/record/recorder.ts";
import { EXIT } from "../../tools/drift/drift.ts";
import { formatRecordReport, overridesOf, planRecord, runRecord, type AgentPlan, type RecorderInfo } from "../../tools/drift/record.ts";
import { fixedRegistry, type PackageMeta } from "../../tools/drift/registry.ts";
import { checkShape } from "../../tools/drift/shapes.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const scratch = mkdtempSync(join(tmpdir(), "agentnorm-drift-record-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const quiet = () => {};

const SDK = "@anthropic-ai/claude-agent-sdk";
const meta = (name: string, versions: string[], latest: string, extra: Partial<PackageMeta> = {}): PackageMeta => ({ name, versions, distTags: { latest }, ...extra });
const registry = fixedRegistry([
  meta(SDK, ["0.2.62", "0.2.141", "0.3.333", "0.3.337"], "0.3.337"),
  meta(`${SDK}-linux-x64`, ["0.2.141", "0.3.333", "0.3.337"], "0.3.337"),
  meta("@openai/codex", ["0.171.0", "0.172.0"], "0.172.0"),
  meta("@zed-industries/claude-code-acp", ["0.16.2"], "0.16.2"),
  meta("@zed-industries/claude-agent-acp", ["0.23.1"], "0.23.1"),
]);
const recorders: RecorderInfo[] = [
  { name: "claude-sdk", surface: "claude-sdk", packages: [`${SDK}@0.2.62`, "zod@4"] },
  { name: "claude-sdk-333", surface: "claude-sdk", packages: [`${SDK}@0.3.333`, `${SDK}-linux-x64@0.3.333`, "@modelcontextprotocol/sdk@1.32.2", "zod@4"] },
  { name: "claude-sdk-337", surface: "claude-sdk", packages: [`${SDK}@0.3.337`, `${SDK}-linux-x64@0.3.337`, "@modelcontextprotocol/sdk@1.32.2", "zod@4"] },
  { name: "codex-app-server", surface: "codex-app-server", packages: ["@openai/codex@0.171.0"] },
  { name: "codex-exec", surface: "codex-exec", packages: ["@openai/codex@0.171.0"] },
  { name: "claude-code-acp", surface: "acp", packages: ["@zed-industries/claude-code-acp@0.16.2"] },
];
const scenarios = [
  { name: "plain", agents: recorders.map((r) => r.name) },
  { name: "retry-529", agents: ["claude-sdk-333", "claude-sdk-337"] },
];

describe("which versions the record mode records", () => {
  const plans = planRecord(recorders, scenarios, registry);
  const plan = (name: string) => plans.find((p) => p.recorder === name)!;
  const versions = (p: AgentPlan) => Object.fromEntries(p.packages.map((x) => [x.name, x.version]));

  it("each recorder's followed packages move to the newest of their line; the Claude SDK keeps 0.2 and 0.3 apart; helpers stay", () => {
    expect(versions(plan("claude-sdk"))).toEqual({ [SDK]: "0.2.141", zod: "4" });
    expect(plan("claude-sdk").packages[0]).toMatchObject({ pinned: "0.2.62", version: "0.2.141", line: "0.2" });
    // the newest line follows latest; the native CLI follows its SDK; the MCP SDK and zod are the recorder's helpers
    expect(versions(plan("claude-sdk-333"))).toEqual({ [SDK]: "0.3.337", [`${SDK}-linux-x64`]: "0.3.337", "@modelcontextprotocol/sdk": "1.32.2", zod: "4" });
    expect(plan("claude-sdk-333").packages.find((x) => x.name === `${SDK}-linux-x64`)!.why).toBe(`follows ${SDK}`);
    expect(versions(plan("codex-exec"))).toEqual({ "@openai/codex": "0.172.0" });
  });

  it("recorders that come out the same are recorded once (the one pinned newest); the same package on two surfaces is not the same", () => {
    expect(plan("claude-sdk-333").skip).toBe("records the same versions as claude-sdk-337");
    expect(plan("claude-sdk-337").skip).toBeUndefined();
    expect(plan("codex-app-server").skip).toBeUndefined();
    expect(plan("codex-exec").skip).toBeUndefined();
  });

  it("the default scenarios are a subset (retry-529 is not in it); --all-scenarios and --scenario choose", () => {
    expect(plan("claude-sdk-337").scenarios).toEqual(["plain"]);
    expect(planRecord(recorders, scenarios, registry, { all: true }).find((p) => p.recorder === "claude-sdk-337")!.scenarios).toEqual(["plain", "retry-529"]);
    expect(planRecord(recorders, scenarios, registry, { scenarios: ["retry-529"] }).find((p) => p.recorder === "claude-sdk-337")!.scenarios).toEqual(["retry-529"]);
  });

  it("a renamed agent whose successor no recorder records is said, and is unaccounted for", () => {
    expect(plan("claude-code-acp").notices).toEqual(["@zed-industries/claude-code-acp is replaced by @zed-industries/claude-agent-acp 0.23.1 (a known successor): NO recorder records it"]);
  });

  it("the versions reach the recorder through AGENTNORM_RECORD_VERSIONS, which replaces its pinned specs", () => {
    expect(overridesOf(plan("claude-sdk"))).toEqual({ "claude-sdk": { [SDK]: "0.2.141" } });
    const env = { AGENTNORM_RECORD_VERSIONS: JSON.stringify(overridesOf(plan("claude-sdk-337"))) };
    const rec = { name: "claude-sdk-337", surface: "claude-sdk", packages: recorders[2].packages, adapters: [], record: async () => ({ files: {} }) } as unknown as Recorder;
    expect(withVersions(rec, versionOverrides(env)).packages).toEqual(rec.packages); // 0.3.337 is its pin: nothing to override
    const old = { ...rec, name: "claude-sdk-333", packages: recorders[1].packages };
    expect(withVersions(old, versionOverrides({ AGENTNORM_RECORD_VERSIONS: JSON.stringify(overridesOf(plan("claude-sdk-333"))) })).packages)
      .toEqual([`${SDK}@0.3.337`, `${SDK}-linux-x64@0.3.337`, "@modelcontextprotocol/sdk@1.32.2", "zod@4"]);
    expect(() => versionOverrides({ AGENTNORM_RECORD_VERSIONS: "[1]" })).toThrow(/must be/);
  });
});

describe("a field or value the schema does not declare, named with its subtype", () => {
  const doc = {
    oneOf: [
      { properties: { type: { const: "system" }, subtype: { const: "init" }, cwd: { type: "string" } } },
      { properties: { type: { const: "system" }, subtype: { const: "task_notification" }, status: { enum: ["completed", "failed"] }, usage: { type: "object", properties: { total_tokens: {} } } } },
    ],
  };
  it("a new field on one subtype, a new enum value, a nested field; open objects are not walked", () => {
    const found = checkShape(doc, doc, { type: "system", subtype: "task_notification", status: "stopped", duration_ms: 5, usage: { total_tokens: 1, zz: 2 } });
    expect(found).toEqual([
      { what: "value", path: "status", value: "stopped", where: ['type = "system"', 'subtype = "task_notification"'] },
      { what: "field", path: "duration_ms", where: ['type = "system"', 'subtype = "task_notification"'] },
      { what: "field", path: "usage.zz", where: ['type = "system"', 'subtype = "task_notification"'] },
    ]);
    expect(checkShape(doc, doc, { type: "system", subtype: "init", cwd: "/", duration_ms: 5 })).toEqual([{ what: "field", path: "duration_ms", where: ['type = "system"', 'subtype = "init"'] }]);
    expect(checkShape({}, { type: "object" }, { anything: { goes: 1 } })).toEqual([]);
  });
});

describe("the record mode's report on a recording of a newer Claude Code (a fake run: a copy of plain, edited)", () => {
  const src = join(root, "fixtures/recorded/claude-sdk/2.1.333");
  const lines = (f: string) => readFileSync(join(src, f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  // the committed recordings compared with: plain of claude-sdk-333 only (fast; its own manifest entry)
  const committed = join(scratch, "committed.json");
  const entry = JSON.parse(readFileSync(join(root, "fixtures/recorded/manifest.json"), "utf8")).recordings.find((r: any) => r.agent === "claude-sdk-333" && r.scenario === "plain");
  writeFileSync(committed, JSON.stringify({ recordings: [entry] }));

  /** A run that writes plain's files (edited when `newer`) into the output folder with a manifest, as record.ts does. */
  const fakeRun = (newer: boolean) => async (plan: AgentPlan, outDir: string) => {
    const dir = join(outDir, "claude-sdk/2.1.337");
    mkdirSync(dir, { recursive: true });
    const stream = lines("plain.ndjson");
    const wire = lines("plain.wire.ndjson");
    const transcript = lines("plain.transcript.ndjson");
    if (newer) {
      for (const l of stream) if (l.message?.type === "system" && l.message.subtype === "init") l.message.zz_route_hint = "first-party";
      for (const l of transcript) if (l.message?.type === "user") l.message.turnZzId = "00000000-0000-4000-8000-0000000000aa";
      const at = transcript.findIndex((l) => l.message?.type === "assistant");
      transcript.splice(at, 0, { seq: 0, dir: "in", message: { type: "api-request-zz", provider: "firstParty", credential: "apiKey", sessionId: "00000000-0000-4000-8000-000000000001" } });
      transcript.forEach((l, i) => (l.seq = i + 1));
    }
    const files = [["", stream], [".wire", wire], [".transcript", transcript]] as const;
    for (const [suffix, ls] of files) writeFileSync(join(dir, `plain${suffix}.ndjson`), ls.map((l) => JSON.stringify(l)).join("\n") + "\n");
    writeFileSync(join(outDir, "manifest.json"), JSON.stringify({
      recordings: [{ surface: "claude-sdk", scenario: "plain", agent: plan.recorder, packages: plan.packages.map((p) => `${p.name}@${p.version}`), agentVersion: "2.1.337", files: files.map(([suffix, ls]) => ({ file: relative(root, join(dir, `plain${suffix}.ndjson`)), lines: ls.length })) }],
    }));
    return 0;
  };
  const run = (newer: boolean) => runRecord({ root, agents: ["claude-sdk-333"], recorders: [recorders[1]], scenarioList: scenarios, registry, run: fakeRun(newer), committedManifest: committed, log: quiet });

  it("a new transcript line type is reported (unknown to the table, not in the pinned schema), with the new fields and their subtype; exit 1", async () => {
    const rep = await run(true);
    const a = rep.agents[0];
    expect(a).toMatchObject({ recorder: "claude-sdk-333", agentVersion: "2.1.337", recorded: ["plain"], failed: [], baseline: ["plain"], unaccounted: true });
    expect(a.packages.find((p) => p.name === SDK)).toMatchObject({ pinned: "0.3.333", version: "0.3.337" });
    const form = (f: string) => a.forms.find((x) => x.form === f)!;
    expect(a.forms.map((f) => [f.form, f.surface])).toEqual([["stream", "claude-sdk"], ["wire", "claude-sdk"], ["transcript", "claude-transcript"]]);
    expect(form("transcript").unknown.map((t) => [t.kind, t.method, t.count])).toEqual([["line", "api-request-zz", 1]]);
    expect(form("transcript").notInSchema.map((t) => [t.kind, t.method, t.count])).toEqual([["line", "api-request-zz", 1]]);
    expect(form("transcript").fields.map((t) => [t.kind, t.method, t.path, t.where])).toEqual([["line", "user", "turnZzId", []]]);
    expect(form("stream").fields.map((t) => [t.kind, t.method, t.path, t.where])).toEqual([["message", "system", "zz_route_hint", ['subtype = "init"']]]);
    expect(form("stream").unknown).toEqual([]);
    // the wire is the pinned one: what the pinned schema lacks there was in the pinned recording too
    expect(form("wire")).toMatchObject({ unknown: [], notInSchema: [], fields: [], values: [] });
    expect(form("wire").alsoPinned).toBeGreaterThan(0);
    const text = formatRecordReport(rep);
    expect(text).toContain("unknown to the table: line api-request-zz ×1 (plain.transcript)");
    expect(text).toContain("not in the pinned schema: line api-request-zz ×1");
    expect(text).toContain("new field: line user: turnZzId ×");
    expect(text).toContain("new field: message system (subtype init): zz_route_hint ×1");
    expect(text).toMatch(/unaccounted for: yes\n$/);
    expect(rep.exitCode).toBe(EXIT.drift);
  });

  it("the same recording unedited: everything accounted for, exit 0 (what the pinned schemas lack is in the pinned recording too)", async () => {
    const rep = await run(false);
    for (const f of rep.agents[0].forms) expect([f.form, f.unknown, f.invalid, f.notInSchema, f.fields, f.values]).toEqual([f.form, [], [], [], [], []]);
    expect(rep.agents[0].forms.find((f) => f.form === "transcript")!.alsoPinned).toBeGreaterThan(0);
    expect(rep.exitCode).toBe(EXIT.ok);
    expect(formatRecordReport(rep)).toMatch(/unaccounted for: nothing\n$/);
  });

  it("a recording that failed (nothing written) is said and exits 3", async () => {
    const rep = await runRecord({ root, agents: ["claude-sdk-333"], recorders: [recorders[1]], scenarioList: scenarios, registry, run: async () => 1, committedManifest: committed, log: quiet });
    expect(rep.agents[0].failed).toEqual(["plain"]);
    expect(formatRecordReport(rep)).toContain("FAILED: plain");
    expect(rep.exitCode).toBe(EXIT.unchecked);
  });
});

describe("npm run drift -- --record: usage errors (nothing is installed or recorded)", () => {
  const cli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(root, "tools/drift/drift.ts"), "--record", ...args], { cwd: root, encoding: "utf8" });

  it("an option of the static check, an unknown agent, an unknown scenario: exit 2 with one line naming it", () => {
    const offline = cli(["--offline"]);
    expect(offline.status).toBe(EXIT.usage);
    expect(offline.stderr.split("\n")[0]).toBe("drift: --offline is not an option of --record");
    const agent = cli(["--agent", "nope"]);
    expect(agent.status).toBe(EXIT.usage);
    expect(agent.stderr).toMatch(/^drift: unknown agent nope \(recorders: .*claude-sdk-333.*\)\n$/);
    const scenario = cli(["--scenario", "plain,nope"]);
    expect(scenario.status).toBe(EXIT.usage);
    expect(scenario.stderr).toMatch(/^drift: unknown scenario nope \(scenarios: /);
    expect(agent.stdout + scenario.stdout).toBe("");
  });
});
