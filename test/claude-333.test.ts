/**
 * Claude Agent SDK 0.3.333 / Claude Code 2.1.333 beside 0.2.62 (and 0.3.337, the tables' own pin: test/claude-337.test.ts) in the same claude tables: which pinned version a stream
 * is (stated by system/init's claude_code_version or a transcript line's version, or forced with the normalizer's
 * upstreamVersion option), and the 2.1.3xx messages that used to be mapped wrong. Hand-made minimal messages (shapes
 * as Claude Code 2.1.333 sends them), named per case; the dev wire recording of 2.1.333 is read when present.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { selectPinned } from "../src/model/versions.js";
import { verifyEvents } from "../src/verify/verify.js";

const P = (e: CanonicalEvent | undefined): any => e?.payload as any;
const init = (version: string) => ({ type: "system", subtype: "init", claude_code_version: version, session_id: "s1", uuid: "u0", cwd: "/w", tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", output_style: "default", skills: [], plugins: [] });
const prompt = (text: string) => ({ direction: "out" as const, message: { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" } });
function run(messages: unknown[], options: { upstreamVersion?: string; surface?: string } = {}) {
  const n = createNormalizer({ surface: options.surface ?? "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true, upstreamVersion: options.upstreamVersion });
  const events: CanonicalEvent[] = [];
  for (const m of messages) {
    const w = m as any;
    events.push(...(w && typeof w === "object" && "direction" in w && "message" in w ? n.push(w.message, { direction: w.direction }) : n.push(m)));
  }
  const end = n.end();
  return { n, events, end, all: [...events, ...end] };
}
const se = (event: unknown, extra: Record<string, unknown> = {}) => ({ type: "stream_event", event, parent_tool_use_id: null, uuid: `u${Math.random()}`, session_id: "s1", ...extra });

describe("which pinned version a stream is", () => {
  it("a stated version selects the pinned version that reports it, else the newest at most it, else the oldest", () => {
    const p = { current: "0.3.333", pinned: [{ version: "0.3.333", reports: "2.1.333" }, { version: "0.2.62", reports: "2.1.62" }] };
    expect(selectPinned(p, "2.1.62")).toBe("0.2.62");
    expect(selectPinned(p, "2.1.333")).toBe("0.3.333");
    expect(selectPinned(p, "0.2.62")).toBe("0.2.62");
    expect(selectPinned(p, "2.1.200")).toBe("0.2.62");
    expect(selectPinned(p, "2.1.400")).toBe("0.3.333");
    expect(selectPinned(p, "1.0.51")).toBe("0.2.62");
    expect(selectPinned(p, "latest")).toBeUndefined();
  });

  it("system/init's claude_code_version decides; before it the table's own version (0.3.337) is in effect", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
    expect(n.upstreamVersion()).toBe("0.3.337");
    n.push(init("2.1.62"));
    expect(n.upstreamVersion()).toBe("0.2.62");
    const m = createNormalizer({ surface: "claude-sdk" });
    m.push(init("2.1.333"));
    expect(m.upstreamVersion()).toBe("0.3.333");
    const k = createNormalizer({ surface: "claude-sdk" });
    k.push(init("2.1.337"));
    expect(k.upstreamVersion()).toBe("0.3.337");
  });

  it("a transcript line's version decides for the transcript and the SDK rows it hands lines to", () => {
    const n = createNormalizer({ surface: "claude-transcript" });
    n.push({ type: "user", parentUuid: null, isSidechain: false, sessionId: "s1", uuid: "u1", version: "2.1.62", message: { role: "user", content: "Hi" } });
    expect(n.upstreamVersion()).toBe("0.2.62");
  });

  it("the upstreamVersion option forces a version whatever the stream says; one that selects nothing throws", () => {
    const r = run([init("2.1.333")], { upstreamVersion: "0.2.62" });
    expect(r.n.upstreamVersion()).toBe("0.2.62");
    expect(run([init("2.1.333")], { upstreamVersion: "2.1.62" }).n.upstreamVersion()).toBe("0.2.62");
    expect(() => createNormalizer({ surface: "claude-sdk", upstreamVersion: "newest" })).toThrow(/upstreamVersion "newest" is not a version of @anthropic-ai\/claude-agent-sdk \(pinned: 0\.3\.337, 0\.3\.333, 0\.2\.141, 0\.2\.62\)/);
  });

  it("rows of one version only: a 0.3 message in a stream forced to 0.2.62 is a warning naming the version", () => {
    const r = run([init("2.1.333"), { type: "system", subtype: "api_retry", attempt: 1, max_retries: 2, retry_delay_ms: 0, error_status: 529, error: "overloaded", uuid: "u1", session_id: "s1" }], { upstreamVersion: "0.2.62" });
    expect(r.events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message)).toEqual(['claude-sdk: no row for message "system" matched this message (at @anthropic-ai/claude-agent-sdk@0.2.62)']);
  });

  it("the same messages map by the stream's version: a text block with no assistant message closes at its stop at 2.1.62, at its message_stop at 2.1.333", () => {
    const blocks = [se({ type: "message_start", message: { id: "msg_1", content: [] } }), se({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }), se({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }), se({ type: "content_block_stop", index: 0 })];
    const stop = se({ type: "message_stop" });
    const old = run([init("2.1.62"), prompt("Hi"), ...blocks]);
    expect(old.events.filter((e) => e.type === "item.completed").map((e) => P(e).itemType)).toEqual(["user_message", "assistant_message"]);
    const now = run([init("2.1.333"), prompt("Hi"), ...blocks]);
    expect(now.events.filter((e) => e.type === "item.completed").map((e) => P(e).itemType)).toEqual(["user_message"]);
    const closed = run([init("2.1.333"), prompt("Hi"), ...blocks, stop]);
    expect(closed.events.filter((e) => e.type === "item.completed").map((e) => [P(e).itemType, P(e).status])).toEqual([["user_message", "completed"], ["assistant_message", "completed"]]);
  });
});

describe("Claude Code 2.1.333 messages that used to be mapped wrong", () => {
  it("status requesting (a model request starts) is a running state, not ready", () => {
    const r = run([init("2.1.333"), { type: "system", subtype: "status", status: "requesting", uuid: "u1", session_id: "s1" }]);
    expect(P(r.events.find((e) => e.type === "session.state.changed"))).toEqual({ state: "running", reason: "requesting" });
  });

  it("session_state_changed requires_action is waiting; idle is ready", () => {
    const r = run([init("2.1.333"), ...["running", "requires_action", "idle"].map((state) => ({ type: "system", subtype: "session_state_changed", state, uuid: "u1", session_id: "s1" }))]);
    expect(r.events.filter((e) => e.type === "session.state.changed").map((e) => P(e).state)).toEqual(["running", "waiting", "ready"]);
  });

  it("a wire elicitation opens a request and a user-input question, and the host's answer resolves both", () => {
    const r = run([
      { type: "control_request", request_id: "r5", request: { subtype: "elicitation", mcp_server_name: "scripted", message: "Deploy to which environment?", mode: "form", requested_schema: { type: "object" } } },
      { type: "control_response", response: { subtype: "success", request_id: "r5", response: { action: "accept", content: { environment: "staging" } } } },
    ]);
    expect(r.events.map((e) => e.type)).toEqual(["request.opened", "user-input.requested", "request.resolved", "user-input.resolved"]);
    expect(P(r.events[2])).toMatchObject({ requestType: "tool_user_input", decision: "answered" });
    expect(new Set(r.events.map((e) => e.requestId)).size).toBe(1);
    expect(verifyEvents(r.all).violations).toEqual([]);
  });

  it("a wire request_user_dialog and its cancelled answer, likewise", () => {
    const r = run([
      { type: "control_request", request_id: "r6", request: { subtype: "request_user_dialog", dialog_kind: "refusal_fallback_prompt", payload: { model: "m2" } } },
      { type: "control_response", response: { subtype: "success", request_id: "r6", response: { behavior: "cancelled" } } },
    ]);
    expect(r.events.map((e) => [e.type, P(e).decision])).toEqual([["request.opened", undefined], ["user-input.requested", undefined], ["request.resolved", "cancelled"], ["user-input.resolved", undefined]]);
  });

  it("onElicitation's call and our answer (capture channel elicitation) open and resolve the question", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true });
    const ev = [
      ...n.pushLine(JSON.stringify({ seq: 1, dir: "in", channel: "elicitation", message: { request: { serverName: "scripted", message: "Which?", mode: "form", requestedSchema: { type: "object" } }, options: { requestId: "r1" } } })),
      ...n.pushLine(JSON.stringify({ seq: 2, dir: "out", channel: "elicitation", message: { action: "decline" } })),
    ];
    expect(ev.map((e) => [e.type, P(e).decision])).toEqual([["request.opened", undefined], ["user-input.requested", undefined], ["request.resolved", "reject_once"], ["user-input.resolved", undefined]]);
  });

  it("a response cut off mid-stream and retried: the partial block ends superseded, the retry's text is the one completed answer", () => {
    const r = run([
      init("2.1.333"), prompt("Explain."),
      se({ type: "message_start", message: { id: "msg_1", content: [] } }),
      se({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      se({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "A retry rep" } }),
      se({ type: "content_block_stop", index: 0 }),
      se({ type: "message_stop" }, { abandoned_blocks: { api_message_id: "msg_1", from_block_index: 0 } }),
      se({ type: "message_start", message: { id: "msg_2", content: [] } }),
      se({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      se({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "A retry repeats a request." } }),
      { type: "assistant", message: { id: "msg_2", content: [{ type: "text", text: "A retry repeats a request." }] }, parent_tool_use_id: null, uuid: "ua", session_id: "s1" },
      se({ type: "content_block_stop", index: 0 }),
      se({ type: "message_stop" }),
      { type: "result", subtype: "success", is_error: false, duration_ms: 5, duration_api_ms: 4, num_turns: 1, result: "A retry repeats a request.", stop_reason: "end_turn", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], terminal_reason: "completed", uuid: "r1", session_id: "s1" },
    ]);
    const answers = r.events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
    expect(answers.map((e) => P(e).status)).toEqual(["superseded", "completed"]);
    expect(answers.filter((e) => P(e).status === "completed").map((e) => P(e).text)).toEqual(["A retry repeats a request."]);
    expect(verifyEvents(r.all).violations).toEqual([]);
  });

  it("result.terminal_reason aborted_tools ends the turn interrupted, with no error, though the stream saw no interrupt", () => {
    const r = run([init("2.1.333"), prompt("Run it."), { type: "result", subtype: "error_during_execution", is_error: true, duration_ms: 5, duration_api_ms: 4, num_turns: 1, stop_reason: "tool_use", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], errors: ["[ede_diagnostic] result_type=user"], terminal_reason: "aborted_tools", uuid: "r1", session_id: "s1" }]);
    expect(r.events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["interrupted"]);
    expect(r.events.some((e) => e.type === "runtime.error")).toBe(false);
  });

  it("TaskCreate / TaskUpdate results become plan updates of the whole to-do list", () => {
    const result = (id: string, r: unknown) => ({ direction: "in" as const, message: { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] }, parent_tool_use_id: null, uuid: id, session_id: "s1", tool_use_result: r } });
    const r = run([init("2.1.333"), prompt("Plan it."),
      result("toolu_1", { task: { id: "1", subject: "Write the changelog" } }),
      result("toolu_2", { task: { id: "2", subject: "Tag the release" } }),
      result("toolu_3", { success: true, taskId: "1", statusChange: { from: "pending", to: "in_progress" } }),
      result("toolu_4", { success: true, taskId: "2", statusChange: { from: "pending", to: "deleted" } }),
    ]);
    expect(r.events.filter((e) => e.type === "turn.plan.updated").map((e) => P(e).plan)).toEqual([
      [{ step: "Write the changelog", status: "pending" }],
      [{ step: "Write the changelog", status: "pending" }, { step: "Tag the release", status: "pending" }],
      [{ step: "Write the changelog", status: "inProgress" }, { step: "Tag the release", status: "pending" }],
      [{ step: "Write the changelog", status: "inProgress" }],
    ]);
  });

  it("retries, denials, refusals, notifications and resets reach the stream as events a UI shows", () => {
    const m = (subtype: string, rest: Record<string, unknown>) => ({ type: "system", subtype, uuid: "u", session_id: "s1", ...rest });
    const r = run([init("2.1.333"), prompt("Go."),
      m("api_retry", { attempt: 1, max_retries: 3, retry_delay_ms: 500, error_status: 529, error: "overloaded" }),
      m("permission_denied", { tool_name: "Bash", tool_use_id: "toolu_1", decision_reason_type: "mode", decision_reason: "dontAsk mode", message: "Permission to use Bash has been denied." }),
      m("model_refusal_fallback", { trigger: "refusal", direction: "retry", original_model: "m1", fallback_model: "m2", request_id: null, content: "" }),
      m("model_refusal_no_fallback", { original_model: "m1", request_id: null, content: "" }),
      m("notification", { key: "k", text: "Update available", priority: "low" }),
      { type: "conversation_reset", new_conversation_id: "c2", trigger: "clear", uuid: "u", session_id: "s1" },
      m("thinking_tokens", { estimated_tokens: 10, estimated_tokens_delta: 2 }),
    ]);
    const shown = r.events.filter((e) => !["turn.started", "thread.started", "session.configured", "item.started", "item.completed"].includes(e.type)).map((e) => e.type);
    expect(shown).toEqual(["runtime.warning", "request.opened", "request.resolved", "model.rerouted", "runtime.warning", "runtime.warning", "thread.metadata.updated", "session.state.changed"]);
    expect(P(r.events.find((e) => e.type === "request.resolved"))).toMatchObject({ requestType: "command_execution_approval", decision: "reject_once" });
    expect(r.n.stats().ignored).toEqual({ "claude-sdk#ignored-message-1:system": 1 });
    expect(r.n.stats().unknown).toBe(0);
  });
});

const DEV = join(import.meta.dirname, "../../shared/recordings/dev/claude-wire");
const devSdk = join(DEV, "recorded-2.1.333-bash-allow.sdk.jsonl");
describe.skipIf(!existsSync(devSdk))("the dev recording of Claude Code 2.1.333 (bash-allow)", () => {
  it("SDK stream and wire: every message mapped or ignored, version 0.3.333, and the same assistant text", () => {
    const texts: string[][] = [];
    for (const f of [devSdk, join(DEV, "recorded-2.1.333-bash-allow.wire.jsonl")]) {
      const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true });
      const ev: CanonicalEvent[] = [];
      for (const l of readFileSync(f, "utf8").split("\n")) if (l.trim()) ev.push(...n.pushLine(l));
      ev.push(...n.end());
      expect(n.upstreamVersion()).toBe("0.3.333");
      expect(n.stats().unknown).toBe(0);
      expect(ev.filter((e) => e.type.startsWith("runtime.")).map((e) => P(e).message)).toEqual([]);
      texts.push(ev.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message").map((e) => P(e).text));
    }
    expect(texts[0].length).toBeGreaterThan(0);
    expect(texts[1]).toEqual(texts[0]);
  });
});

describe("answering Claude SDK 0.3 requests (answerRequest)", () => {
  const opened = (messages: unknown[]) => run(messages).events.find((e) => e.type === "request.opened")!;
  const canUseTool = { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1", requestId: "req-1", title: "Run ls", displayName: "Bash" } };

  it("canUseTool of 0.3 (it passes a requestId): the display fields reach the request, the answer says how the user decided", async () => {
    const { answerRequest } = await import("../src/answer/answer.js");
    const o = opened([canUseTool]);
    expect(P(o).args).toMatchObject({ requestId: "req-1", title: "Run ls", displayName: "Bash" });
    expect(answerRequest(o, { decision: "allow_once" }, { claude: "sdk" })).toEqual({ kind: "claude-can-use-tool", result: { behavior: "allow", updatedInput: { command: "ls" }, decisionClassification: "user_temporary" } });
    expect(answerRequest(o, { decision: "reject_once", message: "No." }, { claude: "sdk" })).toEqual({ kind: "claude-can-use-tool", result: { behavior: "deny", message: "No.", decisionClassification: "user_reject" } });
    // 0.2.62's canUseTool has no requestId: no classification (its PermissionResult has no such field)
    const old = opened([{ toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1" } }]);
    expect(answerRequest(old, { decision: "allow_once" }, { claude: "sdk" }).kind === "claude-can-use-tool" && (answerRequest(old, { decision: "allow_once" }, { claude: "sdk" }) as any).result).not.toHaveProperty("decisionClassification");
  });

  it("answered elsewhere: the callback returns null (and the wire gets nothing)", async () => {
    const { answerRequest } = await import("../src/answer/answer.js");
    expect(answerRequest(opened([canUseTool]), { decision: "answered_elsewhere" }, { claude: "sdk" })).toEqual({ kind: "claude-answered-elsewhere", callback: "canUseTool", result: null });
    expect(() => answerRequest(opened([canUseTool]), { decision: "answered_elsewhere" }, { claude: "wire" })).toThrow(/no control_response/);
  });

  it("an elicitation: onElicitation's result, or the wire's control_response; fed back, it resolves the question", async () => {
    const { answerRequest } = await import("../src/answer/answer.js");
    const call = { request: { serverName: "scripted", message: "Which?", mode: "form", requestedSchema: { type: "object" } }, options: { requestId: "r1" } };
    const o = opened([call]);
    expect(answerRequest(o, { decision: "answered", answers: { environment: "staging" } }, { claude: "sdk" })).toEqual({ kind: "claude-elicitation", result: { action: "accept", content: { environment: "staging" } } });
    expect(answerRequest(o, { decision: "reject_once" }, { claude: "sdk" })).toEqual({ kind: "claude-elicitation", result: { action: "decline" } });
    expect(answerRequest(o, { decision: "answered_elsewhere" }, { claude: "sdk" })).toMatchObject({ callback: "onElicitation", result: null });
    const wireOpened = opened([{ type: "control_request", request_id: "r5", request: { subtype: "elicitation", mcp_server_name: "s", message: "Which?" } }]);
    const a = answerRequest(wireOpened, { decision: "cancelled" }, { claude: "wire" });
    expect(a).toEqual({ kind: "claude-control-response", message: { type: "control_response", response: { subtype: "success", request_id: "r5", response: { action: "cancel" } } } });
    const back = run([{ type: "control_request", request_id: "r5", request: { subtype: "elicitation", mcp_server_name: "s", message: "Which?" } }, (a as any).message]);
    expect(back.events.filter((e) => e.type === "request.resolved").map((e) => P(e).decision)).toEqual(["cancelled"]);
  });

  it("a user dialog: onUserDialog's result (completed with the answers, or cancelled)", async () => {
    const { answerRequest } = await import("../src/answer/answer.js");
    const o = opened([{ request: { dialogKind: "refusal_fallback_prompt", payload: {} }, options: { requestId: "r2" } }]);
    expect(answerRequest(o, { decision: "answered", answers: { choice: "retry" } }, { claude: "sdk" })).toEqual({ kind: "claude-user-dialog", result: { behavior: "completed", result: { choice: "retry" } } });
    expect(answerRequest(o, { decision: "cancelled" }, { claude: "sdk" })).toEqual({ kind: "claude-user-dialog", result: { behavior: "cancelled" } });
  });
});

describe("the compatibility matrix per version", () => {
  it("claude-sdk and claude-transcript: every type and subtype of the four pinned versions mapped or ignored, counted per version", () => {
    const c = JSON.parse(readFileSync(join(import.meta.dirname, "../generated/compatibility.json"), "utf8"));
    const sdk = c.surfaces["claude-sdk"];
    expect(sdk.upstream).toMatchObject({ version: "0.3.337", reports: "2.1.337", versions: [{ version: "0.3.333", reports: "2.1.333" }, { version: "0.2.141", reports: "2.1.141" }, { version: "0.2.62", reports: "2.1.62" }] });
    expect(sdk.kinds.message.versions).toEqual({ "0.3.337": { total: 13, mapped: 13, ignored: 0, missing: 0 }, "0.3.333": { total: 13, mapped: 13, ignored: 0, missing: 0 }, "0.2.141": { total: 10, mapped: 10, ignored: 0, missing: 0 }, "0.2.62": { total: 10, mapped: 10, ignored: 0, missing: 0 } });
    expect(sdk.kinds.message.subtypes["0.2.141"]).toEqual({ total: 27, mapped: 26, ignored: 1, missing: 0 });
    expect(sdk.kinds.message.subtypes["0.3.337"]).toMatchObject({ total: 37, missing: 0 });
    expect(sdk.kinds.message.subtypes["0.3.333"]).toMatchObject({ total: 37, missing: 0 });
    expect(sdk.kinds.message.subtypes["0.2.62"]).toEqual({ total: 15, mapped: 15, ignored: 0, missing: 0 });
    expect(sdk.kinds.wire.subtypes).toEqual({ "0.3.337": { total: 41, mapped: 41, ignored: 0, missing: 0 }, "0.3.333": { total: 41, mapped: 41, ignored: 0, missing: 0 }, "0.2.141": { total: 30, mapped: 30, ignored: 0, missing: 0 }, "0.2.62": { total: 17, mapped: 17, ignored: 0, missing: 0 } });
    expect(sdk.kinds.message.methods.conversation_reset).toMatchObject({ status: "mapped", versions: ["0.3.337", "0.3.333"] });
    const tr = c.surfaces["claude-transcript"].kinds.line.versions;
    // (each version's line types and `progress`)
    expect(tr["0.3.337"]).toMatchObject({ total: 17, missing: 0 });
    expect(tr["0.3.333"]).toMatchObject({ total: 16, missing: 0 });
    expect(tr["0.2.141"]).toMatchObject({ total: 9, missing: 0 });
    expect(tr["0.2.62"]).toMatchObject({ total: 7, missing: 0 });
  });
});

describe("a callback's null answer (SDK 0.3: answered by another client)", () => {
  it("a recorded null canUseTool answer resolves the request, with no decision and no error", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true });
    const ev = [
      ...n.pushLine(JSON.stringify({ seq: 1, dir: "in", channel: "permission", message: { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1", requestId: "r1" } } })),
      ...n.pushLine(JSON.stringify({ seq: 2, dir: "out", channel: "permission", message: null })),
    ];
    expect(ev.map((e) => e.type)).toEqual(["request.opened", "request.resolved"]);
    expect(P(ev[1])).toEqual({ requestType: "command_execution_approval", resolution: { answeredElsewhere: true } });
    expect(n.end()).toEqual([]);
  });
});
