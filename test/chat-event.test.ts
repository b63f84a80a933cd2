/**
 * The chat_event projection (src/render/chat-event.ts): the published JSON Schema, the contract invariants, identity shared
 * with the accumulator, the legacy marker lines, and `agentnorm project`, over the recorded canonical streams of
 * four surfaces and hand-built cases.
 */
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CHAT_EVENT_KINDS, CHAT_EVENT_PHASES, chatEventLine, checkChatEvents, createChatEventProjector, legacyMarkers, toChatEvents, type ChatEvent,
} from "../src/render/chat-event.js";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const REC = join(ROOT, "fixtures/recorded");
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "schemas/chat-event.schema.json"), "utf8"));
type AjvClass = typeof import("ajv").default;
const AjvCtor: AjvClass = (Ajv as unknown as { default?: AjvClass }).default ?? (Ajv as unknown as AjvClass);
const validate = new AjvCtor({ strict: true, allErrors: true, allowUnionTypes: true }).compile(SCHEMA);

const streams = readdirSync(REC, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(REC, d.name)).filter((f) => f.endsWith(".expected.ndjson")).map((f) => ({ name: `${d.name}/${f.replace(/\.expected\.ndjson$/, "")}`, file: join(REC, d.name, f) })));
const load = (file: string): CanonicalEvent[] => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

function stream(provider: CanonicalEvent["provider"] = "codex") {
  let seq = 0;
  const events: CanonicalEvent[] = [];
  const ev = (type: string, payload: object = {}, ids: Record<string, unknown> = {}) => {
    seq++;
    events.push({ eventId: `evt_${seq}`, sequence: seq, type, provider, sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...ids, payload } as unknown as CanonicalEvent);
  };
  return { ev, events };
}

describe("chat_event: schema and types agree", () => {
  it("the schema's kinds and phases are the TypeScript lists", () => {
    expect(SCHEMA.properties.kind.enum).toEqual([...CHAT_EVENT_KINDS]);
    expect(SCHEMA.properties.phase.enum).toEqual([...CHAT_EVENT_PHASES]);
  });
  it("the package exports the schema", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.exports["./chat-event.schema.json"]).toBe("./schemas/chat-event.schema.json");
  });
  it("the schema rejects what the contract forbids", () => {
    const ok = { type: "chat_event", schemaVersion: 1, provider: "codex", sessionId: "ses_1", sequence: 1, phase: "delta", kind: "text", blockId: "itm_1:text", text: "x", source: { eventId: "evt_1", sequence: 1, type: "content.delta" } };
    expect(validate(ok)).toBe(true);
    expect(validate({ ...ok, blockId: undefined })).toBe(false); // a delta without block
    expect(validate({ ...ok, kind: "tool", phase: "started" })).toBe(false); // a tool without toolCallId / tool body
    expect(validate({ ...ok, phase: "finished" })).toBe(false);
    expect(validate({ ...ok, schemaVersion: 2 })).toBe(false);
    expect(validate({ ...ok, extra: 1 })).toBe(false);
  });
});

describe("chat_event over recorded canonical streams", () => {
  it("covers at least three surfaces", () => expect(new Set(streams.map((s) => s.name.split("/")[0])).size).toBeGreaterThanOrEqual(3));
  for (const s of streams) {
    it(`${s.name}: schema-valid, keeps the invariants, and carries the accumulator's identity and text`, () => {
      const events = load(s.file);
      const recs = toChatEvents(events);
      expect(recs.length).toBeGreaterThan(0);
      const invalid = recs.filter((r) => !validate(r)).map((r) => `#${(r as ChatEvent).sequence} ${JSON.stringify(validate.errors)}`);
      expect(invalid).toEqual([]);
      expect(checkChatEvents(recs)).toEqual([]);
      // every block a record names is a block of the accumulator's snapshot of the same stream
      const acc = createAccumulator();
      acc.applyAll(events);
      const blocks = new Map(snapshotBlocks(acc.snapshot()).map((b) => [b.blockId, b as any]));
      const named = [...new Set(recs.map((r) => r.blockId).filter((b): b is string => !!b))];
      expect(named.filter((b) => !blocks.has(b))).toEqual([]);
      // the deltas of each block, concatenated, are the accumulator's text of that block
      const byId = new Map(events.map((e) => [e.eventId as string, e]));
      const text = new Map<string, string>();
      for (const r of recs) {
        if (r.phase !== "delta") continue;
        const key = `${r.blockId}|${(byId.get(r.source.eventId)!.payload as any).streamKind}`;
        text.set(key, (text.get(key) ?? "") + r.text);
      }
      for (const [key, t] of text) {
        const [blockId, kind] = key.split("|");
        const b = blocks.get(blockId);
        const field = kind === "reasoning_summary_text" ? "summary" : kind === "file_change_output" || kind === "unknown" ? "output" : "text";
        expect(b?.[field], key).toBe(t);
      }
      // one [MESSAGE_START] and one [MESSAGE_END] per turn
      const markers = recs.flatMap(legacyMarkers);
      const turns = events.filter((e) => e.type === "turn.started").length;
      expect(markers.filter((m) => m === "[MESSAGE_START]")).toHaveLength(turns);
      expect(markers.filter((m) => m === "[MESSAGE_END]")).toHaveLength(events.filter((e) => e.type === "turn.completed" || e.type === "turn.aborted").length);
    });
  }
});

describe("chat_event: projection of each kind", () => {
  it("text, thinking, tool lifecycle, terminal, diff, permission, question, plan, todo, task, usage, mode, status", () => {
    const { ev, events } = stream();
    ev("session.configured", { config: { currentModeId: "code" }, mode: "code" });
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "reasoning_text", delta: "hm" }, { turnId: "trn_1", itemId: "itm_1", providerRefs: { providerItemId: "msg_9:0" } });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls", command: "ls", input: "ls" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("request.opened", { requestType: "command_execution_approval", detail: "ls" }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_1", providerRefs: { providerRequestId: "7" } });
    ev("request.resolved", { requestType: "command_execution_approval", decision: "accept" }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_1" });
    ev("content.delta", { streamKind: "command_output", delta: "a.txt\n" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.completed", { itemType: "command_execution", status: "failed", title: "ls", command: "ls", input: "ls", output: "a.txt\n" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.completed", { itemType: "file_change", status: "completed", title: "a.ts", files: [{ path: "a.ts", change: "add", diff: "+x" }] }, { turnId: "trn_1", itemId: "itm_3" });
    ev("user-input.requested", { questions: [{ id: "q", question: "Which?" }] }, { turnId: "trn_1", requestId: "req_2" });
    ev("user-input.resolved", { answers: { q: "A" } }, { turnId: "trn_1", requestId: "req_2" });
    ev("turn.plan.updated", { plan: [{ step: "a", status: "completed" }] }, { turnId: "trn_1" });
    ev("turn.plan.updated", { plan: [{ step: "b", status: "pending" }] }, { turnId: "trn_1", itemId: "itm_4" });
    ev("task.started", { taskId: "tsk_1", description: "explore" }, { turnId: "trn_1", parentId: "itm_2" });
    ev("task.completed", { taskId: "tsk_1", status: "failed" }, { turnId: "trn_1", parentId: "itm_2" });
    ev("thread.token-usage.updated", { usage: { total: 5 } }, { turnId: "trn_1" });
    ev("runtime.warning", { message: "slow" }, { turnId: "trn_1" });
    ev("turn.completed", { state: "interrupted" }, { turnId: "trn_1" });
    const recs = toChatEvents(events);
    const brief = recs.map((r) => [r.sequence, r.kind, r.phase, r.blockId ?? null, r.toolCallId ?? null]);
    expect(brief).toEqual([
      [1, "mode", "updated", "evt_1:mode", null],
      [2, "status", "started", null, null],
      [3, "thinking", "delta", "itm_1:thinking", null],
      [4, "tool", "started", "itm_2:tool", "itm_2"],
      [5, "permission", "started", "req_1:request", "itm_2"],
      [6, "permission", "completed", "req_1:request", "itm_2"],
      [7, "terminal", "delta", "itm_2:terminal", "itm_2"],
      [8, "tool", "failed", "itm_2:tool", "itm_2"],
      [9, "tool", "completed", "itm_3:tool", "itm_3"],
      [10, "diff", "completed", "itm_3:diff", "itm_3"],
      [11, "question", "started", "req_2:request", null],
      [12, "question", "completed", "req_2:request", null],
      [13, "plan", "updated", "trn_1:plan", null],
      [14, "todo", "updated", "itm_4:plan", null],
      [15, "task", "started", "tsk_1:task", null],
      [16, "task", "failed", "tsk_1:task", null],
      [17, "usage", "updated", "trn_1:usage", null],
      [18, "status", "updated", "evt_17:status", null],
      [19, "status", "completed", null, null],
    ]);
    expect(recs[2]).toMatchObject({ messageId: "msg_9", partId: "0", text: "hm", source: { eventId: "evt_3", sequence: 3, type: "content.delta" } });
    expect(recs[4].permission).toEqual({ requestId: "req_1", providerRequestId: "7", requestType: "command_execution_approval", detail: "ls" });
    expect(recs[7].tool).toEqual({ name: "ls", itemType: "command_execution", status: "failed", title: "ls", command: "ls", input: "ls", result: "a.txt\n" });
    expect(recs[9].diff).toEqual({ scope: "item", files: [{ path: "a.ts", kind: "add", diff: "+x" }] });
    expect(recs[11].question).toEqual({ requestId: "req_2", answers: { q: "A" } });
    expect(recs[14]).toMatchObject({ parentId: "itm_2", task: { taskId: "tsk_1", status: "running", description: "explore" } });
    expect(recs[15]).toMatchObject({ parentId: "itm_2", task: { taskId: "tsk_1", status: "failed" } });
    expect(recs[18].status).toMatchObject({ scope: "turn", state: "interrupted" });
    expect(checkChatEvents(recs)).toEqual([]);
    for (const r of recs) expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  });

  it("a terminal referenced by a tool's content is a terminal record under the tool", () => {
    const { ev, events } = stream("acp");
    ev("item.updated", { itemType: "command_execution", status: "inProgress", terminalId: "term_7" }, { turnId: "trn_1", itemId: "itm_1" });
    const recs = toChatEvents(events);
    expect(recs.map((r) => [r.kind, r.phase, r.blockId, r.toolCallId, r.parentId, r.terminalId ?? null])).toEqual([
      ["tool", "updated", "itm_1:tool", "itm_1", undefined, null],
      ["terminal", "updated", "itm_1:terminal", "itm_1", "itm_1", "term_7"],
    ]);
    for (const r of recs) expect(validate(r)).toBe(true);
  });

  it("records without a turnId take their item's turn, else the open turn — the accumulator's grouping, same block ids", () => {
    const { ev, events } = stream("acp");
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "hi" }, { itemId: "itm_1" });
    ev("content.delta", { streamKind: "plan_text", delta: "1. a" });
    ev("thread.token-usage.updated", { usage: { used: 1 } });
    ev("turn.plan.updated", { plan: [{ step: "a", status: "pending" }] });
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: " there" }, { itemId: "itm_1" });
    ev("thread.token-usage.updated", { usage: { used: 2 } });
    const recs = toChatEvents(events);
    expect(recs.map((r) => [r.kind, r.turnId ?? null, r.blockId ?? null])).toEqual([
      ["status", "trn_1", null],
      ["text", "trn_1", "itm_1:text"],
      ["plan", "trn_1", "trn_1:stream:plan_text:plan"],
      ["usage", "trn_1", "trn_1:usage"],
      ["plan", "trn_1", "trn_1:plan"],
      ["status", "trn_1", null],
      ["text", "trn_1", "itm_1:text"], // its item's turn, after the turn ended
      ["usage", null, "ses_1:usage"], // no turn open: session level
    ]);
    const acc = createAccumulator();
    acc.applyAll(events);
    const ids = new Set(snapshotBlocks(acc.snapshot()).map((b) => b.blockId));
    expect(recs.map((r) => r.blockId).filter((b) => b && !ids.has(b))).toEqual([]);
  });

  it("sequence is the projection's own, monotonic per session, whatever the input numbering", () => {
    const p = createChatEventProjector();
    const base = { provider: "acp", createdAt: "x", payload: { streamKind: "assistant_text", delta: "a" }, type: "content.delta", itemId: "itm_1" };
    const out = [
      ...p.push({ ...base, eventId: "evt_1", sequence: 10, sessionId: "ses_1" } as any),
      ...p.push({ ...base, eventId: "evt_2", sequence: 3, sessionId: "ses_2" } as any),
      ...p.push({ ...base, eventId: "evt_3", sequence: 11, sessionId: "ses_1" } as any),
    ];
    expect(out.map((r) => [r.sessionId, r.sequence, r.source.sequence])).toEqual([["ses_1", 1, 10], ["ses_2", 1, 3], ["ses_1", 2, 11]]);
    expect(p.push(null as any)).toEqual([]);
    expect(p.push({ ...base, eventId: "evt_4", sequence: 12, sessionId: "ses_1", type: "no.such" } as any)).toEqual([]);
  });
});

describe("chat_event: checkChatEvents reports broken contracts", () => {
  it("names each violation", () => {
    const r = (o: Partial<ChatEvent>): ChatEvent => ({ type: "chat_event", schemaVersion: 1, provider: "codex", sessionId: "ses_1", sequence: 1, phase: "delta", kind: "text", blockId: "b1", text: "x", source: { eventId: "e", sequence: 1, type: "content.delta" }, ...o });
    const bad = checkChatEvents([
      r({ sequence: 2 }),
      r({ sequence: 2 }),
      r({ sequence: 3, phase: "completed", stepId: "s1", turnId: "t1" }),
      r({ sequence: 4 }),
      r({ sequence: 5, blockId: undefined }),
      r({ sequence: 6, kind: "tool", phase: "started", blockId: "b2" }),
      r({ sequence: 7, kind: "thinking", blockId: "b2", phase: "updated" }),
      r({ sequence: 8, stepId: "s1", turnId: "t2", blockId: "b3" }),
      r({ sequence: 9, kind: "permission", phase: "started", blockId: "b4" }),
    ]);
    expect(bad).toEqual([
      "#2 (record 2, text/delta): sequence not above 2",
      "#4 (record 4, text/delta): delta to block b1 after it completed",
      "#5 (record 5, text/delta): delta without blockId",
      "#6 (record 6, tool/started): tool record without toolCallId",
      "#7 (record 7, thinking/updated): block b2 changed kind tool → thinking",
      "#8 (record 8, text/delta): step s1 moved from turn t1 to t2",
      "#9 (record 9, permission/started): permission without requestId",
    ]);
  });
});

describe("chat_event: legacy marker lines", () => {
  it("derive the marker protocol: message bounds, JSON-string deltas, tool use and result; [CHAT_EVENT] is one line", () => {
    const { ev, events } = stream("claude");
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "reasoning_text", delta: "Let me\nsee" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "Bash", toolName: "shell", input: {} }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.updated", { itemType: "command_execution", status: "inProgress", title: "ls", command: "ls", input: { command: "ls" } }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.completed", { itemType: "command_execution", status: "failed", output: "boom" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "assistant_text", delta: "Done \"ok\"" }, { turnId: "trn_1", itemId: "itm_3" });
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" });
    const recs = toChatEvents(events);
    expect(recs.flatMap(legacyMarkers)).toEqual([
      "[MESSAGE_START]",
      '[THINKING_DELTA] "Let me\\nsee"',
      '[TOOL_USE] {"id":"itm_2","name":"Bash","input":{}}',
      '[TOOL_USE] {"id":"itm_2","name":"Bash","input":{"command":"ls"}}',
      '[TOOL_RESULT] {"tool_use_id":"itm_2","content":"boom","is_error":true}',
      '[CONTENT_DELTA] "Done \\"ok\\""',
      "[MESSAGE_END]",
    ]);
    for (const r of recs) {
      const line = chatEventLine(r);
      expect(line.split("\n")).toHaveLength(1);
      expect(JSON.parse(line.slice("[CHAT_EVENT] ".length))).toEqual(r);
    }
  });
});

describe("agentnorm project (CLI)", () => {
  const DIST_CLI = join(ROOT, "dist/src/cli/cli.js");
  const cli = (args: string[], input = "") => {
    const opts = { cwd: ROOT, encoding: "utf8" as const, timeout: 60_000, input };
    if (existsSync(DIST_CLI) && process.env.AGENTNORM_TEST_CLI !== "tsx") return spawnSync(process.execPath, [DIST_CLI, ...args], opts);
    return spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], opts);
  };

  it("--format chat-event: NDJSON records equal to the library projection; --from gives the same from the provider stream", () => {
    const file = join(REC, "codex-app-server/approval");
    const a = cli(["project", `${file}.expected.ndjson`]);
    expect(a.status).toBe(0);
    const recs = a.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(recs).toEqual(JSON.parse(JSON.stringify(toChatEvents(load(`${file}.expected.ndjson`)))));
    expect(cli(["project", "--from", "codex-app-server", `${file}.ndjson`]).stdout).toBe(a.stdout);
  });

  it("--format legacy: only marker lines, each [CHAT_EVENT] line a record", () => {
    const r = cli(["project", "--format", "legacy", join(REC, "acp/shell.expected.ndjson")]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines.filter((l) => !/^\[(MESSAGE_START|MESSAGE_END|CONTENT_DELTA|THINKING_DELTA|TOOL_USE|TOOL_RESULT|CHAT_EVENT)\]( |$)/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.startsWith("[CHAT_EVENT] ")).every((l) => validate(JSON.parse(l.slice(13))))).toBe(true);
    expect(lines.some((l) => l.startsWith("[TOOL_RESULT] "))).toBe(true);
  });

  it("reports contract violations of the input stream on stderr (a delta to a completed block) and still writes every record", () => {
    const { ev, events } = stream();
    ev("item.started", { itemType: "assistant_message" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "assistant_message", status: "completed" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "late" }, { turnId: "trn_1", itemId: "itm_1" });
    const r = cli(["project", "-"], events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(3);
    expect(r.stderr).toContain("delta to block itm_1:text after it completed");
    expect(r.stderr).toContain("1 chat_event contract violation(s)");
  });

  it("usage errors: unknown format or surface exit 2; provider lines without --from: the surface is detected and said", () => {
    expect(cli(["project", "--format", "xml", join(REC, "acp/shell.expected.ndjson")]).status).toBe(2);
    expect(cli(["project", "--from", "nope", join(REC, "acp/shell.ndjson")]).status).toBe(2);
    const raw = cli(["project", join(REC, "acp/shell.ndjson")]);
    expect(raw.status).toBe(0);
    expect(raw.stderr).toMatch(/detected acp native messages \(confidence \d+%/);
    expect(raw.stdout).toBe(cli(["project", "--from", "acp", join(REC, "acp/shell.ndjson")]).stdout);
    expect(raw.stdout.length).toBeGreaterThan(100);
  });
});
