/**
 * The cursor-sdk fixtures against the Cursor SDK's own exported zod schemas (`@cursor/sdk` 1.0.32: not a
 * devDependency, as its optional platform packages cannot be locked for `npm ci`; install it by hand, either in the
 * repository with `npm i --no-save @cursor/sdk@1.0.32`, or anywhere else and name that folder in
 * AGENTNORM_CURSOR_SDK, e.g. `AGENTNORM_CURSOR_SDK=/tmp/cursor-sdk-pkg` after
 * `npm i --prefix /tmp/cursor-sdk-pkg @cursor/sdk@1.0.32 --ignore-scripts --omit=optional`; skipped with a notice when
 * it is not found).
 * - Run streams (fixtures/cursor-sdk/*.jsonl): the SDK derives its run-stream messages from interaction updates
 *   (onDelta): a user message from user-message-appended, assistant text from text-delta, thinking from
 *   thinking-delta / thinking-completed, a tool_call from tool-call-started / partial-tool-call / tool-call-completed
 *   (its `name`, `args` and `result` are the update's `toolCall`), usage from turn-ended. Each fixture message is
 *   turned back into the update it came from and must parse under the package's schema for that update, so the
 *   fixtures' tool arguments and results cannot drift from the real shapes; every line must also decode as a local
 *   run-stream event (the package's decoder).
 * - Interaction updates (deltas/, and the update lines of mixed/): each must parse under InteractionUpdateSchema (and
 *   its own exported schema, and a subagent's nested update under NestedTaskUpdateSchema) and parse to itself: the
 *   schemas drop keys they do not know, so a misspelt or invented field fails.
 * - Restored conversations (conversation/): each turn under ConversationTurnSchema, each step (a task's subagent steps
 *   too) under ConversationStepSchema, likewise parsing to themselves.
 * Nothing of the package is copied; the test only calls it.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "cursor-sdk");
const ELSEWHERE = process.env.AGENTNORM_CURSOR_SDK;
// a variable: the type checker must not require the package
const SDK_PACKAGE = ELSEWHERE ? pathToFileURL(join(ELSEWHERE, "node_modules", "@cursor", "sdk", "dist", "esm", "index.js")).href : "@cursor/sdk";
const sdk: any = await import(SDK_PACKAGE).catch((e: unknown) => {
  console.warn(`cursor-sdk-zod: @cursor/sdk is not installed (npm i --no-save @cursor/sdk@1.0.32, or AGENTNORM_CURSOR_SDK=<a folder where it is installed>), the fixtures are not checked against its zod schemas: ${String((e as Error)?.message ?? e).split("\n")[0]}`);
  return undefined;
});

/** The interaction update a run-stream message came from, and the schema export that parses it; undefined for the
 * messages the SDK does not derive from an update (system, status, request). */
function asUpdate(m: any): { schema: string; update: unknown } | undefined {
  switch (m.type) {
    case "user": return { schema: "UserMessageAppendedUpdateSchema", update: { type: "user-message-appended", userMessage: { type: "user_message", session_id: m.agent_id, text: m.message.content.map((b: any) => b.text).join("") } } };
    case "assistant": return { schema: "TextDeltaUpdateSchema", update: { type: "text-delta", text: m.message.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("") } };
    case "thinking":
      return m.thinking_duration_ms !== undefined
        ? { schema: "ThinkingCompletedUpdateSchema", update: { type: "thinking-completed", thinkingDurationMs: m.thinking_duration_ms } }
        : { schema: "ThinkingDeltaUpdateSchema", update: { type: "thinking-delta", text: m.text } };
    case "tool_call": {
      const toolCall = { type: m.name, args: m.args, ...(m.result !== undefined ? { result: m.result } : {}) };
      return m.status === "running"
        ? { schema: "ToolCallStartedUpdateSchema", update: { type: "tool-call-started", callId: m.call_id, modelCallId: `model-${m.call_id}`, toolCall } }
        : { schema: "ToolCallCompletedUpdateSchema", update: { type: "tool-call-completed", callId: m.call_id, modelCallId: `model-${m.call_id}`, toolCall } };
    }
    case "usage": {
      const { totalTokens: _t, ...usage } = m.usage;
      return { schema: "TurnEndedUpdateSchema", update: { type: "turn-ended", usage } };
    }
    case "task": return { schema: "SummaryUpdateSchema", update: { type: "summary", summary: m.text } };
  }
  return undefined;
}

const fixtures = readdirSync(DIR).filter((f) => f.endsWith(".jsonl")).sort();
const read = (f: string): any[] => readFileSync(join(DIR, f), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
const messages = (f: string): any[] => read(f).map((l) => (l.schemaVersion !== undefined ? (l.type === "sdk_message" ? l.message : undefined) : l)).filter((m) => m !== undefined);

describe.skipIf(!sdk)("cursor-sdk fixtures against @cursor/sdk's zod schemas", () => {
  it("the check itself rejects a wrong shape (a shell call without its command)", () => {
    const bad = asUpdate({ type: "tool_call", call_id: "c", name: "shell", status: "running", args: { cmd: "ls" } })!;
    expect(sdk[bad.schema].safeParse(bad.update).success).toBe(false);
  });

  for (const f of fixtures) {
    it(`${f}: every message is what a valid interaction update derives`, () => {
      let checked = 0;
      for (const m of messages(f)) {
        const u = asUpdate(m);
        if (!u) continue;
        const r = sdk[u.schema].safeParse(u.update);
        expect(r.success, `${f}: ${JSON.stringify(m)}\n${r.success ? "" : JSON.stringify(r.error.issues)}`).toBe(true);
        expect(sdk.InteractionUpdateSchema.safeParse(u.update).success).toBe(true);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });

    it(`${f}: every line decodes as a local run-stream event`, () => {
      for (const l of read(f)) {
        const ev = l.schemaVersion !== undefined ? l : sdk.createSdkMessageRunStreamEvent(l);
        const back = sdk.decodeLocalRunStreamEvent(JSON.parse(JSON.stringify(ev)));
        expect(back.type).toBe(ev.type);
        if (ev.type === "sdk_message") expect(sdk.localRunStreamEventToSdkMessage(back)).toEqual(ev.message);
      }
    });
  }
});

const sub = (d: string) => readdirSync(join(DIR, d)).filter((f) => f.endsWith(".jsonl")).sort().map((f) => `${d}/${f}`);
/** The exported schema of one update type (`text-delta` → TextDeltaUpdateSchema), when the package exports it. */
const ownSchema = (type: string) => sdk?.[`${type.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join("")}UpdateSchema`];
/** A fixture value parses under a zod schema, to itself (no key the schema does not know). */
function expectParses(schema: any, value: unknown, what: string) {
  const r = schema.safeParse(value);
  expect(r.success, `${what}: ${JSON.stringify(value)}\n${r.success ? "" : JSON.stringify(r.error.issues)}`).toBe(true);
  expect(r.data, `${what}: a key the schema does not know`).toEqual(value);
}

describe.skipIf(!sdk)("cursor-sdk interaction updates and conversations against @cursor/sdk's zod schemas", () => {
  it("the check itself rejects a wrong shape (an invented field, a tool variant that does not exist)", () => {
    expect(sdk.InteractionUpdateSchema.safeParse({ type: "text-delta", text: "x", txet: "y" }).data).not.toEqual({ type: "text-delta", text: "x", txet: "y" });
    expect(sdk.InteractionUpdateSchema.safeParse({ type: "tool-call-started", callId: "c", modelCallId: "m", toolCall: { type: "teleport", args: {} } }).success).toBe(false);
  });

  for (const f of [...sub("deltas"), ...sub("mixed")]) {
    it(`${f}: every update is a valid interaction update`, () => {
      let checked = 0;
      for (const l of read(f)) {
        const u = l.update ?? (typeof l.type === "string" && /-/.test(l.type) ? l : undefined);
        if (!u) continue;
        expectParses(sdk.InteractionUpdateSchema, u, `${f} ${u.type}`);
        if (ownSchema(u.type)) expectParses(ownSchema(u.type), u, `${f} ${u.type} (its own schema)`);
        if (u.type === "tool-call-delta") expectParses(sdk.NestedTaskUpdateSchema, u.taskUpdate, `${f} nested ${u.taskUpdate?.type}`);
        checked++;
      }
      expect(checked).toBeGreaterThan(3);
    });
  }

  it("the update fixtures use every update type and every tool variant the package knows", () => {
    const types = new Set<string>();
    const tools = new Set<string>();
    for (const f of [...sub("deltas"), ...sub("mixed")]) for (const l of read(f)) {
      const u = l.update ?? l;
      types.add(u.type);
      if (u.toolCall) tools.add(u.toolCall.type);
      if (u.taskUpdate) types.add(`nested ${u.taskUpdate.type}`);
    }
    const members = sdk.InteractionUpdateSchema.options.map((o: any) => o.shape.type.value).sort();
    expect(members.filter((t: string) => !types.has(t)), "update types no fixture has").toEqual([]);
    const variants = sdk.ToolCallStartedUpdateSchema.shape.toolCall.options.map((o: any) => o.shape.type.value).sort();
    expect(variants.filter((t: string) => !tools.has(t)), "tool variants no fixture has").toEqual([]);
  });

  for (const f of sub("conversation")) {
    it(`${f}: every turn is a valid conversation turn, every step a valid step`, () => {
      const steps = (xs: any[]): any[] => xs.flatMap((s) => [s, ...(Array.isArray(s.message?.result?.value?.conversationSteps) ? steps(s.message.result.value.conversationSteps) : [])]);
      let checked = 0;
      for (const t of read(f)) {
        expectParses(sdk.ConversationTurnSchema, t, `${f} ${t.type}`);
        for (const s of steps(t.turn.steps ?? [])) { expectParses(sdk.ConversationStepSchema, s, `${f} ${s.type}`); checked++; }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});

describe.skipIf(!sdk)("cursor-sdk: the pinned schemas name what @cursor/sdk's zod schemas name", () => {
  const pinned = (f: string) => JSON.parse(readFileSync(join(DIR, "..", "..", "schemas/upstream/cursor-sdk/1.0.32", f), "utf8"));
  const tagsOf = (doc: any) => doc.oneOf.map((m: any) => m.properties.type.enum[0]).sort();
  const zodTags = (s: any) => s.options.map((o: any) => o.shape.type.value).sort();
  it("update types, a subagent's nested update types and tool variants", () => {
    const u = pinned("InteractionUpdate.json");
    expect(tagsOf(u)).toEqual(zodTags(sdk.InteractionUpdateSchema));
    expect(tagsOf(u.definitions.NestedTaskUpdate)).toEqual(zodTags(sdk.NestedTaskUpdateSchema));
    expect(tagsOf(u.definitions.ToolCall)).toEqual(zodTags(sdk.ToolCallStartedUpdateSchema.shape.toolCall));
  });
  it("conversation turn and step types", () => {
    expect(tagsOf(pinned("ConversationTurn.json"))).toEqual(zodTags(sdk.ConversationTurnSchema));
    expect(tagsOf(pinned("ConversationStep.json"))).toEqual(zodTags(sdk.ConversationStepSchema));
  });
});
