/**
 * Requests that are not permissions: the host is asked to run a tool the agent defined (`dynamic_tool_call`) or to
 * refresh auth tokens (`auth_tokens_refresh`). Their kind comes from the canonical model (`requestKinds`), so every
 * render-side consumer shows them for what they are — a host call that completes or fails, not an approval — and
 * the reverse API answers them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REQUEST_KIND, CANONICAL_REQUEST_TYPE_VALUES } from "../generated/canonical.gen.js";
import { answerRequest } from "../src/answer/answer.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { checkChatEvents, toChatEvents } from "../src/render/chat-event.js";
import { renderSnapshotText } from "../src/render/render-text.js";

const ROOT = join(import.meta.dirname, "..");
const session = () => {
  const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(join(ROOT, "fixtures/codex-app-server/error-and-interrupt.ndjson"), "utf8").split("\n").filter(Boolean);
  return { n, events: lines.flatMap((l) => n.pushLine(l)) };
};

describe("request kinds", () => {
  it("every canonical request type has exactly one kind", () => {
    expect(Object.keys(REQUEST_KIND).sort()).toEqual([...CANONICAL_REQUEST_TYPE_VALUES].sort());
    expect(REQUEST_KIND.dynamic_tool_call).toBe("host_call");
    expect(REQUEST_KIND.auth_tokens_refresh).toBe("host_call");
    expect(REQUEST_KIND.tool_user_input).toBe("question");
    expect(REQUEST_KIND.command_execution_approval).toBe("permission");
  });
});

describe("a Codex host tool call (item/tool/call)", () => {
  it("resolves completed (or failed) from the host's answer", () => {
    const { events } = session();
    const resolved = events.filter((e) => e.type === "request.resolved" && (e.payload as any).requestType === "dynamic_tool_call");
    expect(resolved.map((e) => (e.payload as any).decision)).toEqual(["completed"]);
  });

  it("is a host_call chat_event, never a permission, and the records keep the contract", () => {
    const records = toChatEvents(session().events);
    const calls = records.filter((r) => r.kind === "host_call");
    expect(calls.map((r) => [r.phase, r.hostCall?.requestType, r.hostCall?.decision])).toEqual([["started", "dynamic_tool_call", undefined], ["completed", "dynamic_tool_call", "completed"]]);
    expect(calls[0].hostCall?.detail).toBe("osv_lookup");
    expect(records.filter((r) => r.kind === "permission" && r.permission?.requestType === "dynamic_tool_call")).toEqual([]);
    expect(checkChatEvents(records)).toEqual([]);
  });

  it("is a host_call block in the accumulator, and `render` says host call", () => {
    const acc = createAccumulator();
    for (const e of session().events) acc.apply(e);
    const snap = acc.snapshot();
    const blocks = snap.sessions.flatMap((s: any) => [...s.steps, ...s.turns.flatMap((t: any) => t.steps)]).flatMap((st: any) => st.blocks);
    const call = blocks.find((b: any) => b.requestType === "dynamic_tool_call");
    expect(call?.kind).toBe("host_call");
    expect(call?.decision).toBe("completed");
    const text = renderSnapshotText(snap, { color: false });
    expect(text).toMatch(/⇄ host call dynamic_tool_call: osv_lookup → completed/);
    expect(text).not.toMatch(/permission dynamic_tool_call/);
  });

  it("answerRequest: the tool's output as content items, or a failure; a permission decision is refused", () => {
    const { n, events } = (() => {
      const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
      const lines = readFileSync(join(ROOT, "fixtures/codex-app-server/error-and-interrupt.ndjson"), "utf8").split("\n").filter(Boolean);
      const out = [];
      for (const l of lines) { out.push(...n.pushLine(l)); if (l.includes('"item/tool/call"')) break; }
      return { n, events: out };
    })();
    const opened = events.find((e) => e.type === "request.opened")!;
    expect((opened.payload as any).requestType).toBe("dynamic_tool_call");
    const ok = answerRequest(opened, { decision: "completed", output: "no advisories" });
    expect(ok).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 0, result: { success: true, contentItems: [{ type: "inputText", text: "no advisories" }] } } });
    const bad = answerRequest(opened, { decision: "failed", message: "lookup timed out" });
    expect(bad.kind === "jsonrpc" && "result" in bad.message && bad.message.result).toEqual({ success: false, contentItems: [{ type: "inputText", text: "lookup timed out" }] });
    expect(() => answerRequest(opened, { decision: "allow_once" })).toThrow(/takes completed or failed, not "allow_once"/);
    // round trip: the answer resolves the request as asked
    if (ok.kind !== "jsonrpc") throw new Error("jsonrpc expected");
    const back = n.push(ok.message, { direction: "out" }).filter((e) => e.type === "request.resolved");
    expect(back.map((e) => [e.requestId, (e.payload as any).decision])).toEqual([[opened.requestId, "completed"]]);
  });

  it("answerRequest refuses completed/failed for a permission", () => {
    const opened: any = { type: "request.opened", provider: "codex", payload: { requestType: "command_execution_approval", options: [{ decision: "allow_once", providerOptionId: "accept" }] }, providerRefs: { providerRequestId: "3" } };
    expect(() => answerRequest(opened, { decision: "completed" })).toThrow(/takes a permission decision/);
  });
});
