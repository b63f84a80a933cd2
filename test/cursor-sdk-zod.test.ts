/**
 * The cursor-sdk fixtures against the Cursor SDK's own exported zod schemas (`@cursor/sdk` 1.0.32, installed by hand
 * with `npm i --no-save @cursor/sdk@1.0.32`: not a devDependency, as its optional platform packages cannot be locked
 * for `npm ci`; skipped with a notice when it is not installed). The SDK derives its run-stream messages from interaction updates
 * (onDelta): a user message from user-message-appended, assistant text from text-delta, thinking from thinking-delta /
 * thinking-completed, a tool_call from tool-call-started / partial-tool-call / tool-call-completed (its `name`, `args`
 * and `result` are the update's `toolCall`), usage from turn-ended. Each fixture message is turned back into the update
 * it came from and must parse under the package's schema for that update, so the fixtures' tool arguments and results
 * cannot drift from the real shapes; every line must also decode as a local run-stream event (the package's decoder).
 * Nothing of the package is copied; the test only calls it.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "cursor-sdk");
const SDK_PACKAGE = "@cursor/sdk"; // a variable: the type checker must not require the package
const sdk: any = await import(SDK_PACKAGE).catch((e: unknown) => {
  console.warn(`cursor-sdk-zod: @cursor/sdk is not installed (npm i --no-save @cursor/sdk@1.0.32), the fixtures are not checked against its zod schemas: ${String((e as Error)?.message ?? e).split("\n")[0]}`);
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
